"""A stored run played again up to one of its cycles, exactly as it went: for explanations.

The scheduler is set up as the execution set it up (the run's snapshot and configuration, the
custom plugin definitions it started with) and driven by the run's tape (``tape``): its script
of cluster changes at the same points, the users' commands and the clock's moves where the run
took them, each extender's answers in the order the run got them (never asked again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.utils.translation import gettext

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.custom.plugin import CustomPluginSpec
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.explain import CycleContext, at_scheduler_cycle
from scheduler_core.extenders.extender import extenders_from_config
from scheduler_core.loop.scheduler import Scheduler

from ... import engine, plugins
from ...custom_plugins.services import registry_for, registry_with
from ...models import Run, RunCommand, RunInput
from ..execution.script import ScriptPlayer, parse_script
from ..execution.tape import TapeMismatch, TapePlayer
from ..gates import run_features

T = TypeVar("T")


class NotReplayable(Exception):
    """The run cannot be played again to that cycle; the message says why, for a learner."""


def replay_to_cycle(run: Run, cycle: int, fn: Callable[[CycleContext], T]) -> T:
    """Play ``run`` again up to its cycle ``cycle`` and return fn(that cycle's context)."""
    sched, player, script = _set_up(run)
    try:
        return at_scheduler_cycle(
            sched, cycle, fn, drive=lambda done: player.drive(sched, script, done)
        )
    except TapeMismatch as err:
        raise NotReplayable(
            gettext(
                "playing the run again went another way than the run did (%(error)s); please "
                "report it"
            )
            % {"error": err}
        ) from err


def replay_whole(run: Run) -> Scheduler:
    """Play ``run`` again to its end; the scheduler as the run left it (for checks)."""
    sched, player, script = _set_up(run)
    player.drive(sched, script, lambda: False)
    return sched


def _set_up(run: Run) -> tuple[Scheduler, TapePlayer, ScriptPlayer]:
    """The scheduler as the run's execution set it up, its tape and its script."""

    if not run.snapshot:
        raise NotReplayable(
            gettext("the run kept no copy of its cluster, so it cannot be played again")
        )
    entries = list(
        RunInput.objects.filter(run=run).order_by("id").values_list("point", "kind", "data")
    )
    player = TapePlayer(entries)
    try:
        features = run_features(run)
        config = load_config(run.config or run.profile.config, features=features)
    except SchedulerCoreError as err:
        raise NotReplayable(
            gettext("the run's configuration no longer loads: %(error)s") % {"error": err}
        ) from err
    if not entries:
        # Runs stored before runs kept their inputs: only what needs none can be played again.
        if config.extenders:
            raise NotReplayable(
                gettext(
                    "this run was made before runs kept their extenders' answers, and an "
                    "extender is never asked again to explain a run: run it again to explain it"
                )
            )
        answered = [RunCommand.Kind.ALLOW, RunCommand.Kind.REJECT, RunCommand.Kind.CHANGE]
        if RunCommand.objects.filter(run=run, kind__in=answered).exists():
            raise NotReplayable(
                gettext(
                    "this run was made before runs kept their users' answers at Permit and "
                    "changes: run it again to explain it"
                )
            )
    if player.plugins is not None:
        registry = registry_with([CustomPluginSpec.from_dict(d) for d in player.plugins])
    else:
        registry = registry_for(run.profile.owner)
    try:
        sched = Scheduler(
            config,
            list(run.snapshot),
            clock=SimulatedClock(),
            registry=registry,
            plugin_events=plugins.EVENTS_TO_REGISTER,
            extenders=player.extenders(extenders_from_config(config, engine.extender_policy())),
            features=features,
        )
    except SchedulerCoreError as err:
        raise NotReplayable(
            gettext("the run's profile no longer loads: %(error)s") % {"error": err}
        ) from err
    return sched, player, ScriptPlayer(parse_script(run.script or []))
