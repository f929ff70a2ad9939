"""A scheduling cycle stored straight from the engine's record, without building its events.

A run's Scheduler hands over each cycle's ``CycleRecord`` (``on_cycle``) instead of its
events. ``encode_record`` stores the events as their types and fields
(``cycle_event_fields(columns=False)``, which leaves the per-node fields empty) with each
per-node field a marker of a column (format 4, ``CycleEncoder.record_fields``); ``decode_cycle``
gives back exactly the events' ``to_dict()`` forms. No event is built and no event's JSON is
written on its own: the fields of all the cycle's events are written as one JSON text. The
per-node columns come from the record's own arrays:

- the Filter verdict row from the passing nodes' positions (``FilterVerdicts.passed_rows``) and
  the rejected nodes' statuses, so only rejected nodes are visited in Python;
- every Score plugin's raw and normalized values (int64 arrays) and the Combine totals as one
  matrix, narrowed to the smallest integer type once; a weighted column is the normalized one
  times the weight (``$w``), equal columns are stored once;
- node lists (the scored nodes, the best ones, the feasible ones) as positions in the cycle's
  node order, taken from the record's row arrays where the engine has them; CycleEnd's
  feasible list is sorted by name when decoded (``$fs``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any, Final

import numpy as np

from scheduler_core.framework.status import Status
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.record.cycle_events import (
    cycle_event_count,
    cycle_event_fields,
    cycle_result,
)
from scheduler_core.record.events import (
    CycleStart,
    jsonable,
)
from scheduler_core.record.verdicts import (
    FilterVerdicts,
    Totals,
)

from .columns import DERIVED, CycleEncoder, _narrowed, _Table, summary_row

_INT_TYPES: Final = ((256, "B", np.uint8), (2**16, "H", np.uint16), (2**32, "I", np.uint32))


class _Chunks:
    """The record's columns: (typecode, count) specs and, in the same order, their bytes (one
    piece may hold several columns' bytes)."""

    def __init__(self) -> None:
        self.specs: list[tuple[str, int]] = []
        self.data: list[bytes] = []

    def add(self, typecode: str, count: int, data: bytes) -> int:
        self.specs.append((typecode, count))
        self.data.append(data)
        return len(self.specs) - 1

    def ids(self, values: Any, size: int) -> int:
        """Unsigned ids below ``size`` (table ids, node positions) in the narrowest type."""
        for limit, typecode, dtype in _INT_TYPES:
            if size <= limit:
                return self.add(typecode, len(values), values.astype(dtype).tobytes())
        raise ValueError(f"{size} ids do not fit 32 bits")

    def ints(self, arrays: Sequence[Any]) -> list[int]:
        """Integer columns of one length, narrowed together: one column number each."""
        if not arrays:
            return []
        matrix = np.stack(arrays) if len(arrays) > 1 else arrays[0].reshape(1, -1)
        typecode, data = _narrowed(matrix)
        # The matrix's rows are consecutive columns: its bytes, row after row, are theirs.
        first = len(self.specs)
        self.specs.extend([(typecode, matrix.shape[1])] * len(arrays))
        self.data.append(data)
        return list(range(first, len(self.specs)))


def _int64(values: Any) -> Any:
    if isinstance(values, np.ndarray):
        return values if values.dtype == np.int64 else values.astype(np.int64)
    return np.fromiter(values, dtype=np.int64, count=len(values))


