"""SchedulerAsyncPreemption: victims terminate gracefully while the loop goes on."""

from __future__ import annotations

from typing import Any

from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.loop.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _cluster() -> list[dict[str, Any]]:
    return [
        make_node("n1", cpu="2"),
        make_pod("low", cpu="2", node_name="n1", priority=0),
        make_pod("urgent", cpu="2", priority=100),
    ]


def _run_until_quiet(sched: Scheduler) -> None:
    while sched.schedule_one():
        pass


def test_a_victim_keeps_its_node_until_its_termination_finishes() -> None:
    sched = Scheduler(None, _cluster(), features=Features())
    _run_until_quiet(sched)
    assert sorted(sched.terminating) == ["default/low"]
    victim = sched.terminating["default/low"]
    assert victim.deleting and victim.node_name == "n1"
    assert sched.placements()["default/urgent"] is None
    assert sched.outcomes["default/urgent"].nominated_node == "n1"
    assert sched.finish_next_termination()
    _run_until_quiet(sched)
    assert sched.placements()["default/urgent"] == "n1"
    assert sched.preempted == {"default/low"} and sched.preempted_running == {"default/low"}
    assert not sched.finish_next_termination()


def test_without_the_gate_victims_are_deleted_at_once() -> None:
    sched = Scheduler(None, _cluster(), features=TRACE_FEATURES)
    _run_until_quiet(sched)
    assert sched.terminating == {}
    assert sched.preempted == {"default/low"}


def test_run_until_idle_finishes_terminations_when_quiet() -> None:
    sched = Scheduler(None, _cluster(), features=Features())
    sched.run_until_idle()
    assert sched.placements()["default/urgent"] == "n1"


def test_a_pod_that_cannot_fit_without_preemption_help_loses_its_nomination() -> None:
    """Without a PostFilter to keep it, a failed pod's nomination is cleared."""
    pod = make_pod("nominated", cpu="8", priority=0)
    pod["status"] = {"nominatedNodeName": "n1"}
    no_post_filter = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"postFilter": {"disabled": [{"name": "*"}]}},
            }
        ],
    }
    sched = Scheduler(no_post_filter, [make_node("n1", cpu="2"), pod], features=Features())
    _run_until_quiet(sched)
    queued = sched.queue.get(sched.pending["default/nominated"])
    assert queued is not None and queued.pod.nominated_node_name == ""
    assert sched.queue.nominated_node_names() == frozenset()


def test_a_higher_preemptor_on_the_same_node_clears_a_lower_pods_nomination() -> None:
    cluster = [make_node("n1", cpu="4"), make_pod("low", cpu="3", node_name="n1", priority=0)]
    sched = Scheduler(None, cluster, features=Features())
    sched.add_pod(make_pod("mid", cpu="2", priority=50))
    _run_until_quiet(sched)
    assert sched.outcomes["default/mid"].nominated_node == "n1"
    sched.add_pod(make_pod("high", cpu="4", priority=100))
    _run_until_quiet(sched)
    assert sched.outcomes["default/high"].nominated_node == "n1"
    mid = sched.queue.get(sched.pending["default/mid"])
    assert mid is not None and mid.pod.nominated_node_name == ""
    assert [p.key for p in sched.queue.nominated_pods_for_node("n1")] == ["default/high"]


def test_a_pod_made_again_under_a_victims_name_is_not_deleted() -> None:
    sched = Scheduler(None, _cluster(), features=Features())
    sched.run_until_idle()
    assert "default/low" in sched.preempted
    sched.add_pod(make_pod("low", cpu="1", priority=0))
    assert "default/low" not in sched.preempted
    assert sched.preempted_running == {"default/low"}
