"""Events round-trip through JSON and fold back into exactly the cycle they came from."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.cycle_events import (
    cycle_events,
    fold_cycle,
    split_cycles,
)
from scheduler_core.record.events import (
    EVENT_TYPES,
    CycleStart,
    DeviceAllocation,
    DeviceMatches,
    Filter,
    Score,
    event_from_dict,
)
from scheduler_core.tools.case import CaseRun


def _node(name: str, cpu: str = "4", taint: bool = False, zone: str = "a") -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if taint:
        spec["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
            **spec,
        },
    }


CASE = {
    "name": "events-roundtrip",
    "nodes": [_node("n1"), _node("n2", cpu="2", zone="b"), _node("gpu", taint=True)],
    "queue": [
        _pod("web-0", "500m"),
        _pod("big", "3"),
        _pod("huge", "64"),
        _pod("pinned", "1", nodeSelector={"topology.kubernetes.io/zone": "b"}),
        _pod("other", "1", schedulerName="no-such-profile"),
    ],
}


def _records() -> list[Any]:
    return [rec for _, rec in CaseRun(CASE).cycles()]


@pytest.mark.parametrize("index", range(len(CASE["queue"])))
def test_fold_of_events_is_the_cycle_trace(index: int) -> None:
    rec = _records()[index]
    events = cycle_events(rec, cycle=index + 1, time=0.0, seq=10)
    wire = [event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in events]
    assert wire == events
    assert fold_cycle(wire) == json.loads(json.dumps(rec.to_dict()))


def test_seq_rises_by_one_and_cycle_starts_first() -> None:
    events = cycle_events(_records()[0], cycle=1, time=2.5, seq=7)
    assert [e.seq for e in events] == list(range(7, 7 + len(events)))
    assert isinstance(events[0], CycleStart)
    assert {e.time for e in events} == {2.5}


def test_filter_rows_are_aligned_with_the_snapshot_nodes() -> None:
    rec = _records()[2]  # "huge" fits nowhere
    events = cycle_events(rec, cycle=3, time=0.0, seq=0)
    start = events[0]
    assert isinstance(start, CycleStart)
    rows = [e for e in events if isinstance(e, Filter)]
    assert all(len(r.codes) == len(start.nodes) for r in rows)
    verdict = next(r for r in rows if r.plugin == "")
    by_node = dict(zip(start.nodes, verdict.rejector, strict=True))
    assert by_node["gpu"] == "TaintToleration"
    assert by_node["n1"] == "NodeResourcesFit"


def test_score_events_carry_weighted_values() -> None:
    events = cycle_events(_records()[0], cycle=1, time=0.0, seq=0)
    scores = [e for e in events if isinstance(e, Score)]
    assert scores
    for s in scores:
        assert s.weighted == tuple(v * s.weight for v in s.normalized)


def test_every_event_type_is_registered_once() -> None:
    assert len(EVENT_TYPES) == len({cls.__name__ for cls in EVENT_TYPES.values()})


# 400 nodes, 30% wanted: Filter stops after 120 + 1 passes, from where the last cycle stopped.
SAMPLED_CASE = {
    "name": "events-sampling",
    "sampling": True,
    "config": {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "percentageOfNodesToScore": 30}],
    },
    "nodes": [_node(f"n{i:03}", taint=i % 7 == 0) for i in range(400)],
    "queue": [_pod(f"web-{i}", "100m") for i in range(3)]
    + [_pod("huge", "64"), _pod("pinned", "1", nodeName="n005")],
}


@pytest.mark.parametrize("index", range(len(SAMPLED_CASE["queue"])))
def test_sampled_cycle_round_trips_with_its_sampling_record(index: int) -> None:
    rec = [rec for _, rec in CaseRun(SAMPLED_CASE).cycles()][index]
    events = cycle_events(rec, cycle=index + 1, time=0.0, seq=0)
    wire = [event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in events]
    assert wire == events
    folded = fold_cycle(wire)
    assert folded == json.loads(json.dumps(rec.to_dict()))
    assert folded["evaluated"] == len(folded["filter"])


def test_cycle_start_explains_the_sampled_walk() -> None:
    recs = [rec for _, rec in CaseRun(SAMPLED_CASE).cycles()]
    first, second = (cycle_events(r, cycle=1, time=0.0, seq=0)[0] for r in recs[:2])
    assert isinstance(first, CycleStart) and isinstance(second, CycleStart)
    assert first.sampling is not None and second.sampling is not None
    # 120 feasible wanted; nodes 0, 7, ..., 140 are tainted (21 failed), and the 121st pass
    # (node 141) ends the walk without counting.
    assert {k: first.sampling[k] for k in ("start_index", "candidates", "to_find")} == {
        "start_index": 0,
        "candidates": 400,
        "to_find": 120,
    }
    assert first.sampling["rule"] == "percentage"
    assert (first.sampling["configured"], first.sampling["source"]) == (30, "profile")
    assert (first.sampling["percentage"], first.sampling["adaptive"]) == (30, False)
    assert first.sampling["evaluated"] == 142
    assert first.sampling["next_start_index"] == 120 + 21
    assert second.sampling["start_index"] == 141


def test_silent_and_compact_runs_number_the_same_events_as_a_full_one():
    from builders import make_node, make_pod

    from scheduler_core.loop.scheduler import Scheduler
    from scheduler_core.record.cycle_events import split_cycles
    from scheduler_core.record.events import Filter

    full: list = []
    manifests = [make_node("n1", cpu="1"), make_node("n2"), make_pod("a"), make_pod("big", cpu="2")]
    sched = Scheduler({}, manifests, on_event=full.append)
    sched.run_until_idle()
    compact: list = []
    Scheduler({}, manifests, on_event=compact.append, filter_rows=False).run_until_idle()
    silent = Scheduler({}, manifests)
    silent.run_until_idle()
    assert silent.seq == len(full) == len(compact)
    for a, b in zip(full, compact, strict=True):
        if isinstance(a, Filter) and a.plugin:
            assert (b.plugin, b.codes, b.reasons) == (a.plugin, (), ())
            assert a.codes  # the full form has the row
        else:
            assert a == b
    assert len(list(split_cycles(full))) == 2


# -- DRA: device verdicts per node and the allocation of the binding cycle ------------------------

DRA_CLUSTER: list[dict[str, Any]] = [
    _node("n1"),
    _node("n2"),
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    },
    *[
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{n}-gpu"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": n,
                "pool": {"name": n, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": "gpu-0", "attributes": {"model": {"string": model}}}],
            },
        }
        for n, model in (("n1", "t4"), ("n2", "h100"))
    ],
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "g",
                        "exactly": {
                            "deviceClassName": "gpu",
                            "selectors": [
                                {
                                    "cel": {
                                        "expression": 'device.attributes["gpu.example.com"]'
                                        '.model == "h100"'
                                    }
                                }
                            ],
                        },
                    }
                ]
            }
        },
    },
    _pod("trainer", "1", resourceClaims=[{"name": "gpu", "resourceClaimName": "big"}]),
]


def test_dra_events_explain_devices_and_carry_the_allocation() -> None:
    events: list[Any] = []
    sched = Scheduler(None, DRA_CLUSTER, on_event=events.append)
    sched.run_until_idle()
    assert sched.placements() == {"default/trainer": "n2"}
    matches = [e for e in events if isinstance(e, DeviceMatches)]
    assert len(matches) == 1
    by_node = dict(zip(matches[0].nodes, matches[0].explanations, strict=True))
    n1 = by_node["n1"]["requests"][0]
    assert n1["devices"] == [
        {
            "device": "gpu.example.com/n1/gpu-0",
            "verdict": "selector",
            "why": "request selector #0 is false: "
            'device.attributes["gpu.example.com"].model == "h100"',
        }
    ]
    assert by_node["n1"]["elsewhere"] == {"gpu.example.com/n2": 1}
    assert "allocation" not in by_node["n1"]
    assert by_node["n2"]["requests"][0]["devices"][0]["verdict"] == "matched"
    allocation = [e for e in events if isinstance(e, DeviceAllocation)]
    device = {"request": "g", "driver": "gpu.example.com", "pool": "n2", "device": "gpu-0"}
    assert by_node["n2"]["allocation"] == [[device]]
    assert [e.claims for e in allocation] == [
        {"default/big": {"allocated": True, "devices": [device]}}
    ]
    wire = [event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in events]
    assert wire == events
    (cycle,) = split_cycles(wire)
    assert fold_cycle(cycle)["claims"] == allocation[0].claims
