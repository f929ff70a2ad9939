"""The engine pauses Python's cycle collector while it sets up, and leaves it as it found it."""

from __future__ import annotations

import gc
from typing import Any

import pytest
from builders import make_node, make_pod

from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.tools import case as case_module
from scheduler_core.tools import gcpause
from scheduler_core.tools.case import CaseRun
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


def test_fewer_collections_raises_the_first_threshold_and_restores_it() -> None:
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with gcpause.fewer_collections():
            assert gc.get_threshold() == (gcpause.SCHEDULING_THRESHOLD, 10, 10)
            with gcpause.fewer_collections():  # nested: left as the outer block set it
                assert gc.get_threshold()[0] == gcpause.SCHEDULING_THRESHOLD
            assert gc.get_threshold()[0] == gcpause.SCHEDULING_THRESHOLD
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(50_000, 5, 5)  # the process's own, higher choice stays
        with gcpause.fewer_collections():
            assert gc.get_threshold() == (50_000, 5, 5)
        assert gc.get_threshold() == (50_000, 5, 5)
    finally:
        gc.set_threshold(*old)


def test_a_case_run_schedules_with_fewer_collections() -> None:
    case = {
        "nodes": [
            {"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "pods": "10"}}}
        ],
        "queue": [{"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}],
    }
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        seen = [gc.get_threshold()[0] for _ in CaseRun(case).cycles()]
        assert seen == [gcpause.SCHEDULING_THRESHOLD]
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*old)


def test_the_scheduling_loop_runs_with_fewer_collections() -> None:
    seen: list[int] = []
    sched = Scheduler(
        None,
        [make_node("n1"), make_pod("a")],
        on_event=lambda ev: seen.append(gc.get_threshold()[0]),
    )
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        seen.clear()
        assert sched.run_until_idle() == 1
        assert seen and set(seen) == {gcpause.SCHEDULING_THRESHOLD}
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*old)


def test_a_case_run_sets_up_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = case_module.Cluster

    def cluster(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(case_module, "Cluster", cluster)
    assert gc.isenabled()
    CaseRun({"nodes": [make_node("n1")], "queue": [make_pod("p")]})
    assert seen == [False]
    assert gc.isenabled()
