"""The RequestedToCapacityRatio scoring strategy of NodeResourcesFit: a user-shaped function of
each resource's utilization.

Mirrors plugins/noderesources/requested_to_capacity_ratio.go in kube-scheduler v1.35.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from scheduler_core.config.types import MAX_CUSTOM_PRIORITY_SCORE, UtilizationShapePoint
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.helpers_shape import FunctionShapePoint, build_broken_linear_function
from scheduler_core.plugins.node_resources.resource_allocation import Scorer, go_quo

MAX_UTILIZATION: Final = 100


def go_round(x: float) -> int:
    """math.Round: to the nearest integer, halves away from zero."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


def requested_to_capacity_ratio_scorer(shape: Sequence[UtilizationShapePoint]) -> Scorer:
    """The scorer for ``shape``, its scores scaled from 0..10 to 0..MAX_NODE_SCORE.

    Each resource scores shape(requested * 100 / capacity), or shape(100) when requests
    exceed capacity; resources scoring 0 or less do not count towards the weighted mean,
    which is rounded half away from zero.
    """
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = build_broken_linear_function(
        [FunctionShapePoint(p.utilization, p.score * scale) for p in shape]
    )
    at_full = raw(MAX_UTILIZATION)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return at_full
        return raw(go_quo(requested * MAX_UTILIZATION, capacity))

    def scorer(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
        node_score = 0
        weight_sum = 0
        for req, cap, weight in zip(requested, allocatable, weights, strict=True):
            if cap == 0:
                continue
            score = resource_score(req, cap)
            if score > 0:
                node_score += score * weight
                weight_sum += weight
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer
