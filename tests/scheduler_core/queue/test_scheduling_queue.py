"""Table tests for the scheduling queue: order, backoff, unschedulable flush, events, gates,
nominator."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from builders import make_pod

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import in_tree_registry
from scheduler_core.plugins.priority_sort import PrioritySort
from scheduler_core.queue import ClusterEvent, QueuedPodInfo, SchedulingQueue

GATES = "SchedulingGates"


def pod(name: str, *, priority: int = 0, **kw: Any) -> Pod:
    manifest = make_pod(name, **kw)
    manifest["metadata"]["uid"] = f"uid-{name}"
    manifest["spec"]["priority"] = priority
    if "nominated" in manifest["spec"]:
        manifest["status"] = {"nominatedNodeName": manifest["spec"].pop("nominated")}
    return Pod(manifest)


def gated(name: str, **kw: Any) -> Pod:
    return pod(name, schedulingGates=[{"name": "example.com/wait"}], **kw)


def gates_pre_enqueue(p: Pod) -> Status:
    """The SchedulingGates PreEnqueue check, as the framework reports it."""
    if p.scheduling_gates:
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            (f"waiting for scheduling gates: {list(p.scheduling_gates)}",),
            GATES,
        )
    return SUCCESS


class Recorder:
    """Collects on_event calls as (kind, pod name, details)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []

    def __call__(self, kind: str, p: Pod, details: dict[str, Any]) -> None:
        self.events.append((kind, p.name, details))

    def kinds(self, name: str | None = None) -> list[str]:
        return [k for k, n, _ in self.events if name is None or n == name]


@cache
def in_tree_events() -> dict[str, tuple[ClusterEvent, ...]]:
    """The events the default profile's plugins register, without their hint functions."""
    fwk = Framework(load_config(None).profiles[0], in_tree_registry())
    return {
        name: tuple(r.event for r in registered)
        for name, registered in fwk.queueing_hints().items()
    }


def make_queue(
    clock: SimulatedClock | None = None, **kw: Any
) -> tuple[SchedulingQueue, SimulatedClock, Recorder]:
    """A queue subscribed like the default profile's plugins (hints left out), unless given."""
    clock = clock or SimulatedClock()
    rec = Recorder()
    kw.setdefault("events_of_interest", in_tree_events())
    q = SchedulingQueue(
        clock=clock,
        less=PrioritySort().less,
        pre_enqueue=gates_pre_enqueue,
        on_event=rec,
        **kw,
    )
    return q, clock, rec


def fail(
    q: SchedulingQueue,
    qpi: QueuedPodInfo,
    *plugins: str,
    pending: tuple[str, ...] = (),
) -> None:
    """End qpi's cycle as rejected by ``plugins`` (none and no pending: an error)."""
    qpi.unschedulable_plugins = set(plugins)
    qpi.pending_plugins = set(pending)
    q.add_unschedulable_if_not_present(qpi, q.scheduling_cycle)


def pop(q: SchedulingQueue) -> QueuedPodInfo:
    qpi = q.pop()
    assert qpi is not None
    return qpi


def names(q: SchedulingQueue, queue: str) -> list[str]:
    return [entry["pod"].split("/", 1)[1] for entry in q.pending_pods()[queue]]


# -- activeQ order ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arrivals", "expected"),
    [
        pytest.param(
            [("a", 0, 0.0), ("b", 10, 0.0), ("c", 5, 0.0)],
            ["b", "c", "a"],
            id="higher_priority_first",
        ),
        pytest.param(
            [("a", 0, 0.0), ("b", 0, 1.0), ("c", 0, 2.0)],
            ["a", "b", "c"],
            id="equal_priority_earlier_timestamp_first",
        ),
        pytest.param(
            [("c", 0, 0.0), ("a", 0, 0.0), ("b", 0, 0.0)],
            ["c", "a", "b"],
            id="full_tie_keeps_arrival_order",
        ),
        pytest.param(
            [("a", 1, 0.0), ("b", 1, 0.0), ("c", 2, 5.0), ("d", 1, 0.0)],
            ["c", "a", "b", "d"],
            id="priority_beats_timestamp_then_fifo",
        ),
        pytest.param([("a", -5, 0.0), ("b", 0, 0.0)], ["b", "a"], id="negative_priority_last"),
    ],
)
def test_pop_orders_by_priority_then_timestamp_then_arrival(
    arrivals: list[tuple[str, int, float]], expected: list[str]
) -> None:
    q, clock, _ = make_queue()
    for name, prio, t in sorted(arrivals, key=lambda a: a[2]):
        clock.set(t)
        q.add(pod(name, priority=prio))
    assert names(q, "active") == expected
    popped = []
    while (qpi := q.pop()) is not None:
        popped.append(qpi.pod.name)
        q.done(qpi.uid)
    assert popped == expected


