"""Django settings; everything that differs between machines is switched by environment variables.

- ``DJANGO_DEBUG`` (default on), ``DJANGO_SECRET_KEY``, ``DJANGO_ALLOWED_HOSTS`` (comma separated).
- ``DB_ENGINE=postgres`` with ``PGHOST``/``PGPORT``/``PGDATABASE``/``PGUSER``/``PGPASSWORD``;
  SQLite (``SQLITE_PATH``, default ``var/db.sqlite3``) otherwise.
- ``REDIS_URL``: Redis channel layer; the in-memory one otherwise.
- ``CELERY_BROKER_URL``: a real broker and workers; eager tasks on ``memory://`` otherwise
  (embedded mode: ``manage.py serve`` runs them on daphne's loop, see playground/runs/tasks.py).
  ``CELERY_VISIBILITY_TIMEOUT``: seconds before Redis hands an unacknowledged run to another
  worker; ``PLAYGROUND_RUN_LEASE_SECONDS``: how long a run's heartbeat stays valid.
"""

import os
from pathlib import Path

import plotly

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me-kube-scheduler-playground"
)
_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
ALLOWED_HOSTS = [h.strip() for h in _HOSTS.split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "playground",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# A lesson page shows its run page in a frame beside the narrative; other sites still may not.
X_FRAME_OPTIONS = "SAMEORIGIN"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

VAR_DIR = Path(os.environ.get("PLAYGROUND_VAR_DIR", BASE_DIR / "var"))

if os.environ.get("DB_ENGINE", "sqlite").lower() in {"postgres", "postgresql"}:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "HOST": os.environ.get("PGHOST", "127.0.0.1"),
            "PORT": os.environ.get("PGPORT", "5432"),
            "NAME": os.environ.get("PGDATABASE", "playground"),
            "USER": os.environ.get("PGUSER", "postgres"),
            "PASSWORD": os.environ.get("PGPASSWORD", ""),
            "ATOMIC_REQUESTS": False,
        }
    }
else:
    _sqlite_path = Path(os.environ.get("SQLITE_PATH", VAR_DIR / "db.sqlite3"))
    _sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": _sqlite_path,
            # A file, not :memory:, so that live servers in another process and Channels work;
            # one per test process so that concurrent test runs in one tree do not collide.
            # Subprocesses (a Celery worker) get the path through SQLITE_TEST_PATH.
            "TEST": {
                "NAME": os.environ.get(
                    "SQLITE_TEST_PATH",
                    str(_sqlite_path.with_name(f"test_{os.getpid()}_{_sqlite_path.name}")),
                )
            },
            # IMMEDIATE transactions take the write lock up front, so two runs writing at once
            # (a what-if) wait for each other instead of failing with "database is locked".
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "playground:home"
LOGOUT_REDIRECT_URL = "playground:home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request when it is missing
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # plotly.js ships inside the plotly wheel: served from there, nothing fetched from a CDN.
    ("plotly", Path(plotly.__file__).parent / "package_data"),
]
WHITENOISE_USE_FINDERS = True

# Uploads and pasted manifests: the same cap for both, checked again by the import form.
PLAYGROUND_IMPORT_MAX_BYTES = int(os.environ.get("PLAYGROUND_IMPORT_MAX_BYTES", 2 * 1024 * 1024))
# A gzipped upload may unzip to this much (kubectl get nodes -o yaml of 5,000 nodes is ~50 MB).
PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES = int(
    os.environ.get("PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES", 64 * 1024 * 1024)
)
DATA_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_IMPORT_MAX_BYTES + 256 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_IMPORT_MAX_BYTES + 256 * 1024
FILE_UPLOAD_HANDLERS = [
    "playground.uploads.CappedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Bulk forms create at most this many objects per submission.
PLAYGROUND_BULK_MAX = int(os.environ.get("PLAYGROUND_BULK_MAX", 1000))

REDIS_URL = os.environ.get("REDIS_URL", "")
# A run broadcasts in batches of 200 envelopes per layer message; a slow reader's queue may hold
# this many messages before the layer drops them (the consumer then reads the gap from the DB).
_CHANNEL_CAPACITY = int(os.environ.get("CHANNEL_CAPACITY", 1000))
# channels_redis waits for messages with a 5 s BZPOPMIN, and redis-py's default socket timeout
# is also 5 s: an idle consumer on a busy machine then died with "Timeout reading from".
CHANNEL_REDIS_SOCKET_TIMEOUT = 30
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": CHANNEL_REDIS_SOCKET_TIMEOUT}],
                "capacity": _CHANNEL_CAPACITY,
                "expiry": 120,
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": _CHANNEL_CAPACITY, "expiry": 120},
        }
    }

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
CELERY_TASK_ALWAYS_EAGER = "CELERY_BROKER_URL" not in os.environ
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "cache+memory://")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# A run's message is acknowledged when the run is done: a worker lost mid-run means another
# delivery, which playground.runs.services makes harmless. One message at a time per worker process.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", 3600)),
}
PLAYGROUND_RUN_LEASE_SECONDS = float(os.environ.get("PLAYGROUND_RUN_LEASE_SECONDS", 30))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
