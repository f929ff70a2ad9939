"""InterPodAffinity explained: matching pods per topology domain, and who adds what to a score.

The plugin calls these from its ``explain_filter``/``explain_score``; the counts are the ones
PreFilter and PreScore wrote to the cycle state, and each pair's weight is Score's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.plugins.inter_pod_affinity.state import existing_term_matches
from scheduler_core.plugins.inter_pod_affinity.tally import existing_terms_weights
from scheduler_core.words import _, clauses, gettext_noop, listed, sentence_of

if TYPE_CHECKING:
    from scheduler_core.plugins.inter_pod_affinity.plugin import InterPodAffinity


def affinity_filter(pl: InterPodAffinity, ctx: ExplainInputs, view: FilterView) -> FilterParts:
    """Each required term's matching pods in the node's domain, and existing anti-affinity."""
    s = pl.pre_filter_state(view.state)
    if s is None:
        return {}, "", ""
    labels = view.node_info.node.labels

    def domain(key: str, value: str) -> list[NodeInfo]:
        """The nodes of one topology domain, this node as the pass saw it."""
        name = view.node_info.node.name
        nodes = [n for n in ctx.snapshot.node_info_list if n.node.labels.get(key) == value]
        return [view.node_info if n.node.name == name else n for n in nodes]

    def pairs(terms: Any, counts: Any) -> list[dict[str, Any]]:
        out = []
        for t in terms:
            value = labels.get(t.topology_key)
            n = counts.get(t.topology_key, value) if value is not None else None
            row = {"topologyKey": t.topology_key, "domain": value, "matchingPods": n}
            if value is not None and n:  # which pods: what a reader looks for first
                row["pods"] = sorted(
                    p.key for ni in domain(t.topology_key, value) for p in ni.pods if t.matches(p)
                )
            out.append(row)
        return out

    affinity = pairs(s.affinity_terms, s.affinity)
    anti = pairs(s.anti_affinity_terms, s.anti_affinity)
    existing: list[dict[str, Any]] = []
    for key, values in s.existing_anti_affinity.by_key.items():
        value = labels.get(key)
        if value is not None and values.get(value, 0) > 0:
            holders = sorted(
                p.key
                for ni in domain(key, value)
                for p in ni.pods_with_required_anti_affinity
                if any(
                    t.topology_key == key and existing_term_matches(t, ctx.pod, s.namespace_labels)
                    for t in p.required_anti_affinity_terms
                )
            )
            existing.append(
                {"topologyKey": key, "domain": value, "pods": values[value], "holders": holders}
            )
    inputs = {
        "requiredAffinity": affinity,
        "requiredAntiAffinity": anti,
        "existingAntiAffinity": existing,
        "matchesOwnAffinity": s.matches_own_affinity,
    }
    texts = []

    def counts(rows: list[dict[str, Any]]) -> str:
        return ", ".join(
            f"{a['topologyKey']}={a['domain']} has {a['matchingPods']}"
            + (f" ({listed(_first(a['pods']))})" if a.get("pods") else "")
            for a in rows
        )

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
            % {
                "domains": listed(
                    f"{e['topologyKey']}={e['domain']}"
                    + (f" ({listed(_first(e['holders']))})" if e["holders"] else "")
                    for e in existing
                )
            }
        )
    formula = _(
        "every affinity term's domain has a matching pod (or none exist anywhere and the pod "
        "matches itself); no anti-affinity term's domain has one; no existing pod's "
        "anti-affinity covers the node"
    )
    return inputs, formula, sentence_of(texts) or _("The pod has no pod affinity.")


def affinity_score(pl: InterPodAffinity, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
    """The topology pairs of ``ni`` and who adds what to each."""
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


def _pair_breakdown(
    ctx: ExplainInputs, pl: InterPodAffinity, key: str, value: str
) -> dict[str, Any]:
    """Who adds what to one topology pair: the pod's terms matching pods in the domain, and
    the terms of the pods there that match the pod (worked out once per pair and cycle)."""
    cached = ctx.cache.get((names.INTER_POD_AFFINITY, key, value))
    if cached is None:
        cached = ctx.cache[(names.INTER_POD_AFFINITY, key, value)] = _pair(ctx, pl, key, value)
    return dict(cached)


def _pair(ctx: ExplainInputs, pl: InterPodAffinity, key: str, value: str) -> dict[str, Any]:
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


_NAMED: Final = 5  # pods named in a sentence; the inputs list them all


def _first(names: list[str]) -> list[str]:
    """The first ``_NAMED`` names, and how many more."""
    if len(names) <= _NAMED:
        return names
    return [*names[:_NAMED], _("%(more)s more") % {"more": len(names) - _NAMED}]


def _describe(c: dict[str, Any]) -> str:
    if "matchingPods" in c:
        return _("%(term)s (%(termWeight)s) × %(matchingPods)s pod(s) = %(signed)s") % {
            **c,
            "signed": f"{c['weight']:+d}",
        }
    return f"{c['term']} {c['weight']:+d}"


# An existing pod's term that counts for the pod (inter_pod_affinity.tally's words), per kind.
_EXISTING_TERMS = {
    "required affinity": gettext_noop("%(pod)s's required affinity"),
    "preferred affinity": gettext_noop("%(pod)s's preferred affinity"),
    "preferred anti-affinity": gettext_noop("%(pod)s's preferred anti-affinity"),
}
