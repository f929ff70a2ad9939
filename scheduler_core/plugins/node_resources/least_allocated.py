"""The LeastAllocated scoring strategy of NodeResourcesFit: prefer nodes with more room left.

Mirrors plugins/noderesources/least_allocated.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.plugins.node_resources.resource_allocation import (
    Scorer,
    go_quo_array,
    weighted_mean_scorer,
)


def _room_scores(requested: Any, capacity: Any, counts: Any) -> Any:
    """The room left (none when the request is beyond the capacity) on the
    0..MAX_NODE_SCORE scale, with Go's integer division; 0 where the capacity is 0.
    ``counts`` is None when every capacity is positive (see counted)."""
    room = capacity - requested
    np.maximum(room, 0, out=room)
    room *= MAX_NODE_SCORE
    return go_quo_array(room, capacity, nonneg=True, positive=counts is None)


# The weighted mean of the room-left scores (never negative) over the resources each node has.
least_allocated_scorer: Final[Scorer] = weighted_mean_scorer(_room_scores, nonneg=True)
