"""The cycle list says when Permit turned a scheduled pod away: rejected, or timed out."""

from __future__ import annotations

from test_pg_charts import _gated

from playground.runs.panels import overview


def _row(events):
    (row,) = overview.timeline(events)
    return row


def test_a_pod_rejected_at_permit_reads_as_rejected_in_its_row():
    sched, events = _gated()
    assert _row(events)["outcome"] is None  # still waiting
    sched.reject_waiting_pod("default/g", "Gate", "rejected by a user")
    row = _row(events)
    assert (row["result"], row["binding"]) == ("Scheduled", "Rejected")
    assert row["outcome"] == "Rejected at Permit (Gate): rejected by a user"


def test_a_pod_whose_permit_wait_ran_out_reads_as_timed_out():
    sched, events = _gated()
    sched.run_until_idle()  # the simulated clock jumps to the Permit deadline (30 s)
    first = overview.timeline(events)[0]
    assert first["binding"] == "Rejected"
    assert first["outcome"].startswith("Permit timed out (Gate): rejected due to timeout")
    assert "30s" in first["outcome"]


def test_an_allowed_pod_has_no_permit_outcome():
    sched, events = _gated()
    sched.allow_waiting_pod("default/g")
    row = _row(events)
    assert (row["binding"], row["outcome"]) == ("Bound", None)
