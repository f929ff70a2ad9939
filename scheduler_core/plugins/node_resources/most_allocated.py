"""The MostAllocated scoring strategy of NodeResourcesFit: prefer nodes that are fuller.

Mirrors plugins/noderesources/most_allocated.go in kube-scheduler v1.35.
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


def _used_scores(requested: Any, capacity: Any, counts: Any) -> Any:
    """The requested share of the capacity on the 0..MAX_NODE_SCORE scale, with Go's integer
    division; a request beyond the capacity counts as the capacity (pods without requests
    count at the non-zero defaults, so requests can exceed it); 0 where the capacity is 0.
    ``counts`` is None when every capacity is positive (see counted)."""
    used = np.minimum(requested, capacity)
    used *= MAX_NODE_SCORE
    return go_quo_array(used, capacity, positive=counts is None)


# The weighted mean of the used-share scores over the resources each node has.
most_allocated_scorer: Final[Scorer] = weighted_mean_scorer(_used_scores)
