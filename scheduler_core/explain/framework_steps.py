"""The framework's own steps explained: NormalizeScore, ×weight, the total, ties and selection.

NormalizeScore runs the plugin's own normalisation over the cycle's raw column (the runtime's
call, the runtime's inputs); the weight and total are the profile's weights over those values.
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.plugins.custom import custom_normalize_note, is_custom
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.framework import interfaces as fi
from scheduler_core.framework.runtime import PluginScores
from scheduler_core.framework.types import NodeScore
from scheduler_core.plugins import names
from scheduler_core.words import _, gettext_noop, listed

# How each in-tree plugin normalises, in words: (kind, formula template). A plugin missing here
# has no NormalizeScore (kind "none") unless it brings its own ("own").
NORMALIZE_RULES: Final[dict[str, tuple[str, str]]] = {
    names.TAINT_TOLERATION: ("reverse", "100 − 100 × raw / max"),
    names.NODE_AFFINITY: ("max", "100 × raw / max"),
    names.DYNAMIC_RESOURCES: ("max", "100 × raw / max"),
    names.INTER_POD_AFFINITY: ("min-max", "⌊100 × (raw − min) / (max − min)⌋"),
    names.POD_TOPOLOGY_SPREAD: ("reverse-min-max", "100 × (max + min − raw) / max"),
}


def explain_pre_filter(ctx: CycleContext) -> Explanation:
    """PreFilter: each plugin's answer, the node set they narrowed Filter to, or the rejection."""
    rec = ctx.record
    steps: list[dict[str, Any]] = []
    for name, status, result in rec.pre_filter_steps:
        nodes = None if result is None or result.all_nodes() else sorted(result.node_names or ())
        steps.append(
            {
                "plugin": name,
                "code": status.code.upstream,
                "reasons": list(status.reasons),
                "nodeNames": nodes,
            }
        )
    pf = rec.pre_filter
    code = pf.code.upstream if pf is not None else "Success"
    if pf is not None and not pf.is_success():
        if pf.plugin:
            text = _("PreFilter %(plugin)s rejected the pod for every node: %(reasons)s") % {
                "plugin": pf.plugin,
                "reasons": pf.message(),
            }
        else:
            text = _("PreFilter rejected the pod for every node: %(reasons)s") % {
                "reasons": pf.message()
            }
    elif rec.pre_filter_nodes is not None:
        narrowing = [s["plugin"] for s in steps if s["nodeNames"] is not None]
        where = {"plugins": listed(narrowing), "nodes": listed(rec.pre_filter_nodes)}
        if rec.pre_filter_nodes:
            text = _(
                "PreFilter of %(plugins)s limited Filter to %(nodes)s; the other nodes were not "
                "evaluated."
            )
        else:
            text = _(
                "PreFilter of %(plugins)s limited Filter to no node; the other nodes were not "
                "evaluated."
            )
        text %= where
    else:
        skipped = [s["plugin"] for s in steps if s["code"] == "Skip"]
        if skipped:
            text = _(
                "PreFilter let every node through to Filter; %(plugins)s returned Skip and will "
                "not filter."
            ) % {"plugins": listed(skipped)}
        else:
            text = _("PreFilter let every node through to Filter.")
    return explanation(
        ctx,
        "PreFilter",
        None,
        None,
        inputs={"plugins": steps},
        formula=_("node sets of the plugins intersected"),
        text=text,
        value={"code": code, "nodeNames": rec.pre_filter_nodes},
    )


def _column(ctx: CycleContext, plugin: str) -> PluginScores:
    for ps in ctx.record.scores:
        if ps.name == plugin:
            return ps
    raise ExplainError(f"{plugin} did not score in cycle {ctx.cycle}")


def _row(ctx: CycleContext, node: str) -> int:
    try:
        return ctx.record.scored_nodes.index(node)
    except ValueError:
        raise ExplainError(f"node {node!r} was not scored in cycle {ctx.cycle}") from None


def normalized_column(ctx: CycleContext, plugin: str, raw: list[int]) -> list[int]:
    """The plugin's NormalizeScore over ``raw`` (the scored nodes' raw scores, in order)."""
    key = ("normalized", plugin, tuple(raw))
    found = ctx.cache.get(key)
    if found is None:
        found = ctx.cache[key] = _normalize(ctx, plugin, raw)
    return list(found)


