"""CycleState: per-cycle scratch space that plugins share.

Mirrors framework/cycle_state.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from typing import Protocol


class StateData(Protocol):
    """A value kept in CycleState; clone() must give an independent copy (or self if frozen)."""

    def clone(self) -> StateData: ...


class CycleState:
    """A small dict wrapper, plus the sets of plugins the framework skips this cycle."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, StateData] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        self.skip_score_plugins: frozenset[str] = frozenset()

    def read(self, key: str) -> StateData:
        """Return the value stored under key; raises KeyError when absent."""
        return self._data[key]

    def get(self, key: str) -> StateData | None:
        return self._data.get(key)

    def write(self, key: str, value: StateData) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        out = CycleState()
        out._data = {k: v.clone() for k, v in self._data.items()}
        out.skip_filter_plugins = self.skip_filter_plugins
        out.skip_score_plugins = self.skip_score_plugins
        return out
