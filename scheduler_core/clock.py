"""Clocks the engine reads time from: a simulated one for runs and tests, a real one for demos.

Stands in for k8s.io/utils/clock as the scheduling queue uses it; times are seconds as floats.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "RealClock", "SimulatedClock"]


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the time in seconds."""

    def now(self) -> float: ...


class SimulatedClock:
    """A clock that moves only when told to: deterministic time for simulations and tests."""

    __slots__ = ("_now",)

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward; a negative amount is a bug and raises ValueError."""
        if seconds < 0:
            raise ValueError(f"cannot move a clock backwards by {seconds}s")
        self._now += seconds

    def set(self, t: float) -> None:
        """Jump to time ``t``, which must not lie in the past."""
        if t < self._now:
            raise ValueError(f"cannot set the clock back from {self._now} to {t}")
        self._now = float(t)

    def __repr__(self) -> str:
        return f"SimulatedClock(now={self._now})"


class RealClock:
    """Monotonic wall time, for interactive runs; never used where a trace must repeat."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()


def go_duration(seconds: float) -> str:
    """time.Duration's String() for whole and fractional seconds ("10s", "1m30s", "500ms")."""
    if seconds < 1:
        ms = seconds * 1000
        return f"{ms:g}ms"
    total = seconds
    hours, rem = divmod(total, 3600)
    minutes, secs = divmod(rem, 60)
    out = ""
    if hours:
        out += f"{int(hours)}h"
    if hours or minutes:
        out += f"{int(minutes)}m"
    out += f"{secs:g}s"
    return out