def _normalize(ctx: CycleContext, plugin: str, raw: list[int]) -> list[int]:
    pl = ctx.plugin(plugin)
    if isinstance(pl, fi.BatchNormalize):
        return list(pl.normalize_batch(ctx.state, ctx.pod, list(raw)))
    if isinstance(pl, fi.ScoreExtensions):
        scores = [NodeScore(n, v) for n, v in zip(ctx.record.scored_nodes, raw, strict=True)]
        pl.normalize_score(ctx.state, ctx.pod, scores)
        return [s.score for s in scores]
    return list(raw)


def explain_normalize(
    ctx: CycleContext, plugin: str, node: str, raw: list[int] | None = None
) -> Explanation:
    """NormalizeScore for one node: the plugin's rule with the column's min and max filled in.

    ``raw`` is the raw column over the scored nodes; by default the one the cycle recorded.
    """
    ps = _column(ctx, plugin)
    i = _row(ctx, node)
    column = list(ps.raw) if raw is None else list(raw)
    out = normalized_column(ctx, plugin, column)
    value, v = out[i], column[i]
    low, high = min(column), max(column)
    kind, template = NORMALIZE_RULES.get(plugin, ("none", "normalized = raw"))
    pl = ctx.plugin(plugin)
    if is_custom(pl) and pl.spec.normalize in _CUSTOM_KINDS:
        # A custom plugin's mode is one of the in-tree rules: the same arithmetic, written out.
        kind, template = _CUSTOM_KINDS[pl.spec.normalize]
    elif kind == "none" and isinstance(pl, fi.BatchNormalize | fi.ScoreExtensions):
        kind, template = "own", "the plugin's NormalizeScore"
    formula = _formula(kind, v, low, high, value)
    numbers = {"plugin": plugin, "raw": v, "low": low, "high": high, "value": value, "node": node}
    text = _(_NORMALIZE_TEXTS[kind]) % numbers
    inputs: dict[str, Any] = {"raw": v, "min": low, "max": high, "kind": kind, "rule": template}
    if is_custom(pl):
        inputs |= custom_normalize_note(pl)
        inputs["before"] = dict(zip(ctx.record.scored_nodes, column, strict=True))
        inputs["after"] = dict(zip(ctx.record.scored_nodes, out, strict=True))
        if "expression" in inputs and kind == "own":
            formula = (
                f"{inputs['expression']} with score = {v}, min = {low}, max = {high} → {value}"
            )
            text = _(
                "%(plugin)s's normalizeScore expression %(expression)s gives %(value)s for "
                "%(node)s (score %(raw)s, scores from %(low)s to %(high)s)."
            ) % {**numbers, "expression": inputs["expression"]}
    return explanation(
        ctx,
        "NormalizeScore",
        plugin,
        node,
        inputs=inputs,
        formula=formula,
        value=value,
        text=text,
    )


# A custom plugin's normalize mode (custom/plugin.py) as the in-tree rule it applies.
_CUSTOM_KINDS: Final[dict[str, tuple[str, str]]] = {
    "default": ("max", "100 × raw / max"),
    "reverse": ("reverse", "100 − 100 × raw / max"),
    "minmax": ("min-max", "⌊100 × (raw − min) / (max − min)⌋"),
}

# The sentence of each kind of NormalizeScore, translated where it is written.
_NORMALIZE_TEXTS: Final[dict[str, str]] = {
    "none": gettext_noop(
        "%(plugin)s has no NormalizeScore: its raw score %(raw)s is used as it is."
    ),
    "max": gettext_noop(
        "%(plugin)s scales by the highest raw score (%(high)s): %(raw)s becomes %(value)s."
    ),
    "reverse": gettext_noop(
        "%(plugin)s scales by the highest raw score (%(high)s) and reverses, so the fewest count "
        "gets 100: %(raw)s becomes %(value)s."
    ),
    "min-max": gettext_noop(
        "%(plugin)s maps the lowest raw score (%(low)s) to 0 and the highest (%(high)s) to 100: "
        "%(raw)s becomes %(value)s."
    ),
    "reverse-min-max": gettext_noop(
        "%(plugin)s maps lower raw scores (fewer matching pods) to higher ones, between min "
        "%(low)s and max %(high)s: %(raw)s becomes %(value)s."
    ),
    "own": gettext_noop("%(plugin)s's NormalizeScore turns %(raw)s into %(value)s."),
}


