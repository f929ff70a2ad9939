"""Celery tasks: take ids, call one service; and how a new run reaches a worker.

``execute_run`` acknowledges its message only after the run is done (``acks_late``), so a worker
that dies mid-run leaves the message to be delivered again; ``playground.runs.services`` makes a
second delivery harmless. A run that may not start yet (its owner's share of the workers is
taken, ``limits.waiting_reason``) does not hold the worker: its task is retried after a
countdown, and the slot goes to the next message.

Embedded mode (no broker configured, tasks eager) has no worker process: ``enqueue_run`` called
from a request served by daphne hands the run to the server's runner pool (``runners``), which
runs it on threads of daphne's own event loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from typing import Any

from asgiref.sync import SyncToAsync
from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from config.celery import app

from .. import services
from . import dispatch
from .runners import RunnerPool

log = logging.getLogger(__name__)

_pool: RunnerPool | None = None
_pool_lock = threading.Lock()


def holder_name(task_id: str = "") -> str:
    """Who executes a run: ``<host>|<pid>|<Celery task id>`` (stored on the run at its claim)."""
    return f"{socket.gethostname()}|{os.getpid()}|{task_id}"


def runner_pool(loop: asyncio.AbstractEventLoop) -> RunnerPool:
    """Embedded: the runner pool on the server's loop (made on first use, in daphne's process)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool.loop is not loop:
            if _pool is not None:
                _pool.close()
            _pool = RunnerPool(loop, holder=holder_name)
        return _pool


@shared_task(
    bind=True,
    name="playground.execute_run",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    max_retries=None,
)
def execute_run(self: Any, run_id: int) -> None:
    try:
        services.run_execute(run_id=run_id, holder=holder_name(self.request.id or ""))
    except services.RunBusy as busy:
        if self.request.is_eager:
            return  # no worker to come back to: it stays pending (its page says why)
        # Come back when the other execution's lease would have run out (it finished by then,
        # or it died and this delivery takes over), or when a runner may be free for it.
        raise self.retry(countdown=busy.retry_in) from busy


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the ASGI server whose thread pool runs the current code, if any."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop  # type: ignore[no-any-return]


def enqueue_run(run_id: int) -> None:
    """Hand a run to a worker: the broker, or (embedded) the runner pool, or eagerly here.

    Registered with ``dispatch`` below: services queue runs through ``dispatch.enqueue_run``.
    """
    loop = _server_loop() if app.conf.task_always_eager else None
    if loop is None:
        execute_run.delay(run_id)
        return
    runner_pool(loop).submit(run_id)


async def wait_embedded(timeout: float = 10.0) -> None:
    """Wait until the runs started on this loop have finished (tests, shutdown)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while _pool is not None and _pool.loop is loop and loop.time() < deadline:
        pending = [asyncio.wrap_future(f) for f in list(_pool.in_flight)]
        if not pending:
            return
        await asyncio.wait(pending, timeout=max(0.0, deadline - loop.time()))


dispatch.register_enqueuer(enqueue_run)


@worker_ready.connect
def _start_lease_watchdog(**_: Any) -> None:
    """Each worker watches the runs' leases: a dead worker's run is taken over within a lease
    or two, not after the broker's visibility timeout."""
    threading.Thread(target=_watch_leases, name="run-lease-watchdog", daemon=True).start()


def _watch_leases() -> None:
    interval = max(0.5, float(settings.PLAYGROUND_RUN_LEASE_SECONDS) / 2)
    while True:
        time.sleep(interval)
        try:
            taken = services.run_requeue_expired()
            if taken:
                log.warning("runs %s: their worker stopped renewing the lease; requeued", taken)
        except Exception:  # the watchdog must outlive a database hiccup
            log.exception("lease watchdog")
        finally:
            close_old_connections()
