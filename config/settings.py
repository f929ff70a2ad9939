"""Django settings; everything that differs between machines is switched by environment variables.

- ``DJANGO_DEBUG`` (default off; ``manage.py serve --debug`` turns it on for local use; refused
  with a broker, i.e. in the full stack; served to loopback clients only, see config/asgi.py),
  ``DJANGO_SECRET_KEY`` (required with a broker, and refused when weak unless DEBUG; embedded
  mode generates one in ``var/secret_key``), ``DJANGO_ALLOWED_HOSTS`` (comma separated).
- ``PLAYGROUND_PUBLIC_URL``: the address students' devices reach for a live class's join link
  (also allowed as a host and CSRF origin); ``manage.py serve --room`` sets it when unset.
- ``DJANGO_HTTPS=1``: behind a TLS-terminating proxy (X-Forwarded-Proto): HTTPS redirect, HSTS
  (``DJANGO_HSTS_SECONDS``), secure cookies. docker-compose.yml sets it.
- ``DB_ENGINE=postgres`` with ``PGHOST``/``PGPORT``/``PGDATABASE``/``PGUSER``/``PGPASSWORD``
  (``PLAYGROUND_DB_CONN_MAX_AGE``: seconds a connection is kept, default 60, 0 closes each);
  SQLite (``SQLITE_PATH``, default ``var/db.sqlite3``) otherwise.
- ``REDIS_URL``: Redis channel layer; the in-memory one otherwise.
- ``CELERY_BROKER_URL``: a real broker and workers; eager tasks on ``memory://`` otherwise
  (embedded mode: ``manage.py serve`` runs them on daphne's loop, see playground/runs/tasks.py).
  ``CELERY_VISIBILITY_TIMEOUT``: seconds before Redis hands an unacknowledged run to another
  worker; ``PLAYGROUND_RUN_LEASE_SECONDS``: how long a run's heartbeat stays valid.
"""

import math
import os
import secrets
from collections import Counter
from pathlib import Path

import plotly
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from config.static import COLLECTED_STORAGE as COLLECTED_STATIC_STORAGE
from config.static import SOURCE_STORAGE as SOURCE_STATIC_STORAGE

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


VAR_DIR = Path(os.environ.get("PLAYGROUND_VAR_DIR", BASE_DIR / "var"))
# The full stack (docker-compose.yml): a real broker and separate workers.
FULL_STACK = "CELERY_BROKER_URL" in os.environ

DEBUG = _env_bool("DJANGO_DEBUG", False)
if DEBUG and FULL_STACK:
    raise ImproperlyConfigured(
        "DJANGO_DEBUG is for embedded local use only: its error pages show settings and "
        "queries, and it keeps every query in memory. Unset it in the full stack."
    )


