"""A cycle's top names its lone feasible node even when a later point fails."""

from __future__ import annotations

from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.record.cycle_events import cycle_events, fold_cycle


def _folded(rec: CycleRecord) -> dict[str, object]:
    return fold_cycle(cycle_events(rec, cycle=1, time=0.0, seq=0))


def _one_feasible(selected: str | None) -> CycleRecord:
    rec = CycleRecord(pod="default/p", profile="default-scheduler")
    rec.nodes = ["n1", "n2"]
    rec.feasible = ["n1"]
    rec.top = ["n1"]
    rec.selected = selected
    return rec


def test_the_lone_feasible_node_is_top_when_reserve_fails_afterwards() -> None:
    rec = _one_feasible(None)
    rec.error, rec.message = True, "running Reserve plugin: boom"
    out = _folded(rec)
    assert (out["top"], out["selected"], out["totals"]) == (["n1"], None, {})


def test_the_lone_feasible_node_is_top_and_selected_when_the_cycle_succeeds() -> None:
    out = _folded(_one_feasible("n1"))
    assert (out["top"], out["selected"]) == (["n1"], "n1")


def test_no_feasible_node_means_no_top() -> None:
    rec = CycleRecord(pod="default/p", profile="default-scheduler")
    rec.nodes = ["n1"]
    assert _folded(rec)["top"] == []
