"""One scheduling cycle's events as compact columns: how a run stores its per-node detail.

A cycle's events (CycleStart .. CycleEnd) carry arrays aligned with the snapshot's node order:
Filter codes, reasons and rejectors per node, Score raw/normalized/weighted per feasible node,
Combine totals, the feasible list. Stored as JSON they cost about a kilobyte per node per cycle.
Here each such array becomes a typed column (``array``: codes and reasons as ids into small
tables local to the cycle, node lists as indices into the snapshot's node order, scores as
integers), the rest of each event stays a small JSON header, and the whole is compressed with
zstd. Only the Filter verdict row is kept: each plugin's row follows from it
(``scheduler_core.cycle_events.filter_plugin_rows``). ``decode_cycle`` gives back exactly the
events' ``to_dict()`` forms, so the charts, the step-through and the conformance fold read stored
cycles as they read live events.

Layout of a record: ``zstd(len(header) as 4 bytes big-endian + header JSON + column bytes)``; the
header lists the columns (type code, item count) in the order their bytes follow. ``encode``
(from events) writes each event's JSON under ``events`` (format 3); ``record_fields`` (from the
engine's record, ``records.py``) writes each event as its type and fields other than defaults
under ``parts`` (format 4). Both decode to the same dicts.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import zlib
from array import array
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import zstandard

from scheduler_core.record.cycle_events import filter_plugin_rows
from scheduler_core.record.events import (
    EVENT_TYPES,
    CycleEnd,
    CycleStart,
    Event,
    Filter,
    jsonable,
)

from ...inputs.jsontext import dumps, loads

VERSION: Final = 3  # 2: an event's seq, cycle, pod and time are left out when they follow
# from the CycleStart's (seq: the CycleStart's plus the event's position); 3: "$w" (a column
# times a weight) and "$fs" (node positions, read as their names sorted)
FIELDS_VERSION: Final = 4  # records.py's: the events as [type, fields other than defaults]
# under "parts", their seq, cycle, pod and time once under "base" (seq rising by position)
# Records are compressed with zstd at level 1: about as small as zlib's level 1 and about five
# times faster (0.07 ms against 0.36 ms for a 5,000-node cycle). Records written before were zlib
# (read by their header: zstd frames begin with _ZSTD_MAGIC).
_ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
# A compressor is not safe to share between threads (two runs execute at once in one process,
# as a compare does, embedded): each thread gets its own, made once.
_local = threading.local()


def _compress(data: bytes) -> bytes:
    compressor = getattr(_local, "zstd", None)
    if compressor is None:
        compressor = _local.zstd = zstandard.ZstdCompressor(level=1)
    return compressor.compress(data)


# Per event type: the fields that are columns, and how each is encoded.
#   "s": strings or None, as ids into the cycle's string table
#   "r": reason tuples or None, as ids into the cycle's reason table
#   "i": node names, as indices into the cycle's node order
#   "q": integers
#   "nodes": the cycle's node order itself (stored once per run when it does not change)
# A column of one value repeated ("$k"), every node in order or sorted ("$all"), or equal to an
# earlier column of the cycle is stored as that, not converted value by value.
COLUMNS: Final[dict[str, dict[str, str]]] = {
    "CycleStart": {"nodes": "nodes"},
    "Filter": {"codes": "s", "reasons": "r", "rejector": "s"},  # the verdict row only
    "Score": {"nodes": "i", "raw": "q", "normalized": "q", "weighted": "q"},
    "Combine": {"nodes": "i", "totals": "q", "top": "i"},
    "CycleEnd": {"feasible": "i"},
}
# A plugin's Filter row is derived from the verdict row (``filter_plugin_rows``): not stored.
DERIVED: Final = "$derived"


def _ints(values: Sequence[int]) -> array[int]:
    """The integers in the smallest signed type that holds them (less to compress)."""
    for typecode in ("b", "h", "i"):
        try:
            return array(typecode, values)
        except OverflowError:
            continue
    return array("q", values)


# array typecodes and the numpy types of the same size, narrowest first.
_NUMPY_TYPES: Final = tuple(
    (typecode, dtype, int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    for typecode, dtype in (("b", np.int8), ("h", np.int16), ("i", np.int32), ("q", np.int64))
)


def _narrowed(values: Any) -> tuple[str, bytes]:
    """An int64 array in the smallest signed type that holds it: (typecode, bytes)."""
    low, high = int(values.min()), int(values.max())
    for typecode, dtype, least, most in _NUMPY_TYPES:
        if least <= low and high <= most:
            return typecode, values.astype(dtype).tobytes()
    raise AssertionError("an int64 array fits int64")


def _narrow(col: array[int], size: int) -> array[int]:
    """An id column as bytes when its table has fewer than 256 entries."""
    if size > 256:
        return col
    narrow = array("B")
    narrow.frombytes(np.frombuffer(col, dtype=f"u{col.itemsize}").astype(np.uint8).tobytes())
    return narrow


class _Table(dict[Any, int]):
    """Interning table: a missing value gets the next id."""

    def __missing__(self, key: Any) -> int:
        value = self[key] = len(self)
        return value


_dumps = dumps
_TEXTS_KEPT: Final = 4096  # event texts remembered per run (forgotten all at once past that)
_BASE: Final = ("seq", "cycle", "pod", "time")  # fields every event has, in to_dict() order
_PLAIN: Final = (str, int, float, bool, type(None))  # JSON as they are
_FIELDS: dict[type[Event], tuple[tuple[str, str | None], ...]] = {}


def _layout(cls: type[Event]) -> tuple[tuple[str, str | None], ...]:
    """The event type's own fields (not the base ones), each with its column kind or None."""
    names = _FIELDS.get(cls)
    if names is None:
        spec = COLUMNS.get(cls.type, {})
        names = _FIELDS[cls] = tuple(
            (f.name, spec.get(f.name)) for f in dataclasses.fields(cls) if f.name not in _BASE
        )
    return names


