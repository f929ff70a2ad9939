"""Explanations for a node of a cycle, and a case replayed to the cycle asked about."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from scheduler_core.explain.context import CycleContext, ExplainError, observing
from scheduler_core.explain.filters import explain_filter
from scheduler_core.explain.framework_steps import (
    explain_normalize,
    explain_pre_filter,
    explain_selection,
    explain_total,
    explain_weight,
)
from scheduler_core.explain.not_evaluated import explain_not_evaluated
from scheduler_core.explain.plugins.dra import explain_binding
from scheduler_core.explain.plugins.extenders import (
    explain_extender,
    extender_columns,
    extender_score_steps,
    is_extender,
)
from scheduler_core.explain.preemption import explain_preemption
from scheduler_core.explain.record import Explanation
from scheduler_core.explain.scores import explain_score
from scheduler_core.extenders.extender import EXTENDER_NAME
from scheduler_core.plugins.names import DYNAMIC_RESOURCES
from scheduler_core.tools.case import CaseRun

T = TypeVar("T")


def explain_node(ctx: CycleContext, node: str, plugin: str | None = None) -> list[Explanation]:
    """Every step of the cycle for ``node`` (or only ``plugin``'s): Filter, then Score,
    NormalizeScore and ×weight, then the total and the selection, or PostFilter. A node that
    PreFilter kept from Filter gets PreFilter's explanation."""
    rec = ctx.record
    if node not in rec.filter and node not in rec.scored_nodes:
        ctx.node_info(node)  # an unknown node raises
        pf = rec.pre_filter
        if (pf is not None and not pf.is_success()) or rec.pre_filter_nodes is not None:
            return [explain_pre_filter(ctx)]  # PreFilter kept the node from Filter
        return [explain_not_evaluated(ctx, node)]
    if is_extender(plugin):
        assert plugin is not None
        return explain_extender(ctx, plugin, node)
    out: list[Explanation] = []
    filters = [pl.name for pl in ctx.fwk.filter_plugins]
    if plugin is None or plugin in filters:
        for name in filters if plugin is None else [plugin]:
            out.append(explain_filter(ctx, name, node))
    status = rec.filter.get(node)
    if plugin is None and status is not None and status.plugin == EXTENDER_NAME:
        out.extend(explain_extender(ctx, EXTENDER_NAME, node))
    scored = {ps.name for ps in rec.scores}
    for pl in ctx.fwk.score_plugins:
        if plugin not in (None, pl.name):
            continue
        out.append(explain_score(ctx, pl.name, node))
        if pl.name in scored and node in rec.scored_nodes:
            out.append(explain_normalize(ctx, pl.name, node))
            out.append(explain_weight(ctx, pl.name, node))
    if plugin == DYNAMIC_RESOURCES and node == rec.selected:
        out.extend(explain_binding(ctx, node))  # the devices Reserve and PreBind keep
    if plugin is None and node in rec.scored_nodes:
        for column in extender_columns(ctx):
            out.extend(extender_score_steps(ctx, column, node))
    if plugin is None:
        if node in rec.scored_nodes and rec.scores:
            out.append(explain_total(ctx, node))
        if rec.feasible:
            out.append(explain_selection(ctx))
        elif rec.post_filter_status is not None:
            out.append(explain_preemption(ctx))
    if not out:
        raise ExplainError(f"{plugin} took no part in cycle {ctx.cycle}")
    return out


def at_cycle(case: Mapping[str, Any], cycle: int, fn: Callable[[CycleContext], T]) -> T:
    """Replay ``case`` up to its cycle number ``cycle`` (1-based) and return fn(that cycle).

    The earlier cycles run as the case says (each outcome carried out), so the cycle is seen
    exactly as the engine saw it; fn runs before that cycle changes anything.
    """
    found: list[T] = []

    def observe(ctx: CycleContext) -> None:
        if ctx.cycle == cycle:
            found.append(fn(ctx))

    run = CaseRun(case)
    for n, _ in enumerate(run.cycles(observing(observe)), start=1):
        if n >= cycle:
            break
    if not found:
        raise ExplainError(f"the case has no cycle {cycle} that ran a profile")
    return found[0]