def test_pop_counts_attempts_cycles_and_marks_in_flight() -> None:
    q, clock, rec = make_queue()
    q.add(pod("a"))
    clock.set(2.0)
    qpi = pop(q)
    assert (qpi.attempts, q.scheduling_cycle, qpi.initial_attempt_timestamp) == (1, 1, 0.0)
    assert q.location(qpi.pod) == "in-flight"
    assert q.pop() is None
    assert rec.events[-1] == ("Pop", "a", {"queue": "active", "attempts": 1, "cycle": 1})
    assert len(q) == 0


# -- backoff ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "initial", "maximum", "expected"),
    [
        pytest.param(1, 1.0, 10.0, 1.0, id="first_failure_initial"),
        pytest.param(2, 1.0, 10.0, 2.0, id="second_doubles"),
        pytest.param(3, 1.0, 10.0, 4.0, id="third_doubles_again"),
        pytest.param(4, 1.0, 10.0, 8.0, id="fourth"),
        pytest.param(5, 1.0, 10.0, 10.0, id="fifth_capped_at_max"),
        pytest.param(60, 1.0, 10.0, 10.0, id="huge_count_capped"),
        pytest.param(3, 0.0, 10.0, 0.0, id="initial_zero_no_backoff"),
        pytest.param(2, 0.5, 1.5, 1.0, id="fractional_seconds"),
        pytest.param(3, 0.5, 1.5, 1.5, id="fractional_capped"),
        pytest.param(0, 1.0, 10.0, 0.0, id="count_zero"),
    ],
)
def test_backoff_duration_doubles_per_failure_and_caps(
    count: int, initial: float, maximum: float, expected: float
) -> None:
    q, _, _ = make_queue(pod_initial_backoff_seconds=initial, pod_max_backoff_seconds=maximum)
    assert q._backoff.backoff_duration(count) == expected


def _rejected_n_times(n: int, fail_at: float, **kw: Any) -> tuple[Any, SimulatedClock, Recorder]:
    """A pod rejected by NodeResourcesFit n times, the last failure at ``fail_at``, then
    released by a Node/Add event (so its backoff alone decides where it waits)."""
    q, clock, rec = make_queue(**kw)
    p = pod("p")
    q.add(p)
    for i in range(n):
        if i:
            q.activate([p])
        qpi = pop(q)
        clock.set(max(clock.now(), fail_at))
        fail(q, qpi, "NodeResourcesFit")
    return q, clock, rec


@pytest.mark.parametrize(
    ("failures", "fail_at", "until"),
    [
        pytest.param(1, 0.0, 2.0, id="1s_backoff_released_after_its_window"),
        pytest.param(2, 0.0, 3.0, id="2s_backoff"),
        pytest.param(3, 0.0, 5.0, id="4s_backoff"),
        pytest.param(4, 0.0, 9.0, id="8s_backoff"),
        pytest.param(5, 0.0, 11.0, id="16s_capped_to_10s"),
        pytest.param(7, 0.0, 11.0, id="stays_capped"),
        pytest.param(1, 0.4, 2.0, id="expiration_truncated_to_window"),
        pytest.param(1, 0.6, 2.0, id="expiration_1_6_truncated_to_1"),
        pytest.param(2, 3.5, 6.0, id="expiration_5_5_truncated_to_5"),
    ],
)
def test_backoff_window_aligned_release_time(failures: int, fail_at: float, until: float) -> None:
    # unschedulable_count = failures; expiration = floor(fail_at + backoff); a flush releases
    # the pod once floor(now) > expiration.
    q, clock, rec = _rejected_n_times(failures, fail_at, pop_from_backoff=True)
    p = pod("p")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"))
    assert q.location(p) == "backoff"
    assert q.pending_pods()["backoff"] == [
        {"pod": "default/p", "until": until, "attempts": failures}
    ]
    assert q.next_wakeup() == until
    clock.set(until - 0.001)
    q.flush()
    assert q.location(p) == "backoff"
    clock.set(until)
    q.flush()
    assert q.location(p) == "active"
    assert rec.events[-1] == ("MoveToActive", "p", {"event": "BackoffComplete", "from": "backoff"})