class CycleEncoder:
    """Encodes the cycles of one run; remembers the run's node order and its index."""

    def __init__(self, run_nodes: Sequence[str] | None = None) -> None:
        self.run_nodes: tuple[str, ...] | None = tuple(run_nodes) if run_nodes else None
        self._index: dict[str, int] = {}
        self._indexed: tuple[str, ...] | None = None
        self._sorted: tuple[str, ...] = ()
        self._sorted_of: tuple[str, ...] | None = None
        # JSON of the events without columns, by their fields: a run repeats the same PreFilter
        # and PreScore steps cycle after cycle.
        self._texts: dict[Any, str] = {}
        self._order: tuple[str, ...] = ()
        self._order_of: list[str] | None = None

    def _text(self, ev: Event, base: dict[str, Any]) -> str:
        """The header JSON of an event without columns (``base``: its type and base fields)."""
        layout = _layout(type(ev))
        values = tuple(getattr(ev, name) for name, _ in layout)
        key: Any = (ev.type, tuple(base.items()), values)
        try:
            text = self._texts.get(key)
        except TypeError:  # a dict among the fields: not remembered
            key, text = None, None
        if text is None:
            for (name, _), value in zip(layout, values, strict=True):
                base[name] = value if isinstance(value, _PLAIN) else jsonable(value)
            text = _dumps(base)
            if key is not None:
                if len(self._texts) >= _TEXTS_KEPT:
                    self._texts.clear()
                self._texts[key] = text
        return text

    def node_order(self, names: list[str]) -> tuple[str, ...]:
        """A cycle's node order as a tuple: the previous cycle's when the engine handed the same
        list (its snapshot's, unchanged until the node set changes), so later checks against
        the run's order and the index are identity checks, not comparisons of every name."""
        if names is not self._order_of:
            self._order, self._order_of = tuple(names), names
        return self._order

    def _node_index(self, nodes: tuple[str, ...]) -> dict[str, int]:
        if self._indexed is not nodes and self._indexed != nodes:
            self._index = {n: i for i, n in enumerate(nodes)}
            self._indexed = nodes
        return self._index

    def _sorted_nodes(self, nodes: tuple[str, ...]) -> tuple[str, ...]:
        if self._sorted_of is not nodes and self._sorted_of != nodes:
            self._sorted, self._sorted_of = tuple(sorted(nodes)), nodes
        return self._sorted

    def encode(self, events: Sequence[Event]) -> bytes:
        """One cycle's events (the first a CycleStart) as a compressed columnar record."""
        start = events[0]
        if not isinstance(start, CycleStart):
            raise ValueError(f"a cycle record starts with CycleStart, not {start.type}")
        nodes = tuple(start.nodes)
        if self.run_nodes is None:
            self.run_nodes = nodes
        strings, reasons = _Table(), _Table()
        strings[None] = 0
        reasons[None] = 0
        columns: list[tuple[str, int]] = []
        chunks: list[bytes] = []
        header_events: list[str] = []
        index: dict[str, int] | None = None
        mapped: dict[tuple[Any, ...], int] = {}  # columns already stored (Score.nodes repeat)
        for position, ev in enumerate(events):
            out: dict[str, Any] = {"type": ev.type}
            if position == 0:
                out.update(seq=ev.seq, cycle=ev.cycle, pod=ev.pod, time=ev.time)
            else:
                if ev.seq != start.seq + position:
                    out["seq"] = ev.seq
                if ev.cycle != start.cycle:
                    out["cycle"] = ev.cycle
                if ev.pod != start.pod:
                    out["pod"] = ev.pod
                if ev.time != start.time:
                    out["time"] = ev.time
            text = self.plain_text(ev, out)
            if text is not None:
                header_events.append(text)
                continue
            for name, kind in _layout(type(ev)):
                value = getattr(ev, name)
                if kind is None or not value:
                    out[name] = value if isinstance(value, _PLAIN) else jsonable(value)
                    continue
                if kind == "nodes":
                    out[name] = {"$nodes": 1}
                    continue
                if kind in ("s", "r") and value.count(value[0]) == len(value):
                    out[name] = {"$k": [jsonable(value[0]), len(value)]}  # e.g. all Success
                    continue
                if kind == "i" and len(value) == len(nodes):
                    if value == nodes:
                        out[name] = {"$all": 0}
                        continue
                    if value == self._sorted_nodes(nodes):
                        out[name] = {"$all": 1}
                        continue
                if kind == "s":
                    col = _narrow(array("H", map(strings.__getitem__, value)), len(strings))
                elif kind == "r":
                    col = _narrow(array("I", map(reasons.__getitem__, value)), len(reasons))
                elif kind == "i":
                    # A NameColumn knows its positions in the node order: no lookup per name.
                    rows = getattr(value, "rows", None)
                    key = value if rows is None else ("rows", id(value))
                    k = mapped.get(key)
                    if k is not None:
                        out[name] = {"$i": k}
                        continue
                    wide = len(nodes) >= 2**16
                    col = array("I" if wide else "H")
                    if rows is not None:
                        col.frombytes(rows.astype(np.uint32 if wide else np.uint16).tobytes())
                    else:
                        if index is None:
                            index = self._node_index(nodes)
                        col.extend(map(index.__getitem__, value))
                    mapped[key] = len(columns)
                elif getattr(value, "array", None) is not None:
                    # An IntColumn: its int64 array is narrowed and stored as it is.
                    arr = value.array
                    if (arr == arr[0]).all():
                        out[name] = {"$k": [value[0], len(value)]}
                        continue
                    key = _narrowed(arr)
                    k = mapped.get(key)
                    if k is None:
                        k = mapped[key] = len(columns)
                        columns.append((key[0], len(arr)))
                        chunks.append(key[1])
                    out[name] = {"$q": k}
                    continue
                else:
                    # Constant columns (a plugin that scores every node alike) and repeated
                    # ones (weighted = normalized at weight 1) cost a C-speed comparison, not a
                    # conversion of every value.
                    if value.count(value[0]) == len(value):
                        out[name] = {"$k": [value[0], len(value)]}
                        continue
                    k = mapped.get(value)
                    if k is not None:
                        out[name] = {"$q": k}
                        continue
                    mapped[value] = len(columns)
                    col = _ints(value)
                out[name] = {f"${kind}": len(columns)}
                columns.append((col.typecode, len(col)))
                chunks.append(col.tobytes())
            header_events.append(_dumps(out))
        return self.record(nodes, strings, reasons, columns, header_events, chunks)

    def plain_text(self, ev: Event, out: dict[str, Any]) -> str | None:
        """The header JSON of an event stored without columns (``out``: its type and base
        fields): a Filter plugin's row (derived from the verdict when decoded) or an event type
        without columns; None for an event with columns."""
        if isinstance(ev, Filter) and ev.plugin:
            out["plugin"] = ev.plugin
            out[DERIVED] = 1
            return _dumps(out)
        if ev.type not in COLUMNS:
            return self._text(ev, out)
        return None

    def record(
        self,
        nodes: tuple[str, ...],
        strings: Sequence[Any],
        reasons: Sequence[Any],
        columns: list[tuple[str, int]],
        texts: list[str],
        chunks: list[bytes],
    ) -> bytes:
        """The compressed record: the header (tables, column list, the events' JSON texts, joined
        as they are, some remembered from earlier cycles), then the columns' bytes."""
        header = self._tables(VERSION, nodes, strings, reasons, columns)
        head = (_dumps(header)[:-1] + ',"events":[' + ",".join(texts) + "]}").encode()
        return _packed(head, chunks)

    def record_fields(
        self,
        nodes: tuple[str, ...],
        strings: Sequence[Any],
        reasons: Sequence[Any],
        columns: list[tuple[str, int]],
        base: tuple[int, int, str, float],
        parts: list[tuple[str, dict[str, Any]]],
        chunks: list[bytes],
    ) -> bytes:
        """The compressed record of format 4: the tables and column list as ``record``'s, the
        events' (seq, cycle, pod, time) once, each event as [type, fields] (markers for the
        per-node fields, the rest as ``to_dict`` would write them, defaults left out)."""
        header = self._tables(FIELDS_VERSION, nodes, strings, reasons, columns)
        header["base"], header["parts"] = base, parts
        return _packed(_dumps(header).encode(), chunks)

    def _tables(
        self,
        version: int,
        nodes: tuple[str, ...],
        strings: Sequence[Any],
        reasons: Sequence[Any],
        columns: list[tuple[str, int]],
    ) -> dict[str, Any]:
        """The header's start: format, node order (None: the run's), tables, column list."""
        same = nodes is self.run_nodes or nodes == self.run_nodes
        return {
            "v": version,
            "nodes": None if same else list(nodes),
            "strings": list(strings),
            "reasons": [None if r is None else list(r) for r in reasons],
            "columns": columns,
        }


