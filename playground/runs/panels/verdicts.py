"""The run page's verdicts: NormalizeScore per plugin, why the winner won, the preemption.

Built from a cycle's score table (``charts.score_table``) and its PostFilter event: the recorded
values, nothing recomputed (the candidates' ordering comes from ``explain.json``). Which rule a
plugin normalises with comes from the engine's explain package, the same table its
NormalizeScore explanations use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from scheduler_core.explain import NORMALIZE_RULES
from scheduler_core.words import listed

Event = Mapping[str, Any]

# The rules in words, by the kind NORMALIZE_RULES gives.
RULE_TEXT: Final[dict[str, Promise]] = {
    "none": gettext_lazy("none: the plugin has no NormalizeScore, the raw score is kept"),
    "max": gettext_lazy("scaled to 0..100 by the highest raw score"),
    "reverse": gettext_lazy(
        "scaled to 0..100 by the highest raw score, then reversed (fewer is better)"
    ),
    "min-max": gettext_lazy("min/max scaling: the lowest raw score becomes 0, the highest 100"),
    "reverse-min-max": gettext_lazy("reversed min/max scaling: fewer matching pods score higher"),
    "own": gettext_lazy("the plugin's own NormalizeScore"),
}

# Upstream's selectHost picks among the tied nodes by reservoir sampling (at random); the
# engine takes the first by name (scheduler_core/cycle.py: rec.top is sorted by name).
TIE_RULE: Final = gettext_lazy(
    "the playground's engine picks the first tied node by name, so a run repeats exactly "
    "(upstream selectHost picks one of them at random, by reservoir sampling)"
)


# A tie names at most this many nodes in its sentence; the page lists them all below it.
TIES_NAMED: Final = 10


def _tied(top: Sequence[str]) -> str:
    named = listed(top[:TIES_NAMED])
    if len(top) <= TIES_NAMED:
        return named
    return gettext("%(named)s and %(more)s more") % {"named": named, "more": len(top) - TIES_NAMED}


def _minus(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def normalize_rule(plugin: str, raw: Sequence[int], normalized: Sequence[int]) -> tuple[str, str]:
    """(kind, formula) of ``plugin``'s NormalizeScore; "own" for an unknown one that rescaled."""
    kind, formula = NORMALIZE_RULES.get(plugin, ("none", "normalized = raw"))
    if kind == "none" and list(raw) != list(normalized):
        return "own", gettext("the plugin's NormalizeScore")
    return kind, formula


