"""PodTopologySpread and InterPodAffinity explained: pods counted per topology domain.

The counts are the ones PreFilter and PreScore wrote to the cycle state; the plugins' own
skew checks and score terms give the numbers.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext, FilterView
from scheduler_core.explain.filters import filter_detail
from scheduler_core.explain.scores import explainer
from scheduler_core.explain.words import _, clauses, gettext_noop, listed
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.plugins.inter_pod_affinity.tally import existing_terms_weights
from scheduler_core.plugins.pod_topology_spread.plugin import score_terms

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
            lines.append(_("%(key)s: node has no such label") % {"key": c.topology_key})
            texts.append(
                _("the node has no %(key)s label, so it is outside every domain")
                % {"key": c.topology_key}
            )
            break
        op = ">" if c.exceeds else "≤"
        lines.append(
            f"{c.topology_key}={c.value}: skew = {c.matching} + {c.self_match} − {c.min_match} "
            f"= {c.skew} {op} maxSkew {c.max_skew}"
        )
        where = {
            "key": c.topology_key,
            "domain": c.value,
            "matching": c.matching,
            "min": c.min_match,
            "domains": len(c.counts),
            "minDomains": c.min_domains,
            "skew": c.skew,
            "op": op,
            "maxSkew": c.max_skew,
        }
        enough = c.enough_domains
        texts.append(_(_SPREAD_TEXTS[bool(c.self_match), enough]) % where)
        if c.exceeds:
            break
    return {"constraints": rows}, "; ".join(lines), _sentence(texts)


@explainer(names.POD_TOPOLOGY_SPREAD)
def _spread_score(ctx: CycleContext, pl: Any, ni: NodeInfo) -> tuple[dict[str, Any], str, int, str]:
    found = score_terms(ctx.state, ni)
    value, _status = pl.score(ctx.state, ctx.pod, ni)
    if found is None:
        text = _("PodTopologySpread gave %(node)s %(value)s.") % {
            "node": ni.node.name,
            "value": value,
        }
        return {}, f"Score = {value}", value, text
    terms, ignored, domains, total = found
    if ignored:
        return (
            {"ignored": True},
            _("node ignored → 0"),
            value,
            _(
                "%(node)s lacks the label of a soft constraint, so PodTopologySpread ignores it: "
                "raw 0 and normalized 0."
            )
            % {"node": ni.node.name},
        )
    rows = [
        {
            "topologyKey": k,
            "domain": v,
            "matching": cnt,
            "weight": w,
            "maxSkew": m,
            "domains": domains.get(k),
        }
        for k, v, cnt, w, m, *_rest in terms
    ]
    weights = "; ".join(
        f"weight({k}) = ln({domains[k]} + 2) = {w:.4f}"
        for k, _v, _cnt, w, *_rest in terms
        if k in domains
    )
    parts = " + ".join(f"{cnt}×{w:.4f} + ({m} − 1)" for _k, _v, cnt, w, m, *_rest in terms) or "0"
    formula = f"round({parts}) = round({total:.4f}) = {value}"
    if weights:
        formula = f"{weights}; {formula}"
    text = _(
        "PodTopologySpread on %(node)s: for each soft constraint, the matching pods in the "
        "node's domain times the constraint's weight (log of the number of domains + 2), plus "
        "maxSkew − 1; %(counts)s. Raw %(value)s; fewer pods score higher after NormalizeScore."
    ) % {
        "node": ni.node.name,
        "counts": clauses(
            _("%(key)s=%(domain)s: %(count)s pod(s)") % {"key": k, "domain": v, "count": cnt}
            for k, v, cnt, *_rest in terms
        ),
        "value": value,
    }
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

    def counts(rows: list[dict[str, Any]]) -> str:
        return ", ".join(f"{a['topologyKey']}={a['domain']} has {a['matchingPods']}" for a in rows)

    if affinity:
        texts.append(
            _("required affinity: %(counts)s matching pod(s)") % {"counts": counts(affinity)}
        )
    if anti:
        texts.append(
            _("required anti-affinity: %(counts)s matching pod(s)") % {"counts": counts(anti)}
        )
    if existing:
        texts.append(
            _("pods already in %(domains)s have anti-affinity against this pod")
            % {"domains": listed(f"{e['topologyKey']}={e['domain']}" for e in existing)}
        )
    formula = _(
        "every affinity term's domain has a matching pod (or none exist anywhere and the pod "
        "matches itself); no anti-affinity term's domain has one; no existing pod's "
        "anti-affinity covers the node"
    )
    return inputs, formula, _sentence(texts) or _("The pod has no pod affinity.")


@explainer(names.INTER_POD_AFFINITY)
def _affinity_score(
    ctx: CycleContext, pl: Any, ni: NodeInfo
) -> tuple[dict[str, Any], str, int, str]:
    pairs = pl.score_pairs(ctx.state, ni) or []
    # Each pair's weight and the sum are Score's own; the breakdown names who adds what.
    rows = [{**_pair_breakdown(ctx, pl, key, value), "weight": w} for key, value, w in pairs]
    value = sum(w for _key, _value, w in pairs)
    inputs = {
        "pairs": [r for r in rows if r["contributions"]],
        "hardPodAffinityWeight": pl.hard_pod_affinity_weight,
    }
    parts = [c for r in rows for c in r["contributions"]]
    formula = (" + ".join(f"({c['weight']:+d})" for c in parts) or "0") + f" = {value}"
    described = clauses(
        f"{r['topologyKey']}={r['domain']}: " + ", ".join(_describe(c) for c in r["contributions"])
        for r in rows
        if r["contributions"]
    )
    where = {
        "node": ni.node.name,
        "hard": pl.hard_pod_affinity_weight,
        "described": described,
        "value": value,
    }
    if described:
        text = _(
            "InterPodAffinity on %(node)s adds up, over the topology domains the node is in, the "
            "weights of the pod's preferred (anti-)affinity terms once per matching pod in the "
            "domain (anti-affinity negative), and those of existing pods' terms that match this "
            "pod (a required affinity term counts hardPodAffinityWeight %(hard)s). "
            "%(described)s. Raw %(value)s, then scaled between the lowest and highest raw score."
        )
    else:
        text = _(
            "InterPodAffinity on %(node)s adds up, over the topology domains the node is in, the "
            "weights of the pod's preferred (anti-)affinity terms once per matching pod in the "
            "domain (anti-affinity negative), and those of existing pods' terms that match this "
            "pod (a required affinity term counts hardPodAffinityWeight %(hard)s). Nothing in "
            "the node's domains counts. Raw %(value)s, then scaled between the lowest and "
            "highest raw score."
        )
    text %= where
    return inputs, formula, value, text


def _pair_breakdown(ctx: CycleContext, pl: Any, key: str, value: str) -> dict[str, Any]:
    """Who adds what to one topology pair: the pod's terms matching pods in the domain, and
    the terms of the pods there that match the pod (worked out once per pair and cycle)."""
    cached = ctx.cache.get((names.INTER_POD_AFFINITY, key, value))
    if cached is None:
        cached = ctx.cache[(names.INTER_POD_AFFINITY, key, value)] = _pair(ctx, pl, key, value)
    return dict(cached)


def _pair(ctx: CycleContext, pl: Any, key: str, value: str) -> dict[str, Any]:
    pod = ctx.pod
    domain = [n for n in ctx.snapshot.node_info_list if n.node.labels.get(key) == value]
    out: list[dict[str, Any]] = []
    for t, sign in pl.preferred_terms(pod):
        if t.topology_key != key:
            continue
        matching = [p.key for n in domain for p in n.pods if t.matches(p)]
        if matching:
            out.append(
                {
                    "term": (
                        _("the pod's preferred affinity")
                        if sign > 0
                        else _("the pod's preferred anti-affinity")
                    ),
                    "termWeight": t.weight,
                    "matchingPods": len(matching),
                    "pods": matching,
                    "weight": sign * t.weight * len(matching),
                }
            )
    ns_labels = pl.namespace_labels(pod)
    for n in domain:
        for existing in n.pods_with_affinity:
            for k, _value, weight, what in existing_terms_weights(
                existing, n.node.labels, pod, ns_labels, pl.hard_pod_affinity_weight
            ):
                if k == key:
                    term = _(_EXISTING_TERMS.get(what, what)) % {"pod": existing.key}
                    out.append({"term": term, "weight": weight})
    return {"topologyKey": key, "domain": value, "contributions": out}


def _describe(c: dict[str, Any]) -> str:
    if "matchingPods" in c:
        return _("%(term)s (%(termWeight)s) × %(matchingPods)s pod(s) = %(signed)s") % {
            **c,
            "signed": f"{c['weight']:+d}",
        }
    return f"{c['term']} {c['weight']:+d}"


def _sentence(texts: list[str]) -> str:
    """Clauses joined into one sentence (empty without clauses)."""
    return _("%(clauses)s.") % {"clauses": clauses(texts)} if texts else ""


# A constraint's Filter clause: (the pod matches itself, minDomains domains exist) -> sentence.
_SPREAD_TEXTS = {
    (False, True): gettext_noop(
        "%(key)s=%(domain)s holds %(matching)s matching pod(s); the emptiest domain has %(min)s; "
        "skew %(skew)s %(op)s maxSkew %(maxSkew)s"
    ),
    (True, True): gettext_noop(
        "%(key)s=%(domain)s holds %(matching)s matching pod(s) and the pod itself matches; the "
        "emptiest domain has %(min)s; skew %(skew)s %(op)s maxSkew %(maxSkew)s"
    ),
    (False, False): gettext_noop(
        "%(key)s=%(domain)s holds %(matching)s matching pod(s); only %(domains)s of minDomains "
        "%(minDomains)s domains exist, so the minimum counts as 0; skew %(skew)s %(op)s maxSkew "
        "%(maxSkew)s"
    ),
    (True, False): gettext_noop(
        "%(key)s=%(domain)s holds %(matching)s matching pod(s) and the pod itself matches; only "
        "%(domains)s of minDomains %(minDomains)s domains exist, so the minimum counts as 0; "
        "skew %(skew)s %(op)s maxSkew %(maxSkew)s"
    ),
}

# An existing pod's term that counts for the pod (inter_pod_affinity.tally's words), per kind.
_EXISTING_TERMS = {
    "required affinity": gettext_noop("%(pod)s's required affinity"),
    "preferred affinity": gettext_noop("%(pod)s's preferred affinity"),
    "preferred anti-affinity": gettext_noop("%(pod)s's preferred anti-affinity"),
}
