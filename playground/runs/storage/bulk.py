"""Storing a run's records: cycle rows and small events, inserted in bulk.

``store_items`` inserts what ``execution.Recorder`` produced (inside the caller's transaction,
skipping a row already stored: a resumed run may store a seq twice); ``item_messages`` gives their
stream envelopes in the same order.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import connection

from ...inputs.jsontext import dumps
from ...models import Run, RunCycle, RunEvent
from ..live.stream import event_message
from ..selectors import SUMMARY_FIELDS
from .columns import summary_message
from .packs import PACK

# ("event", payload, owner), ("pack", [payload, ...], owner) or ("cycle", row, None)
Item = tuple[str, Any, int | None]
# A flush stores at most this many items (events, packs of them, or cycles) or this many bytes
# of cycle records at once; a fast run flushes on these, a slow one every FLUSH_SECONDS
# (execution). Each flush is a transaction that also renews the lease, cheap now that the run's
# row is small (RunSnapshot), and a watcher sees a fast run's progress flush by flush.
BATCH_ITEMS: Final = 500
BATCH_BYTES: Final = 8 << 20


def store_items(run_id: int, items: list[Item], *, run_nodes: list[str] | None = None) -> None:
    """Insert the items (inside the caller's transaction); a row already stored is skipped."""
    if run_nodes is not None:
        Run.objects.filter(pk=run_id, node_names__isnull=True).update(node_names=run_nodes)
    insert_events(run_id, [(p, owner) for kind, p, owner in items if kind != "cycle"])
    cycles = [row for kind, row, _ in items if kind == "cycle"]
    if cycles and not _insert_rows(
        RunCycle, [(run_id, *(row[c] for c in _CYCLE_FIELDS)) for row in cycles], _CYCLE_FIELDS
    ):
        RunCycle.objects.bulk_create(
            [RunCycle(run_id=run_id, **row) for row in cycles],
            batch_size=100,
            ignore_conflicts=True,
        )


_CYCLE_FIELDS: Final = (*SUMMARY_FIELDS, "data")  # a RunCycle row: its summary, its record


def _insert_rows(
    model: type[RunEvent] | type[RunCycle],
    rows: list[tuple[Any, ...]],
    fields: tuple[str, ...],
    *,
    json_field: str = "",
) -> bool:
    """Insert rows (``run_id`` then ``fields``), skipping one whose key is already stored: one
    prepared INSERT run many times instead of a model instance and its SQL per row. False (and
    nothing done) on a database other than SQLite or PostgreSQL."""
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        return False
    q = connection.ops.quote_name
    names = ("run_id", *fields)
    columns = ", ".join(q(c) for c in names)
    if vendor == "sqlite":
        values = ", ".join("%s" for _ in names)
        sql = f"INSERT OR IGNORE INTO {q(model._meta.db_table)} ({columns}) VALUES ({values})"
    else:
        values = ", ".join("%s::jsonb" if c == json_field else "%s" for c in names)
        sql = f"INSERT INTO {q(model._meta.db_table)} ({columns}) VALUES ({values}) "
        sql += "ON CONFLICT DO NOTHING"
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
    return True


def insert_events(run_id: int, events: list[tuple[Any, int | None]]) -> None:
    """Insert RunEvent rows (an event's payload or a pack's list, owner cycle), skipping a seq
    already stored. A pack of one is stored as its event.

    Thousands of small rows a run: ``_insert_rows``, the payloads encoded by orjson.
    """
    if not events:
        return
    values = []  # seq, type, cycle, payload, last
    for p, owner in events:
        if isinstance(p, list) and len(p) == 1:
            p = p[0]
        if isinstance(p, list):
            values.append((p[0]["seq"], PACK, owner, p, p[-1]["seq"]))
        else:
            values.append((p["seq"], p["type"], owner, p, None))
    fields = ("seq", "type", "cycle", "payload", "last")
    rows = [(run_id, seq, t, owner, dumps(p), last) for seq, t, owner, p, last in values]
    if not _insert_rows(RunEvent, rows, fields, json_field="payload"):
        RunEvent.objects.bulk_create(
            [RunEvent(run_id=run_id, **dict(zip(fields, v, strict=True))) for v in values],
            batch_size=500,
            ignore_conflicts=True,
        )


def item_last_seq(item: Item) -> int:
    """The last seq a stored item stands for."""
    kind, p, _ = item
    if kind == "cycle":
        return int(p["seq_last"])
    return int(p[-1]["seq"] if kind == "pack" else p["seq"])


def item_messages(run_id: int, items: list[Item]) -> list[dict[str, Any]]:
    """The stream envelopes of stored items, in order (a pack's events one by one)."""
    out = []
    for kind, p, _ in items:
        if kind == "event":
            out.append(event_message(run_id, p))
        elif kind == "pack":
            out.extend(event_message(run_id, e) for e in p)
        else:
            out.append(summary_message(run_id, p))
    return out
