"""The full stack started as docker-compose.yml starts it, natively: the same commands and the
same environment (its defaults, plus only what a user must set), with the service host names
pointed at a throwaway PostgreSQL and Redis on loopback ports.

It proves the documented start: the web command's chain (migrate, load_demo, requeue_runs,
daphne) gets to daphne, the demo content is there, and a lesson's run goes through a Celery
worker, the extenders lesson included (its sample extender is served by the worker itself).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
import yaml
from stack import ROOT, _free_port, _need, _wait_port

pytestmark = pytest.mark.integration

TIMEOUT = 120
_VAR = re.compile(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}")


def compose_env(template: dict[str, object], given: dict[str, str]) -> dict[str, str]:
    """The environment compose hands a container: ``${X:-default}``, ``${X:?message}``, ``${X}``
    resolved against ``given`` (what the user exported), as compose resolves them."""

    def resolve(match: re.Match[str]) -> str:
        name, op, arg = match[1], match[2], match[3] or ""
        value = given.get(name, "")
        if op == ":-":
            return value or arg
        if op == ":?" and not value:
            raise AssertionError(f"compose refuses to start: {name}: {arg}")
        return value

    return {key: _VAR.sub(resolve, str(value)) for key, value in template.items()}


def test_compose_env_resolves_defaults_and_required_variables():
    template = {"A": "${A:-1}", "B": "${B:?set B}", "C": "${C:-}", "D": "x-${D}"}
    assert compose_env(template, {"B": "b", "D": "d"}) == {"A": "1", "B": "b", "C": "", "D": "x-d"}
    with pytest.raises(AssertionError, match="set B"):
        compose_env(template, {})


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture
def stack_services(_postgres_server) -> Iterator[dict[str, str]]:
    """A database and a Redis as compose's ``postgres`` and ``redis`` services provide them."""
    binary = _need("redis-server", "apt-get install redis-server")
    psql = str(next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))), "psql"))
    database = f"compose_{secrets.token_hex(4)}"
    for sql in (
        "DO $$ BEGIN CREATE ROLE playground LOGIN PASSWORD 'playground';"
        " EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        f"CREATE DATABASE {database} OWNER playground",
    ):
        subprocess.run(
            [psql, "-h", "127.0.0.1", "-p", str(_postgres_server), "-U", "postgres", "-c", sql],
            check=True,
            capture_output=True,
        )
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="redis-compose-")
    redis = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--dir",
            workdir,
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port)
        yield {"pg_port": str(_postgres_server), "database": database, "redis_port": str(port)}
    finally:
        redis.terminate()
        redis.wait(timeout=10)


def _native(env: dict[str, str], services: dict[str, str]) -> dict[str, str]:
    """Compose's service names become loopback addresses; nothing else changes."""
    out = dict(env)
    out["PGHOST"] = "127.0.0.1"
    out["PGPORT"] = services["pg_port"]
    out["PGDATABASE"] = services["database"]
    for key in ("REDIS_URL", "CELERY_BROKER_URL"):
        out[key] = out[key].replace("redis:6379", f"127.0.0.1:{services['redis_port']}")
    return out


def _command(service: dict, port: int) -> str:
    command = service["command"]
    text = command if isinstance(command, str) else shlex.join(command)
    # The container's published port becomes a free loopback one.
    return text.replace("-b 0.0.0.0 -p 8000", f"-b 127.0.0.1 -p {port}")


class Stack:
    def __init__(self, compose: dict, services: dict[str, str], logs: Path) -> None:
        given = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}
        self.port = _free_port()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs = logs
        for name in ("web", "worker"):
            service = compose["services"][name]
            env = _native(compose_env(service["environment"], given), services)
            keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR")}
            env = {**keep, **env, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
            self.procs.append(
                subprocess.Popen(
                    ["sh", "-c", _command(service, self.port)],
                    cwd=ROOT,
                    env=env,
                    stdout=(logs / f"{name}.log").open("wb"),
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        self.cookies: dict[str, str] = {}

    def log(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logs.glob("*.log"))
        )

    def wait_web(self) -> None:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.procs[0].poll() is not None:
                raise AssertionError(
                    f"the web command exited {self.procs[0].returncode}\n{self.log()}"
                )
            try:
                _wait_port(self.port, timeout=1)
                return
            except RuntimeError:
                continue
        raise AssertionError(f"daphne did not start in {TIMEOUT}s\n{self.log()}")

    def request(self, method: str, path: str, data: dict[str, str] | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        origin = f"https://localhost:{self.port}"
        headers = {
            # Compose serves behind a TLS-terminating proxy (DJANGO_HTTPS=1 by default).
            "X-Forwarded-Proto": "https",
            "Host": f"localhost:{self.port}",
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
        }
        body = None
        if data is not None:
            body = urlencode({**data, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")})
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "Origin": origin,
                "Referer": origin + "/",
            }
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, response.getheader("Location"), response.read().decode()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@pytest.fixture
def stack(compose, stack_services, tmp_path) -> Iterator[Stack]:
    started = Stack(compose, stack_services, tmp_path)
    try:
        started.wait_web()
        yield started
    finally:
        started.stop()


def _run_ref(page: str) -> str:
    found = re.search(r"/runs/([\w.:-]+)/", page)
    assert found, "the lesson page shows no run: " + page[page.find("<main") :][:1500]
    return found[1]


def _wait_run(stack: Stack, ref: str) -> dict:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        status, _, body = stack.request("GET", f"/runs/{ref}/events.json?after=999999999")
        assert status == 200, (status, body[:500])
        data = json.loads(body)
        if data["terminal"]:
            return data
        time.sleep(0.3)
    raise AssertionError(f"run {ref} did not finish in {TIMEOUT}s\n{stack.log()}")


def test_the_stack_starts_as_compose_starts_it_with_demo_content_and_runs(stack):
    status, _, page = stack.request("GET", "/lessons/")
    assert status == 200, page[:500]
    course = ROOT / "playground" / "lessons" / "course"
    slugs = [d.name.split("-", 1)[1] for d in sorted(course.iterdir()) if d.is_dir()]
    assert len(slugs) >= 20  # the course as shipped; each one must be listed
    for slug in slugs:
        assert f"/lessons/{slug}/" in page, f"lesson {slug} is not listed"
    status, _, home = stack.request("GET", "/")
    assert status == 200
    assert "Large cluster (500 nodes)" in home, "the demo clusters are not loaded"

    # The extenders lesson: its profile calls the sample extender, which the worker serves.
    for slug in ("scheduling-cycle", "extenders"):
        status, _, page = stack.request("GET", f"/lessons/{slug}/")
        assert status == 200
        status, location, body = stack.request("POST", f"/lessons/{slug}/run/", {})
        assert status == 302, (status, body[:500])
        status, _, page = stack.request("GET", location.split("#", 1)[0])
        assert status == 200, (status, page[:500])
        ref = _run_ref(page)
        result = _wait_run(stack, ref)
        assert result["status"] == "succeeded", (slug, result["error"], stack.log())
        status, _, body = stack.request("GET", f"/runs/{ref}/cycles.json?limit=100")
        cycles = json.loads(body)["cycles"]
        assert cycles and any("Scheduled" in json.dumps(c) for c in cycles), (slug, cycles[:3])
