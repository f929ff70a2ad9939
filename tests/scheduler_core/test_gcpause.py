"""The engine pauses Python's cycle collector while it sets up, and leaves it as it found it."""

from __future__ import annotations

import gc

from builders import make_node, make_pod

from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.tools.gcpause import collector_paused


def _collector_during_setup() -> list[bool]:
    seen: list[bool] = []
    Scheduler(
        None,
        [make_node("n1"), make_pod("a")],
        on_event=lambda ev: seen.append(gc.isenabled()),  # Enqueue, emitted by the set-up
    )
    return seen


def test_the_set_up_runs_with_the_collector_paused_and_restores_it():
    assert gc.isenabled()
    assert _collector_during_setup() == [False]
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        assert _collector_during_setup() == [False]
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_comes_back_after_an_error():
    try:
        with collector_paused():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()
