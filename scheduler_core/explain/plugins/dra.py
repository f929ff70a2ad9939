"""DynamicResources' Reserve and PreBind explained: the devices they keep on the chosen node.

Its Filter and Score explain themselves beside the plugin (plugins/dynamic_resources/explain.py).
"""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.plugins.dynamic_resources.explain import (
    NAME,
    device_id,
    device_text,
    node_devices,
    plugin_state,
)
from scheduler_core.words import _, clauses, listed


def explain_binding(ctx: CycleContext, node: str) -> list[Explanation]:
    """Reserve and PreBind of DynamicResources on the chosen ``node``: the devices they keep."""
    state = plugin_state(ctx.state)
    pending = [c for c in state.claims if c.allocation is None] if state is not None else []
    devices: list[dict[str, Any]] = []
    if state is not None and pending:
        found = node_devices(ctx, state, ctx.node_info(node))
        devices = list(found.get("allocation") or [])
    by_claim: dict[str, list[str]] = {}
    allocations = state.node_allocations.get(node) if state is not None else None
    for claim, allocation in zip(pending, allocations or (), strict=False):
        by_claim[claim.key] = [
            device_text(device_id(d), d)
            for d in devices
            if any(device_id(r.to_dict()) == device_id(d) for r in allocation.devices)
        ]
    kept = clauses(f"{k}: {', '.join(v) or _('no device')}" for k, v in by_claim.items())
    already = [c.key for c in state.claims if c.allocation is not None] if state else []
    reserve_text = (
        _("Reserve keeps the allocation Filter found on %(node)s: %(kept)s.")
        % {"node": node, "kept": kept}
        if kept
        else _("Reserve had no claim to allocate.")
    )
    pre_bind_text = (
        _(
            "PreBind writes it into each claim's status.allocation and adds the pod to "
            "reservedFor: %(kept)s."
        )
        % {"kept": kept}
        if kept
        else _("PreBind only adds the pod to reservedFor.")
    )
    if already:
        pre_bind_text += _(" Allocated before this cycle: %(claims)s.") % {
            "claims": listed(already)
        }
    inputs = {"claims": by_claim, "devices": devices, "alreadyAllocated": already}
    return [
        explanation(
            ctx,
            point,
            NAME,
            node,
            inputs=inputs,
            formula="",
            value={"code": "Success", "devices": [device_id(d) for d in devices]},
            text=text,
        )
        for point, text in (("Reserve", reserve_text), ("PreBind", pre_bind_text))
    ]
