"""The MostAllocated scoring strategy of NodeResourcesFit: prefer nodes that are fuller.

Mirrors plugins/noderesources/most_allocated.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.node_resources.resource_allocation import (
    WeightedMean,
    counted,
    go_quo_array,
)


def _used_scores(requested: Any, capacity: Any, counts: Any) -> Any:
    """The requested share of the capacity on the 0..MAX_NODE_SCORE scale, with Go's integer
    division; a request beyond the capacity counts as the capacity (pods without requests
    count at the non-zero defaults, so requests can exceed it); 0 where the capacity is 0.
    ``counts`` is None when every capacity is positive (see counted)."""
    used = np.minimum(requested, capacity)
    used *= MAX_NODE_SCORE
    return go_quo_array(used, capacity, positive=counts is None)


def most_allocated_scorer(
    requested: Sequence[Any], allocatable: Sequence[Any], weights: Sequence[int]
) -> Any:
    """The weighted mean of the used-share scores over the resources each node has."""
    mean = WeightedMean(len(requested[0]) if requested else 0)
    for req, cap, weight in zip(requested, allocatable, weights, strict=True):
        counts = counted(cap)
        mean.add(_used_scores(req, cap, counts), counts, weight)
    return mean.result()
