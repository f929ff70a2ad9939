"""HTTP: a stored run's decision explained, recomputed by the engine on demand.

``GET /runs/<pk>/cycles/<cycle>/explain.json?node=X[&plugin=P]`` answers the explanations of one
node in one cycle (every step, or one plugin's); without ``node``, the selection (or, for a pod
that did not fit, the preemption). Nothing is stored: the run's cluster snapshot and profile are
replayed through the engine up to that cycle, which is deterministic on the simulated clock.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, JsonResponse

from scheduler_core.clock import SimulatedClock
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.explain import (
    CycleContext,
    ExplainError,
    Explanation,
    at_scheduler_cycle,
    explain_node,
    explain_preemption,
    explain_selection,
)
from scheduler_core.scheduler import Scheduler

from .. import plugins
from ..models import Run, RunCommand
from . import selectors


class NotReplayable(Exception):
    """The run cannot be replayed to that cycle exactly (a user answered a Permit wait, ...)."""


def run_explain_json(request: HttpRequest, pk: int, cycle: int) -> JsonResponse:
    """The explanations of one cycle's decision about a node (see the module docstring)."""
    run = selectors.run_get(user=request.user, run_id=pk)
    node = request.GET.get("node") or None
    plugin = request.GET.get("plugin") or None
    try:
        found = run_explanations(run=run, cycle=cycle, node=node, plugin=plugin)
    except ExplainError as err:
        return JsonResponse({"error": str(err)}, status=404)
    except NotReplayable as err:
        return JsonResponse({"error": str(err)}, status=409)
    return JsonResponse(
        {"run": run.pk, "cycle": cycle, "node": node, "plugin": plugin, "explanations": found}
    )


def run_explanations(
    *, run: Run, cycle: int, node: str | None, plugin: str | None
) -> list[Explanation]:
    """Replay ``run`` to ``cycle`` and explain it; the replayed pod must be the stored one."""
    start = next(
        (e for e in selectors.run_cycle_events(run=run, cycle=cycle) if e["type"] == "CycleStart"),
        None,
    )
    if start is None:
        raise Http404("No such cycle")
    if not run.snapshot:
        raise NotReplayable("the run kept no copy of its cluster")
    answered = [RunCommand.Kind.ALLOW, RunCommand.Kind.REJECT]
    if RunCommand.objects.filter(run=run, kind__in=answered).exists():
        raise NotReplayable("a user answered a Permit wait in this run; it cannot be replayed")

    def explain(ctx: CycleContext) -> list[Explanation]:
        if ctx.pod.key != start["pod"]:
            raise NotReplayable(
                f"the replay reached {ctx.pod.key} at cycle {cycle}, the run had {start['pod']}"
            )
        if node is not None:
            return explain_node(ctx, node, plugin)
        if ctx.record.feasible:
            return [explain_selection(ctx)]
        return [explain_preemption(ctx)]

    try:
        sched = Scheduler(
            run.config or run.profile.config,
            list(run.snapshot),
            clock=SimulatedClock(),
            registry=plugins.registry(),
            plugin_events=plugins.EVENTS_TO_REGISTER,
        )
    except SchedulerCoreError as err:
        raise NotReplayable(f"the run's profile no longer loads: {err}") from err
    return at_scheduler_cycle(sched, cycle, explain)
