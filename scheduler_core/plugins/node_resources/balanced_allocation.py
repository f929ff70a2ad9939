"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly.

Mirrors plugins/noderesources/balanced_allocation.go in kube-scheduler v1.35, with the v1.35
default feature gates (PodLevelResources and InPlacePodVerticalScaling on).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.api import Pod
from scheduler_core.config.types import NodeResourcesBalancedAllocationArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.status import SKIP, SUCCESS, Status, error
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import FrozenState
from scheduler_core.plugins.node_resources.resource_allocation import (
    Entry,
    ResourceAllocationScorer,
    cpu_memory_columns,
)

NAME: Final = names.NODE_RESOURCES_BALANCED_ALLOCATION
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"
_EXACT_FLOAT_INT: Final = 2**53


class _PreScoreState(FrozenState):
    __slots__ = ("pod_requests", "entries")

    def __init__(self, pod_requests: tuple[int, ...], entries: tuple[Entry, ...]) -> None:
        self.pod_requests = pod_requests
        self.entries = entries


def balanced_resource_scorer(
    requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int] = ()
) -> int:
    """(1 - std) * MAX_NODE_SCORE, truncated, over the requested/allocatable fractions.

    Each fraction is capped at 1. With two resources the deviation is half their difference;
    with more it is the population standard deviation; with one or none it is 0. Weights are
    not used.
    """
    fractions: list[float] = []
    total = 0.0
    for req, cap in zip(requested, allocatable, strict=True):
        if cap == 0:
            continue
        fraction = float(req) / float(cap)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    n = len(fractions)
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / float(n)
        acc = 0.0
        for f in fractions:
            acc = acc + (f - mean) * (f - mean)
        std = math.sqrt(acc / float(n))
    return int((1 - std) * float(MAX_NODE_SCORE))


def _balanced_columns(cpu_cap: Any, mem_cap: Any, used_cpu: Any, used_mem: Any) -> Any:
    """The two-fraction score over columns (what a node with both resources scores)."""
    # int64 / int64 converts both to float64 first, exactly as Go's float64(a)/float64(b).
    cpu_fraction = used_cpu / cpu_cap
    np.minimum(cpu_fraction, 1.0, out=cpu_fraction)
    mem_fraction = used_mem / mem_cap
    np.minimum(mem_fraction, 1.0, out=mem_fraction)
    # (1 - |cpu - mem| / 2) * MAX_NODE_SCORE, truncated, one operation at a time in place.
    cpu_fraction -= mem_fraction
    np.abs(cpu_fraction, out=cpu_fraction)
    cpu_fraction /= 2
    np.subtract(1, cpu_fraction, out=cpu_fraction)
    cpu_fraction *= float(MAX_NODE_SCORE)
    return cpu_fraction.astype(np.int64)


def balanced_cpu_memory(
    nodes: Sequence[NodeInfo],
    use_requested: bool,
    cpu_req: int,
    cpu_weight: int,
    mem_req: int,
    mem_weight: int,
) -> Any:  # an int64 array over node columns, else a list
    """balanced_resource_scorer over cpu then memory for many nodes, inlined for speed.

    With one fraction or none the deviation is 0, so such a node scores MAX_NODE_SCORE.
    """
    cols = cpu_memory_columns(nodes, use_requested, cpu_req, mem_req)
    if cols is not None:
        cpu_cap, mem_cap, used_cpu, used_mem, positive = cols
        if positive:  # two fractions on every node, no division by zero
            return _balanced_columns(cpu_cap, mem_cap, used_cpu, used_mem)
        with np.errstate(divide="ignore", invalid="ignore"):
            score = _balanced_columns(cpu_cap, mem_cap, used_cpu, used_mem)
        return np.where((cpu_cap == 0) | (mem_cap == 0), MAX_NODE_SCORE, score)
    out: list[int] = []
    append = out.append
    top = float(MAX_NODE_SCORE)
    exact = _EXACT_FLOAT_INT
    for ni in nodes:
        alloc = ni.allocatable
        cpu_cap = alloc.milli_cpu
        mem_cap = alloc.memory
        if cpu_cap == 0 or mem_cap == 0:
            append(MAX_NODE_SCORE)
            continue
        counted = ni.requested if use_requested else ni.non_zero_requested
        # int / int equals float64(a) / float64(b) while the capacity is exact as a float:
        # a request above it gives a fraction of at least 1 either way, capped to 1.
        req = counted.milli_cpu + cpu_req
        cpu_fraction = req / cpu_cap if cpu_cap <= exact else float(req) / float(cpu_cap)
        if cpu_fraction > 1:
            cpu_fraction = 1.0
        req = counted.memory + mem_req
        mem_fraction = req / mem_cap if mem_cap <= exact else float(req) / float(mem_cap)
        if mem_fraction > 1:
            mem_fraction = 1.0
        diff = cpu_fraction - mem_fraction
        append(int((1 - (diff if diff >= 0 else -diff) / 2) * top))
    return out


def _is_best_effort(pod_requests: Sequence[int]) -> bool:
    return all(r == 0 for r in pod_requests)


class BalancedAllocation:
    name = NAME

    def __init__(self, args: NodeResourcesBalancedAllocationArgs) -> None:
        self.scorer = ResourceAllocationScorer(
            NAME,
            args.resources,
            balanced_resource_scorer,
            use_requested=True,
            pod_level=True,
            use_status=True,
            cpu_memory_batch=balanced_cpu_memory,
        )

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """Skip for a pod requesting none of the resources (best effort): scoring it would
        pile such pods onto the same node (kubernetes/kubernetes#129138)."""
        requests = self.scorer.pod_request_list(pod)
        if _is_best_effort(requests):
            return SKIP
        state.write(_PRE_SCORE_KEY, _PreScoreState(requests, self.scorer.entries(requests)))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        scores, status = self.score_batch(state, pod, (node_info,))
        return (scores[0] if scores else 0), status

    def score_entries(self, state: CycleState, pod: Pod) -> tuple[Entry, ...] | None:
        """The resources Score counts (pod request, weight), or None for a best-effort pod."""
        s = state.get(_PRE_SCORE_KEY)
        if isinstance(s, _PreScoreState):
            return s.entries
        requests = self.scorer.pod_request_list(pod)
        return None if _is_best_effort(requests) else self.scorer.entries(requests)

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score every node at once (the per-node Score, without a call per node)."""
        scores, status = self.score_columns(state, pod, nodes)
        return scores.tolist(), status

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """score_batch as an int64 array."""
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            # Score without PreScore: upstream computes the requests on the spot and gives
            # a best-effort pod 0 everywhere.
            requests = self.scorer.pod_request_list(pod)
            if _is_best_effort(requests):
                return np.zeros(len(nodes), dtype=np.int64), SUCCESS
            s = _PreScoreState(requests, self.scorer.entries(requests))
        if not self.scorer.resources:
            return np.zeros(0, dtype=np.int64), error("resources not found")
        return self.scorer.score_nodes(s.entries, nodes), SUCCESS


def new(args: NodeResourcesBalancedAllocationArgs | None, handle: Handle) -> BalancedAllocation:
    return BalancedAllocation(args if args is not None else NodeResourcesBalancedAllocationArgs())