@pytest.mark.parametrize(
    ("failures", "backoff"),
    [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 10.0), (6, 10.0)],
    ids=["1s", "2s", "4s", "8s", "10s_cap", "10s_cap_again"],
)
def test_backoff_without_window_releases_right_after_expiration(
    failures: int, backoff: float
) -> None:
    q, clock, _ = _rejected_n_times(failures, 0.25, pop_from_backoff=False)
    p = pod("p")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"))
    expiration = 0.25 + backoff
    assert q.get(p).backoff_expiration == expiration  # type: ignore[union-attr]
    clock.set(expiration)
    q.flush()
    assert q.location(p) == "backoff"
    wake = q.next_wakeup()
    assert wake is not None and expiration < wake < expiration + 1e-9
    clock.set(wake)
    q.flush()
    assert q.location(p) == "active"


@pytest.mark.parametrize(
    ("errors", "until"),
    [(1, 2.0), (2, 3.0), (3, 5.0), (5, 11.0)],
    ids=["first_error_1s", "second_error_2s", "third_error_4s", "fifth_error_capped"],
)
def test_error_goes_to_backoff_with_consecutive_error_count(errors: int, until: float) -> None:
    q, clock, rec = make_queue()
    p = pod("p")
    q.add(p)
    for i in range(errors):
        qpi = pop(q)
        fail(q, qpi)  # no plugin: an error
        assert q.location(p) == "backoff"
        if i < errors - 1:
            q.activate([p])
    qpi = q.get(p)
    assert qpi is not None
    assert (qpi.consecutive_errors, qpi.unschedulable_count) == (errors, 0)
    assert rec.events[-1] == (
        "Backoff",
        "p",
        {"until": until, "event": "ScheduleAttemptFailure", "from": None},
    )
    # error backoffs are not popped early from backoffQ
    assert q.pop() is None
    assert q.next_wakeup() == until


def test_rejection_resets_consecutive_errors_and_uses_unschedulable_count() -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    for _ in range(3):
        fail(q, pop(q))
        q.activate([p])
    qpi = pop(q)
    fail(q, qpi, "NodeResourcesFit")
    assert (qpi.consecutive_errors, qpi.unschedulable_count) == (0, 1)
    assert q.location(p) == "unschedulable"


def test_pop_takes_backoff_head_when_active_is_empty() -> None:
    q, clock, rec = make_queue()
    a, b = pod("a", priority=1), pod("b", priority=5)
    for p in (a, b):
        q.add(p)
    for _ in range(2):
        qpi = pop(q)
        fail(q, qpi, "NodeResourcesFit")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"))
    assert names(q, "backoff") == ["b", "a"]  # same window: activeQ order
    qpi = pop(q)
    assert qpi.pod.name == "b"
    assert rec.events[-1][2] == {
        "queue": "backoff",
        "attempts": 2,
        "cycle": 3,
        "event": "PopFromBackoffQ",
    }


def test_pop_waits_for_backoff_when_pop_from_backoff_is_off() -> None:
    q, clock, _ = make_queue(pop_from_backoff=False)
    p = pod("a")
    q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"))
    assert q.pop() is None
    wake = q.next_wakeup()
    assert wake is not None
    clock.set(wake)
    assert pop(q).pod.name == "a"


def test_max_backoff_zero_disables_backoff() -> None:
    q, _, _ = make_queue(pod_max_backoff_seconds=0.0)
    p = pod("p")
    q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"))
    assert q.location(p) == "active"


# -- unschedulable pool and the leftover flush -------------------------------------------------


@pytest.mark.parametrize(
    ("fail_at", "interval", "still_at", "moved_at"),
    [
        pytest.param(0.0, 30.0, 300.0, 330.0, id="strictly_over_5min_on_30s_tick"),
        pytest.param(10.0, 30.0, 300.0, 330.0, id="next_tick_after_deadline"),
        pytest.param(31.0, 30.0, 330.0, 360.0, id="deadline_331_flushed_at_360"),
        pytest.param(0.0, 0.0, 300.0, 300.001, id="continuous_flush_right_after_5min"),
    ],
)
def test_unschedulable_pod_flushed_after_max_duration(
    fail_at: float, interval: float, still_at: float, moved_at: float
) -> None:
    q, clock, rec = make_queue(unschedulable_flush_interval_seconds=interval)
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    clock.set(fail_at)
    fail(q, qpi, "NodeAffinity")
    assert q.location(p) == "unschedulable"
    wake = q.next_wakeup()
    assert wake is not None and still_at <= wake <= moved_at
    clock.set(still_at)
    q.flush()
    assert q.location(p) == "unschedulable"
    clock.set(moved_at)
    q.flush()
    assert q.location(p) == "active"
    assert rec.events[-1] == (
        "MoveToActive",
        "p",
        {"event": "UnschedulableTimeout", "from": "unschedulable"},
    )


