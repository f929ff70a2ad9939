"""A run's waiting note (why a pending run has not started) is said only while it waits."""

from __future__ import annotations

import pytest

from playground.models import Run
from playground.runs import said
from playground.runs.said import Said, with_said

REASON = Said("waiting for a free runner: %(count)s of your runs is running", count=1)


def _run(status: str) -> Run:
    return Run(status=status, summary=with_said({"waiting": str(REASON)}, waiting=REASON))


def test_a_pending_run_says_why_it_waits():
    assert said.run_text(_run(Run.Status.PENDING), "waiting") == str(REASON)


@pytest.mark.parametrize("status", ["running", "succeeded", "failed", "cancelled"])
def test_a_run_past_waiting_no_longer_says_it_waits(status):
    """The reason stays in the summary of a run cancelled while pending, or one that started;
    the page and its JSON showed it as if the run still waited."""
    run = _run(status)
    assert run.summary["waiting"]
    assert said.run_text(run, "waiting") == ""
