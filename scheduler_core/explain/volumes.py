"""The volume plugins' Filter explained: the claim, zone or attach limit that decided."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext, FilterView
from scheduler_core.explain.filters import filter_detail
from scheduler_core.plugins import names
from scheduler_core.plugins.volume_zone import zone_checks


@filter_detail(names.VOLUME_BINDING)
def _binding(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    found = pl.node_volumes(view.state, view.node_info)
    if found is None:
        return {}, "", ""
    texts = []
    for b in found["boundClaims"]:
        if b["pv"] is None:
            texts.append(f"{b['claim']} is bound to a PersistentVolume that does not exist")
        else:
            match = "matches" if b["nodeAffinityMatches"] else "does not match"
            texts.append(f"{b['claim']} is bound to {b['pv']}, whose node affinity {match}")
    for claim in found["unboundClaims"]:
        pv = found["staticBindings"].get(claim)
        if pv is not None:
            texts.append(f"{claim} would bind to the available volume {pv}")
        elif claim in found["toProvision"]:
            texts.append(f"{claim} would be provisioned by its StorageClass")
        else:
            texts.append(f"{claim} finds no volume to bind on this node")
    formula = (
        "bound claims' PVs reachable from the node; each unbound claim matched to an available "
        "PV or provisionable"
    )
    return found, formula, ("; ".join(texts) + ".") if texts else ""


@filter_detail(names.VOLUME_ZONE)
def _zone(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    labels = view.node_info.node.labels
    checks = zone_checks(pl.topologies(view.state), labels)
    rows = [
        {"pv": t.pv_name, "label": t.key, "allowed": sorted(t.values), "node": v, "matches": ok}
        for t, v, ok in checks
    ]
    texts = [
        f"{t.pv_name} is in {t.key} {'/'.join(sorted(t.values))}; the node has "
        f"{v if v is not None else 'no such label'}"
        for t, v, _ in checks
    ]
    return (
        {"volumes": rows},
        "the node's zone/region is one each bound volume allows",
        (("; ".join(texts) + ".") if texts else "The pod has no bound volume with a zone."),
    )


@filter_detail(names.NODE_VOLUME_LIMITS)
def _limits(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    counts, _ = pl.driver_counts(ctx.pod, view.node_info)
    rows = [
        {"driver": c.driver, "attached": c.attached, "new": c.new, "limit": c.limit} for c in counts
    ]
    lines = [
        f"{c.driver}: {c.attached} + {c.new} {'>' if c.attached + c.new > c.limit else '≤'} "
        f"{c.limit}"
        for c in counts
        if c.limit is not None
    ]
    text = (
        "Volumes per CSI driver, attached on the node plus new with the pod, against the "
        "node's limit: " + "; ".join(lines) + "."
        if lines
        else "No attach limit applies to the pod's new volumes on this node."
    )
    return {"drivers": rows}, "; ".join(lines), text
