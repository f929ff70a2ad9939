"""NodeResourcesFit and NodeResourcesBalancedAllocation explained: the amounts and the formula.

The plugins call these from their ``explain_filter``/``explain_score`` with the facts their own
code computed (the pod's request and the shortages, the scorer's entries), so the explained
value is the plugin's value; these functions lay out the amounts and write the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from scheduler_core.config.types import MAX_CUSTOM_PRIORITY_SCORE
from scheduler_core.framework.explaining import FilterParts, ScoreParts, quantity_text
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.node_resources.resource_allocation import (
    ResourceAllocationScorer,
)
from scheduler_core.words import _, clauses

if TYPE_CHECKING:
    from scheduler_core.plugins.node_resources.fit import InsufficientResource, _PreFilterState


def fit_filter(
    request: _PreFilterState, ni: NodeInfo, short: list[InsufficientResource]
) -> FilterParts:
    """The pod's request against what ``ni`` has free, resource by resource."""
    alloc, used = ni.allocatable, ni.requested
    rows: dict[str, dict[str, int]] = {
        "pods": {
            "requested": 1,
            "used": len(ni.pods),
            "allocatable": alloc.allowed_pod_number,
            "free": alloc.allowed_pod_number - len(ni.pods),
        }
    }
    for name, want, have, taken in (
        ("cpu", request.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        ("memory", request.memory, alloc.memory, used.memory),
        (
            "ephemeral-storage",
            request.ephemeral_storage,
            alloc.ephemeral_storage,
            used.ephemeral_storage,
        ),
    ):
        if want > 0:
            rows[name] = {
                "requested": want,
                "used": taken,
                "allocatable": have,
                "free": have - taken,
            }
    for name, want, _rest in request.scalars:
        have, taken = alloc.scalars.get(name, 0), used.scalars.get(name, 0)
        rows[name] = {"requested": want, "used": taken, "allocatable": have, "free": have - taken}
    parts = []
    for name, r in rows.items():
        op = ">" if any(s.resource_name == name for s in short) else "≤"
        parts.append(
            _("%(resource)s: %(requested)s %(op)s free %(allocatable)s − %(used)s = %(free)s")
            % {
                "resource": name,
                "requested": quantity_text(name, r["requested"]),
                "op": op,
                "allocatable": quantity_text(name, r["allocatable"]),
                "used": quantity_text(name, r["used"]),
                "free": quantity_text(name, r["free"]),
            }
        )
    lacking = []
    for s in short:
        amounts = {
            "reason": s.reason,
            "asks": quantity_text(s.resource_name, s.requested),
            "free": quantity_text(s.resource_name, s.capacity - s.used),
            "used": quantity_text(s.resource_name, s.used),
            "capacity": quantity_text(s.resource_name, s.capacity),
        }
        if s.unresolvable:
            line = _(
                "%(reason)s: the pod asks %(asks)s, the node has %(free)s free (%(used)s of "
                "%(capacity)s already requested) — more than the whole node, so unresolvable"
            )
        else:
            line = _(
                "%(reason)s: the pod asks %(asks)s, the node has %(free)s free (%(used)s of "
                "%(capacity)s already requested)"
            )
        lacking.append(line % amounts)
    if lacking:
        text = _("%(shortages)s.") % {"shortages": clauses(lacking)}
    else:
        text = _("Every requested resource fits in what is free.")
    return {"resources": rows}, "; ".join(parts), text


def allocation_score(
    scorer: ResourceAllocationScorer,
    entries: Any,
    ni: NodeInfo,
    shape: list[dict[str, int]],
) -> ScoreParts:
    """NodeResourcesFit's score: each resource's score under the strategy, and their mean."""
    rows = _amount_rows(scorer, entries, ni)
    value = scorer.score_amounts(
        [r["requested"] for r in rows],
        [r["allocatable"] for r in rows],
        [r["weight"] for r in rows],
    )
    strategy = scorer.name
    inputs: dict[str, Any] = {"strategy": strategy, "resources": rows}
    lines, parts, texts = [], [], []
    for r in rows:
        name, req, cap = r["resource"], r["requested"], r["allocatable"]

        def q(v: int, name: str = name) -> str:
            return quantity_text(name, v)

        if strategy == "LeastAllocated":
            s = scorer.score_amounts([req], [cap], [1])
            lines.append(
                f"{name}: ({q(cap)} − {q(req)}) × 100 / {q(cap)} = {s}"
                if req <= cap
                else _("%(resource)s: requested %(requested)s > %(allocatable)s → 0")
                % {"resource": name, "requested": q(req), "allocatable": q(cap)}
            )
        elif strategy == "MostAllocated":
            s = scorer.score_amounts([req], [cap], [1])
            lines.append(f"{name}: min({q(req)}, {q(cap)}) × 100 / {q(cap)} = {s}")
        else:
            s = scorer.score_amounts([req], [cap], [1])
            pct = min(req * 100 // cap, 100) if cap else 100
            lines.append(
                _("%(resource)s: shape(%(pct)s%% used) = %(score)s")
                % {"resource": name, "pct": pct, "score": s}
            )
        r["score"] = s
        parts.append((s, r["weight"]))
        texts.append(
            _(
                "%(resource)s %(node)s already requested + %(pod)s for the pod = %(requested)s of "
                "%(allocatable)s allocatable scores %(score)s (weight %(weight)s)"
            )
            % {
                "resource": name,
                "node": q(r["node"]),
                "pod": q(r["pod"]),
                "requested": q(req),
                "allocatable": q(cap),
                "score": s,
                "weight": r["weight"],
            }
        )
    if strategy == "RequestedToCapacityRatio":
        # Resources scoring 0 or less do not count towards the mean, which rounds half up.
        parts = [(s, w) for s, w in parts if s > 0]
        mean = _weighted_mean(parts, value, rounded=True)
        inputs["shape"] = shape
        scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
        points = ", ".join(f"{p['utilization']}%→{p['score'] * scale}" for p in shape)
        lines.insert(
            0,
            _("shape: %(points)s (linear between points, scores ×%(scale)s)")
            % {"points": points, "scale": scale},
        )
    else:
        mean = _weighted_mean(parts, value, rounded=False)
    formula = "; ".join(lines + [mean])
    text = _(
        "NodeResourcesFit (%(strategy)s) on %(node)s: %(resources)s. The weighted mean is "
        "%(value)s."
    ) % {"strategy": strategy, "node": ni.node.name, "resources": clauses(texts), "value": value}
    return inputs, formula, value, text


def rtcr_shape(args: Any) -> list[dict[str, int]]:
    args = args
    strategy = getattr(args, "scoring_strategy", None)
    rtcr = getattr(strategy, "requested_to_capacity_ratio", None)
    return [{"utilization": p.utilization, "score": p.score} for p in getattr(rtcr, "shape", ())]


def balanced_score(
    scorer: ResourceAllocationScorer,
    entries: Any,
    ni: NodeInfo,
    balance: Callable[[Sequence[int], Sequence[int]], tuple[int, list[float]]],
) -> ScoreParts:
    """NodeResourcesBalancedAllocation's score: the requested shares and their spread
    (``balance``: the plugin's own balanced_resource_scorer)."""
    if entries is None:  # Score without PreScore for a best-effort pod: 0, as upstream
        text = _(
            "NodeResourcesBalancedAllocation on %(node)s: the pod requests none of the "
            "resources and PreScore did not run, so Score gives it 0 on every node."
        ) % {"node": ni.node.name}
        return {"resources": []}, _("best-effort pod without PreScore: score = 0"), 0, text
    rows = _amount_rows(scorer, entries, ni)
    value, fractions = balance([r["requested"] for r in rows], [r["allocatable"] for r in rows])
    for r, f in zip(rows, fractions, strict=True):
        r["fraction"] = f
    if len(fractions) == 2:
        spread = f"std = |{fractions[0]:.4f} − {fractions[1]:.4f}| / 2"
    elif len(fractions) > 2:
        spread = _("std = population standard deviation of %(fractions)s") % {
            "fractions": ", ".join(f"{f:.4f}" for f in fractions)
        }
    else:
        spread = _("std = 0 (fewer than two resources)")
    formula = f"{spread}; score = ⌊(1 − std) × {MAX_NODE_SCORE}⌋ = {value}"
    text = _(
        "NodeResourcesBalancedAllocation on %(node)s: the share of each resource that would be "
        "requested with the pod is %(shares)s; the closer these are, the higher the score: "
        "%(value)s."
    ) % {
        "node": ni.node.name,
        "shares": ", ".join(f"{r['resource']} {r['fraction']:.4f}" for r in rows),
        "value": value,
    }
    return {"resources": rows}, formula, value, text


def _amount_rows(
    scorer: ResourceAllocationScorer, entries: Any, ni: NodeInfo
) -> list[dict[str, Any]]:
    by_name = {e[1]: e for e in entries}
    rows = []
    for name, requested, allocatable, weight in scorer.node_amounts(entries, ni):
        pod_req = by_name[name][2]
        rows.append(
            {
                "resource": name,
                "pod": pod_req,
                "node": requested - pod_req,
                "requested": requested,
                "allocatable": allocatable,
                "weight": weight,
            }
        )
    return rows


def _weighted_mean(parts: list[tuple[int, int]], value: int, rounded: bool) -> str:
    if not parts:
        return _("no resource counts → %(value)s") % {"value": value}
    num = " + ".join(f"{s}×{w}" for s, w in parts)
    den = " + ".join(str(w) for _s, w in parts)
    mean = f"({num}) / ({den}) = {value}"
    if rounded:
        return _("%(mean)s (rounded)") % {"mean": mean}
    return _("%(mean)s (integer division)") % {"mean": mean}
