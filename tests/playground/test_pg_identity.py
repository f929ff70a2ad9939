"""Identity: sign-in throttling that locks out no other user's correct sign-in, sign-up
throttling, weak secret keys refused, DEBUG served to this machine only and with no password on
its pages, and websockets only from the page's own origin (scheme, host and port)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.core.cache import cache
from django.test import Client, RequestFactory
from django.urls import reverse

from config.origin import origin_allowed
from config.reporting import scrub_url_credentials
from config.settings import secret_key_problem
from playground.management.commands.serve import is_loopback

ROOT = Path(__file__).resolve().parents[2]
LOGIN = "/accounts/login/"


@pytest.fixture
def fresh_cache(settings):
    # Failed sign-ins hash the guess: the fast hasher first keeps sixty of them quick.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
    cache.clear()
    yield
    cache.clear()


def _client(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def _signed_in(response) -> bool:
    return response.status_code == 302


# --- sign-in ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_failures_from_one_address_lock_out_no_other_users_correct_sign_in(
    fresh_cache, user, other_user, django_user_model, settings
):
    settings.LOGIN_FAILURES_PER_ADDRESS = 50
    attacker = _client("10.0.0.9")
    for i in range(60):  # a spray over many accounts from the proxy everyone shares
        attacker.post(LOGIN, {"username": f"victim{i}", "password": "guess"})
    colleague = _client("10.0.0.9")
    assert _signed_in(colleague.post(LOGIN, {"username": "bob", "password": "pw-bob-123"}))
    assert _signed_in(
        _client("10.0.0.9").post(LOGIN, {"username": "alice", "password": "pw-alice-123"})
    )


@pytest.mark.django_db
def test_past_the_address_cap_each_account_gets_only_a_few_guesses(
    fresh_cache, user, other_user, settings
):
    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    settings.LOGIN_FAILURES_PER_PAIR_SLOWED = 2
    attacker = _client("10.0.0.9")
    for i in range(5):
        attacker.post(LOGIN, {"username": f"other{i}", "password": "guess"})
    statuses = [
        attacker.post(LOGIN, {"username": "alice", "password": "guess"}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 429, 429]
    # Elsewhere alice is untouched, and bob, never guessed, signs in from the slowed address.
    assert _signed_in(
        _client("10.0.0.1").post(LOGIN, {"username": "alice", "password": "pw-alice-123"})
    )
    assert _signed_in(
        _client("10.0.0.9").post(LOGIN, {"username": "bob", "password": "pw-bob-123"})
    )


@pytest.mark.django_db
def test_a_known_browser_is_not_slowed_by_its_addresss_count(fresh_cache, user, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    settings.LOGIN_FAILURES_PER_PAIR_SLOWED = 1
    owner = _client("10.0.0.9")
    assert _signed_in(owner.post(LOGIN, {"username": "alice", "password": "pw-alice-123"}))
    for i in range(3):
        _client("10.0.0.9").post(LOGIN, {"username": f"other{i}", "password": "guess"})
    _client("10.0.0.9").post(LOGIN, {"username": "alice", "password": "typo"})
    correct = {"username": "alice", "password": "pw-alice-123"}
    assert _client("10.0.0.9").post(LOGIN, correct).status_code == 429  # slowed: a stranger
    assert _signed_in(owner.post(LOGIN, correct))


@pytest.mark.django_db
def test_one_account_guessed_from_one_address_is_locked_there_only(fresh_cache, user, settings):
    settings.LOGIN_FAILURES_PER_PAIR = 3
    attacker = _client("10.0.0.9")
    for _ in range(3):
        assert attacker.post(LOGIN, {"username": "alice", "password": "x"}).status_code == 200
    refused = attacker.post(LOGIN, {"username": "alice", "password": "pw-alice-123"})
    assert refused.status_code == 429 and "Too many failed sign-ins" in refused.content.decode()
    assert refused["Retry-After"] == "900"
    assert _signed_in(
        _client("10.0.0.1").post(LOGIN, {"username": "alice", "password": "pw-alice-123"})
    )


@pytest.mark.django_db
def test_an_account_under_attack_still_lets_its_owners_known_browser_in(
    fresh_cache, user, settings
):
    settings.LOGIN_FAILURES_PER_USER = 4
    owner = _client("192.0.2.10")
    assert _signed_in(owner.post(LOGIN, {"username": "alice", "password": "pw-alice-123"}))
    known = owner.cookies["signed_in_before"].value
    owner.logout()  # (the test client forgets every cookie; a browser keeps this one)
    owner.cookies["signed_in_before"] = known
    for i in range(4):  # from many addresses: the account is under attack
        _client(f"198.51.100.{i}").post(LOGIN, {"username": "alice", "password": "x"})
    stranger = _client("203.0.113.5")
    assert (
        stranger.post(LOGIN, {"username": "alice", "password": "pw-alice-123"}).status_code == 429
    )
    assert _signed_in(owner.post(LOGIN, {"username": "alice", "password": "pw-alice-123"}))


@pytest.mark.django_db
def test_a_forged_known_browser_cookie_is_ignored(fresh_cache, user, settings):
    settings.LOGIN_FAILURES_PER_USER = 2
    for _ in range(2):
        _client("198.51.100.1").post(LOGIN, {"username": "alice", "password": "x"})
    forger = _client("203.0.113.5")
    forger.cookies["signed_in_before"] = '["alice"]'
    assert forger.post(LOGIN, {"username": "alice", "password": "pw-alice-123"}).status_code == 429


@pytest.mark.django_db
def test_trusted_proxies_count_the_forwarded_address(fresh_cache, user, settings):
    settings.LOGIN_FAILURES_PER_PAIR = 2
    settings.PLAYGROUND_TRUSTED_PROXIES = 1
    proxy = _client("127.0.0.1")
    for _ in range(2):
        proxy.post(LOGIN, {"username": "alice", "password": "x"}, HTTP_X_FORWARDED_FOR="1.1.1.1")
    locked = {"username": "alice", "password": "pw-alice-123"}
    assert proxy.post(LOGIN, locked, HTTP_X_FORWARDED_FOR="1.1.1.1").status_code == 429
    # A client cannot pick its own address: the proxy appends the real one after it.
    assert proxy.post(LOGIN, locked, HTTP_X_FORWARDED_FOR="9.9.9.9, 1.1.1.1").status_code == 429
    assert _signed_in(proxy.post(LOGIN, locked, HTTP_X_FORWARDED_FOR="1.1.1.1, 2.2.2.2"))


# --- sign-up ------------------------------------------------------------------------------------


def _signup(client: Client, name: str):
    password = "a-long-pass-phrase-7"
    return client.post(
        reverse("playground:signup"),
        {"username": name, "password1": password, "password2": password},
    )


@pytest.mark.django_db
def test_sign_ups_are_throttled_per_address(fresh_cache, settings, django_user_model):
    settings.SIGNUPS_PER_ADDRESS = 2
    for i in range(2):
        assert _signup(_client("10.0.0.9"), f"new{i}").status_code == 302
    refused = _signup(_client("10.0.0.9"), "new2")
    assert refused.status_code == 429 and "Too many sign-ups" in refused.content.decode()
    assert not django_user_model.objects.filter(username="new2").exists()
    assert _signup(_client("10.0.0.10"), "new3").status_code == 302


@pytest.mark.django_db
def test_failed_sign_up_posts_are_throttled_too(fresh_cache, settings):
    settings.SIGNUP_ATTEMPTS_PER_ADDRESS = 3
    client = _client("10.0.0.9")
    bad = {"username": "x", "password1": "a", "password2": "b"}
    assert [client.post(reverse("playground:signup"), bad).status_code for _ in range(4)] == [
        200,
        200,
        200,
        429,
    ]


# --- secret keys --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("", "empty"),
        ("changeme", "placeholder"),
        ("CHANGEME-" + "q8Zr1xLp0Wm3" * 5, "placeholder"),
        ("django-insecure-" + "k3j4h5g6f7d8s9a0" * 4, "development key"),
        ("Zq8r1xLpW0m3vB7nT2y", "fewer than 50"),
        ("x" * 60, "repeats"),
        ("abcdefghij" * 6, "repeats"),
        ("abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc", "repeats"),
    ],
)
def test_weak_secret_keys_are_named(key, why):
    assert why in secret_key_problem(key)


def test_strong_secret_keys_pass():
    import secrets

    assert secret_key_problem(secrets.token_urlsafe(50)) == ""
    assert secret_key_problem(secrets.token_hex(32)) == ""


def _manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    base.pop("REDIS_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_weak_secret_key_stops_the_server_with_a_clear_error(tmp_path):
    env = {"PLAYGROUND_VAR_DIR": str(tmp_path), "DJANGO_SECRET_KEY": "changeme"}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is too weak: it is a placeholder" in result.stderr
    full_stack = {**env, "CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}
    assert "too weak" in _manage("check", env=full_stack).stderr


def test_behind_the_tls_proxy_the_forwarded_address_is_counted_by_default(tmp_path):
    code = "from django.conf import settings; print(settings.PLAYGROUND_TRUSTED_PROXIES)"
    env = {"PLAYGROUND_VAR_DIR": str(tmp_path)}
    proxied = _manage("shell", "-c", code, env={**env, "DJANGO_HTTPS": "1"})
    direct = _manage("shell", "-c", code, env=env)
    assert (proxied.stdout.split()[-1], direct.stdout.split()[-1]) == ("1", "0"), proxied.stderr


# --- DEBUG --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.4", False),
        ("example.com", False),
    ],
)
def test_loopback_hosts(host, loopback):
    assert is_loopback(host) is loopback


def test_serve_refuses_a_public_bind_when_settings_turn_debug_on(settings):
    from django.core.management import CommandError, call_command

    settings.DEBUG = True
    with pytest.raises(CommandError, match="not 0.0.0.0"):
        call_command("serve", "--host", "0.0.0.0", "--no-demo")


def test_django_debug_env_with_a_public_bind_does_not_start(tmp_path):
    env = {"PLAYGROUND_VAR_DIR": str(tmp_path), "DJANGO_DEBUG": "1"}
    result = _manage("serve", "--host", "0.0.0.0", "--port", "1", "--no-demo", env=env)
    assert result.returncode != 0 and "is for local use" in result.stderr
    assert "Serving on" not in result.stdout


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_while_debug_is_on_only_this_machine_is_served(settings):
    from config.asgi import application

    settings.DEBUG = True
    outside = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"localhost")])
    outside.scope["client"] = ["192.0.2.7", 50000]
    assert (await outside.get_response(timeout=30))["status"] == 403
    inside = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"localhost")])
    inside.scope["client"] = ["127.0.0.1", 50000]
    assert (await inside.get_response(timeout=30))["status"] == 200
    socket = WebsocketCommunicator(
        application,
        "/ws/runs/1.x/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    socket.scope["client"] = ["192.0.2.7", 50000]
    assert not (await socket.connect())[0]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("redis://:s3cret-pw@redis:6379/0", "redis://:********@redis:6379/0"),
        ("redis://default:s3cret-pw@redis:6379/0", "redis://default:********@redis:6379/0"),
        ("rediss://tokenonly@host/1", "rediss://********@host/1"),
        (
            "postgres://app:pw@db/x and amqp://u:p@mq//",
            "postgres://app:********@db/x and amqp://u:********@mq//",
        ),
        ("redis://redis:6379/0", "redis://redis:6379/0"),
    ],
)
def test_url_passwords_are_scrubbed(text, shown):
    assert scrub_url_credentials(text) == shown


def test_the_debug_page_shows_no_redis_or_database_password(settings):
    import secrets

    from django.views.debug import ExceptionReporter

    # Made at run time: the page quotes the source lines around each frame.
    secret_by_name = {
        name: secrets.token_hex(8) for name in ("redis", "broker", "cache", "meta", "local")
    }
    settings.DEBUG = True
    settings.REDIS_URL = f"redis://:{secret_by_name['redis']}@redis:6379/0"
    settings.CELERY_BROKER_URL = f"redis://:{secret_by_name['broker']}@redis:6379/1"
    settings.CHANNEL_LAYERS = {"default": {"CONFIG": {"hosts": [{"address": settings.REDIS_URL}]}}}
    settings.CACHES = {
        **settings.CACHES,
        "other": {"LOCATION": f"redis://u:{secret_by_name['cache']}@r/2"},
    }
    request = RequestFactory().get("/", REDIS_URL=f"redis://:{secret_by_name['meta']}@redis/0")

    def failing(redis_url: str) -> None:
        raise RuntimeError("boom")

    try:
        failing(f"redis://:{secret_by_name['local']}@redis/0")
    except RuntimeError:
        html = ExceptionReporter(request, *sys.exc_info()).get_traceback_html()
    for name, secret in secret_by_name.items():
        assert secret not in html, name
    assert "redis://:********@redis:6379/0" in html


# --- websocket origin ---------------------------------------------------------------------------


def _scope(origin: str | None, host: str = "localhost:8000", **headers: str) -> dict:
    pairs = [(b"host", host.encode())]
    if origin is not None:
        pairs.append((b"origin", origin.encode()))
    pairs += [(k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    return {"type": "websocket", "headers": pairs}


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        ("http://localhost:8000", "localhost:8000", True),
        ("https://localhost:8000", "localhost:8000", False),  # scheme differs
        ("http://localhost:8001", "localhost:8000", False),  # port differs
        ("http://localhost", "localhost:8000", False),  # default port 80 is not 8000
        ("http://localhost", "localhost", True),
        ("http://localhost:80", "localhost", True),
        ("http://evil.example:8000", "localhost:8000", False),
        ("http://evil.example", "evil.example", False),  # not in ALLOWED_HOSTS
        ("http://[::1]:8000", "[::1]:8000", True),
        ("null", "localhost:8000", False),
        ("http://localhost:8000/path", "localhost:8000", False),
        (None, "localhost:8000", False),
    ],
)
def test_websocket_origin_must_match_scheme_host_and_port(origin, host, allowed):
    assert origin_allowed(_scope(origin, host)) is allowed


def test_behind_a_tls_proxy_the_origin_is_https(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    scope = _scope("https://example.com", "example.com", X_Forwarded_Proto="https")
    settings.ALLOWED_HOSTS = ["example.com"]
    assert origin_allowed(scope)
    assert not origin_allowed(
        _scope("http://example.com", "example.com", X_Forwarded_Proto="https")
    )
    assert not origin_allowed(_scope("https://example.com", "example.com"))  # not secure
    settings.SECURE_PROXY_SSL_HEADER = None
    assert not origin_allowed(scope)  # the header is not trusted without DJANGO_HTTPS


def test_csrf_trusted_origins_may_open_websockets(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://app.example.com"]
    assert origin_allowed(_scope("https://app.example.com", "localhost:8000"))
    assert not origin_allowed(_scope("https://app.example.com:444", "localhost:8000"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_application_refuses_a_websocket_with_another_port():
    from config.asgi import application

    for origin in (b"http://localhost:8001", b"https://localhost:8000"):
        socket = WebsocketCommunicator(
            application,
            "/ws/runs/1.x/",
            headers=[(b"origin", origin), (b"host", b"localhost:8000")],
        )
        assert not (await socket.connect())[0]
