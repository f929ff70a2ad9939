"""The MostAllocated scoring strategy of NodeResourcesFit: prefer nodes that are fuller.

Mirrors plugins/noderesources/most_allocated.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins.node_resources.resource_allocation import cpu_memory_columns, go_quo


def most_requested_score(requested: int, capacity: int) -> int:
    """The used share of capacity on a 0..MAX_NODE_SCORE scale, requests capped at capacity.

    Requests can exceed capacity because pods without requests count at the non-zero defaults.
    """
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return go_quo(requested * MAX_NODE_SCORE, capacity)


def most_allocated_scorer(
    requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]
) -> int:
    """The weighted mean of most_requested_score over the resources the node has."""
    node_score = 0
    weight_sum = 0
    for req, cap, weight in zip(requested, allocatable, weights, strict=True):
        if cap == 0:
            continue
        if req > cap:
            req = cap
        if req >= 0 and cap > 0:
            score = req * MAX_NODE_SCORE // cap
        else:
            score = go_quo(req * MAX_NODE_SCORE, cap)
        node_score += score * weight
        weight_sum += weight
    if weight_sum == 0:
        return 0
    return go_quo(node_score, weight_sum)


def most_allocated_cpu_memory(
    nodes: Sequence[NodeInfo],
    use_requested: bool,
    cpu_req: int,
    cpu_weight: int,
    mem_req: int,
    mem_weight: int,
) -> Any:  # an int64 array over node columns, else a list
    """most_allocated_scorer over cpu then memory for many nodes, inlined for speed."""
    cols = cpu_memory_columns(nodes, use_requested, cpu_req, mem_req)
    if cols is not None:
        cpu_cap, mem_cap, used_cpu, used_mem, _ = cols
        if (
            cpu_weight > 0
            and mem_weight > 0
            and (cpu_cap >= 0).all()
            and (mem_cap >= 0).all()
            and (used_cpu >= 0).all()
            and (used_mem >= 0).all()
        ):
            # Non-negative integers only: floor division is Go's truncation.
            cpu_score = np.minimum(used_cpu, cpu_cap) * MAX_NODE_SCORE // np.maximum(cpu_cap, 1)
            mem_score = np.minimum(used_mem, mem_cap) * MAX_NODE_SCORE // np.maximum(mem_cap, 1)
            weight_sum = (cpu_cap != 0) * cpu_weight + (mem_cap != 0) * mem_weight
            total = (cpu_cap != 0) * cpu_score * cpu_weight + (
                mem_cap != 0
            ) * mem_score * mem_weight
            result = np.where(weight_sum == 0, 0, total // np.maximum(weight_sum, 1))
            return result
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
            if req > cap:
                req = cap
            node_score = (
                req * MAX_NODE_SCORE // cap
                if req >= 0 and cap > 0
                else go_quo(req * MAX_NODE_SCORE, cap)
            ) * cpu_weight
            weight_sum = cpu_weight
        cap = alloc.memory
        if cap != 0:
            req = counted.memory + mem_req
            if req > cap:
                req = cap
            node_score += (
                req * MAX_NODE_SCORE // cap
                if req >= 0 and cap > 0
                else go_quo(req * MAX_NODE_SCORE, cap)
            ) * mem_weight
            weight_sum += mem_weight
        if weight_sum == 0:
            append(0)
        elif node_score >= 0:
            append(node_score // weight_sum)
        else:
            append(go_quo(node_score, weight_sum))
    return out