def _embedded_secret_key() -> str:
    """The embedded server's own key: generated once, kept private under var/."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process created it first
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if FULL_STACK:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set: the full stack does not start without its own key "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    SECRET_KEY = _embedded_secret_key()

# Keys that sign sessions and CSRF tokens must not be guessable: placeholders copied from a
# README, Django's own generated development key, short or repetitive strings. DEBUG (local use)
# takes any key.
_PLACEHOLDER_KEYS = ("changeme", "change-me", "change_me", "placeholder", "your-secret", "secret")
SECRET_KEY_MIN_LENGTH = 50


def secret_key_problem(key: str) -> str:
    """Why ``key`` is too weak to sign sessions ("" when it is not)."""
    lowered = key.lower()
    if not key.strip():
        return "it is empty"
    if lowered.startswith("django-insecure"):
        return "it is Django's development key (django-insecure-...)"
    if any(word in lowered for word in _PLACEHOLDER_KEYS):
        return "it is a placeholder"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"it has {len(key)} characters, fewer than {SECRET_KEY_MIN_LENGTH}"
    if len(set(key)) < 10 or key in (key + key)[1:-1]:
        return "it repeats a few characters"
    if (bits := entropy_bits(key)) < SECRET_KEY_MIN_BITS:
        return (
            f"it is too predictable (about {bits:.0f} bits of entropy, "
            f"fewer than {SECRET_KEY_MIN_BITS})"
        )
    return ""


SECRET_KEY_MIN_BITS = 128


def _shannon_bits(symbols: list[int]) -> float:
    counts = Counter(symbols)
    return -sum(n * math.log2(n / len(symbols)) for n in counts.values())


def entropy_bits(key: str) -> float:
    """An estimate of the key's entropy: the lower of its characters' and of the steps between
    neighbours' (Shannon, times the length). Runs and ordered sequences (``aaaabbbb...``,
    ``abcd...``) have many characters but few kinds of steps; a random key (token_urlsafe(50):
    about 350 bits; token_hex(32): about 250) has many of both."""
    codes = [ord(c) for c in key]
    steps = [b - a for a, b in zip(codes, codes[1:], strict=False)]
    return min(_shannon_bits(codes), _shannon_bits(steps)) if steps else 0.0


if not DEBUG and (_problem := secret_key_problem(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY is too weak: {_problem}. Use a long random string "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))')."
    )
_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
ALLOWED_HOSTS = [h.strip() for h in _HOSTS.split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]


def public_url_parts(url: str) -> tuple[str, str]:
    """(origin, host for ALLOWED_HOSTS) of PLAYGROUND_PUBLIC_URL; an error names the variable."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError as err:
        raise ImproperlyConfigured(f"PLAYGROUND_PUBLIC_URL {url!r} is not a URL: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ImproperlyConfigured(
            f"PLAYGROUND_PUBLIC_URL {url!r} must be http:// or https:// with a host, "
            "e.g. http://192.168.1.20:8000"
        )
    if parts.path.strip("/") or parts.query or parts.fragment:
        raise ImproperlyConfigured(
            f"PLAYGROUND_PUBLIC_URL {url!r} must be an origin only (no path, query or fragment)"
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{parts.netloc.lower()}", host


def allow_public_url(url: str, allowed_hosts: list[str], trusted_origins: list[str]) -> str:
    """Add the public address's host and origin to the lists; return its origin."""
    origin, host = public_url_parts(url)
    if host not in allowed_hosts:
        allowed_hosts.append(host)
    if origin not in trusted_origins:
        trusted_origins.append(origin)
    return origin


# The address students' devices use to reach this server (live classes' join link and QR code),
# e.g. http://192.168.1.20:8000 or a proxy's https://class.example.org. Empty: the address the
# page was requested on. ``manage.py serve --room`` sets it to the detected network address.
PLAYGROUND_PUBLIC_URL = os.environ.get("PLAYGROUND_PUBLIC_URL", "").strip()
if PLAYGROUND_PUBLIC_URL:
    PLAYGROUND_PUBLIC_URL = allow_public_url(
        PLAYGROUND_PUBLIC_URL, ALLOWED_HOSTS, CSRF_TRUSTED_ORIGINS
    )

HTTPS = _env_bool("DJANGO_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", 31536000))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = _env_bool("DJANGO_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Every script and style sheet comes from our own static files (plotly.js included; its rules
# are in static/playground/plotly.css); JSON data sits in json_script blocks, which are not
# executed. Websockets are same-origin ('self'). Only style attributes may be inline: plotly's
# d3 sets them on SVG elements, and they cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "config.static.PlaygroundStaticFilesConfig",  # django.contrib.staticfiles
    "channels",
    "csp",
    "playground",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.compress.JsonGZipMiddleware",  # JSON only: pages carry the CSRF token (BREACH)
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the switch's cookie, else the first visit's Accept-Language, else English.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "playground.throttle.LoginThrottleMiddleware",
]

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
            # Persistent connections: Channels closes a connection older than CONN_MAX_AGE
            # around every database call of a consumer, and at 0 every student's answer paid a
            # new PostgreSQL connection (about half its time; a room of 200 answering at once
            # waited seconds for the tally). The health check replaces one the server dropped.
            "CONN_MAX_AGE": int(os.environ.get("PLAYGROUND_DB_CONN_MAX_AGE", "60")),
            "CONN_HEALTH_CHECKS": True,
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
            # Write-ahead logging lets the pages read while a run writes, and a commit appends
            # to the log without waiting for the disk (synchronous=NORMAL: safe against a crash
            # of the process; a power cut may lose the last commits, never corrupt the file).
            # A run commits every quarter second: at FULL that was a fifth of its time.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The debug page and error reports: URL passwords (REDIS_URL, CACHES, the channel layer's
