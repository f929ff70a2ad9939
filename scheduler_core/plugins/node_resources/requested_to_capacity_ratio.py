"""The RequestedToCapacityRatio scoring strategy of NodeResourcesFit: a user-shaped function of
each resource's utilization.

Mirrors plugins/noderesources/requested_to_capacity_ratio.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.config.types import MAX_CUSTOM_PRIORITY_SCORE, UtilizationShapePoint
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.node_resources.resource_allocation import Scorer, go_quo_array
from scheduler_core.plugins.shared.helpers import go_round_array
from scheduler_core.plugins.shared.shape import FunctionShapePoint, build_broken_linear_function

MAX_UTILIZATION: Final = 100


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
    # The shape over every utilization a resource can have (0..100): a table, indexed.
    table = np.array([raw(u) for u in range(MAX_UTILIZATION + 1)], dtype=np.int64)

    def scorer(requested: Sequence[Any], allocatable: Sequence[Any], weights: Sequence[int]) -> Any:
        n = len(requested[0]) if requested else 0
        total = np.zeros(n, dtype=np.int64)
        weight_sum = np.zeros(n, dtype=np.int64)
        for req, cap, weight in zip(requested, allocatable, weights, strict=True):
            beyond = (cap == 0) | (req > cap)
            utilization = go_quo_array(np.where(beyond, 0, req) * MAX_UTILIZATION, cap)
            score = np.where(beyond, table[MAX_UTILIZATION], table[utilization])
            counts = (cap != 0) & (score > 0)  # a resource scoring 0 or less does not count
            total += np.where(counts, score * weight, 0)
            weight_sum += counts * weight
        mean = total / np.maximum(weight_sum, 1)
        return np.where(weight_sum == 0, 0, go_round_array(mean))

    return scorer