def _packed(head: bytes, chunks: list[bytes]) -> bytes:
    return _compress(len(head).to_bytes(4, "big") + head + b"".join(chunks))


def _defaults(type_: str) -> tuple[tuple[str, Any], ...]:
    """The event type's own fields (not the base ones) with their defaults as JSON."""
    found = _DEFAULTS.get(type_)
    if found is None:
        cls = EVENT_TYPES[type_]
        found = _DEFAULTS[type_] = tuple(
            (
                f.name,
                jsonable(
                    f.default_factory()
                    if f.default_factory is not dataclasses.MISSING
                    else f.default
                ),
            )
            for f in dataclasses.fields(cls)
            if f.name not in _BASE
        )
    return found


_DEFAULTS: dict[str, tuple[tuple[str, Any], ...]] = {}


def _parts_events(header: dict[str, Any]) -> list[dict[str, Any]]:
    """Format 4's events as ``to_dict()`` has them: base fields, then each field in order,
    from the stored ones or the type's default (a fresh copy of a list or dict)."""
    seq, cycle, pod, time = header["base"]
    events = []
    for position, (type_, fields) in enumerate(header["parts"]):
        ev: dict[str, Any] = {
            "type": type_,
            "seq": seq + position,
            "cycle": cycle,
            "pod": pod,
            "time": time,
        }
        for name, default in _defaults(type_):
            if name in fields:
                ev[name] = fields[name]
            else:
                ev[name] = copy.deepcopy(default) if isinstance(default, list | dict) else default
        if DERIVED in fields:
            ev[DERIVED] = 1
        events.append(ev)
    return events


