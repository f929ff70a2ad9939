"""Embedded mode's runners: a few threads of the server process execute the runs, shared fairly.

A new run is handed to ``RunnerPool.submit``. One dispatcher thread takes every decision, one at
a time: while a runner is free it claims the waiting run whose owner has the fewest runs on the
runners (then the oldest), so a run of an owner under their share goes before the runs of an
owner at or over it. Whether a run may start at all is ``limits.waiting_reason`` (checked by the
claim); a run that may not waits, and its page says why. A run that ends, or starts waiting at
Permit for users with nothing else to do (``limits.IdleMark``), frees its runner and the
dispatcher looks again at once; while runs wait it also looks every
``services.WAITING_RETRY_SECONDS``, since what they wait for can change elsewhere (a run
cancelled before it started, a setting).

The dispatcher and the runners are called through ``sync_to_async`` from daphne's event loop,
so a run's broadcasts reach the in-memory channel layer on that loop at once (a plain thread
would not wake the loop: docs/STACK.md, ~0.5 s per message).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from ...models import Run
from .. import services
from . import limits

log = logging.getLogger(__name__)

MAX_THREADS = 64


@dataclass(slots=True)
class _Waiting:
    arrival: int
    owner: str | None = None  # read by the dispatcher
    noted: bool = False  # its page says why it waits


class RunnerPool:
    """Runner threads on ``loop`` (``limits.embedded_runners()`` of them run at once), and the
    queue of runs waiting for one."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, *, holder: Callable[[], str] = lambda: ""
    ) -> None:
        self.loop = loop
        self.holder = holder
        self.in_flight: set[Future[Any]] = set()
        self._lock = threading.Lock()
        self._waiting: dict[int, _Waiting] = {}
        self._running: dict[int, str] = {}  # run id -> owner
        self._idle: set[int] = set()  # running, waiting at Permit for users: not busy
        self._arrivals = itertools.count()
        # Threads are made when needed; the dispatcher keeps the number busy to the setting.
        self._runners = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="run")
        self._dispatcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-dispatch")
        self._dispatch_due = False
        self._retry_due = False

    # -- what callers see -----------------------------------------------------------------------

    def submit(self, run_id: int) -> None:
        """Queue a run (from any thread); a run already queued or running is left as it is."""
        with self._lock:
            if run_id in self._running or run_id in self._waiting:
                return
            self._waiting[run_id] = _Waiting(next(self._arrivals))
        self.kick()

    def waiting(self) -> list[int]:
        with self._lock:
            return list(self._waiting)

    def running(self) -> dict[int, str]:
        with self._lock:
            return dict(self._running)

    def kick(self) -> None:
        """Have the dispatcher look at the queue (once, however often it is kicked meanwhile)."""
        with self._lock:
            if self._dispatch_due:
                return
            self._dispatch_due = True
        self._on_loop(self._dispatch, self._dispatcher)

    def close(self) -> None:
        self._runners.shutdown(wait=False)
        self._dispatcher.shutdown(wait=False)

    # -- the dispatcher -------------------------------------------------------------------------

    def _on_loop(self, fn: Callable[..., None], executor: ThreadPoolExecutor, *args: Any) -> None:
        coro = sync_to_async(fn, thread_sensitive=False, executor=executor)(*args)
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        with self._lock:
            self.in_flight.add(future)
        future.add_done_callback(self._done)

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self.in_flight.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("embedded runner failed", exc_info=future.exception())

    def _dispatch(self) -> None:
        with self._lock:
            self._dispatch_due = False  # a kick from now on asks for another look
        try:
            self._start_what_may_start()
        finally:
            close_old_connections()
        with self._lock:
            again = bool(self._waiting) and not self._retry_due
            self._retry_due = self._retry_due or again
        if again:
            self.loop.call_soon_threadsafe(
                self.loop.call_later, services.WAITING_RETRY_SECONDS, self._retry
            )

    def _retry(self) -> None:
        with self._lock:
            self._retry_due = False
        self.kick()

    def _next(self, tried: set[int]) -> int | None:
        """The waiting run to try now: fewest runs of its owner on the runners, then oldest.

        With no runner free, or its owner at their share, only a run whose page does not say
        yet why it waits (the claim notes it; the others need no trip to the database)."""
        self._read_owners()
        share = limits.owner_share()
        with self._lock:
            free = len(self._running) - len(self._idle) < limits.embedded_runners()
            held = Counter(self._running.values())
            candidates = [
                (held[entry.owner or limits.ANONYMOUS], entry.arrival, run_id)
                for run_id, entry in self._waiting.items()
                if run_id not in tried
                and (not entry.noted or (free and held[entry.owner or limits.ANONYMOUS] < share))
            ]
        return min(candidates)[2] if candidates else None

    def _read_owners(self) -> None:
        with self._lock:
            unknown = [run_id for run_id, e in self._waiting.items() if e.owner is None]
        if not unknown:
            return
        rows = Run.objects.filter(pk__in=unknown).only("owner_key", "started_by_id")
        owners = {run.pk: limits.run_owner(run) for run in rows}
        with self._lock:
            for run_id in unknown:
                entry = self._waiting.get(run_id)
                if entry is not None:
                    entry.owner = owners.get(run_id, limits.ANONYMOUS)

    def _start_what_may_start(self) -> None:
        tried: set[int] = set()
        while (run_id := self._next(tried)) is not None:
            tried.add(run_id)
            try:
                claim = services.run_claim(run_id=run_id, holder=self.holder())
            except services.RunWaiting:
                with self._lock:
                    self._waiting[run_id].noted = True
                continue
            except services.RunBusy:
                claim = None  # another execution in this process drives it
            except Exception:  # a run that cannot be claimed must not stop the others
                log.exception("run %s: cannot be claimed", run_id)
                claim = None
            with self._lock:
                entry = self._waiting.pop(run_id)
                if claim is not None:
                    self._running[run_id] = entry.owner or limits.ANONYMOUS
            if claim is not None:
                self._on_loop(self._execute, self._runners, claim)

    # -- a runner -------------------------------------------------------------------------------

    def _execute(self, claim: services.Claim) -> None:
        run_id = claim[0].pk
        try:
            services.run_execute_claimed(claim, on_idle=partial(self._note_idle, run_id))
        finally:
            close_old_connections()
            with self._lock:
                self._running.pop(run_id, None)
                self._idle.discard(run_id)
            self.kick()

    def _note_idle(self, run_id: int, idle: bool) -> None:
        """The run waits at Permit for users with nothing else to do (or goes on): while it
        waits its runner is free for another run, though it keeps its thread."""
        with self._lock:
            if idle:
                self._idle.add(run_id)
            else:
                self._idle.discard(run_id)
        if idle:
            self.kick()