def test_leftover_flush_sends_pod_still_backing_off_to_backoff() -> None:
    q, clock, _ = make_queue(pod_max_backoff_seconds=1000.0, pod_initial_backoff_seconds=1000.0)
    p = pod("p")
    q.add(p)
    fail(q, pop(q), "NodeAffinity")
    clock.set(330.0)
    q.flush()
    assert q.location(p) == "backoff"


def test_next_wakeup_none_when_nothing_waits_on_time() -> None:
    q, _, _ = make_queue()
    assert q.next_wakeup() is None
    q.add(pod("a"))
    assert q.next_wakeup() is None  # ready pods are popped, not woken
    q.add(gated("g"))
    assert q.next_wakeup() is None


# -- event-driven requeue ---------------------------------------------------------------------

NODE_ADD = ClusterEvent("Node", "Add")
NODE_DELETE = ClusterEvent("Node", "Delete")
NODE_LABEL = ClusterEvent("Node", "UpdateNodeLabel")
NODE_TAINT = ClusterEvent("Node", "UpdateNodeTaint")
NODE_ALLOC = ClusterEvent("Node", "UpdateNodeAllocatable")
POD_DELETE = ClusterEvent("AssignedPod", "Delete")
POD_ADD = ClusterEvent("AssignedPod", "Add")
POD_LABEL = ClusterEvent("AssignedPod", "UpdatePodLabel")
PVC_ADD = ClusterEvent("PersistentVolumeClaim", "Add")


@pytest.mark.parametrize(
    ("plugins", "event", "moves"),
    [
        pytest.param({"NodeResourcesFit"}, NODE_ADD, True, id="fit_moves_on_node_add"),
        pytest.param({"NodeResourcesFit"}, POD_DELETE, True, id="fit_moves_on_pod_delete"),
        pytest.param({"NodeResourcesFit"}, NODE_ALLOC, True, id="fit_moves_on_allocatable"),
        pytest.param(
            {"NodeResourcesFit"},
            NODE_TAINT,
            True,
            id="fit_moves_on_taint_update_added_for_node_add_plugins",
        ),
        pytest.param({"NodeResourcesFit"}, NODE_LABEL, False, id="fit_ignores_node_label"),
        pytest.param({"NodeResourcesFit"}, POD_ADD, False, id="fit_ignores_pod_add"),
        pytest.param({"NodeResourcesFit"}, PVC_ADD, False, id="fit_ignores_pvc_add"),
        pytest.param({"NodeResourcesFit"}, NODE_DELETE, False, id="fit_ignores_node_delete"),
        pytest.param(
            {"NodeResourcesFit"},
            ClusterEvent("Node", "Update"),
            False,
            id="generic_update_does_not_match_specific_registration",
        ),
        pytest.param({"TaintToleration"}, NODE_TAINT, True, id="taint_moves_on_taint_update"),
        pytest.param({"TaintToleration"}, NODE_LABEL, False, id="taint_ignores_label"),
        pytest.param({"NodeAffinity"}, NODE_LABEL, True, id="affinity_moves_on_label"),
        pytest.param({"NodeAffinity"}, POD_DELETE, False, id="affinity_ignores_pod_delete"),
        pytest.param({"InterPodAffinity"}, POD_ADD, True, id="interpod_moves_on_pod_add"),
        pytest.param({"InterPodAffinity"}, POD_LABEL, True, id="interpod_moves_on_pod_label"),
        pytest.param({"PodTopologySpread"}, NODE_DELETE, True, id="spread_moves_on_node_delete"),
        pytest.param(
            {"NodeAffinity", "NodeResourcesFit"},
            POD_DELETE,
            True,
            id="any_rejecting_plugin_suffices",
        ),
        pytest.param({"VolumeBinding"}, PVC_ADD, True, id="volume_binding_moves_on_pvc_add"),
        pytest.param(
            {"NodePorts"}, ClusterEvent("*", "All", "Custom"), True, id="wildcard_moves_everything"
        ),
        pytest.param(
            {"MyOutOfTreePlugin"}, PVC_ADD, True, id="unknown_plugin_subscribed_to_everything"
        ),
    ],
)
def test_event_moves_pod_only_when_a_rejecting_plugin_registered_it(
    plugins: set[str], event: ClusterEvent, moves: bool
) -> None:
    q, _, rec = make_queue()
    p, bystander = pod("p"), pod("other")
    q.add(p)
    q.add(bystander)
    qpi = pop(q)
    fail(q, qpi, *sorted(plugins))
    q.move_all_to_active_or_backoff(event)
    assert q.location(p) == ("backoff" if moves else "unschedulable")
    assert q.location(bystander) == "active"
    if moves:
        assert rec.events[-1][0:2] == ("Backoff", "p")
        assert rec.events[-1][2]["event"] == str(event)
        assert rec.events[-1][2]["from"] == "unschedulable"


