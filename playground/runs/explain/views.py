"""HTTP: a stored run's decision explained, recomputed by the engine on demand.

``GET /runs/<pk>/cycles/<cycle>/explain.json?node=X[&plugin=P]`` answers the explanations of one
node in one cycle (every step, or one plugin's); without ``node``, the selection (or, for a pod
that did not fit, the preemption). Nothing is stored: the run's cluster snapshot and profile are
replayed through the engine up to that cycle, which is deterministic on the simulated clock.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, JsonResponse
from django.utils import translation

from scheduler_core.explain import (
    CycleContext,
    ExplainError,
    Explanation,
    explain_node,
    explain_preemption,
    explain_selection,
)
from scheduler_core.explain.reasons import reasons_note

from ...models import Run
from .. import selectors
from .replay import NotReplayable, replay_to_cycle


def run_explain_json(request: HttpRequest, pk: int, cycle: int) -> JsonResponse:
    """The explanations of one cycle's decision about a node (see the module docstring)."""
    run = selectors.run_get(
        user=request.user,
        run_id=pk,
        share=selectors.share_token(request.GET.get("share")),
        class_tokens=selectors.class_tokens(request.session),
    )
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

    found = replay_to_cycle(run, cycle, explain)
    _note_bind_times(run, found)
    _note_reasons(found)
    return found


def _note_reasons(found: list[Explanation]) -> None:
    """Upstream's reasons stay in English, as kubectl shows them; a reader of another language
    gets what they mean beside them (``reasonNote``): a Filter verdict's reasons, PreFilter's,
    and why preemption would not help on the nodes that are no candidates."""
    if (translation.get_language() or "en").split("-")[0] == "en":
        return
    for e in found:
        value = e.get("value")
        inputs = e.get("inputs") or {}
        reasons = list(value.get("reasons") or []) if isinstance(value, dict) else []
        for step in inputs.get("plugins") or []:
            if isinstance(step, dict):
                reasons.extend(step.get("reasons") or [])
        for message in (inputs.get("notCandidates") or {}).values():
            reasons.extend(str(message).split(", "))
        note = reasons_note(reasons)
        if note is not None:
            e["reasonNote"] = note


def _note_bind_times(run: Run, found: list[Explanation]) -> None:
    """A preemption's victims with the simulated time the run bound them, when it did: a pod
    has no status.startTime in a simulation, so upstream's criteria count it as started now,
    and the time it has run in the run is what a reader wants beside that."""
    victims = [
        v
        for e in found
        if e.get("point") == "PostFilter"
        for c in (e.get("inputs") or {}).get("candidates") or []
        for v in c.get("victims") or []
    ]
    if not victims:
        return
    bound = {
        e["pod"]: e.get("time")
        for e in selectors.run_events(run=run)
        if e["type"] == "Bind" and e.get("code") == "Success"
    }
    for v in victims:
        v["boundAt"] = bound.get(v["pod"])
