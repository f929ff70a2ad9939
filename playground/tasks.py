"""Celery tasks of the playground app, found here by the worker's autodiscovery.

The run task lives in ``playground.runs.execution.tasks``; its name (``playground.execute_run``)
is fixed in its decorator, so messages already queued keep finding it wherever the module is.
"""

from .runs.execution.tasks import execute_run

__all__ = ["execute_run"]
