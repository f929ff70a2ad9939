"""Storing a run's records: cycle rows and small events, inserted in bulk.

``store_items`` inserts what ``execution.Recorder`` produced (inside the caller's transaction,
skipping a row already stored: a resumed run may store a seq twice); ``item_messages`` gives their
stream envelopes in the same order.
"""

from __future__ import annotations

from typing import Any, Final

from django.db import connection

from ..jsontext import dumps
from ..models import Run, RunCycle, RunEvent
from .columns import summary_message
from .selectors import SUMMARY_FIELDS
from .stream import event_message

Item = tuple[str, dict[str, Any], int | None]  # ("event", payload, owner) or ("cycle", row, None)
# A flush stores at most this many items (events or cycles) or this many bytes of cycle records
# at once; a fast run flushes on these, a slow one every FLUSH_SECONDS (execution). Each flush is
# a transaction that also renews the lease: on a 1,000-pod run, 500 items a flush made the
# commits a tenth of the run's time.
BATCH_ITEMS: Final = 5000
BATCH_BYTES: Final = 8 << 20


def store_items(run_id: int, items: list[Item], *, run_nodes: list[str] | None = None) -> None:
    """Insert the items (inside the caller's transaction); a row already stored is skipped."""
    if run_nodes is not None:
        Run.objects.filter(pk=run_id, node_names__isnull=True).update(node_names=run_nodes)
    insert_events(run_id, [(p, owner) for kind, p, owner in items if kind == "event"])
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


def insert_events(run_id: int, events: list[tuple[dict[str, Any], int | None]]) -> None:
    """Insert RunEvent rows (payload, owner cycle), skipping a seq already stored.

    Thousands of small rows a run: ``_insert_rows``, the payloads encoded by orjson.
    """
    if not events:
        return
    rows = [(run_id, p["seq"], p["type"], owner, dumps(p)) for p, owner in events]
    if not _insert_rows(RunEvent, rows, ("seq", "type", "cycle", "payload"), json_field="payload"):
        RunEvent.objects.bulk_create(
            [
                RunEvent(run_id=run_id, seq=p["seq"], type=p["type"], cycle=owner, payload=p)
                for p, owner in events
            ],
            batch_size=500,
            ignore_conflicts=True,
        )


def item_messages(run_id: int, items: list[Item]) -> list[dict[str, Any]]:
    """The stream envelopes of stored items, in order."""
    return [
        event_message(run_id, p) if kind == "event" else summary_message(run_id, p)
        for kind, p, _ in items
    ]
