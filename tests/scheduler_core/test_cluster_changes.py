"""Cluster changes between cycles: the queueing hints decide which pending pods move."""

from __future__ import annotations

import json
from typing import Any

from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.events import (
    Backoff,
    ClusterChange,
    Event,
    MoveToActive,
    QueueEvent,
    event_from_dict,
)
from tests.builders import make_node, make_pod


def _scheduler(*objects: dict[str, Any]) -> tuple[Scheduler, list[Event]]:
    events: list[Event] = []
    sched = Scheduler(None, objects, on_event=events.append)
    sched.run_until_idle()
    return sched, events


def _moves(events: list[Event], pod: str) -> list[QueueEvent]:
    return [e for e in events if isinstance(e, MoveToActive | Backoff) and e.pod == pod]


def test_node_added_after_a_cycle_schedules_the_pod_its_hint_moved() -> None:
    sched, events = _scheduler(make_node("n1", cpu="1"), make_pod("big", cpu="2"))
    assert sched.placements()["default/big"] is None
    before = len(events)
    sched.add_node(make_node("n2", cpu="4"))
    (move,) = _moves(events[before:], "default/big")
    assert move.details["event"] == "NodeAdd"
    assert move.details["plugin"] == "NodeResourcesFit"
    assert move.details["hints"] == {"NodeResourcesFit": "Queue"}
    sched.run_until_idle()
    assert sched.placements()["default/big"] == "n2"


def test_node_added_that_cannot_help_leaves_the_pod_unschedulable() -> None:
    sched, events = _scheduler(make_node("n1", cpu="1"), make_pod("big", cpu="2"))
    before = len(events)
    sched.add_node(make_node("n2", cpu="1500m"))  # still too small: the hint says QueueSkip
    assert _moves(events[before:], "default/big") == []
    assert sched.queue.location(sched.pending["default/big"]) == "unschedulable"


def test_only_the_plugins_that_rejected_the_pod_are_asked() -> None:
    # Rejected by NodeAffinity only; a bigger node without the label does not move it.
    sched, events = _scheduler(
        make_node("n1", cpu="1"), make_pod("picky", cpu="100m", nodeSelector={"disk": "ssd"})
    )
    before = len(events)
    sched.add_node(make_node("n2", cpu="8"))
    assert _moves(events[before:], "default/picky") == []
    sched.set_node_labels("n2", {"kubernetes.io/hostname": "n2", "disk": "ssd"})
    (move,) = _moves(events[before:], "default/picky")
    assert move.details["event"] == "NodeUpdateNodeLabel"
    assert move.details["hints"] == {"NodeAffinity": "Queue"}
    sched.run_until_idle()
    assert sched.placements()["default/picky"] == "n2"


def test_removing_a_taint_moves_the_pod_that_taint_kept_out() -> None:
    taint = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
    sched, events = _scheduler(make_node("n1", taints=[taint]), make_pod("web"))
    assert sched.placements()["default/web"] is None
    before = len(events)
    sched.set_node_taints("n1", [])
    (move,) = _moves(events[before:], "default/web")
    assert (move.details["event"], move.details["plugin"]) == (
        "NodeUpdateNodeTaint",
        "TaintToleration",
    )
    sched.run_until_idle()
    assert sched.placements()["default/web"] == "n1"


def test_deleting_a_pod_frees_room_for_the_pending_one() -> None:
    sched, events = _scheduler(
        make_node("n1", cpu="2"),
        make_pod("old", cpu="1500m", node_name="n1"),
        make_pod("new", cpu="1"),
    )
    assert sched.placements()["default/new"] is None
    before = len(events)
    sched.delete_pod("default/old")
    (move,) = _moves(events[before:], "default/new")
    assert (move.details["event"], move.details["plugin"]) == (
        "AssignedPodDelete",
        "NodeResourcesFit",
    )
    sched.run_until_idle()
    assert sched.placements()["default/new"] == "n1"


def test_removing_a_node_is_a_node_delete_event() -> None:
    spread = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}},
    }
    sched, events = _scheduler(
        make_node("a1", labels={"zone": "a"}),
        make_node("b1", labels={"zone": "b"}, cpu="50m"),
        make_pod("w0", node_name="a1", labels={"app": "web"}),
        make_pod("w1", labels={"app": "web"}, topologySpreadConstraints=[spread]),
    )
    # Zone b is full: w1 may not go to zone a (skew 2); with b1 gone, zone b is no domain.
    assert sched.placements()["default/w1"] is None
    before = len(events)
    sched.remove_node("b1")
    moves = _moves(events[before:], "default/w1")
    assert [m.details["event"] for m in moves] == ["NodeDelete"]
    sched.run_until_idle()
    assert sched.placements()["default/w1"] == "a1"


def test_a_node_change_is_recorded_before_the_moves_it_caused() -> None:
    sched, events = _scheduler(
        make_node("n1", cpu="1"), make_pod("picky", cpu="100m", nodeSelector={"disk": "ssd"})
    )
    before = len(events)
    sched.set_node_labels("n1", {"disk": "ssd"})
    change, move = events[before], events[before + 1]
    assert isinstance(change, ClusterChange) and isinstance(move, MoveToActive | Backoff)
    assert move.details["plugin"] == "NodeAffinity"
    assert change.details == {
        "node": "n1",
        "action": "update",
        "events": ["NodeUpdateNodeLabel"],
    }
    assert event_from_dict(json.loads(json.dumps(change.to_dict()))) == change
