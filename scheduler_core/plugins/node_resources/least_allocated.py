"""The LeastAllocated scoring strategy of NodeResourcesFit: prefer nodes with more room left.

Mirrors plugins/noderesources/least_allocated.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.node_resources.resource_allocation import cpu_memory_columns, go_quo


def least_requested_score(requested: int, capacity: int) -> int:
    """The unused share of capacity on a 0..MAX_NODE_SCORE scale (integer division)."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_quo((capacity - requested) * MAX_NODE_SCORE, capacity)


def least_allocated_scorer(
    requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]
) -> int:
    """The weighted mean of least_requested_score over the resources the node has."""
    node_score = 0
    weight_sum = 0
    for req, cap, weight in zip(requested, allocatable, weights, strict=True):
        if cap == 0:
            continue
        if req > cap:
            score = 0
        elif cap > 0:
            score = (cap - req) * MAX_NODE_SCORE // cap
        else:
            score = go_quo((cap - req) * MAX_NODE_SCORE, cap)
        node_score += score * weight
        weight_sum += weight
    if weight_sum == 0:
        return 0
    return go_quo(node_score, weight_sum)


def _room_score(cap: Any, used: Any, positive: bool) -> Any:
    """least_requested_score over columns of non-negative capacities: the room left (none
    when the request is beyond the capacity) on the 0..MAX_NODE_SCORE scale, 0 where the
    capacity is 0. ``positive``: no capacity is 0."""
    score = cap - used
    np.maximum(score, 0, out=score)
    score *= MAX_NODE_SCORE
    if positive:
        score //= cap
        return score
    score //= np.maximum(cap, 1)
    score[cap == 0] = 0
    return score


def least_allocated_cpu_memory(
    nodes: Sequence[NodeInfo],
    use_requested: bool,
    cpu_req: int,
    cpu_weight: int,
    mem_req: int,
    mem_weight: int,
) -> Any:  # an int64 array over node columns, else a list
    """least_allocated_scorer over cpu then memory for many nodes, inlined for speed."""
    cols = cpu_memory_columns(nodes, use_requested, cpu_req, mem_req)
    if cols is not None:
        cpu_cap, mem_cap, used_cpu, used_mem, positive = cols
        if (
            cpu_weight > 0
            and mem_weight > 0
            and (positive or ((cpu_cap >= 0).all() and (mem_cap >= 0).all()))
        ):
            # Integer arithmetic on non-negative values: floor division is Go's truncation.
            total = _room_score(cpu_cap, used_cpu, positive)
            total *= cpu_weight
            mem_score = _room_score(mem_cap, used_mem, positive)
            mem_score *= mem_weight
            total += mem_score
            if positive:  # both resources count on every node
                total //= cpu_weight + mem_weight
                return total
            weight_sum = (cpu_cap != 0) * cpu_weight + (mem_cap != 0) * mem_weight
            return np.where(weight_sum == 0, 0, total // np.maximum(weight_sum, 1))
    out: list[int] = []
    append = out.append
    for ni in nodes:
        alloc = ni.allocatable
        counted = ni.requested if use_requested else ni.non_zero_requested
        node_score = 0
        weight_sum = 0
        cap = alloc.milli_cpu
        if cap != 0:
            req = counted.milli_cpu + cpu_req
            if req <= cap:
                node_score = (
                    (cap - req) * MAX_NODE_SCORE // cap
                    if cap > 0
                    else go_quo((cap - req) * MAX_NODE_SCORE, cap)
                ) * cpu_weight
            weight_sum = cpu_weight
        cap = alloc.memory
        if cap != 0:
            req = counted.memory + mem_req
            if req <= cap:
                node_score += (
                    (cap - req) * MAX_NODE_SCORE // cap
                    if cap > 0
                    else go_quo((cap - req) * MAX_NODE_SCORE, cap)
                ) * mem_weight
            weight_sum += mem_weight
        if weight_sum == 0:
            append(0)
        elif node_score >= 0:
            append(node_score // weight_sum)
        else:
            append(go_quo(node_score, weight_sum))
    return out
