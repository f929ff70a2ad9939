"""HTTP extenders explained from what they answered in the cycle (never asked again).

Mirrors how kube-scheduler v1.35 uses an extender's answers (pkg/scheduler/schedule_one.go,
findNodesThatPassExtenders and prioritizeNodes): its filter keeps or fails nodes after every
Filter plugin; its prioritize scores 0-MaxExtenderPriority (10) per host are multiplied by the
extender's weight and by MaxNodeScore / MaxExtenderPriority (100 / 10) and added to the total.
"""

from __future__ import annotations

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.extenders.extender import (
    EXTENDER_NAME,
    EXTENDER_SCORE_SCALE,
    MAX_EXTENDER_PRIORITY,
)
from scheduler_core.framework.runtime import PluginScores
from scheduler_core.words import _

PREFIX = f"{EXTENDER_NAME}:"


def is_extender(plugin: str | None) -> bool:
    """Whether a plugin name of the record is an extender's (its filter, or one's scores)."""
    return plugin is not None and (plugin == EXTENDER_NAME or plugin.startswith(PREFIX))


def extender_columns(ctx: CycleContext) -> list[PluginScores]:
    return [ps for ps in ctx.record.scores if ps.name.startswith(PREFIX)]


def explain_extender(ctx: CycleContext, plugin: str, node: str) -> list[Explanation]:
    """The extender's part in ``node``'s fate: its filter answer, or its score in three steps."""
    if plugin == EXTENDER_NAME:
        return [_filter(ctx, node)]
    column = next((ps for ps in extender_columns(ctx) if ps.name == plugin), None)
    if column is None:
        raise ExplainError(f"{plugin} gave no scores in cycle {ctx.cycle}")
    return extender_score_steps(ctx, column, node)


def _filter(ctx: CycleContext, node: str) -> Explanation:
    status = ctx.record.filter.get(node)
    if status is None:
        raise ExplainError(f"Filter did not evaluate node {node!r} in cycle {ctx.cycle}")
    failed = status.plugin == EXTENDER_NAME
    reply = {"failedNodes": {node: status.message()}} if failed else {"nodes": [node]}
    if failed:
        text = _(
            "Every Filter plugin passed %(node)s; then the extender's filter answered that it "
            "fails: %(reasons)s. The scheduler records an extender's rejections under the name "
            "%(name)s."
        ) % {"node": node, "reasons": status.message(), "name": EXTENDER_NAME}
    else:
        text = _("The extender's filter kept %(node)s among the nodes it returned.") % {
            "node": node
        }
    return explanation(
        ctx,
        "Filter",
        EXTENDER_NAME,
        node,
        inputs={"reply": reply},
        formula=_("extender filter after every Filter plugin"),
        value={"code": status.code.upstream, "reasons": list(status.reasons)},
        text=text,
    )


def extender_score_steps(ctx: CycleContext, column: PluginScores, node: str) -> list[Explanation]:
    """Score (the extender's 0-10), NormalizeScore (×10) and Weight, as a plugin's three steps."""
    try:
        i = ctx.record.scored_nodes.index(node)
    except ValueError:
        raise ExplainError(f"node {node!r} was not scored in cycle {ctx.cycle}") from None
    name = column.name.removeprefix(PREFIX)
    raw, scaled, weight = column.raw[i], column.normalized[i], column.weight
    hosts = dict(zip(ctx.record.scored_nodes, column.raw, strict=True))
    return [
        explanation(
            ctx,
            "Score",
            column.name,
            node,
            inputs={"extender": name, "reply": hosts, "maxExtenderPriority": MAX_EXTENDER_PRIORITY},
            formula=_("the extender's prioritize answer for %(node)s = %(raw)s")
            % {"node": node, "raw": raw},
            value=raw,
            text=_(
                "The extender at %(name)s answered its prioritize call with a score of %(raw)s "
                "(out of %(max)s) for %(node)s."
            )
            % {"name": name, "raw": raw, "max": MAX_EXTENDER_PRIORITY, "node": node},
        ),
        explanation(
            ctx,
            "NormalizeScore",
            column.name,
            node,
            inputs={"kind": f"×{EXTENDER_SCORE_SCALE}", "raw": raw},
            formula=f"{raw} × (MaxNodeScore 100 / MaxExtenderPriority 10) = {scaled}",
            value=scaled,
            text=_(
                "Extender scores run 0 to %(max)s, plugin scores 0 to 100: the scheduler "
                "multiplies by %(scale)s, so %(raw)s counts as %(scaled)s."
            )
            % {
                "max": MAX_EXTENDER_PRIORITY,
                "scale": EXTENDER_SCORE_SCALE,
                "raw": raw,
                "scaled": scaled,
            },
        ),
        explanation(
            ctx,
            "Weight",
            column.name,
            node,
            inputs={"normalized": scaled, "weight": weight},
            formula=f"{raw} × {weight} × {EXTENDER_SCORE_SCALE} = {scaled * weight}",
            value=scaled * weight,
            text=_(
                "The configuration weighs the extender %(weight)s: %(product)s joins %(node)s's "
                "total."
            )
            % {
                "weight": weight,
                "product": f"{raw} × {weight} × {EXTENDER_SCORE_SCALE} = {scaled * weight}",
                "node": node,
            },
        ),
    ]
