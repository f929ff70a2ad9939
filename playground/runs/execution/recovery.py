"""Runs handed to the broker again: at start-up (every pending run) and by each worker's lease
watchdog (a running run whose execution stopped renewing its lease). ``services`` re-exports both.
"""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.utils import timezone

from ...models import Run
from . import dispatch
from .attempt import lease


def run_requeue_pending() -> int:
    """Full stack at start-up: hand every pending run to the broker again; returns how many.

    A run is pending until a worker claims it, so a message lost with a Redis restart would
    leave it pending forever. A second delivery of a run that is still queued is harmless:
    the first execution claims it and the other finds it claimed or finished. Running runs are
    left to their lease (a worker takes over a run whose heartbeat stopped).
    """
    ids = list(Run.objects.filter(status=Run.Status.PENDING).values_list("pk", flat=True))
    for run_id in ids:
        dispatch.enqueue_run(run_id)
    return len(ids)


def run_requeue_expired() -> list[int]:
    """Hand runs whose execution stopped renewing its lease to a worker again; their ids.

    A worker killed mid-run leaves its message unacknowledged until the broker's visibility
    timeout (an hour in compose). Each worker's lease watchdog calls this instead: a running
    run whose heartbeat is older than the lease goes back to pending (so one watchdog, not
    all, re-enqueues it) and a new delivery resumes it after its stored events.

    The execution that held the lease is stopped first (``dispatch.stop_holder``: its Celery task
    is revoked and its process killed), so a cycle that outlived the lease cannot go on beside
    the execution that takes over.
    """
    cutoff = timezone.now() - lease()
    expired = []
    stale = Run.objects.filter(status=Run.Status.RUNNING, heartbeat__lt=cutoff)
    for run_id, holder in stale.values_list("pk", "holder"):
        with transaction.atomic():
            updated = Run.objects.filter(
                pk=run_id, status=Run.Status.RUNNING, heartbeat__lt=cutoff, holder=holder
            ).update(status=Run.Status.PENDING, lease_token="", holder="")
        if updated:
            expired.append(run_id)
            dispatch.stop_holder(holder)
            transaction.on_commit(partial(dispatch.enqueue_run, run_id))
    return expired
