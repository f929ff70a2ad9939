"""The real pieces, started as fixtures: redis-server, Celery worker processes, daphne.

Skipped when redis-server is missing locally; a failure when ``CI`` is set, so CI cannot go
green by skipping. Tests using these must be ``django_db(transaction=True)``: the worker and the
server read and write the test database from other processes.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from daphne_server import start_daphne
from stack import Worker, _free_port, _need, _wait_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A throwaway redis-server on a random loopback port; yields its base URL."""
    binary = _need("redis-server", "apt-get install redis-server")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="redis-test-")
    proc = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            workdir,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port)
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def stack_urls(redis_url: str) -> dict[str, str]:
    """Broker and channel layer in separate Redis databases, unique per test session."""
    return {"broker": f"{redis_url}/0", "layer": f"{redis_url}/1"}


@pytest.fixture
def start_worker(stack_urls, django_db_setup, tmp_path):
    """Start Celery workers for one test; all of them are stopped at its end."""
    workers: list[Worker] = []

    def start(*, pool: str = "solo", **extra_env: str) -> Worker:
        log = tmp_path / f"worker-{len(workers)}.log"
        worker = Worker(stack_urls, log, pool=pool, **extra_env)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


@pytest.fixture
def celery_worker(start_worker):
    return start_worker()


def _start_server(layer_url: str | None, broker_url: str | None):
    return start_daphne(layer_url, broker_url)


@pytest.fixture(scope="module")
def live_asgi(stack_urls, django_db_setup, django_db_blocker):
    """daphne in a forked process, with the Redis channel layer and broker: base http URL."""
    with django_db_blocker.unblock():  # the child inherits the blocker's state at fork
        process = _start_server(stack_urls["layer"], stack_urls["broker"])
    try:
        yield f"http://127.0.0.1:{process.port.value}"
    finally:
        process.terminate()
        process.join(timeout=10)


@pytest.fixture(scope="module")
def embedded_asgi(django_db_setup, django_db_blocker):
    """daphne with the embedded settings: in-memory channel layer, tasks on the server's loop."""
    with django_db_blocker.unblock():
        process = _start_server(None, None)
    try:
        yield f"http://127.0.0.1:{process.port.value}"
    finally:
        process.terminate()
        process.join(timeout=10)
