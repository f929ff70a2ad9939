"""Inside a long scheduling cycle: the run's lease renewed and a cancel honoured.

Between cycles an execution renews its lease when it flushes and looks for commands. Inside a
cycle, ``MidCycle.checkpoint`` runs before each custom plugin evaluation (the plugins' ``Meter``)
and before each call to an HTTP extender (``checkpoint_extender_calls``: each may wait up to its
timeout), so a long cycle neither outlives its lease, which would hand the run to a second
execution while this one still runs, nor a user's cancel. Both end the engine at once with
``Interrupted``; the execution raises its own LostLease or Cancelled once out of the engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any, Final, Literal

from django.utils import timezone

from ...models import Run, RunCommand

CANCEL_POLL_SECONDS: Final = 0.25


class Interrupted(BaseException):
    """Stops the engine from inside a plugin call: a ``BaseException``, because the runtime
    turns an ``Exception`` from a plugin into an Error status."""

    def __init__(self, why: Literal["lost", "cancelled"]) -> None:
        super().__init__(why)
        self.why = why


class MidCycle:
    """The checkpoint of one execution (its run and lease token)."""

    def __init__(self, run_id: int, token: str, lease: timedelta) -> None:
        self.run_id, self.token, self.lease = run_id, token, lease
        self.renewed = time.monotonic()
        self.polled = 0.0

    def renewed_now(self) -> None:
        """The execution renewed the lease itself (at a flush)."""
        self.renewed = time.monotonic()

    def checkpoint(self) -> None:
        """Renew the lease every third of it and look for a cancel every quarter second."""
        now = time.monotonic()
        if now - self.renewed >= self.lease.total_seconds() / 3:
            renewed = Run.objects.filter(
                pk=self.run_id, lease_token=self.token, status=Run.Status.RUNNING
            ).update(heartbeat=timezone.now())
            if not renewed:
                raise Interrupted("lost")
            self.renewed = now
        if now - self.polled >= CANCEL_POLL_SECONDS:
            self.polled = now
            cancel = RunCommand.objects.filter(
                run_id=self.run_id, applied__isnull=True, kind=RunCommand.Kind.CANCEL
            ).first()
            if cancel is not None:
                cancel.applied, cancel.result = timezone.now(), "cancelled"
                cancel.save(update_fields=["applied", "result"])
                raise Interrupted("cancelled")


_EXTENDER_CALLS: Final = ("filter", "prioritize", "process_preemption", "bind")


def checkpoint_extender_calls(extenders: Iterable[Any], checkpoint: Callable[[], None]) -> None:
    """Make each extender call (the methods that send a request) start at ``checkpoint``."""
    for extender in extenders:
        for name in _EXTENDER_CALLS:
            method = getattr(extender, name, None)
            if method is not None:
                setattr(extender, name, _after(checkpoint, method))


def _after(checkpoint: Callable[[], None], method: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        checkpoint()
        return method(*args, **kwargs)

    return call