def test_moved_pod_goes_to_active_when_backoff_already_over() -> None:
    q, clock, rec = make_queue()
    p = pod("p")
    q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    clock.set(5.0)
    q.assigned_pod_deleted(pod("victim", node_name="n1"))
    assert q.location(p) == "active"
    assert rec.events[-1] == (
        "MoveToActive",
        "p",
        {
            "event": "AssignedPodDelete",
            "from": "unschedulable",
            "plugin": "NodeResourcesFit",
            "hints": {"NodeResourcesFit": "Queue"},
        },
    )


def test_assigned_pod_added_moves_affinity_rejected_pods_only() -> None:
    q, _, _ = make_queue()
    a, b = pod("a"), pod("b")
    q.add(a)
    q.add(b)
    fail(q, pop(q), "InterPodAffinity")
    fail(q, pop(q), "NodeResourcesFit")
    q.assigned_pod_added(pod("x", node_name="n1"))
    assert (q.location(a), q.location(b)) == ("backoff", "unschedulable")


def test_assigned_pod_updated_sends_specific_events() -> None:
    q, _, _ = make_queue()
    a, b = pod("a"), pod("b")
    q.add(a)
    q.add(b)
    fail(q, pop(q), "NodeResourcesFit")
    fail(q, pop(q), "InterPodAffinity")
    old = pod("x", node_name="n1", cpu="2")
    q.assigned_pod_updated(old, pod("x", node_name="n1", cpu="1"))  # scale down
    assert (q.location(a), q.location(b)) == ("backoff", "unschedulable")
    q.assigned_pod_updated(old, pod("x", node_name="n1", cpu="2", labels={"k": "v"}))
    assert q.location(b) == "backoff"


def test_move_all_pre_check_filters_candidates() -> None:
    q, _, _ = make_queue()
    low, high = pod("low", priority=1), pod("high", priority=100)
    q.add(low)
    q.add(high)
    fail(q, pop(q), "NodeResourcesFit")
    fail(q, pop(q), "NodeResourcesFit")
    q.move_all_to_active_or_backoff(POD_DELETE, pre_check=lambda p: p.priority <= 10)
    assert (q.location(low), q.location(high)) == ("backoff", "unschedulable")


def test_custom_events_of_interest_replace_the_defaults() -> None:
    q, _, _ = make_queue(events_of_interest={"NodeResourcesFit": (NODE_LABEL,)})
    p = pod("p")
    q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    q.move_all_to_active_or_backoff(NODE_ADD)
    assert q.location(p) == "unschedulable"
    q.move_all_to_active_or_backoff(NODE_LABEL)
    assert q.location(p) == "backoff"


# -- events during a cycle ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plugins", "pending", "event", "expected"),
    [
        pytest.param(
            ("NodeResourcesFit",),
            (),
            NODE_ADD,
            "backoff",
            id="relevant_event_in_flight_goes_to_backoff",
        ),
        pytest.param(
            ("NodeResourcesFit",),
            (),
            NODE_LABEL,
            "unschedulable",
            id="irrelevant_event_in_flight_goes_to_unschedulable",
        ),
        pytest.param(
            ("NodeResourcesFit",), (), None, "unschedulable", id="no_event_goes_to_unschedulable"
        ),
        pytest.param(
            (), ("NodeResourcesFit",), NODE_ADD, "active", id="pending_plugin_event_skips_backoff"
        ),
        pytest.param(
            ("NodeAffinity",),
            ("NodeResourcesFit",),
            NODE_LABEL,
            "backoff",
            id="unschedulable_plugin_event_with_pending_present_backs_off",
        ),
        pytest.param((), (), None, "backoff", id="error_always_backs_off"),
    ],
)
def test_event_during_cycle_decides_where_failed_pod_goes(
    plugins: tuple[str, ...], pending: tuple[str, ...], event: ClusterEvent | None, expected: str
) -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    if event is not None:
        q.move_all_to_active_or_backoff(event)
    fail(q, qpi, *plugins, pending=pending)
    assert q.location(p) == expected
    assert q.in_flight_uids() == []


