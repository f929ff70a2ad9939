"""Safe defaults: no DEBUG or public key in the full stack, check --deploy clean, CSP, 404/500
pages, login throttling."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]


def _compose_env() -> dict[str, str]:
    """The web service's environment from docker-compose.yml, with its ${VAR:-default}s applied."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env: dict[str, str] = {}
    for key, value in compose["x-app"]["environment"].items():
        text = str(value)
        if ":?" in text:  # required: the operator supplies it
            text = secrets.token_urlsafe(50) if key == "DJANGO_SECRET_KEY" else ""
        text = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", text)
        env[key] = text
    return env


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


def test_compose_requires_a_secret_key_and_never_turns_debug_on():
    env = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["x-app"]["environment"]
    assert ":?" in env["DJANGO_SECRET_KEY"]
    assert "DJANGO_DEBUG" not in env


def test_check_deploy_with_the_compose_environment_prints_no_warnings():
    env = _compose_env()
    # The check never connects, but keep the database on SQLite in case a check looks.
    env.update({"DB_ENGINE": "sqlite", "PLAYGROUND_VAR_DIR": str(ROOT / "var")})
    result = _manage("check", "--deploy", env=env)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr + result.stdout


def test_full_stack_refuses_to_start_without_a_secret_key():
    env = {"CELERY_BROKER_URL": "redis://127.0.0.1:1/0"}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_full_stack_refuses_debug():
    env = {"CELERY_BROKER_URL": "redis://127.0.0.1:1/0", "DJANGO_SECRET_KEY": "x" * 60}
    result = _manage("check", env={**env, "DJANGO_DEBUG": "1"})
    assert result.returncode != 0 and "DJANGO_DEBUG is for embedded local use only" in result.stderr


def test_embedded_mode_generates_a_private_key_once(tmp_path):
    env = {"PLAYGROUND_VAR_DIR": str(tmp_path)}
    code = "from django.conf import settings; print(settings.SECRET_KEY, settings.DEBUG)"
    runs = [_manage("shell", "-c", code, env=env) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    key, debug = runs[0].stdout.split()[-2:]
    assert runs[1].stdout.split()[-2] == key and len(key) >= 50 and debug == "False"
    stored = tmp_path / "secret_key"
    assert stored.read_text().strip() == key
    assert stored.stat().st_mode & 0o077 == 0


def test_serve_debug_is_refused_on_a_public_interface():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="is for local use"):
        call_command("serve", "--debug", "--host", "0.0.0.0", "--no-demo")


@pytest.mark.django_db
def test_pages_carry_a_content_security_policy(client: Client):
    response = client.get(reverse("playground:home"))
    policy = response["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["object-src"] == "'none'"
    assert directives["style-src"] == "'self'" and "unsafe-eval" not in policy
    # Only style attributes (set by plotly's d3) may be inline; no script or <style> may.
    assert [d for d, v in directives.items() if "unsafe-inline" in v] == ["style-src-attr"]
    assert "frame-ancestors 'none'" in policy


@pytest.mark.django_db
def test_templates_have_no_inline_scripts_or_handlers():
    """The CSP forbids them; every script is a static file (JSON data blocks are not scripts)."""
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", text), path
        assert not re.search(r"\son[a-z]+=", text), path


@pytest.mark.django_db
def test_unknown_page_is_the_custom_404(client: Client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is nothing here" in response.content.decode()


def test_server_error_page_is_the_custom_500_without_details(settings):
    from django.views.defaults import server_error

    settings.DEBUG = False
    response = server_error(_request())
    body = response.content.decode()
    assert response.status_code == 500 and "Something went wrong" in body
    assert "Traceback" not in body and "SECRET" not in body


def _request():
    from django.test import RequestFactory

    return RequestFactory().get("/")


@pytest.mark.django_db
def test_login_is_throttled_after_repeated_failures(client: Client, user, settings):
    from django.core.cache import cache

    cache.clear()
    settings.LOGIN_FAILURES_PER_USER = 3
    url = reverse("login")
    for _ in range(3):
        assert client.post(url, {"username": "alice", "password": "wrong"}).status_code == 200
    refused = client.post(url, {"username": "alice", "password": "pw-alice-123"})
    assert refused.status_code == 429 and "Too many failed sign-ins" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    # Another user name from the same address is not blocked by alice's count.
    assert client.post(url, {"username": "bob", "password": "wrong"}).status_code == 200
    cache.clear()
    assert client.post(url, {"username": "alice", "password": "pw-alice-123"}).status_code == 302


# --- security issue 39, LOWs: a low-entropy key, the script catalog's Vary ---------------------


@pytest.mark.parametrize(
    "key",
    [
        "aaaaabbbbbcccccdddddeeeeefffffggggghhhhhiiiiijjjjj",  # runs: 10 characters, no period
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",  # an ordered sequence
        "0123456789" * 5 + "a",  # almost periodic
        "aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ",
    ],
)
def test_a_low_entropy_secret_key_is_refused(key):
    """Each passed the old check (50 characters or more, 10 distinct, not a repetition)."""
    from config.settings import secret_key_problem

    assert "too predictable" in secret_key_problem(key)


def test_random_secret_keys_of_every_usual_kind_pass():
    from django.core.management.utils import get_random_secret_key

    from config.settings import secret_key_problem

    for _ in range(200):
        for key in (secrets.token_urlsafe(50), secrets.token_hex(25), get_random_secret_key()):
            assert secret_key_problem(key) == "", key


def test_the_script_catalog_varies_on_the_cookie_that_picks_its_language():
    response = Client().get("/jsi18n/")
    assert response.status_code == 200
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",")}
    assert "cookie" in vary
