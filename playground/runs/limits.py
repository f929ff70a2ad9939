"""Limits on runners: per user, runs running at once and runs that can wait at Permit; in
embedded mode, runs running at once in all (the server's runner threads).

A run whose profile enables a Permit plugin (the "Approval gate" demo's ApprovalGate, a custom
plugin that answers "wait N") can hold its runner for minutes while a pod waits for a user. In
embedded mode the runners are a handful of threads, so one user may have at most
``PLAYGROUND_PERMIT_RUNS_PER_USER`` such runs running; another one waits, and its page says
why. How long a pod may wait at Permit is capped by ``PLAYGROUND_PERMIT_MAX_WAIT_SECONDS``
(below the engine's own 15 minutes, as upstream).
"""

from __future__ import annotations

import logging
from typing import Final

from django.conf import settings

from ..models import Run

log = logging.getLogger(__name__)

WAITING_FOR_RUNNER: Final = "waiting for a free runner"


def embedded_runners() -> int:
    return int(getattr(settings, "PLAYGROUND_EMBEDDED_RUNNERS", 4))


def _embedded() -> bool:
    from config.celery import app

    return bool(app.conf.task_always_eager)


def runs_per_user() -> int:
    return int(getattr(settings, "PLAYGROUND_RUNS_PER_USER", 2))


def permit_runs_per_user() -> int:
    return int(getattr(settings, "PLAYGROUND_PERMIT_RUNS_PER_USER", 1))


def permit_max_wait_seconds() -> float:
    return float(getattr(settings, "PLAYGROUND_PERMIT_MAX_WAIT_SECONDS", 300))


def _may_wait(run_id: int) -> bool:
    """Whether a profile of the run's configuration has a Permit plugin."""
    from scheduler_core import config as engine_config
    from scheduler_core.framework.runtime import Framework

    from ..custom_plugins.services import registry_for

    run = Run.objects.select_related("profile__owner").get(pk=run_id)
    try:
        cfg = engine_config.load_config(run.config or {})
        registry = registry_for(run.profile.owner)
        return any(Framework(profile, registry).permit_plugins for profile in cfg.profiles)
    except Exception as err:  # a configuration that does not build fails the run when it runs
        log.info("run %s: cannot tell whether it waits at Permit: %r", run_id, err)
        return False


def may_wait_at_permit(run: Run) -> bool:
    return _may_wait(run.pk)


def waiting_reason(run: Run) -> str:
    """Why the pending run must wait before it starts ("" when it may start now).

    Embedded, the server has ``embedded_runners()`` runner threads: when they all run, the
    run waits for one, and says so. Per-user limits apply to runs started by a signed-in user
    (anonymous visitors cannot start runs).
    """
    if _embedded():
        busy = Run.objects.filter(status=Run.Status.RUNNING).exclude(pk=run.pk).count()
        if busy >= embedded_runners():
            return f"{WAITING_FOR_RUNNER}: all {busy} runners are busy"
    if run.started_by_id is None:
        return ""
    running = list(
        Run.objects.filter(started_by_id=run.started_by_id, status=Run.Status.RUNNING)
        .exclude(pk=run.pk)
        .values_list("pk", flat=True)
    )
    if not running:
        return ""
    if may_wait_at_permit(run):
        at_permit = sum(1 for pk in running if _may_wait(pk))
        limit = permit_runs_per_user()
        if at_permit >= limit:
            runs = "run" if at_permit == 1 else "runs"
            return (
                f"waiting: you already have {at_permit} {runs} that can wait at Permit "
                f"(at most {limit}); allow, reject or cancel to go on"
            )
    if len(running) >= runs_per_user():
        # One user's runs (a Permit wait holds its runner for minutes) must not take every
        # runner: this one waits, and says so on its page.
        return f"{WAITING_FOR_RUNNER}: {len(running)} of your runs are running"
    return ""
