"""One Score plugin's results over the scored nodes, as the runtime hands them to the cycle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scheduler_core.framework import interfaces as fi
from scheduler_core.framework.status import Code, Status


class PluginScores:
    """One Score plugin's results over the scored nodes, in node order.

    Kept as the plugin gave them: int64 columns (``raw_array``, and ``array`` for the
    normalized values, which the cycle sums) when it scored over columns, else lists. ``raw``
    and ``normalized`` read as lists, made from the columns only when someone reads them.
    """

    __slots__ = ("name", "weight", "_raw", "_normalized", "raw_array", "array")

    def __init__(
        self, name: str, weight: int, raw: Sequence[int], normalized: Sequence[int]
    ) -> None:
        self.name = name
        self.weight = weight
        self.raw_array: Any = raw if isinstance(raw, np.ndarray) else None
        self.array: Any = normalized if isinstance(normalized, np.ndarray) else None
        self._raw: list[int] | None = None if self.raw_array is not None else list(raw)
        self._normalized: list[int] | None = None if self.array is not None else list(normalized)

    @property
    def raw(self) -> list[int]:
        if self._raw is None:
            self._raw = self.raw_array.tolist()
        return self._raw

    @raw.setter
    def raw(self, values: list[int]) -> None:
        self._raw, self.raw_array = list(values), None

    @property
    def normalized(self) -> list[int]:
        if self._normalized is None:
            self._normalized = self.array.tolist()
        return self._normalized

    @normalized.setter
    def normalized(self, values: list[int]) -> None:
        self._normalized, self.array = list(values), None

    def __repr__(self) -> str:
        return f"PluginScores({self.name!r}, weight={self.weight}, raw={self.raw})"


def in_range(
    name: str, weight: int, raw: Sequence[int], normalized: Sequence[int]
) -> PluginScores | Status:
    """The plugin's scores, or the Error status when a normalized one is out of range."""
    values: Any = normalized
    if not isinstance(values, np.ndarray) and len(values):
        values = np.asarray(values)
        if values.dtype != np.int64 or values.ndim != 1:  # not plain ints: checked one by one
            bad = [v for v in normalized if v > fi.MAX_NODE_SCORE or v < fi.MIN_NODE_SCORE]
            if bad:
                return out_of_range(name, bad[0])
            return PluginScores(name, weight, raw, normalized)
        normalized = values
    if len(values) and _out_of_range_any(values):
        bad_at = np.flatnonzero((values < fi.MIN_NODE_SCORE) | (values > fi.MAX_NODE_SCORE))
        return out_of_range(name, int(values[bad_at[0]]))
    return PluginScores(name, weight, raw, normalized)


def all_in_range(
    entries: Sequence[tuple[str, int, Sequence[int], Sequence[int]]],
) -> list[PluginScores] | Status:
    """in_range over several plugins' (name, weight, raw, normalized), in order: their scores,
    or the first plugin's Error. Int64 columns are checked together in one pass."""
    columns = [normalized for _, _, _, normalized in entries]
    if all(
        isinstance(c, np.ndarray) and c.dtype == np.int64 and c.ndim == 1 for c in columns
    ) and not (len(columns) and _out_of_range_any(np.concatenate(columns))):
        return [PluginScores(name, weight, raw, column) for name, weight, raw, column in entries]
    out: list[PluginScores] = []
    for name, weight, raw, normalized in entries:
        ps = in_range(name, weight, raw, normalized)
        if isinstance(ps, Status):
            return ps
        out.append(ps)
    return out


def _out_of_range_any(values: Any) -> bool:
    """Whether some score in the (non-empty) array is outside [MIN_NODE_SCORE, MAX_NODE_SCORE]."""
    if not len(values):
        return False
    if values.dtype == np.int64 and fi.MIN_NODE_SCORE == 0:
        # Read as unsigned, a negative score is above MAX_NODE_SCORE too: one pass, not two.
        return int(np.maximum.reduce(values.view(np.uint64))) > fi.MAX_NODE_SCORE
    return int(values.min()) < fi.MIN_NODE_SCORE or int(values.max()) > fi.MAX_NODE_SCORE


def out_of_range(name: str, value: int) -> Status:
    msg = (
        f'applying score defaultWeights on Score plugins: plugin "{name}" '
        f"returns an invalid score {value}, it should in the range of "
        f"[{fi.MIN_NODE_SCORE}, {fi.MAX_NODE_SCORE}] after normalizing"
    )
    return Status(Code.ERROR, (msg,))
