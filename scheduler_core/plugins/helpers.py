"""Pieces shared by several plugins: default score normalisation and taint matching.

Mirrors framework/plugins/helper in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from scheduler_core.api import Taint, Toleration
from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.types import NodeScore


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


def normalize_values(max_priority: int, reverse: bool, values: list[int]) -> list[int]:
    """default_normalize_score over plain values (the batch form of NormalizeScore)."""
    max_count = max(values, default=0)
    if max_count <= 0:
        return [max_priority] * len(values) if reverse else list(values)
    if min(values, default=0) >= 0:
        if reverse:
            return [max_priority - max_priority * v // max_count for v in values]
        return [max_priority * v // max_count for v in values]
    scores = [NodeScore("", v) for v in values]
    default_normalize_score(max_priority, reverse, scores)
    return [s.score for s in scores]


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