def test_event_before_pop_or_after_done_does_not_count() -> None:
    q, _, _ = make_queue()
    p, other = pod("p"), pod("other")
    q.add(p)
    q.move_all_to_active_or_backoff(NODE_ADD)  # nobody in flight: not recorded
    qpi = pop(q)
    fail(q, qpi, "NodeResourcesFit")
    assert q.location(p) == "unschedulable"
    q.add(other)
    o = pop(q)
    q.done(o.uid)
    q.move_all_to_active_or_backoff(NODE_TAINT)  # moves p from the pool, nobody in flight
    assert q.location(p) == "backoff"
    assert q._active.in_flight_event_count() == 0


def test_event_seen_only_by_pods_in_flight_when_it_arrived() -> None:
    q, _, _ = make_queue()
    a, b = pod("a", priority=2), pod("b", priority=1)
    q.add(a)
    q.add(b)
    qa = pop(q)
    q.move_all_to_active_or_backoff(NODE_ADD)
    qb = pop(q)
    fail(q, qb, "NodeResourcesFit")
    fail(q, qa, "NodeResourcesFit")
    assert (q.location(a), q.location(b)) == ("backoff", "unschedulable")


def test_update_of_other_pod_during_cycle_is_not_applied_to_in_flight_pod() -> None:
    q, _, _ = make_queue()
    a, b = pod("a", priority=2), pod("b", priority=1)
    q.add(a)
    q.add(b)
    qa, qb = pop(q), pop(q)
    q.update(b, pod("b", priority=1, tolerations=[{"key": "k", "operator": "Exists"}]))
    fail(q, qa, "TaintToleration")
    assert q.location(a) == "unschedulable"
    fail(q, qb, "TaintToleration")
    assert q.location(b) == "backoff"
    assert q.get(b).pod.tolerations  # type: ignore[union-attr]  # newest version requeued


# -- gated pods -------------------------------------------------------------------------------


def test_gated_pod_waits_outside_active_queue() -> None:
    q, clock, rec = make_queue()
    g = gated("g")
    q.add(g)
    assert q.location(g) == "gated"
    assert q.pending_pods() == {
        "active": [],
        "backoff": [],
        "unschedulable": [],
        "gated": [{"pod": "default/g", "plugin": GATES}],
    }
    assert rec.events == [
        ("Enqueue", "g", {"queue": "gated", "event": "UnschedulablePodAdd", "plugin": GATES})
    ]
    assert q.pop() is None
    for event in (NODE_ADD, POD_DELETE, ClusterEvent("Pod", "UpdatePodLabel")):
        q.move_all_to_active_or_backoff(event)
    clock.set(10_000.0)
    q.flush()
    assert q.location(g) == "gated"
    assert len(q) == 1
    assert len(rec.events) == 1


@pytest.mark.parametrize(
    ("new_kw", "expected"),
    [
        pytest.param({}, "active", id="gates_removed_goes_active"),
        pytest.param(
            {"labels": {"a": "b"}, "schedulingGates": [{"name": "example.com/wait"}]},
            "gated",
            id="label_change_keeps_gated",
        ),
        pytest.param({"schedulingGates": [{"name": "other"}]}, "gated", id="gate_swap_keeps_gated"),
    ],
)
def test_update_ungates_pod_only_when_pre_enqueue_passes(
    new_kw: dict[str, Any], expected: str
) -> None:
    q, _, rec = make_queue()
    g = gated("g")
    q.add(g)
    q.update(g, pod("g", **new_kw))
    assert q.location(g) == expected
    if expected == "active":
        assert rec.events[-1] == (
            "MoveToActive",
            "g",
            {
                "event": "UnschedulablePodUpdatePodSchedulingGatesEliminated",
                "from": "gated",
                "plugin": "SchedulingGates",
                "hints": {"SchedulingGates": "Queue"},
            },
        )
        assert pop(q).pod.name == "g"
    else:
        assert rec.kinds() == ["Enqueue"]


def test_activate_keeps_gated_pod_gated() -> None:
    q, _, _ = make_queue()
    g = gated("g")
    q.add(g)
    q.activate([g])
    assert q.location(g) == "gated"


def test_pod_gated_again_on_requeue_stays_in_pool() -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    q.update(p, gated("p"))  # the pod gains a gate while in flight (a test-only shortcut)
    fail(q, qpi, "NodeResourcesFit")
    q.move_all_to_active_or_backoff(NODE_ADD)
    assert q.location(p) == "gated"
    assert q.next_wakeup() is None