def _formula(kind: str, v: int, low: int, high: int, value: int) -> str:
    if kind == "max":
        return f"100 × {v} / {high} = {value}" if high > 0 else f"max ≤ 0 → {value}"
    if kind == "reverse":
        return f"100 − 100 × {v} / {high} = {value}" if high > 0 else f"max ≤ 0 → {value}"
    if kind == "min-max":
        if high == low:
            return f"max = min → {value}"
        return f"⌊100 × ({v} − {low}) / ({high} − {low})⌋ = {value}"
    if kind == "reverse-min-max":
        if high <= 0:
            return f"max = 0 → {value}"
        return _("%(formula)s (ignored nodes get 0)") % {
            "formula": f"100 × ({high} + {low} − {v}) / {high} = {value}"
        }
    return f"{v} → {value}"


def explain_weight(ctx: CycleContext, plugin: str, node: str) -> Explanation:
    """×weight: the normalized score times the plugin's weight in the profile."""
    ps = _column(ctx, plugin)
    i = _row(ctx, node)
    value = ps.normalized[i] * ps.weight
    return explanation(
        ctx,
        "Weight",
        plugin,
        node,
        inputs={"normalized": ps.normalized[i], "weight": ps.weight},
        formula=f"{ps.normalized[i]} × {ps.weight} = {value}",
        value=value,
        text=_("The profile weighs %(plugin)s %(weight)s: %(normalized)s counts %(value)s.")
        % {"plugin": plugin, "weight": ps.weight, "normalized": ps.normalized[i], "value": value},
    )


def explain_total(ctx: CycleContext, node: str) -> Explanation:
    """A node's total: the weighted scores of every plugin that scored, added."""
    i = _row(ctx, node)
    parts = [(ps.name, ps.normalized[i] * ps.weight) for ps in ctx.record.scores]
    value = sum(v for _name, v in parts)
    return explanation(
        ctx,
        "Combine",
        None,
        node,
        inputs={"weighted": dict(parts)},
        formula=" + ".join(str(v) for _name, v in parts) + f" = {value}" if parts else "0",
        value=value,
        text=_("%(node)s totals %(value)s: %(parts)s.")
        % {"node": node, "value": value, "parts": listed(f"{n} {v}" for n, v in parts)},
    )


def explain_selection(ctx: CycleContext) -> Explanation:
    """Which node won, by how much over the runner-up and thanks to which plugins; ties."""
    rec = ctx.record
    if len(rec.feasible) == 1:
        only = rec.feasible[0]
        return explanation(
            ctx,
            "Combine",
            None,
            only,
            inputs={"feasible": [only]},
            formula=_("one feasible node"),
            value={"top": [only], "selected": only},
            text=_("Only %(node)s passed Filter, so it is chosen without scoring.")
            % {"node": only},
        )
    if not rec.scored_nodes:
        return explanation(
            ctx,
            "Combine",
            None,
            None,
            inputs={},
            formula="",
            value={"top": [], "selected": None},
            text=_("No node passed Filter; nothing was selected."),
        )
    totals = {n: explain_total(ctx, n)["value"] for n in rec.scored_nodes}
    ranked = sorted(totals, key=lambda n: (-totals[n], n))
    best = totals[ranked[0]]
    top = sorted(n for n in ranked if totals[n] == best)
    selected = top[0]
    inputs: dict[str, Any] = {"totals": totals, "top": top}
    if len(top) > 1:
        text = _(
            "Tie: %(nodes)s share the highest total %(best)s; the first by name, %(node)s, is "
            "taken (upstream picks one of them at random)."
        ) % {"nodes": listed(top), "best": best, "node": selected}
        formula = _("max total = %(best)s on %(count)s nodes") % {"best": best, "count": len(top)}
    else:
        runner = ranked[1]
        margin = best - totals[runner]
        i, j = rec.scored_nodes.index(selected), rec.scored_nodes.index(runner)
        diffs = [(ps.name, (ps.normalized[i] - ps.normalized[j]) * ps.weight) for ps in rec.scores]
        diffs = sorted((d for d in diffs if d[1]), key=lambda d: -abs(d[1]))
        deciding = [{"plugin": name, "difference": d} for name, d in diffs]
        inputs.update({"runnerUp": runner, "margin": margin, "deciding": deciding})
        parts = listed(f"{name} {d:+d}" for name, d in diffs)
        text = _("%(node)s won by %(margin)s over %(runner)s: %(parts)s.") % {
            "node": selected,
            "margin": margin,
            "runner": runner,
            "parts": parts,
        }
        formula = f"{best} − {totals[runner]} = {margin}"
    return explanation(
        ctx,
        "Combine",
        None,
        selected,
        inputs=inputs,
        formula=formula,
        value={"top": top, "selected": selected},
        text=text,
    )
