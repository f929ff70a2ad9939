"""Celery tasks: take ids, call one service; and how a new run reaches a worker.

``execute_run`` acknowledges its message only after the run is done (``acks_late``), so a worker
that dies mid-run leaves the message to be delivered again; ``playground.runs.services`` makes a
second delivery harmless.

Embedded mode (no broker configured, tasks eager) has no worker process: ``enqueue_run`` called
from a request served by daphne runs the task on a thread of daphne's own event loop
(``sync_to_async``), so the run's broadcasts reach the in-memory channel layer on that loop at
once. A plain thread would not wake the loop (STACK.md: ~0.5 s per message).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import SyncToAsync, sync_to_async
from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from . import limits, services

log = logging.getLogger(__name__)

_in_flight: set[Future[Any]] = set()
_pool: ThreadPoolExecutor | None = None
SPARE_THREADS = 2  # beyond the runners: a run's first look, to say it waits for a runner


def _runner_pool() -> ThreadPoolExecutor:
    """Embedded: the threads runs execute on (made on first use, so in daphne's own process).

    More threads than runners: a run over the limit finds out on a spare thread, notes that it
    waits for a free runner (its page says so) and hands the thread back until it retries.
    """
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(
            max_workers=limits.embedded_runners() + SPARE_THREADS, thread_name_prefix="run"
        )
    return _pool


def _on_runner(run_id: int) -> Any:
    """A coroutine executing the run on a runner thread."""
    return sync_to_async(_execute_here, thread_sensitive=False, executor=_runner_pool())(run_id)


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
        services.run_execute(run_id=run_id)
    except services.RunBusy as busy:
        if self.request.is_eager:
            if isinstance(busy, services.RunWaiting):
                _retry_embedded(run_id, busy.retry_in)
            return  # otherwise the same process is already driving it
        # Come back when the other execution's lease would have run out: it finished by then,
        # or it died and this delivery takes over.
        raise self.retry(countdown=busy.retry_in) from busy


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the ASGI server whose thread pool runs the current code, if any."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop  # type: ignore[no-any-return]


def _execute_here(run_id: int) -> None:
    try:
        execute_run.apply(args=(run_id,))
    finally:
        close_old_connections()


def enqueue_run(run_id: int) -> None:
    """Hand a run to a worker: the broker, or (embedded) daphne's loop, or eagerly here."""
    from config.celery import app

    loop = _server_loop() if app.conf.task_always_eager else None
    if loop is None:
        execute_run.delay(run_id)
        return
    future = asyncio.run_coroutine_threadsafe(_on_runner(run_id), loop)
    _in_flight.add(future)
    future.add_done_callback(_done)


def _retry_embedded(run_id: int, delay: float) -> None:
    """Embedded: try a run waiting for a runner again after ``delay`` seconds, on the loop."""
    loop = _server_loop()
    if loop is None:
        return  # no server loop (a test calling the task eagerly): the caller retries

    def again() -> None:
        future = asyncio.ensure_future(_on_runner(run_id), loop=loop)
        future.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)

    loop.call_soon_threadsafe(loop.call_later, delay, again)


def _done(future: Future[Any]) -> None:
    _in_flight.discard(future)
    if not future.cancelled() and future.exception() is not None:
        log.error("embedded run failed", exc_info=future.exception())


async def wait_embedded(timeout: float = 10.0) -> None:
    """Wait until the runs started on this loop have finished (tests, shutdown)."""
    pending = [asyncio.wrap_future(f) for f in list(_in_flight)]
    if pending:
        await asyncio.wait(pending, timeout=timeout)


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
