"""Helpers for the integration tests: ports, binaries, a Celery worker process.

Kept out of conftest.py so test modules can import them by a name no other folder uses.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port} after {timeout}s")


def _need(binary: str, hint: str) -> str:
    path = shutil.which(binary)
    if path is None:
        message = f"{binary} is not installed ({hint})"
        if os.environ.get("CI"):
            pytest.fail(f"integration tests cannot run in CI: {message}")
        pytest.skip(message)
    return path


def _db_env() -> dict[str, str]:
    """Environment that points config.settings at the test database."""
    from django.db import connections

    db = connections["default"].settings_dict
    if "postgresql" in db["ENGINE"]:
        return {
            "DB_ENGINE": "postgres",
            "PGHOST": str(db["HOST"]),
            "PGPORT": str(db["PORT"]),
            "PGDATABASE": str(db["NAME"]),
            "PGUSER": str(db["USER"]),
            "PGPASSWORD": str(db.get("PASSWORD") or ""),
        }
    return {"DB_ENGINE": "sqlite", "SQLITE_PATH": str(db["NAME"])}


def _secret_key() -> str:
    """The test process's key: a broker in the environment means the workers require one."""
    from django.conf import settings

    return str(settings.SECRET_KEY)


class Worker:
    """A ``celery worker`` subprocess (solo pool, or ``pool``) on the test database and Redis."""

    def __init__(
        self, urls: dict[str, str], log: Path, *, pool: str = "solo", **extra_env: str
    ) -> None:
        env = {
            **os.environ,
            **_db_env(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_SECRET_KEY": _secret_key(),
            "CELERY_BROKER_URL": urls["broker"],
            "REDIS_URL": urls["layer"],
            "CELERY_VISIBILITY_TIMEOUT": "2",
            "PLAYGROUND_RUN_LEASE_SECONDS": "1.5",
            **extra_env,
        }
        env.pop("CI", None)
        self.log = log
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                f"--pool={pool}",
                "--concurrency=1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
                "-n",
                f"test-{secrets.token_hex(4)}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        """SIGKILL: no shutdown, no acknowledgement, as a crashed machine."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def stored_seqs(run_id: int) -> list[int]:
    """Every seq a run stored, sorted: its events, and the seq range of each cycle record."""
    from playground.models import RunCycle, RunEvent
    from playground.runs.storage.packs import expand

    payloads = (
        RunEvent.objects.filter(run_id=run_id).order_by("seq").values_list("payload", flat=True)
    )
    seqs = [e["seq"] for e in expand(payloads)]
    for first, last in RunCycle.objects.filter(run_id=run_id).values_list("seq_first", "seq_last"):
        seqs.extend(range(first, last + 1))
    return sorted(seqs)