# hosts, CELERY_BROKER_URL, the environment under WSGI) scrubbed as well as secret-named settings.
DEFAULT_EXCEPTION_REPORTER_FILTER = "config.reporting.ScrubbingReporterFilter"
# Sign-in and sign-up throttling counts per client address (playground/throttle.py): behind N
# proxies that append to X-Forwarded-For, the address the nearest untrusted hop gave. Behind the
# TLS proxy DJANGO_HTTPS describes, one by default (else every user would be the proxy).
PLAYGROUND_TRUSTED_PROXIES = int(os.environ.get("PLAYGROUND_TRUSTED_PROXIES", 1 if HTTPS else 0))
# Accounts one address may create, and sign-up forms it may post, per hour: a classroom behind
# one NAT signs up together, a script does not get far.
SIGNUPS_PER_ADDRESS = int(os.environ.get("PLAYGROUND_SIGNUPS_PER_ADDRESS", 20))
SIGNUP_ATTEMPTS_PER_ADDRESS = int(os.environ.get("PLAYGROUND_SIGNUP_ATTEMPTS_PER_ADDRESS", 60))
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "playground:home"
LOGOUT_REDIRECT_URL = "playground:home"

# English is the source language and the default; Simplified Chinese is the second. Each area keeps
# its own catalog (makemessages puts a file's strings in the first of these whose parent holds it):
# the web app's Python, the engine's explanations, and the rest (templates and JavaScript).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [
    BASE_DIR / "playground" / "locale",
    BASE_DIR / "scheduler_core" / "locale",
    BASE_DIR / "locale",
]
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
# Only the hashed files are kept (and compressed); plain names are still served from the sources.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
# PLAYGROUND_STATIC_COLLECTED=1 where collectstatic has run (the image; serve sets it itself):
# pages then name hashed, compressed files (config/static.py).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": COLLECTED_STATIC_STORAGE
        if _env_bool("PLAYGROUND_STATIC_COLLECTED", False)
        else SOURCE_STATIC_STORAGE
    },
}

# Uploads and pasted manifests: the same cap for both, checked again by the import form.
PLAYGROUND_IMPORT_MAX_BYTES = int(os.environ.get("PLAYGROUND_IMPORT_MAX_BYTES", 2 * 1024 * 1024))
# A gzipped upload may unzip to this much (kubectl get nodes -o yaml of 5,000 nodes is ~50 MB).
PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES = int(
    os.environ.get("PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES", 64 * 1024 * 1024)
)
DATA_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_IMPORT_MAX_BYTES + 256 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = PLAYGROUND_IMPORT_MAX_BYTES + 256 * 1024
FILE_UPLOAD_HANDLERS = [
    "playground.inputs.uploads.CappedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Bulk forms create at most this many objects per submission.
PLAYGROUND_BULK_MAX = int(os.environ.get("PLAYGROUND_BULK_MAX", 1000))
# Pods and ReplicaSets that the workloads of one import may create together.
PLAYGROUND_IMPORT_MAX_GENERATED = int(os.environ.get("PLAYGROUND_IMPORT_MAX_GENERATED", 5000))

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Shared by every web process: login throttling counts failures here.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "playground-cache",
        }
    }
# A run broadcasts in batches of 200 envelopes per layer message; a slow reader's queue may hold
# this many messages before the layer drops them (the consumer then reads the gap from the DB).
_CHANNEL_CAPACITY = int(os.environ.get("CHANNEL_CAPACITY", 1000))


