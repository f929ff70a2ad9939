"""The sentence that explains how many nodes Filter evaluated in a cycle, and why.

Built from CycleStart's ``sampling`` record (scheduler_core.events.SamplingInfo), which the
engine fills as kube-scheduler's numFeasibleNodesToFind and its rotating start index decide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _percentage(info: Mapping[str, Any]) -> str:
    candidates, pct = info["candidates"], info["percentage"]
    setting = "percentageOfNodesToScore"
    profile = info.get("source") == "profile"
    if info.get("adaptive"):
        said = "0 in the profile" if profile else "0 (unset: the adaptive default)"
        raw = 50 - candidates // 125
        floor = f", at least 5: {pct} %" if raw < 5 else ""
        return f"{setting} is {said}, so 50 − {candidates}/125 = {raw} %{floor}"
    where = "the profile's value" if profile else "the global value"
    return f"{setting} is {info.get('configured')} % ({where})"


def _at(position: int, info: Mapping[str, Any], nodes: Sequence[str] | None) -> str:
    """A place in the walk, counted from 0 as the scheduler does, with the node there when the
    walk went over the snapshot's own list (else the ordinal, counted from 1)."""
    if nodes and info["candidates"] == len(nodes) and 0 <= position < len(nodes):
        return f"position {position} ({nodes[position]})"
    return f"position {position} (the {_ordinal(position + 1)} node)"


def _ordinal(n: int) -> str:
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
    of = f"{evaluated} of {candidates} nodes"
    if candidates < info.get("cluster_nodes", candidates):
        of += " (the nodes PreFilter kept)"
    if info.get("nominated_node"):
        return (
            f"Filter ran on the pod's nominated node first; it passed, so no other node was "
            f"evaluated ({of})."
        )
    rule = info["rule"]
    if _stopped_early(info):
        done = "none" if evaluated == 0 else f"only {evaluated}"
        return (
            f"Filter evaluated {done} of {candidates} nodes: the cycle ended in an Error before "
            f"the walk over the nodes was done (an Error stops the walk and the cycle), so the "
            f"other nodes were not evaluated."
        )
    if rule == "fewer-than-100":
        return f"Filter evaluated all {candidates} nodes: below 100 nodes, every node is."
    if rule == "no-scoring":
        head = f"Filter evaluated {of}: with no Score plugin, one feasible node is enough"
    else:
        wanted = candidates * info["percentage"] // 100
        raised = ", raised to the minimum of 100" if info.get("minimum") else ""
        head = (
            f"Filter evaluated {of}, looking for {info['to_find']} feasible: "
            f"{_percentage(info)}, and {candidates} × {info['percentage']} % = {wanted}{raised}"
        )
    return (
        f"{head}. The walk started at {_at(info['start_index'], info, nodes)}, where the "
        f"previous cycle stopped (positions count from 0); the next cycle starts at "
        f"{_at(info['next_start_index'], info, nodes)}."
    )
