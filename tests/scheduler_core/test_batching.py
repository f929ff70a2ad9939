"""OpportunisticBatching: signatures, and a run of like pods following the first one's ranking."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config import load_config
from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.loop.batching import sign_pod
from scheduler_core.loop.cluster import apply_api_defaults
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod
from tests.builders import make_node, make_pod

LIST_DEFAULTING = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}],
        }
    ],
}


def _port_pod(name: str, **spec: Any) -> dict[str, Any]:
    pod = make_pod(name, cpu="1", **spec)
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    return pod


def _signature(config: Any, raw: dict[str, Any]) -> str | None:
    sched = Scheduler(load_config(config), [make_node("n1")], features=Features())
    return sign_pod(sched.frameworks["default-scheduler"], Pod(apply_api_defaults(raw)))


def test_like_pods_share_a_signature_and_different_requests_do_not() -> None:
    a = _signature(LIST_DEFAULTING, _port_pod("a"))
    assert a is not None
    assert a == _signature(LIST_DEFAULTING, _port_pod("b"))
    assert a != _signature(LIST_DEFAULTING, make_pod("c", cpu="2"))


@pytest.mark.parametrize(
    ("config", "raw"),
    [
        (None, _port_pod("system-default-spread")),
        (
            LIST_DEFAULTING,
            _port_pod(
                "anti-affinity",
                affinity={
                    "podAntiAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {}, "topologyKey": "kubernetes.io/hostname"}
                        ]
                    }
                },
            ),
        ),
        (
            LIST_DEFAULTING,
            _port_pod(
                "spread",
                topologySpreadConstraints=[
                    {
                        "maxSkew": 1,
                        "topologyKey": "kubernetes.io/hostname",
                        "whenUnsatisfiable": "DoNotSchedule",
                    }
                ],
            ),
        ),
    ],
    ids=["default-profile-system-spread", "pod-anti-affinity", "topology-spread"],
)
def test_pods_some_plugin_cannot_sign_have_no_signature(config: Any, raw: dict[str, Any]) -> None:
    assert _signature(config, raw) is None


def _run(features: Features) -> tuple[list[CycleRecord], dict[str, str | None]]:
    records: list[CycleRecord] = []
    cluster = [make_node(f"n{i}", cpu=str(2 + i)) for i in range(3)]
    cluster += [_port_pod(f"web-{i}") for i in range(3)]
    sched = Scheduler(
        load_config(LIST_DEFAULTING),
        cluster,
        features=features,
        evaluate_all_nodes=True,
        on_cycle=lambda rec, *_: records.append(rec),
    )
    sched.run_until_idle()
    return records, sched.placements()


def test_a_run_of_like_pods_takes_the_next_nodes_of_the_first_ranking_unscored() -> None:
    records, placements = _run(Features())
    assert [r.batch_hint for r in records] == [None, records[1].selected, records[2].selected]
    assert records[1].scores == [] and records[2].scores == []
    assert sorted(v for v in placements.values() if v) == ["n0", "n1", "n2"]


def test_without_the_gate_every_pod_is_scored() -> None:
    records, _ = _run(TRACE_FEATURES)
    assert all(r.batch_hint is None and r.scores for r in records[:2])


def test_a_pod_of_no_profile_between_like_pods_does_not_break_the_batch() -> None:
    records: list[CycleRecord] = []
    cluster = [make_node(f"n{i}", cpu=str(2 + i)) for i in range(3)]
    cluster += [
        _port_pod("web-0"),
        make_pod("elsewhere", schedulerName="other"),
        _port_pod("web-1"),
    ]
    sched = Scheduler(
        load_config(LIST_DEFAULTING),
        cluster,
        features=Features(),
        evaluate_all_nodes=True,
        on_cycle=lambda rec, *_: records.append(rec),
    )
    sched.run_until_idle()
    assert [r.pod for r in records] == ["default/web-0", "default/elsewhere", "default/web-1"]
    assert records[2].batch_hint is not None and records[2].batch_hint == records[2].selected