def normalize_summary(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per Score plugin: its rule, the raw range, the normalized range, the weight.

    ``example`` is the selected node's raw → normalized → weighted, when it was scored.
    """
    out = []
    nodes = table["nodes"]
    selected = table.get("selected")
    at = nodes.index(selected) if selected in nodes else None
    # Each plugin's column, taken from the rows at C speed (none without a row).
    raw_columns = list(zip(*table["values"]["raw"], strict=True))
    norm_columns = list(zip(*table["values"]["normalized"], strict=True))
    for j, plugin in enumerate(table["plugins"]):
        raw = list(raw_columns[j]) if raw_columns else []
        norm = list(norm_columns[j]) if norm_columns else []
        kind, formula = normalize_rule(plugin, raw, norm)
        row: dict[str, Any] = {
            "plugin": plugin,
            "kind": kind,
            "rule": str(RULE_TEXT[kind]),
            "formula": formula,
            "weight": table["weights"][j],
            "raw_min": min(raw, default=0),
            "raw_max": max(raw, default=0),
            "normalized_min": min(norm, default=0),
            "normalized_max": max(norm, default=0),
            "example": None,
        }
        if at is not None:
            row["example"] = {
                "node": selected,
                "raw": raw[at],
                "normalized": norm[at],
                "weighted": table["values"]["weighted"][at][j],
            }
        out.append(row)
    return out


def normalize_why(plugin: str, raw: Sequence[int], normalized: Sequence[int], weight: int) -> str:
    """The NormalizeScore step's sentence for one plugin's column."""
    kind, formula = normalize_rule(plugin, raw, normalized)
    if not raw:
        return gettext("%(plugin)s scored no node.") % {"plugin": plugin}
    ranges = gettext(
        "raw %(raw_min)s..%(raw_max)s → normalized %(min)s..%(max)s, then × weight %(weight)s"
    ) % {
        "raw_min": min(raw),
        "raw_max": max(raw),
        "min": min(normalized),
        "max": max(normalized),
        "weight": weight,
    }
    if kind == "none":
        return gettext(
            "%(plugin)s has no NormalizeScore: its raw scores are kept (%(ranges)s)."
        ) % {
            "plugin": plugin,
            "ranges": ranges,
        }
    return gettext("%(plugin)s: %(rule)s (%(formula)s); %(ranges)s.") % {
        "plugin": plugin,
        "rule": RULE_TEXT[kind],
        "formula": formula,
        "ranges": ranges,
    }


def winner_explanation(table: Mapping[str, Any]) -> dict[str, Any]:
    """Why the selected node won: the tie and the tie rule, or the weighted differences per
    plugin between it and the runner-up, largest first."""
    selected = table["selected"]
    if selected is None:
        return {"selected": None, "diffs": [], "text": gettext("No node was selected.")}
    if not table["scored"] or not table["plugins"]:
        return {
            "selected": selected,
            "text": gettext("%(node)s was the only feasible node, so scoring was skipped.")
            % {"node": selected},
            "diffs": [],
        }
    nodes = table["nodes"]
    top = list(table["top"])
    i = nodes.index(selected)
    total = table["totals"][i]
    if len(top) > 1:
        return {
            "selected": selected,
            "ties": top,
            "diffs": [],
            "rule": str(TIE_RULE),
            "text": gettext(
                "%(count)s nodes tied at %(total)s: %(tied)s; picked %(node)s: %(rule)s."
            )
            % {
                "count": len(top),
                "total": total,
                "tied": _tied(top),
                "node": selected,
                "rule": TIE_RULE,
            },
        }
    runner = next((n for n in nodes if n != selected), None)
    if runner is None:
        return {
            "selected": selected,
            "diffs": [],
            "text": gettext("%(node)s was the only node scored.") % {"node": selected},
        }
    k = nodes.index(runner)
    diffs = [
        {"plugin": p, "winner": a, "runner_up": b, "diff": a - b}
        for p, a, b in zip(
            table["plugins"],
            table["values"]["weighted"][i],
            table["values"]["weighted"][k],
            strict=True,
        )
        if a != b
    ]
    diffs.sort(key=lambda d: (-abs(d["diff"]), d["plugin"]))
    parts = listed(f"{d['plugin']} {_minus(d['diff'])}" for d in diffs) or gettext(
        "no plugin differs"
    )
    margin = total - table["totals"][k]
    return {
        "selected": selected,
        "runner_up": runner,
        "margin": margin,
        "diffs": diffs,
        "text": gettext(
            "%(node)s won by %(margin)s over %(runner)s (%(total)s to %(runner_total)s): %(parts)s."
        )
        % {
            "node": selected,
            "margin": margin,
            "runner": runner,
            "total": total,
            "runner_total": table["totals"][k],
            "parts": parts,
        },
    }


# DefaultPreemption prefixes its message so (scheduler_core/plugins/default_preemption.py); the
# runtime joins the reasons of every PostFilter plugin that rejected, in the profile's order,
# and names the first of them.
PREEMPTION_PREFIX: Final = "preemption: "


def post_filter_parts(ev: Event) -> list[dict[str, Any]]:
    """The PostFilter event's reasons per plugin: DefaultPreemption's ("preemption: ...")
    apart from those of the plugin the event names, which ran first."""
    reasons = list(ev.get("reasons") or [])
    plugin = ev.get("plugin") or ""
    ours = [r for r in reasons if r.startswith(PREEMPTION_PREFIX)]
    if not ours or plugin == "DefaultPreemption":
        return [{"plugin": plugin, "reasons": reasons}]
    others = [r for r in reasons if not r.startswith(PREEMPTION_PREFIX)]
    return [{"plugin": plugin, "reasons": others}, {"plugin": "DefaultPreemption", "reasons": ours}]


def preemption(cycle_evs: Sequence[Event]) -> dict[str, Any] | None:
    """The PostFilter outcome: candidates (when recorded), victims, nominated node and pod."""
    post = next((e for e in cycle_evs if e["type"] == "PostFilter"), None)
    if post is None:
        return None
    start = cycle_evs[0]
    nominated = post.get("nominated_node")
    candidates = [
        {"node": c.get("node"), "victims": list(c.get("victims") or [])}
        for c in post.get("candidates") or []
    ]
    if not candidates and nominated:
        candidates = [{"node": nominated, "victims": list(post.get("victims") or [])}]
    return {
        "plugin": post.get("plugin") or "",
        "code": post.get("code"),
        "reasons": list(post.get("reasons") or []),
        "by_plugin": post_filter_parts(post),
        "candidates": candidates,
        "chosen": nominated,
        "victims": list(post.get("victims") or []),
        "nominated_pod": start.get("pod") if nominated else None,
    }
