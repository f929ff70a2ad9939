"""The scheduling loop: queue, binding cycle, Permit, preemption and cluster changes."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.clock import SimulatedClock
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import in_tree_registry
from scheduler_core.record.events import (
    Bind,
    CycleEnd,
    CycleStart,
    Event,
    Permit,
    PostFilter,
    Unreserve,
)


def node(name: str, cpu: str = "2", pods: str = "110") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": pods}},
    }


def pod(name: str, cpu: str = "1", **spec: Any) -> dict[str, Any]:
    labels = spec.pop("labels", {})
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec},
    }


def run(
    objects: list[dict[str, Any]], config: Any = None, **kw: Any
) -> tuple[Scheduler, list[Event]]:
    events: list[Event] = []
    sched = Scheduler(config, objects, on_event=events.append, **kw)
    sched.run_until_idle()
    return sched, events


def test_pending_pods_are_placed_and_events_are_numbered() -> None:
    sched, events = run([node("n1"), node("n2"), pod("a"), pod("b"), pod("c")])
    placed = {k: v for k, v in sched.placements().items()}
    assert sorted(placed) == ["default/a", "default/b", "default/c"]
    assert all(v in ("n1", "n2") for v in placed.values())
    assert [e.seq for e in events] == list(range(len(events)))
    assert sum(isinstance(e, CycleStart) for e in events) == 3
    assert sum(isinstance(e, Bind) for e in events) == 3


def test_unschedulable_pod_waits_until_a_node_is_added() -> None:
    sched, _ = run([node("n1", cpu="1"), pod("big", cpu="2")])
    assert sched.placements()["default/big"] is None
    assert "Insufficient cpu" in (sched.outcomes["default/big"].message or "")
    sched.add_node(node("n2", cpu="4"))
    sched.run_until_idle()
    assert sched.placements()["default/big"] == "n2"


def test_deleting_a_pod_makes_room_for_a_waiting_one() -> None:
    sched, _ = run([node("n1", cpu="2"), pod("first", cpu="2"), pod("second", cpu="2")])
    assert sched.placements() == {"default/first": "n1", "default/second": None}
    sched.delete_pod("default/first")
    sched.run_until_idle()
    assert sched.placements() == {"default/second": "n1"}


def test_gated_pod_is_not_scheduled() -> None:
    sched, events = run([node("n1"), pod("gated", schedulingGates=[{"name": "wait"}])])
    assert sched.placements()["default/gated"] is None
    assert not any(isinstance(e, CycleStart) for e in events)


def test_preemption_nominates_and_the_next_cycle_uses_the_node() -> None:
    sched, events = run(
        [
            node("n1", cpu="2"),
            pod("low", cpu="2", nodeName="n1", priority=0),
            pod("high", cpu="2", priority=1000),
        ]
    )
    assert sched.placements()["default/high"] == "n1"
    assert "default/low" not in sched.placements()
    ends = [e for e in events if isinstance(e, CycleEnd)]
    assert [e.result for e in ends] == ["Unschedulable", "Scheduled"]
    post = next(e for e in events if isinstance(e, PostFilter))
    assert post.nominated_node == "n1"
    assert post.victims == ("default/low",)
    assert post.candidates == ({"node": "n1", "victims": ["default/low"]},)


class _WaitAtPermit:
    """A Permit plugin that makes pods labelled gang=yes wait 30 s."""

    name = "GangPermit"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        if pod.labels.get("gang") == "yes":
            return Status(Code.WAIT), 30.0
        return SUCCESS, 0.0


class _FailingBinder:
    name = "FailingBinder"

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return Status(Code.ERROR, ("the API server said no",))


def _registry(**plugins: Any) -> Registry:
    extra = Registry()
    for name, plugin in plugins.items():
        extra.register(name, lambda args, handle, p=plugin: p)
    return in_tree_registry().merged(extra)


PERMIT_CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"permit": {"enabled": [{"name": "GangPermit"}]}},
        }
    ],
}


def _permit_scheduler() -> tuple[Scheduler, list[Event], SimulatedClock]:
    events: list[Event] = []
    clock = SimulatedClock()
    sched = Scheduler(
        PERMIT_CONFIG,
        [node("n1"), pod("g", labels={"gang": "yes"})],
        clock=clock,
        on_event=events.append,
        registry=_registry(GangPermit=_WaitAtPermit()),
    )
    sched.schedule_one()
    return sched, events, clock


def test_permit_wait_then_allow_binds() -> None:
    sched, events, _ = _permit_scheduler()
    assert [wp.pod.key for wp in sched.waiting_pods()] == ["default/g"]
    waits = [e for e in events if isinstance(e, Permit) and e.code == "Wait"]
    assert waits and waits[0].timeout == 30.0
    assert sched.placements()["default/g"] is None
    assert sched.allow_waiting_pod("default/g")
    assert sched.placements()["default/g"] == "n1"
    assert sched.waiting_pods() == []


def test_permit_reject_unreserves_and_requeues() -> None:
    sched, events, _ = _permit_scheduler()
    assert sched.reject_waiting_pod("default/g", "GangPermit", "gang incomplete")
    assert sched.placements()["default/g"] is None
    assert any(isinstance(e, Unreserve) for e in events)
    assert "default/g" not in {p.key for p in sched.cluster.pods.values()}
    assert "gang incomplete" in (sched.outcomes["default/g"].message or "")


def test_permit_timeout_rejects_on_the_simulated_clock() -> None:
    sched, events, clock = _permit_scheduler()
    sched.run_until_idle(max_cycles=1)
    assert clock.now() >= 30.0
    rejected = [e for e in events if isinstance(e, Permit) and e.code == "Unschedulable"]
    assert rejected
    assert rejected[0].reasons == (
        "rejected due to timeout after waiting 30s at plugin GangPermit",
    )


def test_bind_failure_unreserves_forgets_and_retries() -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "bind": {
                        "enabled": [{"name": "FailingBinder"}],
                        "disabled": [{"name": "DefaultBinder"}],
                    }
                },
            }
        ],
    }
    events: list[Event] = []
    sched = Scheduler(
        config,
        [node("n1"), pod("p")],
        on_event=events.append,
        registry=_registry(FailingBinder=_FailingBinder()),
    )
    ran = sched.run_until_idle(max_cycles=3)
    assert ran == 3
    assert sched.placements()["default/p"] is None
    assert sched.cluster.by_name["n1"].pods == []
    assert sum(isinstance(e, Unreserve) for e in events) >= 3
    assert "the API server said no" in (sched.outcomes["default/p"].message or "")


@pytest.mark.parametrize("missing", ["default/nope"])
def test_deleting_an_unknown_pod_is_harmless(missing: str) -> None:
    sched, _ = run([node("n1")])
    sched.delete_pod(missing)
    assert sched.placements() == {}


def test_simulate_cli_prints_placements_and_events(tmp_path: Any) -> None:
    import json
    import subprocess
    import sys

    import yaml

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        yaml.safe_dump_all(
            [
                {"apiVersion": "v1", "kind": "List", "items": [node("n1", cpu="1")]},
                pod("fits", cpu="500m"),
                pod("too-big", cpu="4"),
            ]
        )
    )
    out = tmp_path / "events.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "simulate", str(cluster), "--events", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "default/fits" in proc.stdout and "n1" in proc.stdout
    assert (
        "default/too-big  unschedulable: 0/1 nodes are available: 1 Insufficient cpu."
        in proc.stdout
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["seq"] == 0
    assert {line["type"] for line in lines} >= {"CycleStart", "Filter", "CycleEnd", "Bind"}


def _extender_config(url: str, **extra: Any) -> dict[str, Any]:
    ext = {"urlPrefix": url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 2}
    ext.update(extra)
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "extenders": [ext],
    }


def test_extender_filters_prioritizes_and_binds_in_the_loop() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from extender_server import LOCAL_POLICY, ExtenderServer

    with ExtenderServer(passes=lambda name: name != "n1", priorities={"n2": 1, "n3": 10}) as srv:
        cfg = _extender_config(srv.url, bindVerb="bind")
        events: list[Event] = []
        sched = Scheduler(
            cfg,
            [node("n1"), node("n2"), node("n3"), pod("p")],
            on_event=events.append,
            extender_policy=LOCAL_POLICY,
        )
        sched.run_until_idle()
        # n1 is filtered out by the extender; n3 wins thanks to 10 x weight 2 x 10 = 200.
        assert sched.placements()["default/p"] == "n3"
        verbs = [r.verb for r in srv.requests]
        assert verbs == ["filter", "prioritize", "bind"]
        assert srv.bindings and srv.bindings[0]
        verdict = next(e for e in events if e.type == "Filter" and e.plugin == "")
        start = next(e for e in events if isinstance(e, CycleStart))
        rejected = dict(zip(start.nodes, verdict.rejector, strict=True))
        assert rejected["n1"] == "Extender"
        binds = [e for e in events if isinstance(e, Bind)]
        assert [b.plugin for b in binds] == ["Extender"]


def test_ignorable_extender_that_is_down_is_skipped() -> None:
    cfg = _extender_config("http://127.0.0.1:9/none", ignorable=True, httpTimeout="1s")
    sched, _ = run([node("n1"), pod("p")], cfg)
    assert sched.placements()["default/p"] == "n1"


def test_unreachable_extender_that_is_not_ignorable_fails_the_cycle() -> None:
    cfg = _extender_config("http://127.0.0.1:9/none", httpTimeout="1s")
    sched, events = run([node("n1"), node("n2"), pod("p")], cfg)
    assert sched.placements()["default/p"] is None
    ends = [e for e in events if isinstance(e, CycleEnd)]
    assert ends and ends[0].result == "Error"