# -- updates, deletes, activation ---------------------------------------------------------------


def test_update_in_active_queue_resorts() -> None:
    q, _, _ = make_queue()
    a, b = pod("a"), pod("b")
    q.add(a)
    q.add(b)
    q.update(b, pod("b", priority=9))
    assert names(q, "active") == ["b", "a"]
    assert q.location(b) == "active"


def test_update_of_unknown_pod_adds_it() -> None:
    q, _, rec = make_queue()
    p = pod("p")
    q.update(p, pod("p", labels={"x": "y"}))
    assert q.location(p) == "active"
    assert rec.events == [("Enqueue", "p", {"queue": "active", "event": "UnschedulablePodUpdate"})]


def test_update_of_unschedulable_pod_requeues_on_relevant_change() -> None:
    q, _, _ = make_queue()
    p = pod("p", cpu="2")
    q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    q.update(p, pod("p", cpu="2", labels={"a": "b"}))
    assert q.location(p) == "unschedulable"
    q.update(p, pod("p", cpu="1"))
    assert q.location(p) == "backoff"


def test_delete_removes_pod_from_any_queue() -> None:
    q, _, rec = make_queue()
    a, b, g = pod("a"), pod("b"), gated("g")
    for p in (a, b, g):
        q.add(p)
    fail(q, pop(q), "NodeResourcesFit")
    for p in (a, b, g):
        q.delete(p)
    assert len(q) == 0
    assert [e for e in rec.events if e[0] == "Delete"] == [
        ("Delete", "a", {"from": "unschedulable"}),
        ("Delete", "b", {"from": "active"}),
        ("Delete", "g", {"from": "gated"}),
    ]


def test_pod_deleted_in_flight_is_not_requeued() -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    q.delete(p)
    fail(q, qpi, "NodeResourcesFit")
    assert q.location(p) is None
    assert q.in_flight_uids() == []


def test_pod_bound_in_flight_is_not_requeued() -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    q.update(p, pod("p", node_name="n1"))
    fail(q, qpi, "NodeResourcesFit")
    assert q.location(p) is None


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        pytest.param("unschedulable", "active", id="from_unschedulable"),
        pytest.param("backoff", "active", id="from_backoff"),
        pytest.param("active", "active", id="already_active_untouched"),
        pytest.param("unknown", None, id="unknown_pod_ignored"),
    ],
)
def test_activate_moves_waiting_pod_to_active(setup: str, expected: str | None) -> None:
    q, _, _ = make_queue()
    p = pod("p")
    if setup != "unknown":
        q.add(p)
    if setup in ("unschedulable", "backoff"):
        fail(q, pop(q), "NodeResourcesFit")
    if setup == "backoff":
        q.move_all_to_active_or_backoff(NODE_ADD)
    assert setup == "unknown" or q.location(p) == setup
    q.activate([p])
    assert q.location(p) == expected


def test_activate_in_flight_pod_requeues_it_after_failure() -> None:
    q, _, _ = make_queue()
    p, other = pod("p"), pod("other")
    q.add(p)
    q.add(other)
    qp, qo = pop(q), pop(q)
    q.activate([p])
    fail(q, qo, "NodeResourcesFit")
    fail(q, qp, "NodeResourcesFit")
    assert (q.location(p), q.location(other)) == ("backoff", "unschedulable")


# -- nominator -------------------------------------------------------------------------------


def test_nominated_pods_listed_per_node_in_nomination_order() -> None:
    q, _, rec = make_queue()
    a, b, c = pod("a"), pod("b"), pod("c")
    for p in (a, b, c):
        q.add(p)
    q.add_nominated_pod(a, "n1")
    q.add_nominated_pod(b, "n2")
    q.add_nominated_pod(c, "n1")
    assert [p.name for p in q.nominated_pods_for_node("n1")] == ["a", "c"]
    q.add_nominated_pod(a, "n1")  # re-nomination moves to the end
    assert [p.name for p in q.nominated_pods_for_node("n1")] == ["c", "a"]
    q.add_nominated_pod(b, "n1")
    assert q.nominated_pods_for_node("n2") == []
    assert [p.name for p in q.nominated_pods_for_node("n1")] == ["c", "a", "b"]
    q.delete_nominated_pod_if_exists(c)
    q.delete_nominated_pod_if_exists(c)
    assert [p.name for p in q.nominated_pods_for_node("n1")] == ["a", "b"]
    assert [(n, d) for k, n, d in rec.events if k == "Nominate"] == [
        ("a", {"node": "n1"}),
        ("b", {"node": "n2"}),
        ("c", {"node": "n1"}),
        ("b", {"node": "n1"}),
        ("c", {"node": None}),
    ]


