"""PodTopologySpread and InterPodAffinity explained: pods counted per topology domain.

The counts are the ones PreFilter and PreScore wrote to the cycle state; the plugins' own
skew checks and score terms give the numbers.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext, FilterView
from scheduler_core.explain.filters import filter_detail
from scheduler_core.explain.scores import explainer
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.plugins.pod_topology_spread import go_round, score_terms

# -- PodTopologySpread ----------------------------------------------------------------------------


@filter_detail(names.POD_TOPOLOGY_SPREAD)
def _spread_filter(ctx: CycleContext, pl: Any, view: FilterView) -> tuple[dict[str, Any], str, str]:
    checks = pl.skew_checks(view.state, view.node_info) or []
    rows, lines, texts = [], [], []
    for c in checks:
        rows.append(
            {
                "topologyKey": c.topology_key,
                "domain": c.value,
                "matchingInDomain": c.matching,
                "selfMatch": c.self_match,
                "minMatching": c.min_match,
                "skew": c.skew if c.value is not None else None,
                "maxSkew": c.max_skew,
                "minDomains": c.min_domains,
                "countsPerDomain": c.counts,
            }
        )
        if c.value is None:
            lines.append(f"{c.topology_key}: node has no such label")
            texts.append(f"the node has no {c.topology_key} label, so it is outside every domain")
            break
        op = "≤" if c.skew <= c.max_skew else ">"
        lines.append(
            f"{c.topology_key}={c.value}: skew = {c.matching} + {c.self_match} − {c.min_match} "
            f"= {c.skew} {op} maxSkew {c.max_skew}"
        )
        low = (
            f"the emptiest domain has {c.min_match}"
            if len(c.counts) >= c.min_domains
            else f"only {len(c.counts)} of minDomains {c.min_domains} domains exist, so the "
            "minimum counts as 0"
        )
        texts.append(
            f"{c.topology_key}={c.value} holds {c.matching} matching pod(s)"
            + (" and the pod itself matches" if c.self_match else "")
            + f"; {low}; skew {c.skew} {op} maxSkew {c.max_skew}"
        )
        if c.skew > c.max_skew:
            break
    return {"constraints": rows}, "; ".join(lines), ("; ".join(texts) + ".") if texts else ""


@explainer(names.POD_TOPOLOGY_SPREAD)
def _spread_score(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    found = score_terms(ctx.state, ni)
    value, _ = pl.score(ctx.state, ctx.pod, ni)
    if found is None:
        return {}, f"Score = {value}", value, f"PodTopologySpread gave {ni.node.name} {value}."
    terms, ignored = found
    if ignored:
        return (
            {"ignored": True},
            "node ignored → 0",
            value,
            f"{ni.node.name} lacks the label of a soft constraint, so PodTopologySpread ignores "
            "it: raw 0 and normalized 0.",
        )
    rows = [
        {"topologyKey": k, "domain": v, "matching": cnt, "weight": w, "maxSkew": m}
        for k, v, cnt, w, m in terms
    ]
    total = sum(float(cnt) * w + float(m - 1) for _, _, cnt, w, m in terms)
    parts = " + ".join(f"{cnt}×{w:.4f} + ({m} − 1)" for _, _, cnt, w, m in terms) or "0"
    formula = f"round({parts}) = round({total:.4f}) = {go_round(total)}"
    text = (
        f"PodTopologySpread on {ni.node.name}: for each soft constraint, the matching pods in the "
        "node's domain times the constraint's weight (log of the number of domains + 2), plus "
        f"maxSkew − 1; "
        + "; ".join(f"{k}={v}: {cnt} pod(s)" for k, v, cnt, _, _ in terms)
        + f". Raw {value}; fewer pods score higher after NormalizeScore."
    )
    return {"constraints": rows}, formula, value, text


# -- InterPodAffinity -----------------------------------------------------------------------------


@filter_detail(names.INTER_POD_AFFINITY)
def _affinity_filter(
    ctx: CycleContext, pl: Any, view: FilterView
) -> tuple[dict[str, Any], str, str]:
    s = pl.pre_filter_state(view.state)
    if s is None:
        return {}, "", ""
    labels = view.node_info.node.labels

    def pairs(terms: Any, counts: Any) -> list[dict[str, Any]]:
        out = []
        for t in terms:
            value = labels.get(t.topology_key)
            n = counts.get(t.topology_key, value) if value is not None else None
            out.append({"topologyKey": t.topology_key, "domain": value, "matchingPods": n})
        return out

    affinity = pairs(s.affinity_terms, s.affinity)
    anti = pairs(s.anti_affinity_terms, s.anti_affinity)
    existing = []
    for key, values in s.existing_anti_affinity.by_key.items():
        value = labels.get(key)
        if value is not None and values.get(value, 0) > 0:
            existing.append({"topologyKey": key, "domain": value, "pods": values[value]})
    inputs = {
        "requiredAffinity": affinity,
        "requiredAntiAffinity": anti,
        "existingAntiAffinity": existing,
        "matchesOwnAffinity": s.matches_own_affinity,
    }
    texts = []
    if affinity:
        texts.append(
            "required affinity: "
            + ", ".join(
                f"{a['topologyKey']}={a['domain']} has {a['matchingPods']}" for a in affinity
            )
            + " matching pod(s)"
        )
    if anti:
        texts.append(
            "required anti-affinity: "
            + ", ".join(f"{a['topologyKey']}={a['domain']} has {a['matchingPods']}" for a in anti)
            + " matching pod(s)"
        )
    if existing:
        texts.append(
            "pods already in "
            + ", ".join(f"{e['topologyKey']}={e['domain']}" for e in existing)
            + " have anti-affinity against this pod"
        )
    formula = (
        "every affinity term's domain has a matching pod (or none exist anywhere and the pod "
        "matches itself); no anti-affinity term's domain has one; no existing pod's "
        "anti-affinity covers the node"
    )
    return inputs, formula, ("; ".join(texts) + ".") if texts else "The pod has no pod affinity."


@explainer(names.INTER_POD_AFFINITY)
def _affinity_score(
    ctx: CycleContext, pl: Any, ni: NodeInfo
) -> tuple[dict[str, Any], str, int, str]:
    pairs = pl.score_pairs(ctx.state, ni) or []
    value = sum(w for _, _, w in pairs)
    rows = [{"topologyKey": k, "domain": v, "weight": w} for k, v, w in pairs if w]
    preferred = [
        {"weight": t.weight, "topologyKey": t.term.topology_key, "anti": anti}
        for anti, terms in (
            (False, ctx.pod.preferred_affinity_terms),
            (True, ctx.pod.preferred_anti_affinity_terms),
        )
        for t in terms
    ]
    inputs = {
        "pairs": rows,
        "preferredTerms": preferred,
        "hardPodAffinityWeight": pl.hard_pod_affinity_weight,
    }
    formula = (" + ".join(f"{w}" for _, _, w in pairs if w) or "0") + f" = {value}"
    text = (
        f"InterPodAffinity on {ni.node.name}: PreScore summed, per topology domain, the weights "
        "of the preferred (anti-)affinity terms matched by the pods in it (anti-affinity "
        "negative), those of existing pods' terms matching this pod, and hardPodAffinityWeight "
        f"({pl.hard_pod_affinity_weight}) for each existing pod whose required affinity this pod "
        "matches. The node's domains: "
        + (", ".join(f"{r['topologyKey']}={r['domain']} {r['weight']:+d}" for r in rows) or "none")
        + f"; raw {value}, then scaled between the lowest and highest raw score."
    )
    return inputs, formula, value, text