def decode_cycle(data: bytes, run_nodes: Sequence[str] | None) -> list[dict[str, Any]]:
    """The cycle's events as ``Event.to_dict()`` would give them."""
    data = bytes(data)
    if data[:4] == _ZSTD_MAGIC:
        raw = zstandard.ZstdDecompressor().decompress(data)
    else:
        raw = zlib.decompress(data)
    size = int.from_bytes(raw[:4], "big")
    header = loads(raw[4 : 4 + size])
    nodes: list[str] = header["nodes"] if header["nodes"] is not None else list(run_nodes or [])
    offset = 4 + size
    cols: list[list[int]] = []
    for typecode, count in header["columns"]:
        col = array(typecode)
        end = offset + count * col.itemsize
        col.frombytes(raw[offset:end])
        cols.append(col.tolist())
        offset = end
    strings: list[Any] = header["strings"]
    reasons: list[Any] = header["reasons"]
    out: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = (
        _parts_events(header) if header["v"] >= FIELDS_VERSION else header["events"]
    )
    if header["v"] in (2, 3) and events:
        first = events[0]
        events = [
            {
                "type": ev["type"],
                "seq": ev.get("seq", first["seq"] + position),
                **{key: ev.get(key, first[key]) for key in _BASE[1:]},
                **{k: v for k, v in ev.items() if k not in _BASE and k != "type"},
            }
            for position, ev in enumerate(events)
        ]
    for ev in events:
        for name, value in ev.items():
            if not isinstance(value, dict) or len(value) != 1:
                continue
            ((key, k),) = value.items()
            if key == "$nodes":
                ev[name] = list(nodes)
            elif key == "$s":
                ev[name] = [strings[i] for i in cols[k]]
            elif key == "$r":
                ev[name] = [reasons[i] for i in cols[k]]
            elif key == "$i":
                ev[name] = [nodes[i] for i in cols[k]]
            elif key == "$q":
                ev[name] = list(cols[k])
            elif key == "$k":
                ev[name] = [k[0]] * k[1]
            elif key == "$all":
                ev[name] = sorted(nodes) if k else list(nodes)
            elif key == "$w":
                weight = k[1]
                ev[name] = [v * weight for v in cols[k[0]]]
            elif key == "$fs":
                ev[name] = sorted([nodes[i] for i in cols[k]])
        out.append(ev)
    _derive_filter_rows(out)
    return out