def test_nominator_follows_status_and_queue() -> None:
    q, _, _ = make_queue()
    p = pod("p", nominated="n3")
    q.add(p)  # status.nominatedNodeName is picked up on add
    assert [x.name for x in q.nominated_pods_for_node("n3")] == ["p"]
    newer = pod("p", nominated="n3", labels={"v": "2"})
    q.update(p, newer)
    assert q.nominated_pods_for_node("n3")[0].labels == {"v": "2"}
    q.delete(newer)
    assert q.nominated_pods_for_node("n3") == []


def test_nomination_kept_across_update_without_status_and_bound_pod_refused() -> None:
    q, _, _ = make_queue()
    p = pod("p")
    q.add(p)
    q.add_nominated_pod(p, "n1")
    q.update(p, pod("p", labels={"a": "b"}))
    assert [x.name for x in q.nominated_pods_for_node("n1")] == ["p"]
    bound = pod("b", node_name="n1")
    q.add_nominated_pod(bound, "n1")
    assert [x.name for x in q.nominated_pods_for_node("n1")] == ["p"]
    q.add_nominated_pod(p, None)  # Noop mode, no status: nomination dropped
    assert q.nominated_pods_for_node("n1") == []


# -- records -----------------------------------------------------------------------------------


def test_on_event_tells_the_whole_story() -> None:
    q, clock, rec = make_queue()
    p = pod("p")
    q.add(p)
    qpi = pop(q)
    fail(q, qpi, "NodeResourcesFit")
    q.move_all_to_active_or_backoff(NODE_ADD)
    clock.set(2.0)
    q.flush()
    q.delete(p)
    assert rec.events == [
        ("Enqueue", "p", {"queue": "active", "event": "UnschedulablePodAdd"}),
        ("Pop", "p", {"queue": "active", "attempts": 1, "cycle": 1}),
        (
            "Unschedulable",
            "p",
            {"plugins": ["NodeResourcesFit"], "pending_plugins": [], "error": False, "cycle": 1},
        ),
        ("Enqueue", "p", {"queue": "unschedulable", "event": "ScheduleAttemptFailure"}),
        (
            "Backoff",
            "p",
            {
                "until": 2.0,
                "event": "NodeAdd",
                "from": "unschedulable",
                "plugin": "NodeResourcesFit",
                "hints": {"NodeResourcesFit": "Queue"},
            },
        ),
        ("MoveToActive", "p", {"event": "BackoffComplete", "from": "backoff"}),
        ("Delete", "p", {"from": "active"}),
    ]


def test_same_inputs_same_trace() -> None:
    def run() -> list[tuple[str, str, dict[str, Any]]]:
        q, clock, rec = make_queue()
        for i in range(6):
            q.add(pod(f"p{i}", priority=i % 3))
        for step in range(40):
            qpi = q.pop()
            if qpi is None:
                wake = q.next_wakeup()
                if wake is None:
                    break
                clock.set(wake)
                continue
            fail(q, qpi, "NodeResourcesFit" if step % 2 else "NodeAffinity")
            if step % 5 == 0:
                q.move_all_to_active_or_backoff(NODE_ADD)
        return rec.events

    assert run() == run()


def test_unknown_gating_plugin_is_woken_by_any_event_but_stays_gated() -> None:
    def gate_all(p: Pod) -> Status:
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("no",), "MyGate")

    clock = SimulatedClock()
    rec = Recorder()
    q = SchedulingQueue(clock=clock, less=PrioritySort().less, pre_enqueue=gate_all, on_event=rec)
    p = pod("p")
    q.add(p)
    q.move_all_to_active_or_backoff(PVC_ADD)
    assert q.location(p) == "gated"
    assert q.get(p).gating_plugin == "MyGate"  # type: ignore[union-attr]
    assert rec.kinds() == ["Enqueue"]


def test_pre_enqueue_rejection_without_plugin_name_still_gates() -> None:
    def anonymous(p: Pod) -> Status:
        return Status(Code.UNSCHEDULABLE, ("no",))

    q = SchedulingQueue(clock=SimulatedClock(), less=PrioritySort().less, pre_enqueue=anonymous)
    p = pod("p")
    q.add(p)
    assert q.location(p) == "gated"
    assert q.pop() is None
