"""The sentence that explains how many nodes Filter evaluated in a cycle, and why.

Built from CycleStart's ``sampling`` record (scheduler_core.events.SamplingInfo), which the
engine fills as kube-scheduler's numFeasibleNodesToFind and its rotating start index decide.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def sampling_sentence(info: Mapping[str, Any] | None) -> str | None:
    """How many nodes Filter ran on and why, in words with the numbers; None without a walk."""
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
        f"{head}. It started at node {info['start_index']}, where the previous cycle "
        f"stopped; the next cycle starts at node {info['next_start_index']}."
    )
