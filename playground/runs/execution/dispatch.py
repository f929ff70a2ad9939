"""How a stored run reaches a worker, named by the layer that stores runs without importing the
layer that executes them.

``services`` stores a run and queues it; ``tasks`` executes it by calling ``services``. Were
``services`` to import ``tasks`` to queue a run, the two would import each other. Instead the
executing side registers how a run is queued (``tasks`` calls ``register_enqueuer`` when it is
imported: by the app's ``ready()`` in every process, and by the worker's autodiscovery), and
``services`` and ``recovery`` call ``enqueue_run`` here. So each layer is imported once, in one
direction: ``tasks`` -> ``services`` -> ``dispatch``.

``stop_holder`` needs only the Celery application, so it lives here too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from config.celery import app

log = logging.getLogger(__name__)

Enqueuer = Callable[[int], None]

_enqueuer: Enqueuer | None = None


def register_enqueuer(enqueuer: Enqueuer) -> None:
    """Called once by ``tasks`` at import: how a run is handed to a worker from now on."""
    global _enqueuer
    _enqueuer = enqueuer


def enqueue_run(run_id: int) -> None:
    """Hand a stored run to a worker: the broker, or (embedded) the runner pool, or eagerly."""
    if _enqueuer is None:
        raise RuntimeError(
            "no run enqueuer registered: playground.runs.execution.tasks was not imported "
            "(PlaygroundConfig.ready imports it)"
        )
    _enqueuer(run_id)


def stop_holder(holder: str) -> None:
    """Stop the execution named ``holder`` (a take-over): revoke its task and kill its process.

    ``holder`` is ``<host>|<pid>|<Celery task id>`` (``tasks.holder_name``). Full stack only
    (embedded, the server's runners are the only executions, and none is taken over). A worker
    pool that cannot kill (solo, threads) leaves the old execution to find its lease gone at its
    next flush.
    """
    task_id = holder.rpartition("|")[2]
    if app.conf.task_always_eager or not task_id:
        return
    try:
        app.control.revoke(task_id, terminate=True, signal="SIGKILL")
    except Exception:  # the take-over goes on; the old execution stops at its next flush
        log.exception("cannot stop task %s", task_id)
