"""Faults around a real Celery worker: Redis stops for 5 s mid-run; runs queued across a restart.

Each test has its own redis-server (append-only file on, as in docker-compose.yml), so that
stopping it does not disturb the session's.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time

import pytest
from celery import Celery
from stack import _free_port, _need, _wait_port, stored_seqs
from test_runs_stack import _big_cluster, _wait_for

from playground.models import Run, RunCycle
from playground.profiles import services as profile_services
from playground.runs import services as runs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


class RedisServer:
    """A redis-server that can be stopped and started again on the same port and data."""

    def __init__(self) -> None:
        self.binary = _need("redis-server", "apt-get install redis-server")
        self.port = _free_port()
        self.dir = tempfile.mkdtemp(prefix="redis-fault-")
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", self.dir,
             "--save", "", "--appendonly", "yes", "--appendfsync", "always"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@pytest.fixture
def redis_server():
    server = RedisServer()
    server.start()
    yield server
    server.stop()
    shutil.rmtree(server.dir, ignore_errors=True)


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


def _queued(user, cluster, profile, monkeypatch) -> Run:
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    return run


def _send(broker: str, run_id: int) -> None:
    """What enqueue_run does in the full stack: a message for the worker on the broker."""
    # Not the current app: shared tasks resolve against the current app, and later tests would
    # send their runs to this test's (stopped) broker.
    app = Celery(broker=broker, set_as_current=False)
    app.send_task("playground.execute_run", args=[run_id])
    app.close()


def _contiguous(run: Run) -> bool:
    seqs = stored_seqs(run.pk)
    return seqs == list(range(len(seqs))) and len(seqs) > 0


def test_redis_stopped_for_5_seconds_mid_run_does_not_fail_the_run(
    redis_server, start_worker, user, profile, monkeypatch
):
    urls = {"broker": f"{redis_server.url}/0", "layer": f"{redis_server.url}/1"}
    # Enough pods that the run is still going after its first flush (a pack stores a pod's
    # small events in one item, so a 500-item flush holds about 170 pods).
    cluster = _big_cluster(user, nodes=300, pods=1500)
    run = _queued(user, cluster, profile, monkeypatch)
    from stack import Worker

    worker = Worker(urls, redis_server_log(redis_server))
    try:
        _send(urls["broker"], run.pk)
        _wait_for(lambda: RunCycle.objects.filter(run_id=run.pk).exists(), timeout=60)
        redis_server.stop()
        run.refresh_from_db()
        assert not run.is_terminal, "the run finished before Redis stopped"
        time.sleep(5)
        redis_server.start()
        _wait_for(lambda: Run.objects.get(pk=run.pk).is_terminal, timeout=90)
    finally:
        worker.stop()
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert _contiguous(run) and run.summary["scheduled"] == 1500


def test_runs_queued_across_a_web_restart_all_finish(
    redis_server, user, profile, monkeypatch, settings
):
    """The web server restarts with three runs queued and their messages lost with Redis:
    requeue_runs at start hands them to the broker again and a worker finishes them all."""
    from django.core.management import call_command
    from stack import Worker

    from playground.runs.execution import dispatch

    urls = {"broker": f"{redis_server.url}/0", "layer": f"{redis_server.url}/1"}
    cluster = _big_cluster(user, nodes=20, pods=10)
    queued = [_queued(user, cluster, profile, monkeypatch) for _ in range(3)]
    # The restart: nothing failed them, and what the broker held is gone.
    assert set(Run.objects.values_list("status", flat=True)) == {Run.Status.PENDING}
    monkeypatch.setattr(dispatch, "enqueue_run", lambda run_id: _send(urls["broker"], run_id))
    settings.CELERY_TASK_ALWAYS_EAGER = False
    call_command("requeue_runs", stdout=open("/dev/null", "w"))  # noqa: SIM115
    worker = Worker(urls, redis_server_log(redis_server))
    try:
        _wait_for(lambda: all(Run.objects.get(pk=r.pk).is_terminal for r in queued), timeout=90)
    finally:
        worker.stop()
    for run in queued:
        run.refresh_from_db()
        assert run.status == Run.Status.SUCCEEDED, run.error_message
        assert _contiguous(run)


def redis_server_log(server: RedisServer):
    from pathlib import Path

    return Path(server.dir) / "worker.log"
