"""Rejections: node name -> Filter status, kept the way Filter's driver finds them.

A Filter pass over thousands of nodes rejects most of them with a few shared Status values,
plugin by plugin. Kept as runs (the names one plugin rejected with one status, or names with a
status each), the statuses cost nothing per node until one is set or removed by name; a
cycle whose pod is placed never does that. Looking a node up scans the runs; iterating keys,
values or items reads them in order, which is the order the equivalent dict would list.

RowRejections is the plugins' side of the same idea: a batch Filter plugin answers with the
positions it rejects as arrays, one per status, which the driver takes without a step per node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import (
    Callable,
    ItemsView,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
    ValuesView,
)
from itertools import chain, compress, repeat
from types import MappingProxyType
from typing import Any, Final

import numpy as np

from scheduler_core.framework.status import Status

_MISSING: Final = object()

# One run: names and either the status they share or each one's status.
Run = tuple[Sequence[str], Status | Sequence[Status]]


class Rejections(MutableMapping[str, Status]):
    """Node name -> status, as runs until a status is set or removed by name (then a dict)."""

    __slots__ = ("_runs", "_dict", "_count", "_distinct")

    def __init__(self, statuses: Mapping[str, Status] | None = None) -> None:
        self._runs: list[Run] = []
        self._dict: dict[str, Status] | None = None
        self._count = 0  # the names in the runs
        self._distinct = True  # no name is in two runs: the count is the length
        if statuses:
            self.update(statuses)

    def add_run(self, names: Sequence[str], status: Status | Sequence[Status]) -> None:
        """Nodes not in here yet, with the status they share or a status each (aligned)."""
        if not names:
            return
        if self._dict is not None:
            if isinstance(status, Status):
                self._dict.update(dict.fromkeys(names, status))
            else:
                self._dict.update(zip(names, status, strict=True))
            return
        self._runs.append((names, status))
        self._count += len(names)

    def update(self, other: Any = (), /, **kwargs: Status) -> None:
        """dict.update; another Rejections' runs are taken over as they are."""
        if isinstance(other, Rejections) and other._dict is None and self._dict is None:
            if self._count and other._count:
                self._distinct = False  # a name may be in both: the dict would keep one
            self._distinct = self._distinct and other._distinct
            self._runs.extend(other._runs)
            self._count += other._count
        elif isinstance(other, Rejections):
            self._built().update(other.items())
        else:
            self._built().update(other)
        if kwargs:
            self._built().update(kwargs)

    def _built(self) -> dict[str, Status]:
        d = self._dict
        if d is None:
            d = {}
            for names, status in self._runs:
                if isinstance(status, Status):
                    d.update(dict.fromkeys(names, status))
                else:
                    d.update(zip(names, status, strict=True))
            self._dict, self._runs, self._count = d, [], 0
        return d

    def _plain(self) -> bool:
        """Whether the runs alone answer (no dict made, no name in two runs)."""
        return self._dict is None and self._distinct

    def as_dict(self) -> dict[str, Status]:
        """The statuses as a dict (the same one each time: do not change it)."""
        return self._built()

    def get(self, name: str, default: Any = None) -> Any:
        """The node's status, or ``default``. One lookup reads the runs (a scan at C speed)
        rather than making the dict: preemption asks for one node, the nominated one."""
        if not self._plain():
            return self._built().get(name, default)
        for names, status in self._runs:
            if name in names:
                return status if isinstance(status, Status) else status[names.index(name)]
        return default

    def __getitem__(self, name: str) -> Status:
        found = self.get(name, _MISSING)
        if found is _MISSING:
            raise KeyError(name)
        return found  # type: ignore[no-any-return]

    def __setitem__(self, name: str, status: Status) -> None:
        self._built()[name] = status

    def __delitem__(self, name: str) -> None:
        del self._built()[name]

    def __contains__(self, name: object) -> bool:
        return self.get(name, _MISSING) is not _MISSING  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self._count if self._plain() else len(self._built())

    def __bool__(self) -> bool:
        return bool(self._count) if self._plain() else bool(self._built())

    def __iter__(self) -> Iterator[str]:
        if self._plain():
            return chain.from_iterable(names for names, _ in self._runs)
        return iter(self._built())

    def _values(self) -> Iterator[Status]:
        if self._plain():
            return chain.from_iterable(
                repeat(status, len(names)) if isinstance(status, Status) else status
                for names, status in self._runs
            )
        return iter(self._built().values())

    def _items(self) -> Iterator[tuple[str, Status]]:
        if self._plain():
            return chain.from_iterable(
                zip(names, repeat(status, len(names)), strict=True)
                if isinstance(status, Status)
                else zip(names, status, strict=True)
                for names, status in self._runs
            )
        return iter(self._built().items())

    def values(self) -> ValuesView[Status]:
        return _Values(self)

    def items(self) -> ItemsView[str, Status]:
        return _Items(self)

    def shared(self) -> list[Status]:
        """The distinct statuses (by identity), in order of first appearance."""
        if self._plain():
            found: dict[int, Status] = {}
            for _, status in self._runs:
                for st in (status,) if isinstance(status, Status) else status:
                    found.setdefault(id(st), st)
            return list(found.values())
        values = list(self._built().values())
        return list(dict(zip(map(id, values), values, strict=True)).values())

    def counts(self) -> list[tuple[Status, int]]:
        """Each distinct status (by identity) with how many nodes have it, in order of first
        appearance: a run of one status counts in one step."""
        found: dict[int, tuple[Status, int]] = {}
        if self._plain():
            for names, status in self._runs:
                if isinstance(status, Status):
                    _count(found, status, len(names))
                else:
                    for st in status:
                        _count(found, st, 1)
        else:
            values = list(self._built().values())
            by_id = dict(zip(map(id, values), values, strict=True))
            for key, n in Counter(map(id, values)).items():
                found[key] = (by_id[key], n)
        return list(found.values())

    def names_where(self, wanted: Callable[[Status], bool]) -> list[str]:
        """The names whose status is ``wanted``, each status tested once."""
        if not self._plain():
            statuses = list(self._built().values())
            test = {id(st): wanted(st) for st in statuses}
            return list(compress(self._built(), map(test.__getitem__, map(id, statuses))))
        out: list[str] = []
        for names, status in self._runs:
            if isinstance(status, Status):
                if wanted(status):
                    out.extend(names)
            else:
                test = {id(st): wanted(st) for st in status}
                out.extend(compress(names, map(test.__getitem__, map(id, status))))
        return out

    def __repr__(self) -> str:
        return f"Rejections({dict(self._items())!r})"


