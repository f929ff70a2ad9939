"""The volume plugins' Filter explained: the claim, zone or attach limit that decided."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext, FilterView
from scheduler_core.explain.filters import filter_detail
from scheduler_core.explain.words import _, clauses
from scheduler_core.plugins import names
from scheduler_core.plugins.volume_zone import zone_checks


@filter_detail(names.VOLUME_BINDING)
def _binding(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    found = pl.node_volumes(view.state, view.node_info)
    if found is None:
        return {}, "", ""
    texts = []
    for b in found["boundClaims"]:
        where = {"claim": b["claim"], "pv": b["pv"]}
        if b["pv"] is None:
            line = _("%(claim)s is bound to a PersistentVolume that does not exist")
        elif b["nodeAffinityMatches"]:
            line = _("%(claim)s is bound to %(pv)s, whose node affinity matches")
        else:
            line = _("%(claim)s is bound to %(pv)s, whose node affinity does not match")
        texts.append(line % where)
    for claim in found["unboundClaims"]:
        pv = found["staticBindings"].get(claim)
        if pv is not None:
            line = _("%(claim)s would bind to the available volume %(pv)s")
        elif claim in found["toProvision"]:
            line = _("%(claim)s would be provisioned by its StorageClass")
        else:
            line = _("%(claim)s finds no volume to bind on this node")
        texts.append(line % {"claim": claim, "pv": pv})
    formula = _(
        "bound claims' PVs reachable from the node; each unbound claim matched to an available "
        "PV or provisionable"
    )
    return found, formula, _sentences(texts)


def _sentences(texts: list[str]) -> str:
    """Clauses joined into one sentence (empty without clauses)."""
    return _("%(clauses)s.") % {"clauses": clauses(texts)} if texts else ""


@filter_detail(names.VOLUME_ZONE)
def _zone(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    labels = view.node_info.node.labels
    checks = zone_checks(pl.topologies(view.state), labels)
    rows = [
        {"pv": t.pv_name, "label": t.key, "allowed": sorted(t.values), "node": v, "matches": ok}
        for t, v, ok in checks
    ]
    texts = [
        (
            _("%(pv)s is in %(key)s %(values)s; the node has %(value)s")
            if v is not None
            else _("%(pv)s is in %(key)s %(values)s; the node has no such label")
        )
        % {"pv": t.pv_name, "key": t.key, "values": "/".join(sorted(t.values)), "value": v}
        for t, v, _ok in checks
    ]
    return (
        {"volumes": rows},
        _("the node's zone/region is one each bound volume allows"),
        _sentences(texts) or _("The pod has no bound volume with a zone."),
    )


@filter_detail(names.NODE_VOLUME_LIMITS)
def _limits(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    counts, _per_driver = pl.driver_counts(ctx.pod, view.node_info)
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
        _(
            "Volumes per CSI driver, attached on the node plus new with the pod, against the "
            "node's limit: %(lines)s."
        )
        % {"lines": "; ".join(lines)}
        if lines
        else _("No attach limit applies to the pod's new volumes on this node.")
    )
    return {"drivers": rows}, "; ".join(lines), text
