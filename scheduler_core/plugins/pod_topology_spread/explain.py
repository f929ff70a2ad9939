"""PodTopologySpread explained: pods counted per topology domain, skew and score terms.

The plugin calls these from its ``explain_filter``/``explain_score``; the counts are the ones
PreFilter and PreScore wrote to the cycle state, and the plugin's own skew checks and score
terms give the numbers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.types import NodeInfo
from scheduler_core.words import _, clauses, gettext_noop, sentence_of

if TYPE_CHECKING:
    from scheduler_core.plugins.pod_topology_spread.plugin import PodTopologySpread


def spread_filter(pl: PodTopologySpread, ctx: ExplainInputs, view: FilterView) -> FilterParts:
    """Each constraint's counts in the node's domain, and its skew against maxSkew."""
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
    return {"constraints": rows}, "; ".join(lines), sentence_of(texts)


def spread_score(pl: PodTopologySpread, ctx: ExplainInputs, ni: NodeInfo, found: Any) -> ScoreParts:
    """The soft constraints' terms on ``ni`` (``found``: the plugin's score_terms)."""
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
