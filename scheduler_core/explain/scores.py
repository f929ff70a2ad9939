"""Score explained: a plugin's raw score for a node, with the inputs and the formula.

A plugin's own ``explain_score`` (beside its rule) reads the same PreScore state its Score read
and calls its own scoring functions (per-resource scorers, term matching, image scaling), so the
explained value is the plugin's value; it adds the inputs and writes the arithmetic out.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.plugins.custom import custom_score, is_custom
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.framework.explaining import ExplainsScore
from scheduler_core.words import _


def explain_score(ctx: CycleContext, plugin: str, node: str) -> Explanation:
    """What ``plugin``'s Score gave ``node`` in this cycle (before NormalizeScore)."""
    pl = ctx.plugin(plugin)
    if pl not in ctx.fwk.score_plugins:
        raise ExplainError(f"{plugin} is not a Score plugin of profile {ctx.fwk.profile_name}")
    if plugin in ctx.state.skip_score_plugins:
        return explanation(
            ctx,
            "Score",
            plugin,
            node,
            inputs={},
            formula=_("PreScore returned Skip"),
            value=None,
            text=_(
                "%(plugin)s had nothing to score for this pod (its PreScore returned Skip), so it "
                "took no part in the totals."
            )
            % {"plugin": plugin},
        )
    ni = ctx.scored_info(node)
    inputs: dict[str, Any]
    if is_custom(pl):
        inputs, formula, value, text = custom_score(ctx, pl, ni)
    elif isinstance(pl, ExplainsScore):
        inputs, formula, value, text = pl.explain_score(ctx, ni)
    else:  # a plugin that does not explain itself: its score alone
        value, _status = pl.score(ctx.state, ctx.pod, ni)
        inputs = {}
        formula = f"Score = {value}"
        text = _("%(plugin)s's Score gave %(node)s %(value)s.") % {
            "plugin": plugin,
            "node": node,
            "value": value,
        }
    if ni is not ctx.node_info(node):
        inputs = {**inputs, "scoredOn": _("the extender's copy of the node")}
        text += _(
            " Score saw the copy of %(node)s that the extender's filter sent back, as upstream "
            "does with an extender that is not nodeCacheCapable: it carries none of the node's "
            "pods."
        ) % {"node": node}
    return explanation(
        ctx, "Score", plugin, node, inputs=inputs, formula=formula, value=value, text=text
    )
