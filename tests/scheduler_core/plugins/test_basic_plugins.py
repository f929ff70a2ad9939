"""NodeName, NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts, ImageLocality,
SchedulingGates and PrioritySort, each against its upstream behaviour, and the batch paths
(filter_batch / score_columns / normalize_batch) against the per-node ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from scheduler_core.config import NodeAffinityArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, NodeScore, Snapshot
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins import (
    image_locality,
    node_affinity,
    node_name,
    node_ports,
    node_unschedulable,
    priority_sort,
    scheduling_gates,
    taint_toleration,
)

MB = 1024 * 1024


def make_node(name: str, *, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    status = spec.pop("status", {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}})
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": status,
    }


def make_pod(name: str = "p", *, labels: dict[str, str] | None = None, **spec: Any) -> Pod:
    containers = spec.pop("containers", [{"name": "c", "image": "nginx"}])
    return Pod(
        {
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": {"containers": containers, **spec},
        }
    )


def snapshot(*nodes: dict[str, Any], pods: tuple[Pod, ...] = ()) -> Snapshot:
    infos = [NodeInfo(Node(n)) for n in nodes]
    by_name = {ni.node.name: ni for ni in infos}
    for p in pods:
        by_name[p.node_name].add_pod(p)
    snap = Snapshot(infos, ClusterObjects())
    snap.refresh_image_states()
    return snap


@dataclass
class Handle:
    snap: Snapshot

    @property
    def snapshot(self) -> Snapshot:
        return self.snap

    @property
    def framework(self) -> Any:
        return self

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return []


def run_filter(plugin: Any, pod: Pod, snap: Snapshot) -> dict[str, Status]:
    """Per-node Filter results (after PreFilter when the plugin has one), checked against the
    batch path, which must reject exactly the same nodes with the same statuses."""
    state = CycleState()
    if hasattr(plugin, "pre_filter"):
        _, s = plugin.pre_filter(state, pod, snap.node_info_list)
        if s.is_skip():
            return {}
    per_node = {ni.name: plugin.filter(state, pod, ni) for ni in snap.node_info_list}
    batch = plugin.filter_batch(state, pod, snap.node_info_list)
    assert {snap.node_info_list[i].name: st for i, st in batch.items()} == {
        n: st for n, st in per_node.items() if not st.is_success()
    }
    return per_node


def codes(result: dict[str, Status]) -> dict[str, str]:
    return {n: s.code.upstream for n, s in result.items()}


# -- NodeName ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod_node", "expected"),
    [
        pytest.param("", {"n1": "Success", "n2": "Success"}, id="no-node-name-fits-everywhere"),
        pytest.param(
            "n2", {"n1": "UnschedulableAndUnresolvable", "n2": "Success"}, id="only-named-node"
        ),
    ],
)
def test_node_name_filter(pod_node: str, expected: dict[str, str]) -> None:
    pod = make_pod(nodeName=pod_node) if pod_node else make_pod()
    result = run_filter(
        node_name.new(None, Handle(snapshot())), pod, snapshot(make_node("n1"), make_node("n2"))
    )
    assert codes(result) == expected
    if pod_node:
        assert result["n1"].reasons == ("node(s) didn't match the requested node name",)


# -- NodeUnschedulable ------------------------------------------------------------------------

UNSCHEDULABLE_TOLERATION = {
    "key": "node.kubernetes.io/unschedulable",
    "operator": "Exists",
    "effect": "NoSchedule",
}


@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        pytest.param([], "UnschedulableAndUnresolvable", id="cordoned-node-rejects"),
        pytest.param([UNSCHEDULABLE_TOLERATION], "Success", id="toleration-admits"),
        pytest.param([{"operator": "Exists"}], "Success", id="wildcard-toleration-admits"),
    ],
)
def test_node_unschedulable_filter(tolerations: list[dict[str, Any]], expected: str) -> None:
    snap = snapshot(make_node("cordoned", unschedulable=True), make_node("ok"))
    result = run_filter(
        node_unschedulable.new(None, Handle(snap)), make_pod(tolerations=tolerations), snap
    )
    assert codes(result) == {"cordoned": expected, "ok": "Success"}
    if expected != "Success":
        assert result["cordoned"].reasons == ("node(s) were unschedulable",)


# -- TaintToleration --------------------------------------------------------------------------

GPU_TAINT = {"key": "gpu", "value": "true", "effect": "NoSchedule"}
SOFT_TAINT = {"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}


@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        pytest.param([], "UnschedulableAndUnresolvable", id="untolerated-noschedule"),
        pytest.param([{"key": "gpu", "operator": "Equal", "value": "true"}], "Success", id="equal"),
        pytest.param([{"key": "gpu", "operator": "Exists"}], "Success", id="exists"),
        pytest.param(
            [{"key": "gpu", "value": "false", "effect": "NoSchedule"}],
            "UnschedulableAndUnresolvable",
            id="value-differs",
        ),
        pytest.param(
            [{"key": "gpu", "operator": "Exists", "effect": "NoExecute"}],
            "UnschedulableAndUnresolvable",
            id="effect-differs",
        ),
    ],
)
def test_taint_toleration_filter(tolerations: list[dict[str, Any]], expected: str) -> None:
    snap = snapshot(make_node("gpu", taints=[GPU_TAINT]), make_node("soft", taints=[SOFT_TAINT]))
    result = run_filter(
        taint_toleration.new(None, Handle(snap)), make_pod(tolerations=tolerations), snap
    )
    # PreferNoSchedule never filters.
    assert codes(result) == {"gpu": expected, "soft": "Success"}


def test_taint_toleration_scores_fewer_untolerated_soft_taints_higher() -> None:
    snap = snapshot(
        make_node("clean"),
        make_node("one", taints=[SOFT_TAINT]),
        make_node("two", taints=[SOFT_TAINT, {"key": "old", "effect": "PreferNoSchedule"}]),
    )
    plugin = taint_toleration.new(None, Handle(snap))
    pod = make_pod()
    state = CycleState()
    plugin.pre_score(state, pod, snap.node_info_list)
    raw = [plugin.score(state, pod, ni)[0] for ni in snap.node_info_list]
    batch = plugin.score_columns(state, pod, snap.node_info_list)[0].tolist()
    assert raw == batch == [0, 1, 2]
    scores = [NodeScore(ni.name, v) for ni, v in zip(snap.node_info_list, raw, strict=True)]
    plugin.normalize_score(state, pod, scores)
    assert [s.score for s in scores] == plugin.normalize_batch(state, pod, raw) == [100, 50, 0]


# -- NodeAffinity -----------------------------------------------------------------------------


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
        }
    }


ZONE_A = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"nodeSelector": {"zone": "a"}},
            {"a1": "Success", "b1": "UnschedulableAndUnresolvable"},
            id="node-selector",
        ),
        pytest.param(
            {"affinity": _required(ZONE_A)},
            {"a1": "Success", "b1": "UnschedulableAndUnresolvable"},
            id="required-term",
        ),
        pytest.param(
            {
                "affinity": _required(
                    ZONE_A,
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b1"]}]},
                )
            },
            {"a1": "Success", "b1": "Success"},
            id="terms-are-ored",
        ),
        pytest.param({}, {}, id="no-affinity-skips"),
    ],
)
def test_node_affinity_filter(spec: dict[str, Any], expected: dict[str, str]) -> None:
    snap = snapshot(make_node("a1", labels={"zone": "a"}), make_node("b1", labels={"zone": "b"}))
    result = run_filter(node_affinity.new(NodeAffinityArgs(), Handle(snap)), make_pod(**spec), snap)
    assert codes(result) == expected
    for status in result.values():
        if not status.is_success():
            assert status.reasons == ("node(s) didn't match Pod's node affinity/selector",)


def test_node_affinity_prefilter_narrows_to_named_nodes() -> None:
    snap = snapshot(make_node("a1"), make_node("b1"))
    plugin = node_affinity.new(NodeAffinityArgs(), Handle(snap))
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b1"]}]}
    result, status = plugin.pre_filter(
        CycleState(), make_pod(affinity=_required(term)), snap.node_info_list
    )
    assert status.is_success()
    assert result is not None and result.node_names == frozenset({"b1"})


def test_node_affinity_added_affinity_is_enforced() -> None:
    snap = snapshot(make_node("a1", labels={"zone": "a"}), make_node("b1", labels={"zone": "b"}))
    args = NodeAffinityArgs(
        added_affinity={
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [ZONE_A]}
        }
    )
    result = run_filter(node_affinity.new(args, Handle(snap)), make_pod(), snap)
    assert result["b1"].reasons == ("node(s) didn't match scheduler-enforced node affinity",)


def test_node_affinity_preferred_terms_score_and_normalize() -> None:
    snap = snapshot(
        make_node("a1", labels={"zone": "a", "disk": "ssd"}),
        make_node("a2", labels={"zone": "a"}),
        make_node("b1", labels={"zone": "b"}),
    )
    plugin = node_affinity.new(NodeAffinityArgs(), Handle(snap))
    pref = [
        {"weight": 3, "preference": ZONE_A},
        {"weight": 1, "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}},
    ]
    pod = make_pod(
        affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pref}}
    )
    state = CycleState()
    assert plugin.pre_score(state, pod, snap.node_info_list).is_success()
    raw = [plugin.score(state, pod, ni)[0] for ni in snap.node_info_list]
    assert raw == [4, 3, 0]
    assert plugin.normalize_batch(state, pod, raw) == [100, 75, 0]


# -- NodePorts --------------------------------------------------------------------------------


def _port_pod(name: str, port: int, ip: str = "", node: str = "") -> Pod:
    p: dict[str, Any] = {"containerPort": 80, "hostPort": port}
    if ip:
        p["hostIP"] = ip
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "ports": [p]}]}
    if node:
        spec["nodeName"] = node
    return make_pod(name, **spec)


@pytest.mark.parametrize(
    ("incoming", "expected"),
    [
        pytest.param(_port_pod("in", 8080), "Unschedulable", id="same-port-any-ip"),
        pytest.param(_port_pod("in", 8081), "Success", id="other-port"),
        pytest.param(
            _port_pod("in", 8080, ip="10.0.0.2"), "Unschedulable", id="specific-ip-vs-wildcard"
        ),
    ],
)
def test_node_ports_filter(incoming: Pod, expected: str) -> None:
    snap = snapshot(make_node("n1"), make_node("n2"), pods=(_port_pod("old", 8080, node="n1"),))
    result = run_filter(node_ports.new(None, Handle(snap)), incoming, snap)
    assert codes(result) == {"n1": expected, "n2": "Success"}


def test_node_ports_skips_pods_without_host_ports() -> None:
    snap = snapshot(make_node("n1"))
    _, status = node_ports.new(None, Handle(snap)).pre_filter(
        CycleState(), make_pod(), snap.node_info_list
    )
    assert status.code == Code.SKIP


# -- ImageLocality ----------------------------------------------------------------------------


def test_image_locality_prefers_nodes_with_large_widely_spread_images() -> None:
    images = [{"names": ["nginx:latest"], "sizeBytes": 500 * MB}]
    snap = snapshot(
        make_node("has", status={"allocatable": {"cpu": "1"}, "images": images}),
        make_node("none"),
    )
    plugin = image_locality.new(None, Handle(snap))
    pod = make_pod()  # image "nginx" normalises to "nginx:latest"
    state = CycleState()
    raw = [plugin.score(state, pod, ni)[0] for ni in snap.node_info_list]
    batch = plugin.score_columns(state, pod, snap.node_info_list)[0].tolist()
    # 500 MB spread over 1 of 2 nodes counts 250 MB: 100 * (250 - 23) / (1000 - 23) = 23.
    assert raw == batch == [23, 0]


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("nginx", "nginx:latest"),
        ("nginx:1.27", "nginx:1.27"),
        ("host:5000/app", "host:5000/app:latest"),
    ],
)
def test_image_names_get_latest_tag(name: str, normalized: str) -> None:
    assert image_locality.normalized_image_name(name) == normalized


# -- SchedulingGates and PrioritySort ---------------------------------------------------------


def test_scheduling_gates_keep_gated_pods_out() -> None:
    plugin = scheduling_gates.new(None, Handle(snapshot()))
    gated = make_pod(schedulingGates=[{"name": "a"}, {"name": "b"}])
    status = plugin.pre_enqueue(gated)
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ("waiting for scheduling gates: [a b]",)
    assert plugin.pre_enqueue(make_pod()).is_success()


@dataclass
class Queued:
    pod: Pod
    timestamp: float


@pytest.mark.parametrize(
    ("a", "b", "less"),
    [
        pytest.param((10, 5.0), (0, 1.0), True, id="higher-priority-first"),
        pytest.param((0, 1.0), (0, 2.0), True, id="earlier-first-on-equal-priority"),
        pytest.param((0, 2.0), (0, 1.0), False, id="later-second"),
    ],
)
def test_priority_sort(a: tuple[int, float], b: tuple[int, float], less: bool) -> None:
    plugin = priority_sort.new(None, Handle(snapshot()))
    qa = Queued(make_pod("a", priority=a[0]), a[1])
    qb = Queued(make_pod("b", priority=b[0]), b[1])
    assert plugin.less(qa, qb) is less