def redis_channel_layer(url: str, capacity: int = _CHANNEL_CAPACITY) -> dict[str, object]:
    """The Redis channel layer on ``url``.

    A consumer waits for messages with BZPOPMIN for 5 s (channels_redis' brpop_timeout), and
    redis-py 8 gives every socket a 5 s read timeout by default: a websocket with nothing to
    read for 5 s (a run waiting at Permit, a quiet reconnect) then died with TimeoutError. The
    read timeout is set well above the blocking wait.
    """
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [{"address": url, "socket_timeout": 30, "socket_connect_timeout": 5}],
            "capacity": capacity,
            "expiry": 120,
        },
    }


if REDIS_URL:
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
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
# Fair shares of the runners (playground/runs/limits.py). An owner is a user, or an anonymous
# visitor's address. Embedded mode: runs running at once in all (threads of the server); more
# wait ("waiting for a free runner: all 4 runners are busy"). Full stack: the workers' slots in
# all (compose: 2 workers x WORKER_CONCURRENCY 2); an owner's share is half of them.
PLAYGROUND_EMBEDDED_RUNNERS = int(os.environ.get("PLAYGROUND_EMBEDDED_RUNNERS", 4))
PLAYGROUND_WORKER_SLOTS = int(os.environ.get("PLAYGROUND_WORKER_SLOTS", 4))
# Runs one owner may have running at once (and at most half the runners); more wait.
PLAYGROUND_RUNS_PER_USER = int(os.environ.get("PLAYGROUND_RUNS_PER_USER", 2))
# Of those, runs that can sit idle for long (a Permit plugin waiting for a user, an extender):
# more wait ("waiting: you already have 1 run that can wait at Permit or on an extender").
PLAYGROUND_PERMIT_RUNS_PER_USER = int(os.environ.get("PLAYGROUND_PERMIT_RUNS_PER_USER", 1))
# Embedded: runs whose pods left all wait at Permit for a user keep a thread but no runner;
# at most this many wait so at once (the pool has 64 threads in all).
PLAYGROUND_IDLE_RUNS = min(int(os.environ.get("PLAYGROUND_IDLE_RUNS", 32)), 56)
# Runs one owner may have pending or running at once, of every kind; starting more is refused.
PLAYGROUND_QUEUED_RUNS_PER_USER = int(os.environ.get("PLAYGROUND_QUEUED_RUNS_PER_USER", 6))
# The most time a run's extender calls may take in all: past it the run fails, naming the
# extender ("the extender at ... did not answer within 10 s, 12 calls in 120 s").
PLAYGROUND_EXTENDER_RUN_BUDGET_SECONDS = float(
    os.environ.get("PLAYGROUND_EXTENDER_RUN_BUDGET_SECONDS", 120)
)
# The longest a pod of a run waits at Permit; the engine's own cap is 15 minutes, as upstream.
PLAYGROUND_PERMIT_MAX_WAIT_SECONDS = float(
    os.environ.get("PLAYGROUND_PERMIT_MAX_WAIT_SECONDS", 300)
)

# Scheduler extenders in users' profiles may reach public hosts only; these host names,
# host:port pairs, addresses or networks (comma separated) may be private (SSRF guard,
# scheduler_core/extenders/policy.py). httpTimeout is capped at EXTENDER_MAX_TIMEOUT_SECONDS.
# The sample extender of the extenders lesson is allowed on top, in both modes: every process
# that runs a run serves it itself on 127.0.0.1:18913
# (playground/runs/execution/sample_extender.py), so the lesson works under docker-compose's
# defaults too. PLAYGROUND_SAMPLE_EXTENDER=0 turns it off.
SAMPLE_EXTENDER_ENABLED = os.environ.get("PLAYGROUND_SAMPLE_EXTENDER", "1") != "0"
EXTENDER_ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("EXTENDER_ALLOWED_HOSTS", "").split(",") if h.strip()
] + (["127.0.0.1:18913"] if SAMPLE_EXTENDER_ENABLED else [])
EXTENDER_MAX_TIMEOUT_SECONDS = float(os.environ.get("EXTENDER_MAX_TIMEOUT_SECONDS", 10))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
