"""Piecewise-linear scoring functions defined by (utilization, score) points.

Mirrors framework/plugins/helper/shape_score.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    """One point of a broken linear function: its argument and its value."""

    utilization: int
    score: int


def _go_quo(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on int64."""
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


def build_broken_linear_function(shape: Sequence[FunctionShapePoint]) -> Callable[[int], int]:
    """A function of p built from linear segments between the points of ``shape``.

    Below the first point it is the first score, above the last the last score; between
    two points it interpolates with integer arithmetic truncating toward zero. ``shape``
    must be sorted by utilization and non-empty.
    """
    points = tuple((p.utilization, p.score) for p in shape)
    if not points:
        raise ValueError("a broken linear function needs at least one shape point")
    last_score = points[-1][1]

    def fn(p: int) -> int:
        prev_u = prev_s = 0
        for i, (u, s) in enumerate(points):
            if p <= u:
                if i == 0:
                    return s
                return prev_s + _go_quo((s - prev_s) * (p - prev_u), u - prev_u)
            prev_u, prev_s = u, s
        return last_score

    return fn
