"""Celery tasks of the playground app, found here by the worker's autodiscovery.

The run task lives in ``playground.runs.tasks``; its name (``playground.execute_run``) is fixed in
its decorator, so messages already queued keep finding it.
"""

from .runs.tasks import enqueue_run, execute_run

__all__ = ["enqueue_run", "execute_run"]
