"""The sentence that explains how many nodes Filter evaluated in a cycle, and why.

Built from CycleStart's ``sampling`` record (scheduler_core.events.SamplingInfo), which the
engine fills as kube-scheduler's numFeasibleNodesToFind and its rotating start index decide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import get_language, gettext, pgettext


def _percentage(info: Mapping[str, Any]) -> str:
    candidates, pct = info["candidates"], info["percentage"]
    setting = "percentageOfNodesToScore"
    profile = info.get("source") == "profile"
    if info.get("adaptive"):
        said = (
            gettext("0 in the profile") if profile else gettext("0 (unset: the adaptive default)")
        )
        raw = 50 - candidates // 125
        values = {"setting": setting, "said": said, "nodes": candidates, "raw": raw, "pct": pct}
        if raw < 5:
            return (
                gettext(
                    "%(setting)s is %(said)s, so 50 − %(nodes)s/125 = %(raw)s %%, "
                    "at least 5: %(pct)s %%"
                )
                % values
            )
        return gettext("%(setting)s is %(said)s, so 50 − %(nodes)s/125 = %(raw)s %%") % values
    where = gettext("the profile's value") if profile else gettext("the global value")
    return gettext("%(setting)s is %(value)s %% (%(where)s)") % {
        "setting": setting,
        "value": info.get("configured"),
        "where": where,
    }


def _at(position: int, info: Mapping[str, Any], nodes: Sequence[str] | None) -> str:
    """A place in the walk, counted from 0 as the scheduler does, with the node there when the
    walk went over the snapshot's own list (else the ordinal, counted from 1)."""
    if nodes and info["candidates"] == len(nodes) and 0 <= position < len(nodes):
        return gettext("position %(position)s (%(node)s)") % {
            "position": position,
            "node": nodes[position],
        }
    return gettext("position %(position)s (the %(ordinal)s node)") % {
        "position": position,
        "ordinal": _ordinal(position + 1),
    }


def _ordinal(n: int) -> str:
    if not (get_language() or "en").startswith("en"):
        return str(n)  # other languages write the ordinal around the number
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _stopped_early(info: Mapping[str, Any]) -> bool:
    """The walk ended before it had tried every node or could have found enough: an Error (a
    Filter plugin's Error stops the walk and the cycle)."""
    evaluated, candidates = info["evaluated"], info["candidates"]
    if info["rule"] == "fewer-than-100":
        return evaluated < candidates
    return evaluated < min(candidates, info.get("to_find") or 0)


def sampling_sentence(
    info: Mapping[str, Any] | None, nodes: Sequence[str] | None = None
) -> str | None:
    """How many nodes Filter ran on and why, in words with the numbers; None without a walk.

    ``nodes``: the snapshot's node list (CycleStart.nodes), to name the node at a position.
    """
    if not info or not info.get("rule"):
        return None
    evaluated, candidates = info["evaluated"], info["candidates"]
    of = gettext("%(evaluated)s of %(candidates)s nodes") % {
        "evaluated": evaluated,
        "candidates": candidates,
    }
    if candidates < info.get("cluster_nodes", candidates):
        of += gettext(" (the nodes PreFilter kept)")
    if info.get("nominated_node"):
        return gettext(
            "Filter ran on the pod's nominated node first; it passed, so no other node was "
            "evaluated (%(of)s)."
        ) % {"of": of}
    rule = info["rule"]
    if _stopped_early(info):
        done = gettext("none") if evaluated == 0 else gettext("only %(n)s") % {"n": evaluated}
        return gettext(
            "Filter evaluated %(done)s of %(candidates)s nodes: the cycle ended in an Error "
            "before the walk over the nodes was done (an Error stops the walk and the cycle), "
            "so the other nodes were not evaluated."
        ) % {"done": done, "candidates": candidates}
    if rule == "fewer-than-100":
        return gettext(
            "Filter evaluated all %(candidates)s nodes: below 100 nodes, every node is."
        ) % {"candidates": candidates}
    if rule == "no-scoring":
        head = gettext(
            "Filter evaluated %(of)s: with no Score plugin, one feasible node is enough"
        ) % {"of": of}
    else:
        values = {
            "of": of,
            "to_find": info["to_find"],
            "percentage_text": _percentage(info),
            "candidates": candidates,
            "pct": info["percentage"],
            "wanted": candidates * info["percentage"] // 100,
        }
        if info.get("minimum"):
            head = (
                gettext(
                    "Filter evaluated %(of)s, looking for %(to_find)s feasible: "
                    "%(percentage_text)s, and %(candidates)s × %(pct)s %% = %(wanted)s, raised to "
                    "the minimum of 100"
                )
                % values
            )
        else:
            head = (
                gettext(
                    "Filter evaluated %(of)s, looking for %(to_find)s feasible: "
                    "%(percentage_text)s, and %(candidates)s × %(pct)s %% = %(wanted)s"
                )
                % values
            )
    walk = gettext(
        "%(head)s. The walk started at %(start)s, where the previous cycle stopped (positions "
        "count from 0); the next cycle starts at %(next)s."
    ) % {
        "head": head,
        "start": _at(info["start_index"], info, nodes),
        "next": _at(info["next_start_index"], info, nodes),
    }
    if evaluated >= candidates:
        return walk
    # Upstream's walk (findNodesThatPassFilters) runs on the parallelizer's 16 workers and
    # cancels once enough are feasible: which nodes make the window, and how many are examined
    # past it, depend on the workers' timing. The engine walks in order, so a run repeats.
    note = gettext(
        "Upstream walks the nodes on 16 parallel workers and stops them once it has enough, so "
        "which nodes it keeps, and how many it examines, can differ from this playground's "
        "walk in order."
    )
    # Two sentences: a space between them in English, none in Chinese.
    return pgettext("two sentences", "%(first)s %(second)s") % {"first": walk, "second": note}
