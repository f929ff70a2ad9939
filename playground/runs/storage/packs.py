"""Small events stored several to a row: the engine emits thousands a run (each pod's queue
actions and binding cycle), and a row each made their inserts a tenth of a run's time.

A ``RunEvent`` row holds one event (``type`` the event's, ``payload`` its fields) or a pack:
consecutive events of one owner cycle (``type`` ``PACK``, ``payload`` their list, ``seq`` the
first one's and ``last`` the last one's). A pack's seqs follow each other without a hole, at most
``PACK_MAX`` of them, so the pack that holds seq s starts after ``s - PACK_MAX``. Events read by
their type (``UNPACKED``: a pod waiting at Permit, a change to the cluster) always have a row
each. Readers get events, never packs: ``expand``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from django.db.models import Q, QuerySet

PACK: Final = ""  # the type of a row that holds several events
PACK_MAX: Final = 200
UNPACKED: Final = frozenset({"Permit", "ClusterChange"})


def expand(payloads: Iterable[Any], *, after: int = -1, before: int | None = None) -> list[Any]:
    """The events of stored payloads (an event, or a pack's list), in their order, with
    ``after < seq`` (and ``seq < before``)."""
    out: list[Any] = []
    for p in payloads:
        if isinstance(p, list):
            out.extend(p)
        else:
            out.append(p)
    if after >= 0 and out and out[0]["seq"] <= after:
        out = [e for e in out if e["seq"] > after]
    if before is not None and out and out[-1]["seq"] >= before:
        out = [e for e in out if e["seq"] < before]
    return out


def from_seq(rows: QuerySet[Any], after: int) -> QuerySet[Any]:
    """The rows that hold an event with ``seq > after``: those after it, and the pack that
    ``after`` cuts through (``expand(..., after=after)`` drops what the reader has). Each row
    gives at least one such event, so a reader may page through rows."""
    if after < 0:
        return rows
    return rows.filter(Q(seq__gt=after) | Q(seq__gt=after - PACK_MAX + 1, last__gt=after))
