"""The score-weight check NewFramework runs over a profile's Score plugins, in int64 arithmetic.

Mirrors getScoreWeights in framework/runtime/framework.go of kube-scheduler v1.35. Upstream
compares ``weight * MaxNodeScore`` with ``MaxTotalScore - totalPriority`` where both sides are
int64 and MaxTotalScore is the largest int64. Once a negative weight has pulled the running
total below zero, that subtraction wraps around to a large negative number, so the next plugin
(whatever its weight) looks like an overflow and the profile is refused. Which plugins come first
therefore matters; the check keeps that quirk on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from scheduler_core.framework.interfaces import MAX_NODE_SCORE, MAX_TOTAL_SCORE

ERR_OVERFLOW: Final = "total score of Score plugins could overflow"
_TWO_63: Final = 2**63


def int64(value: int) -> int:
    """``value`` wrapped to a signed 64-bit integer, as Go's int64 arithmetic leaves it."""
    return (value + _TWO_63) % (2 * _TWO_63) - _TWO_63


@dataclass(frozen=True, slots=True)
class WeightOverflow:
    """Where the check refused: the plugin, the total before it and the wrapped headroom."""

    plugin: str
    weight: int
    running_total: int
    headroom: int

    @property
    def wrapped(self) -> bool:
        """True when ``MaxTotalScore - running_total`` wrapped around (a negative total)."""
        return self.headroom != MAX_TOTAL_SCORE - self.running_total


def first_overflow(weights: Sequence[tuple[str, int]]) -> WeightOverflow | None:
    """The first Score plugin that upstream's check refuses, or None.

    ``weights`` are (plugin, configured weight) in upstream order (the profile's score list, then
    its multiPoint list), already limited to plugins that implement Score and to the first entry
    of each name; a weight of 0 counts as 1.
    """
    total = 0
    for name, configured in weights:
        weight = configured or 1
        product = int64(weight * MAX_NODE_SCORE)
        headroom = int64(MAX_TOTAL_SCORE - total)
        if product > headroom:
            return WeightOverflow(name, weight, total, headroom)
        total = int64(total + product)
    return None
