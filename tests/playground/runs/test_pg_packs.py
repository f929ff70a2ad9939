"""Small events stored several to a row: readers page through them as events."""

from __future__ import annotations

import pytest
from builders import record_run, stored_events

from playground.demo import demo_load
from playground.models import Cluster, Profile, RunEvent
from playground.runs import selectors
from playground.runs.storage import packs

pytestmark = pytest.mark.django_db


def test_packs_hold_one_owners_consecutive_events_and_every_page_reads_them_as_events(user):
    demo_load()
    run, _, events = record_run(
        Cluster.objects.get(name="Three zones"), Profile.objects.get(name="Default")
    )
    rows = list(RunEvent.objects.filter(run=run).order_by("seq").values("type", "seq", "last"))
    packed = [r for r in rows if r["type"] == packs.PACK]
    assert packed and all(r["last"] > r["seq"] for r in packed)
    assert not any(r["type"] in packs.UNPACKED for r in packed)
    assert stored_events(run) == events
    small = packs.expand(run.events.order_by("seq").values_list("payload", flat=True))
    last = max(e["seq"] for e in events)
    # A catch-up from any seq, in pages of 3, gives every envelope once and in order.
    for after in range(-1, last, 7):
        got, at = [], after
        while True:
            page = selectors.run_event_messages(run_id=run.pk, after=at, limit=3)
            if not page:
                break
            got.extend(page)
            at = page[-1].get("last", page[-1]["seq"])
        seqs = [s for m in got for s in range(m["seq"], m.get("last", m["seq"]) + 1)]
        # A cycle that ``after`` cuts through comes whole; an event never before ``after``.
        assert seqs == list(range(seqs[0], last + 1)) and seqs[0] <= after + 1
        assert all(m["seq"] > after for m in got if m["kind"] == "event")
    inside = next(r for r in packed)["seq"]  # a page that starts inside a pack
    listed = selectors.run_events(run=run, after=inside, limit=2)
    assert [e["seq"] for e in listed] == [inside + 1, inside + 2]
    assert {e["seq"] for e in small} <= {e["seq"] for e in selectors.run_events(run=run)}
