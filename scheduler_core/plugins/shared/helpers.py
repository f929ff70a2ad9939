"""Pieces shared by several plugins: default score normalisation and taint matching.

Mirrors framework/plugins/helper in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.status import SUCCESS, Status
from scheduler_core.framework.types import NodeScore
from scheduler_core.objects.api import (
    Pod,
    Taint,
    Toleration,
)

# Scores of many nodes: a list, or an int64 array when computed over node columns.
ScoreValues = Any


def default_normalize_score(max_priority: int, reverse: bool, scores: list[NodeScore]) -> None:
    """Scale scores to [0, max_priority] by the highest, maybe reversed (normalize_values on
    the NodeScores, in place)."""
    values = normalize_values(max_priority, reverse, [s.score for s in scores])
    for s, v in zip(scores, values, strict=True):
        s.score = v


def normalize_values(max_priority: int, reverse: bool, values: ScoreValues) -> ScoreValues:
    """DefaultNormalizeScore over plain values: each times max_priority, divided by the highest
    (Go's integer division, which truncates toward zero), then subtracted from max_priority
    when reversed; a highest of 0 or less leaves them (reversed: all max_priority). An int64
    array gives an int64 array, a list a list."""
    column = isinstance(values, np.ndarray)
    arr = values if column else np.asarray(values, dtype=np.int64)
    if not len(arr):
        return values
    # The ufuncs' reduce directly: ndarray.max() and min() add a Python layer on top.
    max_count = int(np.maximum.reduce(arr))
    if max_count <= 0:
        out = np.full(len(arr), max_priority, dtype=np.int64) if reverse else arr
    else:
        out = max_priority * arr
        if int(np.minimum.reduce(arr)) >= 0:
            out //= max_count  # floor division is truncation for non-negative values
        else:
            out = np.where(out >= 0, out // max_count, -(-out // max_count))
        if reverse:
            out = max_priority - out
    return out if column else out.tolist()


def normalize_node_scores(
    batch: Callable[[CycleState, Pod, ScoreValues], ScoreValues],
    state: CycleState,
    pod: Pod,
    scores: list[NodeScore],
) -> Status:
    """NormalizeScore over NodeScores through a plugin's ``normalize_batch`` (its one rule)."""
    values = batch(state, pod, [s.score for s in scores])
    for s, v in zip(scores, values, strict=True):
        s.score = int(v)
    return SUCCESS


def go_round_array(x: Any) -> Any:
    """math.Round over a float64 array (to the nearest integer, halves away from zero; Python's
    round() would round them to even), as an int64 array."""
    t = np.trunc(x)
    away = np.abs(x - t) >= 0.5
    return (t + away * np.sign(x)).astype(np.int64)


def go_round(x: float) -> int:
    """math.Round on one value."""
    return int(go_round_array(np.array((x,), dtype=np.float64))[0])


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


class FrozenState:
    """Base for immutable cycle-state values: clone() returns self."""

    __slots__ = ()

    def clone(self) -> StateData:
        return self
