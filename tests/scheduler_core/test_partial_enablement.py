"""Plugins enabled at some of their extension points only, as kube-scheduler v1.35 runs them.

A Filter, Score or Reserve whose plugin's earlier point (PreFilter, PreScore) did not run finds
no cycle state: upstream answers with an Error naming the missing key (each plugin in its own
words), which ends the cycle; a few plugins compute the state on the spot instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.conformance import trace_case
from tests.builders import make_node, make_pod

NODES = ["n1", "n2", "n3"]


def config(points: dict[str, list[str]], weights: dict[str, int] | None = None) -> dict[str, Any]:
    """One profile with every default plugin disabled and ``points`` enabled."""
    plugins: dict[str, Any] = {
        "multiPoint": {"disabled": [{"name": "*"}]},
        "queueSort": {"enabled": [{"name": "PrioritySort"}]},
        "bind": {"enabled": [{"name": "DefaultBinder"}]},
    }
    for point, names in points.items():
        plugins[point] = {
            "enabled": [
                {"name": n, **({"weight": weights[n]} if weights and n in weights else {})}
                for n in names
            ]
        }
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
    }


def run(
    points: dict[str, list[str]],
    *,
    queue: list[dict[str, Any]] | None = None,
    nodes: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> list[dict[str, Any]]:
    case = {
        "name": "partial",
        "config": config(points, extra.pop("weights", None)),
        "nodes": nodes if nodes is not None else [make_node(n) for n in NODES],
        "queue": queue if queue is not None else [make_pod("p1")],
        **extra,
    }
    trace = trace_case(case)
    assert "error" not in trace, trace
    cycles: list[dict[str, Any]] = trace["cycles"]
    return cycles


def filter_error(plugin: str, message: str) -> dict[str, Any]:
    return {
        "code": "Error",
        "plugin": plugin,
        "reasons": [f'running "{plugin}" filter plugin: {message}'],
    }


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        pytest.param(
            "NodePorts",
            'reading "PreFilterNodePorts" from cycleState: not found',
            id="node-ports-errors-even-for-a-pod-without-ports",
        ),
        pytest.param(
            "NodeResourcesFit",
            'error reading "PreFilterNodeResourcesFit" from cycleState: not found',
            id="node-resources-fit",
        ),
        pytest.param(
            "PodTopologySpread",
            'reading "PreFilterPodTopologySpread" from cycleState: not found',
            id="pod-topology-spread",
        ),
        pytest.param(
            "InterPodAffinity",
            'error reading "PreFilterInterPodAffinity" from cycleState: not found',
            id="inter-pod-affinity",
        ),
        pytest.param("VolumeBinding", "not found", id="volume-binding"),
        pytest.param(
            "VolumeRestrictions",
            'cannot read "PreFilterVolumeRestrictions" from cycleState',
            id="volume-restrictions",
        ),
        pytest.param("DynamicResources", "not found", id="dynamic-resources"),
    ],
)
def test_filter_without_pre_filter_is_an_error_on_every_node(plugin: str, message: str) -> None:
    (cycle,) = run({"filter": [plugin], "postFilter": ["DefaultPreemption"]})
    assert cycle["filter"] == {n: filter_error(plugin, message) for n in NODES}
    assert cycle["feasible"] == []
    assert cycle["postFilter"] is None  # an Error ends the cycle: no preemption
    assert cycle["selected"] is None
    assert cycle["message"] == f'running "{plugin}" filter plugin: {message}'


def test_an_earlier_rejection_keeps_its_node_and_the_error_ends_the_cycle() -> None:
    nodes = [make_node("n1", taints=[{"key": "k", "effect": "NoSchedule"}]), make_node("n2")]
    (cycle,) = run({"filter": ["TaintToleration", "NodePorts"]}, nodes=nodes)
    assert cycle["filter"]["n1"]["code"] == "UnschedulableAndUnresolvable"
    assert cycle["filter"]["n1"]["plugin"] == "TaintToleration"
    assert cycle["filter"]["n2"]["code"] == "Error"
    assert cycle["message"].startswith('running "NodePorts" filter plugin')


def test_volume_restrictions_rejects_a_disk_conflict_before_reading_its_state() -> None:
    disk = {"name": "d", "gcePersistentDisk": {"pdName": "disk-1"}}
    running = make_pod("holder", node_name="n1")
    running["spec"]["volumes"] = [disk]
    pod = make_pod("p1")
    pod["spec"]["volumes"] = [disk]
    (cycle,) = run({"filter": ["VolumeRestrictions"]}, queue=[pod], pods=[running])
    assert cycle["filter"]["n1"] == {
        "code": "Unschedulable",
        "plugin": "VolumeRestrictions",
        "reasons": ["node(s) had no available disk"],
    }
    assert cycle["filter"]["n2"]["code"] == "Error"


@pytest.mark.parametrize(
    "plugin", ["NodeAffinity", "VolumeZone", "NodeVolumeLimits", "TaintToleration", "NodeName"]
)
def test_filter_that_needs_no_pre_filter_state_places_the_pod(plugin: str) -> None:
    (cycle,) = run({"filter": [plugin]})
    assert cycle["feasible"] == NODES
    assert cycle["message"] is None


def test_score_without_pre_score_is_the_cycle_error_with_every_plugins_scores() -> None:
    nodes = [
        make_node("n1", taints=[{"key": "k", "effect": "PreferNoSchedule"}]),
        make_node("n2", cpu="8"),
    ]
    (cycle,) = run(
        {"score": ["TaintToleration", "NodeResourcesFit"]},
        nodes=nodes,
        weights={"TaintToleration": 3},
    )
    assert cycle["message"] == (
        'running Score plugins: plugin "TaintToleration" failed with: '
        'failed to read "PreScoreTaintToleration" from cycleState: not found'
    )
    assert cycle["selected"] is None and cycle["totals"] == {} and cycle["top"] == []
    # The failed Score counts 0 on every node; its NormalizeScore still runs (reversed: 100).
    for node in ("n1", "n2"):
        assert cycle["scores"][node]["TaintToleration"] == {
            "raw": 0,
            "normalized": 100,
            "weighted": 300,
        }
    assert cycle["scores"]["n2"]["NodeResourcesFit"]["raw"] > 0


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        (
            "PodTopologySpread",
            'error reading "PreScorePodTopologySpread" from cycleState: not found',
        ),
        (
            "InterPodAffinity",
            'failed to read "PreScoreInterPodAffinity" from cycleState: not found',
        ),
    ],
)
def test_score_without_pre_score_leaves_raw_scores_unnormalized(plugin: str, message: str) -> None:
    (cycle,) = run({"score": [plugin]})
    assert cycle["message"] == f'running Score plugins: plugin "{plugin}" failed with: {message}'
    assert all(cycle["scores"][n][plugin]["normalized"] == 0 for n in NODES)


@pytest.mark.parametrize(
    "plugin", ["NodeAffinity", "NodeResourcesFit", "NodeResourcesBalancedAllocation"]
)
def test_score_that_computes_its_state_on_the_spot_scores_as_with_pre_score(plugin: str) -> None:
    nodes = [make_node("n1"), make_node("n2", cpu="8", memory="4Gi")]
    pod = make_pod("p1", cpu="1", memory="1Gi")
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "preference": {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["n2"]}
                        ]
                    },
                }
            ]
        }
    }
    (alone,) = run({"score": [plugin]}, nodes=nodes, queue=[pod])
    (both,) = run({"preScore": [plugin], "score": [plugin]}, nodes=nodes, queue=[pod])
    assert alone["message"] is None
    assert alone["scores"] == both["scores"] and alone["selected"] == both["selected"]


def test_reserve_without_pre_filter_fails_the_cycle_and_places_nothing() -> None:
    cycles = run({"reserve": ["VolumeBinding"]}, queue=[make_pod("p1"), make_pod("p2")])
    assert cycles[0]["selected"] is None
    assert cycles[0]["message"] == 'running Reserve plugin "VolumeBinding": not found'


def test_pre_bind_without_its_state_keeps_the_assumed_pod_placed() -> None:
    # The traces' scheduler runs no binding cycle: the pod counts on its node afterwards.
    nodes = [make_node("n1", pods="1")]
    cycles = run(
        {
            "preFilter": ["NodeResourcesFit"],
            "filter": ["NodeResourcesFit"],
            "preBind": ["VolumeBinding"],
        },
        nodes=nodes,
        queue=[make_pod("p1"), make_pod("p2")],
    )
    assert cycles[0]["selected"] == "n1"
    assert cycles[1]["filter"]["n1"]["reasons"] == ["Too many pods"]


def test_preemption_dry_run_error_is_post_filters_error() -> None:
    """Removing the victim lets NodeResourcesFit pass; NodePorts then errors in the dry run."""
    nodes = [make_node("n1", cpu="1")]
    victim = make_pod("low", cpu="800m", node_name="n1")
    victim["spec"]["priority"] = 0
    pod = make_pod("high", cpu="800m")
    pod["spec"]["priority"] = 100
    (cycle,) = run(
        {
            "preFilter": ["NodeResourcesFit"],
            "filter": ["NodeResourcesFit", "NodePorts"],
            "postFilter": ["DefaultPreemption"],
        },
        nodes=nodes,
        queue=[pod],
        pods=[victim],
    )
    err = (
        'running "NodePorts" filter plugin: reading "PreFilterNodePorts" from cycleState: not found'
    )
    assert cycle["filter"]["n1"]["reasons"] == ["Insufficient cpu"]
    assert cycle["postFilter"] == {"code": "Error", "nominatedNode": None, "victims": []}
    assert cycle["message"] == f"0/1 nodes are available: 1 Insufficient cpu. preemption: {err}"


def test_sampling_stops_filter_at_the_first_error() -> None:
    """With node sampling the walk is one worker's: Filter stops at the first Error."""
    names = [f"n{i:03d}" for i in range(120)]
    (cycle,) = run(
        {"filter": ["NodePorts"], "score": ["NodeResourcesFit"]},
        nodes=[make_node(n) for n in names],
        sampling=True,
    )
    assert list(cycle["filter"]) == ["n000"]
    assert cycle["filter"]["n000"]["code"] == "Error"
