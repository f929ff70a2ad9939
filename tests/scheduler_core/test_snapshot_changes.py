"""Each cycle's CycleStart names the cache's changes its snapshot took in: the nodes upstream's
UpdateSnapshot copies (a newer NodeInfo generation), the others kept as they were."""

from __future__ import annotations

from typing import Any

from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.loop.cluster import FIRST_SNAPSHOT
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.events import CycleStart, Event
from tests.builders import make_node, make_pod
from tests.scheduler_core.test_batching import LIST_DEFAULTING


def _starts(events: list[Event]) -> dict[str, list[tuple[str, str, str]]]:
    """Each cycle's changes, by the cycle's pod (its last cycle)."""
    return {
        e.pod: [tuple(c) for c in e.snapshot_changes or ()]
        for e in events
        if isinstance(e, CycleStart)
    }


def _run(*objects: dict[str, Any]) -> tuple[Scheduler, list[Event]]:
    events: list[Event] = []
    sched = Scheduler(None, objects, on_event=events.append)
    sched.run_until_idle()
    return sched, events


def test_the_first_cycle_copies_every_node_and_the_next_the_node_a_pod_went_to() -> None:
    sched, events = _run(
        make_node("n1", cpu="4"),
        make_node("n2", cpu="4"),
        make_pod("running", cpu="1", nodeName="n2"),
        make_pod("a", cpu="3"),
        make_pod("b", cpu="3"),
    )
    where = sched.placements()["default/a"]
    starts = _starts(events)
    assert starts["default/a"] == [("", FIRST_SNAPSHOT, "")]
    # a was assumed on its node, then bound and confirmed by the informer: that node only.
    assert starts["default/b"] == [
        (where, "pod assumed", "default/a"),
        (where, "pod confirmed", "default/a"),
    ]


def test_a_cycle_after_a_failed_one_takes_no_change() -> None:
    """A failed cycle assumes nothing: the next cycle's snapshot is the same."""
    _sched, events = _run(
        make_node("n1", cpu="1"), make_pod("big", cpu="2"), make_pod("bigger", cpu="3")
    )
    starts = _starts(events)
    assert starts["default/big"] == [("", FIRST_SNAPSHOT, "")]
    assert starts["default/bigger"] == []


def test_a_node_added_and_a_pod_deleted_are_copied_in() -> None:
    sched, events = _run(
        make_node("n1", cpu="2"),
        make_pod("old", cpu="2", nodeName="n1"),
        make_pod("new", cpu="2"),
    )
    assert sched.placements()["default/new"] is None
    before = len(events)
    sched.add_node(make_node("n2", cpu="1"))
    sched.delete_pod("default/old")
    sched.run_until_idle()
    (start,) = [e for e in events[before:] if isinstance(e, CycleStart)]
    assert [tuple(c) for c in start.snapshot_changes or ()] == [
        ("n2", "node added", ""),
        ("n1", "pod removed", "default/old"),
    ]
    assert sched.placements()["default/new"] == "n1"


def test_a_pod_updated_in_place_reads_as_one_update() -> None:
    from scheduler_core.loop.cluster import Cluster
    from scheduler_core.objects.api import Node, Pod

    cluster = Cluster([Node(make_node("n1"))], [Pod(make_pod("p", nodeName="n1"))])
    assert cluster.take_changes() == [("", FIRST_SNAPSHOT, "")]
    (pod,) = cluster.pods.values()
    cluster.remove_pod(pod)
    cluster.add_pod(pod)
    assert cluster.take_changes() == [("n1", "pod updated", "default/p")]
    assert cluster.take_changes() == []


def _cycle_starts(sched_objects, features, config=None) -> list[CycleStart]:
    events: list[Event] = []
    sched = Scheduler(config, sched_objects, on_event=events.append, features=features)
    sched.run_until_idle()
    return [e for e in events if isinstance(e, CycleStart)]


def test_a_victim_terminating_gracefully_is_a_change_then_its_removal_another() -> None:
    """Asynchronous preemption (v1.35): the victim keeps its node with a deletionTimestamp,
    then goes; each is a change the preemptor's next snapshots take in."""
    cluster = [
        make_node("n1", cpu="2"),
        make_pod("low", cpu="2", node_name="n1", priority=0),
        make_pod("urgent", cpu="2", priority=100),
    ]
    starts = _cycle_starts(cluster, Features())
    changes = [[tuple(c) for c in s.snapshot_changes or ()] for s in starts]
    assert ("n1", "pod terminating", "default/low") in changes[1]
    assert ("n1", "pod removed", "default/low") in [c for cs in changes[1:] for c in cs]
    # Synchronous preemption (the traces' gates): deleted at once.
    sync = _cycle_starts(cluster, TRACE_FEATURES)
    assert [tuple(c) for c in sync[1].snapshot_changes or ()] == [
        ("n1", "pod removed", "default/low")
    ]


def test_a_batched_cycle_names_the_node_it_took_unscored() -> None:
    """Opportunistic batching: identical pods, one per node; each after the first is offered
    the next node of the previous cycle's ranking and takes it."""
    cluster = [make_node(f"n{i}", cpu="4") for i in range(4)]
    cluster += [make_pod(f"p{i}", cpu="3") for i in range(3)]
    starts = _cycle_starts(cluster, Features(), LIST_DEFAULTING)
    assert starts[0].batch_hint is None
    assert all(s.batch_hint for s in starts[1:])
    assert len({s.batch_hint for s in starts[1:]}) == 2
    assert all(
        s.batch_hint is None for s in _cycle_starts(cluster, TRACE_FEATURES, LIST_DEFAULTING)
    )