class _Cycle:
    """One record being encoded: its node order, tables and columns."""

    def __init__(self, encoder: CycleEncoder, rec: CycleRecord, nodes: tuple[str, ...]) -> None:
        self.encoder = encoder
        self.rec = rec
        self.nodes = nodes
        self.strings: _Table = _Table()
        self.strings[None] = 0
        self.reasons: _Table = _Table()
        self.reasons[None] = 0
        self.chunks = _Chunks()
        self.evaluated = 0
        self._positions: dict[int, Any] = {}  # id(list of names) -> its column marker

    # -- node lists -------------------------------------------------------------------------------

    def positions(self, names: Sequence[str], rows: Any = None, key: str = "$i") -> Any:
        """A node list as positions in the node order (``rows`` when the engine has them)."""
        if not names:
            return []
        if rows is None or len(rows) != len(names):
            index = self.encoder._node_index(self.nodes)
            rows = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
        return {key: self.chunks.ids(rows, len(self.nodes))}

    def scored_nodes(self) -> Any:
        rec = self.rec
        marker = self._positions.get(id(rec.scored_nodes))
        if marker is None:
            marker = self._positions[id(rec.scored_nodes)] = self.positions(
                rec.scored_nodes, rec.scored_rows
            )
        return marker

    # -- the Filter verdict row -------------------------------------------------------------------

    def verdict(self) -> tuple[Any, Any, Any]:
        """The verdict row's codes, reasons and rejecting plugins over the node order."""
        rec, n = self.rec, len(self.nodes)
        strings, reasons = self.strings, self.reasons
        verdicts = rec.filter
        if isinstance(verdicts, FilterVerdicts) and verdicts.all_passed(n):
            self.evaluated = n  # as verdict_columns has it: every node evaluated, all passing
            return {"$k": ["Success", n]}, {"$k": [[], n]}, {"$k": [None, n]}
        code = np.zeros(n, dtype=np.uint32)
        why = np.zeros(n, dtype=np.uint32)
        rejector = np.zeros(n, dtype=np.uint32)
        rows = verdicts.passed_rows() if isinstance(verdicts, FilterVerdicts) else None
        parts: Sequence[Mapping[str, Status]]
        if rows is not None:
            assert isinstance(verdicts, FilterVerdicts)
            success, no_reasons = strings["Success"], reasons[()]
            for part in rows:
                code[part] = success
                why[part] = no_reasons
            parts = verdicts.added_statuses()
        else:
            parts = [verdicts.as_dict() if isinstance(verdicts, FilterVerdicts) else verdicts]
        # Rejected nodes can be thousands a cycle and share a few Status objects: each distinct
        # one is read once, and the nodes are mapped to positions and ids at C speed (map).
        index = self.encoder._node_index(self.nodes)
        per_status: dict[int, int] = {}  # id(status) -> its row in ``infos``
        infos: list[tuple[int, int, int]] = []
        for statuses in parts:
            if not statuses:
                continue
            status_ids = list(map(id, statuses.values()))
            for sid, st in dict(zip(status_ids, statuses.values(), strict=True)).items():
                if sid not in per_status:
                    per_status[sid] = len(infos)
                    infos.append(self._status_ids(st))
            count = len(status_ids)
            at = np.fromiter(map(index.get, statuses, repeat(-1)), dtype=np.int64, count=count)
            which = np.fromiter(map(per_status.__getitem__, status_ids), np.int64, count=count)
            known = at >= 0  # a node outside the node order is not in the row
            values = np.array(infos, dtype=np.uint32)[which[known]]
            at = at[known]
            code[at], why[at], rejector[at] = values[:, 0], values[:, 1], values[:, 2]
        self.evaluated = int(np.count_nonzero(code))
        return (
            self._table_column(code, self.strings),
            self._table_column(why, self.reasons),
            self._table_column(rejector, self.strings),
        )

    def _status_ids(self, st: Status) -> tuple[int, int, int]:
        """A Filter status as ids: its code, its reasons and the plugin that rejected."""
        if st.is_success():
            return self.strings[st.code.upstream], self.reasons[()], 0
        return (
            self.strings[st.code.upstream],
            self.reasons[tuple(st.reasons)],
            self.strings[st.plugin or None],
        )

    def _table_column(self, ids: Any, table: _Table) -> Any:
        if not len(ids):
            return []
        first = int(ids[0])
        if (ids == first).all():
            value = next(v for v, i in table.items() if i == first)
            return {"$k": [jsonable(value), len(ids)]}
        return {"$s" if table is self.strings else "$r": self.chunks.ids(ids, len(table))}

    # -- Score and Combine ------------------------------------------------------------------------

    def scores(self) -> tuple[list[dict[str, Any]], Any]:
        """Per Score plugin its raw, normalized and weighted markers; and Combine's totals."""
        rec = self.rec
        arrays: list[Any] = []
        slots: list[tuple[int, int]] = []  # per plugin: (raw's, normalized's) index in arrays
        for ps in rec.scores:
            raw = _int64(ps.raw_array if ps.raw_array is not None else ps.raw)
            norm = _int64(ps.array if ps.array is not None else ps.normalized)
            arrays.append(raw)
            same = norm is raw or (len(norm) == len(raw) and bool((norm == raw).all()))
            if not same:
                arrays.append(norm)
            slots.append((len(arrays) - 1 - (not same), len(arrays) - 1))
        totals = rec.totals
        total_values = None
        if isinstance(totals, Totals):
            total_values = _int64(totals.held())
        elif totals:
            total_values = _int64([totals[n] for n in self._totals_names()])
        if total_values is not None and len(total_values):
            arrays.append(total_values)
        numbers = self._columns(arrays)
        out = []
        for ps, (r, m) in zip(rec.scores, slots, strict=True):
            raw_marker, norm_marker = numbers[r], numbers[m]
            if ps.weight == 1 or not isinstance(norm_marker, dict):
                weighted = norm_marker
            else:
                weighted = {"$w": [norm_marker["$q"], ps.weight]}
            out.append({"raw": raw_marker, "normalized": norm_marker, "weighted": weighted})
        totals_marker = numbers[-1] if total_values is not None and len(total_values) else []
        return out, totals_marker

    def _columns(self, arrays: list[Any]) -> list[Any]:
        """``$q`` markers for the arrays (an empty one is []), same-length ones narrowed
        together."""
        markers: list[Any] = [[] for _ in arrays]
        by_length: dict[int, list[int]] = {}
        for i, a in enumerate(arrays):
            if len(a):
                by_length.setdefault(len(a), []).append(i)
        for positions in by_length.values():
            numbers = self.chunks.ints([arrays[i] for i in positions])
            for i, k in zip(positions, numbers, strict=True):
                markers[i] = {"$q": k}
        return markers

    def _totals_names(self) -> Sequence[str]:
        rec, totals = self.rec, self.rec.totals
        if isinstance(totals, Totals):
            return totals.names()
        return list(totals) if totals else list(rec.top)

    def combine_nodes(self) -> Any:
        rec = self.rec
        names = self._totals_names()
        if names is rec.scored_nodes:
            return self.scored_nodes()
        return self.positions(names)

    def feasible(self) -> Any:
        rec = self.rec
        if rec.scored_rows is not None and (
            rec.scored_nodes is rec.feasible or rec.scored_nodes == rec.feasible
        ):
            marker = self.scored_nodes()
            return {"$fs": marker["$i"]} if marker else []
        return self.positions(rec.feasible, key="$fs")


