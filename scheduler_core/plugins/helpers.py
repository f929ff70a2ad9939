"""Pieces shared by several plugins: default score normalisation and taint matching.

Mirrors framework/plugins/helper in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from scheduler_core.api import Taint, Toleration
from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.types import NodeScore

# Scores of many nodes: a list, or an int64 array when computed over node columns.
ScoreValues = Any


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """Scale scores to [0, max_priority] by the highest (integer division), maybe reversed."""
    max_count = max((s.score for s in scores), default=0)
    if max_count <= 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        v = (
            max_priority * s.score // max_count
            if s.score >= 0
            else -((-max_priority * s.score) // max_count)
        )
        s.score = max_priority - v if reverse else v


def normalize_values(max_priority: int, reverse: bool, values: ScoreValues) -> ScoreValues:
    """default_normalize_score over plain values (the batch form of NormalizeScore): an int64
    array gives an int64 array, a list a list."""
    column = isinstance(values, np.ndarray)
    arr = values if column else np.asarray(values, dtype=np.int64)
    if not len(arr):
        return values
    # The ufuncs' reduce directly: ndarray.max() and min() add a Python layer on top.
    max_count = int(np.maximum.reduce(arr))
    if max_count <= 0:
        out = np.full(len(arr), max_priority, dtype=np.int64) if reverse else arr
    elif int(np.minimum.reduce(arr)) >= 0:
        # Non-negative values: floor division is Go's truncation.
        out = max_priority * arr // max_count
        if reverse:
            out = max_priority - out
    else:
        scores = [NodeScore("", v) for v in arr.tolist()]
        default_normalize_score(max_priority, reverse, scores)
        out = np.asarray([s.score for s in scores], dtype=np.int64)
    return out if column else out.tolist()


def tolerations_tolerate_taint(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def find_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    include: Callable[[Taint], bool],
) -> Taint | None:
    """The first taint that passes ``include`` and no toleration tolerates."""
    for taint in taints:
        if not include(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def do_not_schedule_taint(taint: Taint) -> bool:
    return taint.effect in ("NoSchedule", "NoExecute")


T = TypeVar("T")


class FrozenState:
    """Base for immutable cycle-state values: clone() returns self."""

    __slots__ = ()

    def clone(self) -> StateData:
        return self


def read_state(state: CycleState, key: str, kind: type[T]) -> T:
    """Read key from state and check its type; raises KeyError with upstream's wording."""
    try:
        value = state.read(key)
    except KeyError:
        raise KeyError(f'reading "{key}" from cycleState: not found') from None
    if not isinstance(value, kind):
        raise TypeError(f"invalid state for {key}, got type {type(value).__name__}")
    return value
