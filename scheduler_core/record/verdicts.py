"""One cycle's per-node results as the engine computes them: columns, made into dicts on demand.

Filter visits hundreds of nodes a cycle and Score ranks them; the cycle itself only needs the
feasible nodes and the best total. Who reads a node's Filter status or its total (the trace,
the events, an explanation) gets them from these, built the first time they are read. A cycle
nobody looks at (the bench, a run without listeners) never builds a dict per node.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from scheduler_core.framework.status import SUCCESS, Status
from scheduler_core.record.event_columns import IntColumn


class FilterVerdicts(MutableMapping[str, Status]):
    """Node name -> Filter status, in the order the nodes were evaluated.

    Kept as the walk reports it (runs of passing nodes, then the rejected nodes' statuses),
    and made into one dict when first read or written one node at a time.
    """

    __slots__ = ("_parts", "_dict", "_rejected", "_rows", "_statuses", "_count", "_walks")

    def __init__(self) -> None:
        self._parts: list[Sequence[str] | Mapping[str, Status]] = []
        self._dict: dict[str, Status] | None = None
        self._rejected = False  # some status that is not Success was added
        # The passing nodes' positions in the cycle's node order, part by part, while every
        # passing part came with them and no node was set one at a time (else None).
        self._rows: list[Any] | None = []
        self._statuses: list[Mapping[str, Status]] = []  # the parts of add_statuses
        # Nodes added so far; they are distinct while at most one walk added them (a walk
        # visits each node once) and no node was set one at a time: then this is len().
        self._count = 0
        self._walks = 0

    def start_walk(self) -> None:
        """A Filter walk begins: the nodes it adds are distinct from each other."""
        self._walks += 1

    def add_passed(self, names: Sequence[str], rows: Any = None) -> None:
        """These nodes passed every Filter plugin; ``rows``: their positions in the cycle's
        node order (an int array), when the caller knows them."""
        if rows is None or self._rows is None:
            self._rows = None
        else:
            self._rows.append(rows)
        self._count += len(names)
        if self._dict is None:
            self._parts.append(names)
        else:
            self._dict.update(dict.fromkeys(names, SUCCESS))

    def add_statuses(self, statuses: Mapping[str, Status]) -> None:
        """These nodes' statuses (the rejected ones, usually)."""
        if not statuses:
            return
        self._rejected = self._rejected or any(st is not SUCCESS for st in statuses.values())
        self._statuses.append(statuses)
        self._count += len(statuses)
        if self._dict is None:
            self._parts.append(statuses)
        else:
            self._dict.update(_pairs(statuses))

    def passed_rows(self) -> list[Any] | None:
        """The passing nodes' positions (int arrays, part by part), or None when some passing
        nodes came without them, a node was set or deleted one at a time, or more than one walk
        added nodes (a node the first rejected may pass in the second). With them, the verdicts
        are these rows passing plus ``added_statuses()``, and no dict need be built."""
        return self._rows if self._walks == 1 else None

    def added_statuses(self) -> list[Mapping[str, Status]]:
        """The mappings given to ``add_statuses``, in order."""
        return self._statuses

    def _built(self) -> dict[str, Status]:
        d = self._dict
        if d is None:
            d = {}
            for part in self._parts:
                if isinstance(part, Mapping):
                    d.update(_pairs(part))
                else:
                    d.update(dict.fromkeys(part, SUCCESS))
            self._dict, self._parts = d, []
        return d

    def all_passed(self, count: int) -> bool:
        """Whether ``count`` nodes were evaluated, every one passing."""
        return not self._rejected and len(self) == count

    def as_dict(self) -> dict[str, Status]:
        """The verdicts as a plain dict (the same one each time: do not change it)."""
        return self._built()

    def __getitem__(self, node: str) -> Status:
        return self._built()[node]

    def __setitem__(self, node: str, status: Status) -> None:
        self._rejected = self._rejected or status is not SUCCESS
        self._rows = None
        self._walks = 2  # the count no longer says how many distinct nodes there are
        self._built()[node] = status

    def __delitem__(self, node: str) -> None:
        self._rows = None
        self._walks = 2
        del self._built()[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        if self._dict is None and self._walks == 1:
            return self._count
        return len(self._built())

    def __bool__(self) -> bool:
        return bool(self._parts) or bool(self._dict)

    def __repr__(self) -> str:
        return f"FilterVerdicts({self._built()!r})"


def _pairs(statuses: Mapping[str, Status]) -> Any:
    """What dict.update reads fastest: a dict itself, else the pairs (a Rejections lists its
    runs' pairs without making a dict of its own first)."""
    return statuses if isinstance(statuses, dict) else statuses.items()


VerdictColumns = tuple[
    tuple[str | None, ...], tuple[tuple[str, ...] | None, ...], tuple[str | None, ...]
]


def verdict_columns(verdicts: Mapping[str, Status], nodes: Sequence[str]) -> VerdictColumns:
    """The Filter verdict row over ``nodes``: code, reasons and rejecting plugin per node
    (None, None, None for a node not evaluated)."""
    n = len(nodes)
    if isinstance(verdicts, FilterVerdicts) and verdicts.all_passed(n):
        return ("Success",) * n, ((),) * n, (None,) * n
    found = verdicts.as_dict() if isinstance(verdicts, FilterVerdicts) else verdicts
    # Only the evaluated nodes are visited in Python (a sampled cycle evaluates a few hundred of
    # thousands); nodes share Status objects (every feasible node the same Success), so each
    # distinct status is read once. The columns over ``nodes`` are then gathered by dict lookups
    # (a node missing from a column's dict reads None: not evaluated, or no rejecting plugin).
    code_of: dict[str, str] = {}
    reasons_of: dict[str, tuple[str, ...]] = {}
    rejector_of: dict[str, str] = {}
    per_status: dict[int, tuple[str, tuple[str, ...], str | None]] = {}
    for node, st in found.items():
        info = per_status.get(id(st))
        if info is None:
            if st.is_success():
                info = (st.code.upstream, (), None)
            else:
                info = (st.code.upstream, st.reasons, st.plugin or None)
            per_status[id(st)] = info
        code_of[node], reasons_of[node], rejector = info
        if rejector is not None:
            rejector_of[node] = rejector
    return (
        tuple(map(code_of.get, nodes)),
        tuple(map(reasons_of.get, nodes)),
        tuple(map(rejector_of.get, nodes)),
    )


class Totals(Mapping[str, int]):
    """Node name -> total score, over the scored nodes in the order they were scored.

    Holds the names and an int64 column (or a list); the dict is made when first read.
    """

    __slots__ = ("_names", "_values", "_dict")

    def __init__(self, names: Sequence[str] = (), values: Any = ()) -> None:
        self._names = names
        self._values = values
        self._dict: dict[str, int] | None = None

    def _built(self) -> dict[str, int]:
        d = self._dict
        if d is None:
            d = self._dict = dict(zip(self._names, self.values_list(), strict=True))
        return d

    def names(self) -> Sequence[str]:
        return self._names

    def column(self) -> tuple[int, ...]:
        """The totals in the order of ``names()``, as an event's column."""
        if hasattr(self._values, "tolist"):
            return IntColumn.of(self._values)
        return tuple(self._values)

    def held(self) -> Any:
        """The totals as held, in the order of ``names()``: an int64 array or a list."""
        return self._values

    def values_list(self) -> list[int]:
        """The totals in the order of ``names()``."""
        values = self._values
        return values.tolist() if hasattr(values, "tolist") else list(values)

    def __getitem__(self, node: str) -> int:
        return self._built()[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._names) if self._dict is None else len(self._dict)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        return self._built() == other if isinstance(other, Mapping) else NotImplemented

    def __repr__(self) -> str:
        return f"Totals({self._built()!r})"
