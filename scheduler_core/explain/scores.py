"""Score explained: a plugin's raw score for a node, with the inputs and the formula.

Each explainer reads the same PreScore state the plugin read and calls the plugin's own scoring
functions (per-resource scorers, term matching, image scaling), so the explained value is the
plugin's value; the explainer adds the inputs and writes the arithmetic out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.config.types import MAX_CUSTOM_PRIORITY_SCORE
from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.plugins.custom import custom_score, is_custom
from scheduler_core.explain.record import Explanation, explanation, quantity_text
from scheduler_core.explain.words import _, clauses, listed
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.plugins.image_locality import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
)
from scheduler_core.plugins.node_affinity import matching_terms
from scheduler_core.plugins.node_resources.balanced_allocation import balanced_resource_scorer
from scheduler_core.plugins.node_resources.resource_allocation import ResourceAllocationScorer

# An explainer: (context, plugin, node) -> (inputs, formula, value, text).
Explainer = Callable[[CycleContext, Any, NodeInfo], tuple[dict[str, Any], str, int, str]]

_EXPLAINERS: dict[str, Explainer] = {}


def explainer(name: str) -> Callable[[Explainer], Explainer]:
    def register(fn: Explainer) -> Explainer:
        _EXPLAINERS[name] = fn
        return fn

    return register


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
    fn = _EXPLAINERS.get(plugin)
    inputs: dict[str, Any]
    if fn is None and is_custom(pl):
        inputs, formula, value, text = custom_score(ctx, pl, ni)
    elif fn is None:
        value, _status = pl.score(ctx.state, ctx.pod, ni)
        inputs = {}
        formula = f"Score = {value}"
        text = _("%(plugin)s's Score gave %(node)s %(value)s.") % {
            "plugin": plugin,
            "node": node,
            "value": value,
        }
    else:
        inputs, formula, value, text = fn(ctx, pl, ni)
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


# -- NodeResourcesFit and NodeResourcesBalancedAllocation -------------------------------------


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


@explainer(names.NODE_RESOURCES_FIT)
def _fit(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    scorer: ResourceAllocationScorer = pl.scorer
    entries = pl.score_entries(ctx.state, ctx.pod)
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
        inputs["shape"] = shape = _shape(pl)
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


def _shape(pl: Any) -> list[dict[str, int]]:
    args = getattr(pl, "args", None)
    strategy = getattr(args, "scoring_strategy", None)
    rtcr = getattr(strategy, "requested_to_capacity_ratio", None)
    return [{"utilization": p.utilization, "score": p.score} for p in getattr(rtcr, "shape", ())]


@explainer(names.NODE_RESOURCES_BALANCED_ALLOCATION)
def _balanced(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    scorer: ResourceAllocationScorer = pl.scorer
    entries = pl.score_entries(ctx.state, ctx.pod)
    if entries is None:  # Score without PreScore for a best-effort pod: 0, as upstream
        text = _(
            "NodeResourcesBalancedAllocation on %(node)s: the pod requests none of the "
            "resources and PreScore did not run, so Score gives it 0 on every node."
        ) % {"node": ni.node.name}
        return {"resources": []}, _("best-effort pod without PreScore: score = 0"), 0, text
    rows = _amount_rows(scorer, entries, ni)
    value, fractions = balanced_resource_scorer(
        [r["requested"] for r in rows], [r["allocatable"] for r in rows]
    )
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


# -- TaintToleration, NodeAffinity, ImageLocality -----------------------------------------------


@explainer(names.TAINT_TOLERATION)
def _taints(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    value, _status = pl.score(ctx.state, ctx.pod, ni)
    prefer = [t for t in ni.node.taints if t.effect == "PreferNoSchedule"]
    counted = pl.intolerable_taints(ctx.state, ctx.pod, ni)  # what Score counted
    untolerated = [f"{t.key}={t.value}:{t.effect}" for t in counted]
    inputs = {
        "preferNoScheduleTaints": [f"{t.key}={t.value}:{t.effect}" for t in prefer],
        "intolerable": untolerated,
    }
    if untolerated:
        text = _(
            "TaintToleration counts the PreferNoSchedule taints of %(node)s that the pod does "
            "not tolerate: %(value)s (%(taints)s). NormalizeScore reverses the count, so fewer "
            "such taints score higher."
        )
    else:
        text = _(
            "TaintToleration counts the PreferNoSchedule taints of %(node)s that the pod does "
            "not tolerate: %(value)s. NormalizeScore reverses the count, so fewer such taints "
            "score higher."
        )
    text %= {"node": ni.node.name, "value": value, "taints": listed(untolerated)}
    formula = _("count of intolerable PreferNoSchedule taints = %(value)s") % {"value": value}
    return inputs, formula, value, text


@explainer(names.NODE_AFFINITY)
def _node_affinity(
    ctx: CycleContext, pl: Any, ni: NodeInfo
) -> tuple[dict[str, Any], str, int, str]:
    added, own = pl.preferred_terms(ctx.state, ctx.pod)
    rows = []
    for origin, terms in (("addedAffinity", added), ("pod", own)):
        hits = {id(t) for t in matching_terms(terms, ni)}
        for i, t in enumerate(terms):
            rows.append({"from": origin, "term": i, "weight": t.weight, "matched": id(t) in hits})
    value, _status = pl.score(ctx.state, ctx.pod, ni)
    matched = [r for r in rows if r["matched"]]
    formula = (" + ".join(str(r["weight"]) for r in matched) or "0") + f" = {value}"
    text = _(
        "NodeAffinity adds the weights of the preferred terms %(node)s matches: %(matched)s of "
        "%(terms)s term(s) match, for %(value)s."
    ) % {"node": ni.node.name, "matched": len(matched), "terms": len(rows), "value": value}
    return {"terms": rows, "nodeLabels": dict(ni.node.labels)}, formula, value, text


@explainer(names.IMAGE_LOCALITY)
def _images(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    total = ctx.snapshot.num_nodes()
    containers = ctx.pod.init_containers + ctx.pod.containers
    rows = []
    sum_scores = 0
    for image, scaled in pl.image_scores(ctx.pod, ni):  # Score's own terms
        st = ni.image_states.get(image)
        sum_scores += scaled
        rows.append(
            {
                "image": image,
                "onNode": st is not None,
                "size": st.size if st is not None else 0,
                "nodesWithImage": st.num_nodes if st is not None else 0,
                "scaled": scaled,
            }
        )
    n = len(containers)
    value, _status = pl.score(ctx.state, ctx.pod, ni)
    high = MAX_CONTAINER_THRESHOLD * n
    scaled_text = (
        " + ".join(f"{r['size']}×{r['nodesWithImage']}/{total}" for r in rows if r["onNode"]) or "0"
    )
    formula = _(
        "sum = %(scaled)s = %(sum)s; clamp to [%(low)s, %(high)s]; "
        "100 × (sum − %(low)s) / (%(high)s − %(low)s) = %(value)s"
    ) % {
        "scaled": scaled_text,
        "sum": sum_scores,
        "low": MIN_THRESHOLD,
        "high": high,
        "value": value,
    }
    text = _(
        "ImageLocality on %(node)s: of the pod's %(images)s image(s), %(there)s are already "
        "there; each counts its size times the share of the %(total)s nodes holding it, summed "
        "to %(sum)s bytes, then scaled between 23 MiB and %(images)s × 1000 MiB to %(value)s."
    ) % {
        "node": ni.node.name,
        "images": n,
        "there": sum(1 for r in rows if r["onNode"]),
        "total": total,
        "sum": sum_scores,
        "value": value,
    }
    return {"images": rows, "totalNodes": total}, formula, value, text
