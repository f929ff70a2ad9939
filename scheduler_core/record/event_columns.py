"""Per-node fields of events that also keep the engine's columns they were made from.

An event's per-node values are tuples (JSON-ready, comparable, hashable). These tuples also
carry the arrays the engine computed them from, so that a consumer that stores columns (the
playground's run storage) takes the arrays as they are instead of converting value by value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class IntColumn(tuple[int, ...]):
    """A per-node integer field of an event: a tuple like any other, that also keeps the int64
    array it was made from (``array``), so a consumer storing columns need not convert back."""

    array: Any

    @classmethod
    def of(cls, array: Any) -> IntColumn:
        column = cls(array.tolist())
        column.array = array
        return column


class NameColumn(tuple[str, ...]):
    """Node names of an event, like any tuple, that also keeps their positions in the cycle's
    node order (``rows``, an int array): a consumer storing columns need not look them up."""

    rows: Any

    @classmethod
    def of(cls, names: Sequence[str], rows: Any) -> NameColumn:
        column = cls(names)
        column.rows = rows
        return column