def _derive_filter_rows(events: list[dict[str, Any]]) -> None:
    derived = [e for e in events if e.pop(DERIVED, None)]
    if not derived:
        return
    verdict = next(e for e in events if e["type"] == "Filter" and not e["plugin"])
    plugins = [e["plugin"] for e in derived]
    rows = filter_plugin_rows(plugins, verdict["codes"], verdict["reasons"], verdict["rejector"])
    for ev, (codes, reasons) in zip(derived, rows, strict=True):
        ev["codes"] = list(codes)
        ev["reasons"] = [None if r is None else list(r) for r in reasons]
        ev["rejector"] = []


def summary(events: Sequence[Event]) -> dict[str, Any]:
    """The fields of the cycle's row: pod, profile, result, node, counts, message, seq range."""
    start = events[0]
    assert isinstance(start, CycleStart)
    end = next((e for e in reversed(events) if isinstance(e, CycleEnd)), None)
    verdict = next((e for e in events if isinstance(e, Filter) and not e.plugin), None)
    evaluated = len(verdict.codes) - verdict.codes.count(None) if verdict is not None else 0
    return summary_row(
        start,
        events[-1].seq,
        (end.result, end.node, len(end.feasible), end.message) if end is not None else None,
        evaluated,
    )


def summary_row(
    start: CycleStart,
    last_seq: int,
    end: tuple[str, str | None, int, str | None] | None,
    evaluated: int,
) -> dict[str, Any]:
    """A cycle row's fields from its CycleStart, last seq, CycleEnd's (result, node, feasible
    count, message) when it has one, and the number of nodes Filter evaluated."""
    result, node, feasible, message = end if end is not None else ("", None, 0, None)
    return {
        "cycle": start.cycle,
        "seq_first": start.seq,
        "seq_last": last_seq,
        "pod": start.pod,
        "profile": start.profile or "",
        "result": result,
        "node": node or "",
        "feasible": feasible,
        "evaluated": evaluated,
        "message": message or start.note or "",
    }


def summary_message(run_id: int, row: Mapping[str, Any]) -> dict[str, Any]:
    """The websocket envelope of a stored cycle: its summary, covering seqs first..last."""
    return {
        "kind": "cycle",
        "run": run_id,
        "seq": row["seq_first"],
        "last": row["seq_last"],
        "cycle": row["cycle"],
        "pod": row["pod"],
        "profile": row["profile"],
        # no CycleEnd: a pod no profile serves (upstream never queues it), or a cycle going on
        "result": row["result"] or ("NotQueued" if not row["profile"] else "Running"),
        "node": row["node"] or None,
        "feasible": row["feasible"],
        "evaluated": row["evaluated"],
        "message": row["message"] or None,
    }
