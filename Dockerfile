# The playground's image for docker-compose.yml (web and worker run the same image).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# gettext's msgfmt compiles the translation catalogs (the .mo files are build output).
RUN apt-get update && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml ./
COPY scheduler_core ./scheduler_core
COPY playground ./playground
COPY config ./config
COPY templates ./templates
COPY static ./static
COPY locale ./locale
COPY manage.py ./
# Pages name the hashed, gzip- and Brotli-compressed files collectstatic writes (config/static.py).
ENV PLAYGROUND_STATIC_COLLECTED=1
RUN pip install --no-cache-dir -e . \
    && DJANGO_SECRET_KEY=build python manage.py compilemessages -v0 \
    && DJANGO_SECRET_KEY=build python manage.py collectstatic --noinput -v0
EXPOSE 8000
