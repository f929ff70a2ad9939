"""GangScheduling: gated until the gang can form, waiting at Permit until it has, then bound."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config import load_config
from scheduler_core.features import Features
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import names
from scheduler_core.queue.queued_pod_info import GATED
from tests.builders import make_node, make_pod

GANG = Features(generic_workload=True, gang_scheduling=True)


def _workload(name: str = "train", min_count: int | None = 3) -> dict[str, Any]:
    policy: dict[str, Any] = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"podGroups": [{"name": "workers", "policy": policy}]},
    }


def _member(name: str, cpu: str = "1", workload: str = "train") -> dict[str, Any]:
    return make_pod(name, cpu=cpu, workloadRef={"name": workload, "podGroup": "workers"})


def _scheduler(*objects: dict[str, Any], nodes: int = 3, cpu: str = "2") -> Scheduler:
    cluster = [make_node(f"n{i}", cpu=cpu) for i in range(nodes)]
    return Scheduler(load_config(None, features=GANG), [*cluster, *objects], features=GANG)


def _quiet(sched: Scheduler) -> None:
    while sched.schedule_one():
        pass


def _gated_by(sched: Scheduler, key: str) -> str | None:
    qpi = sched.queue.get(sched.pending[key])
    if qpi is None or sched.queue.location(qpi.pod) != GATED:
        return None
    return qpi.gating_plugin


def test_the_gate_adds_the_plugin_to_the_default_profile() -> None:
    plugins = load_config(None, features=GANG).profiles[0].plugins.multi_point.enabled
    assert plugins[-1].name == names.GANG_SCHEDULING
    default = load_config(None).profiles[0].plugins.multi_point.enabled
    assert names.GANG_SCHEDULING not in [p.name for p in default]


def test_pods_are_gated_until_the_gang_has_min_count_pods() -> None:
    sched = _scheduler(_workload(), _member("w0"), _member("w1"))
    _quiet(sched)
    assert _gated_by(sched, "default/w0") == names.GANG_SCHEDULING
    assert _gated_by(sched, "default/w1") == names.GANG_SCHEDULING
    sched.add_pod(_member("w2"), record=True)
    _quiet(sched)
    assert {k: sched.placements()[k] is not None for k in ("default/w0", "default/w1")} == {
        "default/w0": True,
        "default/w1": True,
    }


def test_pods_wait_for_their_workload_to_appear() -> None:
    sched = _scheduler(_member("w0"), _member("w1"), _member("w2"))
    _quiet(sched)
    assert _gated_by(sched, "default/w0") == names.GANG_SCHEDULING
    sched.add_workload(_workload())
    _quiet(sched)
    assert all(sched.placements()[f"default/w{i}"] for i in range(3))


def test_members_wait_at_permit_holding_their_nodes_until_min_count_are_assumed() -> None:
    # Each member takes a whole node: two fit on the two nodes, the third cannot.
    sched = _scheduler(
        _workload(),
        *[_member(f"w{i}", cpu="2") for i in range(3)],
        nodes=2,
    )
    _quiet(sched)
    waiting = sorted(wp.pod.key for wp in sched.waiting_pods())
    assert len(waiting) == 2
    assert all(sched.placements()[k] is None for k in waiting)
    assert {wp.node for wp in sched.waiting_pods()} == {"n0", "n1"}
    (left,) = {f"default/w{i}" for i in range(3)} - set(waiting)
    assert sched.outcomes[left].message is not None  # no room left by the waiting pods
    sched.add_node(make_node("n2", cpu="2"))
    _quiet(sched)
    assert sched.waiting_pods() == []
    assert sorted(sched.placements()[f"default/w{i}"] or "" for i in range(3)) == [
        "n0",
        "n1",
        "n2",
    ]


@pytest.mark.parametrize("min_count", [None], ids=["basic-policy"])
def test_a_group_that_is_not_a_gang_is_scheduled_pod_by_pod(min_count: int | None) -> None:
    sched = _scheduler(_workload(min_count=min_count), _member("w0"))
    _quiet(sched)
    assert sched.placements()["default/w0"] is not None


def test_a_pod_of_another_workload_does_not_complete_the_gang() -> None:
    sched = _scheduler(_workload(), _workload("other"), _member("w0"), _member("w1"))
    _quiet(sched)
    sched.add_pod(_member("x0", workload="other"), record=True)
    _quiet(sched)
    assert _gated_by(sched, "default/w0") == names.GANG_SCHEDULING


def test_members_share_the_gangs_deadline_and_time_out_together() -> None:
    sched = _scheduler(_workload(), _member("w0", cpu="2"), nodes=2)
    sched.run_until_idle(until=sched.clock.now())
    assert [wp.pod.key for wp in sched.waiting_pods()] == []  # gated: one member of three
    sched.add_pod(_member("w1", cpu="2"), record=True)
    sched.add_pod(_member("w2", cpu="2"), record=True)
    _quiet(sched)
    deadlines = sorted(wp.deadline for wp in sched.waiting_pods())
    assert len(deadlines) == 2 and deadlines[0] == deadlines[1]
    events: list[str] = []
    sched.on_event = lambda ev: events.append(f"{ev.pod} {getattr(ev, 'reasons', '')}")
    sched.run_until_idle(until=deadlines[0] + 1)
    timed_out = sorted(e.split()[0] for e in events if "rejected due to timeout" in e)
    assert len(timed_out) == 2
    # Requeued, they wait again: under a new deadline, shared again.
    again = {wp.deadline for wp in sched.waiting_pods()}
    assert again == {deadlines[0] + 300.0}