def _count(found: dict[int, tuple[Status, int]], status: Status, n: int) -> None:
    seen = found.get(id(status))
    found[id(status)] = (status, n if seen is None else seen[1] + n)


class _Values(ValuesView[Status]):
    _mapping: Rejections

    def __iter__(self) -> Iterator[Status]:
        return self._mapping._values()


class _Items(ItemsView[str, Status]):
    _mapping: Rejections

    def __iter__(self) -> Iterator[tuple[str, Status]]:
        return self._mapping._items()


_ONE_ROW: Final = np.zeros(1, dtype=np.intp)  # a batch of one's only position

# A batch Filter plugin's answer when it rejects nothing (read-only, shared).
NO_REJECTIONS: Final[Mapping[int, Status]] = MappingProxyType({})


class RowRejections(Mapping[int, Status]):
    """What a batch Filter plugin answers: the positions it rejects, as runs of positions
    (ascending int arrays, no position in two runs) that share a status. Read as the dict
    {position: status} would be; Filter's driver takes the runs as they are, with no step
    per rejected node."""

    __slots__ = ("runs", "_dict", "_len")

    def __init__(self) -> None:
        self.runs: list[tuple[Any, Status]] = []
        self._dict: dict[int, Status] | None = None
        self._len = 0

    @classmethod
    def of(cls, rows: Any, status: Status) -> RowRejections:
        """One run: ``rows`` (positions, ascending) rejected with ``status``."""
        out = cls()
        out.add_rows(rows, status)
        return out

    def add_rows(self, rows: Any, status: Status) -> None:
        """Positions (ascending, none added before) rejected with ``status``."""
        rows = np.asarray(rows, dtype=np.intp)
        if rows.size:
            self.runs.append((rows, status))
            self._len += rows.size
            self._dict = None

    def add_mask(self, mask: Any, status: Status) -> None:
        """The positions where ``mask`` is true (lanes: a bool array aligned with the batch,
        or a batch of one's numpy bool) rejected with ``status``."""
        if np.ndim(mask) == 0:
            if mask:
                self.add_rows(_ONE_ROW, status)
        else:
            self.add_rows(np.flatnonzero(mask), status)

    def _built(self) -> dict[int, Status]:
        if self._dict is None:
            d: dict[int, Status] = {}
            for rows, status in self.runs:
                d.update(dict.fromkeys(rows.tolist(), status))
            self._dict = d
        return self._dict

    def get(self, position: int, default: Any = None) -> Any:
        if len(self.runs) <= 1 and self._len <= 1:  # a batch of one, the per-node Filter
            for rows, status in self.runs:
                return status if int(rows[0]) == position else default
            return default
        return self._built().get(position, default)

    def __getitem__(self, position: int) -> Status:
        return self._built()[position]

    def __iter__(self) -> Iterator[int]:
        return iter(self._built())

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __repr__(self) -> str:
        return f"RowRejections({self._built()!r})"
