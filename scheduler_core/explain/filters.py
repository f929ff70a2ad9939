"""Filter explained: a plugin's verdict on a node, with the inputs that decided it.

The verdict always comes from the plugin's own Filter, run on the same CycleState and NodeInfo
the cycle used; the per-plugin details add the amounts, taints, labels or ports behind it.
"""

from __future__ import annotations

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.plugins.custom import custom_filter, is_custom
from scheduler_core.explain.record import Explanation, explanation, verdict
from scheduler_core.framework.explaining import ExplainsFilter
from scheduler_core.framework.status import SUCCESS
from scheduler_core.words import _, listed, sentences


def explain_filter(ctx: CycleContext, plugin: str, node: str) -> Explanation:
    """Why ``plugin`` let ``node`` pass or rejected it in this cycle."""
    pl = ctx.plugin(plugin)
    order = [p.name for p in ctx.fwk.filter_plugins]
    if plugin not in order:
        raise ExplainError(f"{plugin} is not a Filter plugin of profile {ctx.fwk.profile_name}")
    if plugin in ctx.state.skip_filter_plugins:
        return explanation(
            ctx,
            "Filter",
            plugin,
            node,
            inputs={},
            formula=_("PreFilter returned Skip"),
            value={"code": "Skip", "reasons": []},
            text=_(
                "%(plugin)s had nothing to check for this pod (its PreFilter returned Skip), "
                "so Filter did not run it on any node."
            )
            % {"plugin": plugin},
            ran=False,
        )
    views = ctx.filter_views(node)
    status, view = SUCCESS, views[-1]
    for v in views:
        st = pl.filter(v.state, ctx.pod, v.node_info)
        if not st.is_success():
            status, view = st, v
            break
    if is_custom(pl):
        inputs, formula, text = custom_filter(ctx, pl, view.state, view.node_info)
    elif isinstance(pl, ExplainsFilter):
        inputs, formula, text = pl.explain_filter(ctx, view)
    else:  # a plugin that does not explain itself: its verdict alone
        inputs, formula, text = {}, "", ""
    if view.added:
        inputs["nominatedPodsAdded"] = list(view.added)
        text += _(" (evaluated %(label)s: %(pods)s)") % {
            "label": _(view.label),
            "pods": listed(view.added),
        }
    # Filter stops at the first plugin that rejects a node (an extender filters after them all).
    recorded = ctx.record.filter.get(node)
    if recorded is None:
        ran = False
    elif recorded.is_success() or recorded.plugin not in order:
        ran = True
    else:
        ran = order.index(plugin) <= order.index(recorded.plugin)
    where = {"plugin": plugin, "node": node}
    if status.is_success():
        head = _("%(plugin)s on %(node)s: passes.") % where
    else:
        # The code and the reasons are upstream's own words: they stay as kubectl shows them.
        head = _("%(plugin)s on %(node)s: %(code)s — %(reasons)s.") % {
            **where,
            "code": status.code.upstream,
            "reasons": status.message(),
        }
    if not ran:
        head += _(" (Filter stopped at an earlier plugin, so this verdict was not needed.)")
    return explanation(
        ctx,
        "Filter",
        plugin,
        node,
        inputs=inputs,
        formula=formula,
        value=verdict(status),
        text=sentences([head, text]),
        ran=ran,
    )