def encode_record(
    encoder: CycleEncoder, rec: CycleRecord, *, cycle: int, time: float, seq: int
) -> tuple[bytes, dict[str, Any]]:
    """The cycle's stored record (the events as their types and fields, per-node ones as
    columns: ``CycleEncoder.record_fields``) and its row's fields (as ``summary`` of them)."""
    parts = cycle_event_fields(rec, filter_rows=False, columns=False)
    nodes = encoder.node_order(rec.nodes)
    if encoder.run_nodes is None:
        encoder.run_nodes = nodes
    c = _Cycle(encoder, rec, nodes)
    scores: list[dict[str, Any]] = []
    totals: Any = []
    if rec.scores or rec.totals:
        scores, totals = c.scores()
    score_at = 0
    events: list[tuple[str, dict[str, Any]]] = []
    for cls, fields in parts:
        kind = cls.type
        # The per-node fields, left empty by cycle_event_fields, get their columns' markers.
        if kind == "Filter":
            if fields.get("plugin"):
                fields[DERIVED] = 1  # the plugin's row follows from the verdict row
            else:
                fields["codes"], fields["reasons"], fields["rejector"] = c.verdict()
        elif kind == "Score":
            fields["nodes"] = c.scored_nodes()
            fields.update(scores[score_at])
            score_at += 1
        elif kind == "CycleStart":
            fields["nodes"] = {"$nodes": 1} if nodes else []
        elif kind == "Combine":
            fields["nodes"] = c.combine_nodes()
            fields["totals"] = totals
            fields["top"] = c.positions(rec.top, rec.top_rows)
        elif kind == "CycleEnd":
            fields["feasible"] = c.feasible()
        events.append((kind, fields))
    base = (seq, cycle, rec.pod, time)
    data = encoder.record_fields(
        nodes, c.strings, c.reasons, c.chunks.specs, base, events, c.chunks.data
    )
    start = CycleStart(seq=seq, cycle=cycle, pod=rec.pod, profile=rec.profile, note=rec.note)
    return data, _row(rec, start, seq + len(parts) - 1, c.evaluated)


def recipe_row(encoder: CycleEncoder, rec: CycleRecord, *, cycle: int, seq: int) -> dict[str, Any]:
    """The row's fields of a cycle stored as a recipe (``rebuilt``): ``encode_record``'s, without
    encoding anything (the run's node order is noted as ``encode_record`` does)."""
    nodes = encoder.node_order(rec.nodes)
    if encoder.run_nodes is None:
        encoder.run_nodes = nodes
    start = CycleStart(seq=seq, cycle=cycle, pod=rec.pod, profile=rec.profile, note=rec.note)
    return _row(rec, start, seq + cycle_event_count(rec) - 1, _evaluated(rec))


def _evaluated(rec: CycleRecord) -> int:
    """How many nodes the verdict row covers (``_Cycle.verdict``'s count), without building it."""
    verdicts = rec.filter
    if rec.profile is None or not (verdicts or rec.filter_plugins):
        return 0
    if isinstance(verdicts, FilterVerdicts) and verdicts.all_passed(len(rec.nodes)):
        return len(rec.nodes)
    return len(verdicts)


def _row(rec: CycleRecord, start: CycleStart, last_seq: int, evaluated: int) -> dict[str, Any]:
    ended = rec.profile is not None  # else the cycle is its CycleStart alone
    end = (cycle_result(rec), rec.selected, len(rec.feasible), rec.message) if ended else None
    return summary_row(start, last_seq, end, evaluated)
