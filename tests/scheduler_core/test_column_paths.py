"""The column (numpy) paths of the engine against the per-node paths they replace.

Every batch path that reads the snapshot's columns falls back to a per-node walk when the nodes
are not column-backed (clones). Each test runs both on the same cluster and wants the same
answer: label columns and selector masks, the per-node pod counts kept across cycles, and the
PodTopologySpread, InterPodAffinity, NodeAffinity, ImageLocality and MostAllocated batch paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from scheduler_core.config.types import InterPodAffinityArgs, NodeAffinityArgs
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.types import NodeInfo, NodeScore, Snapshot
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.objects.labels import (
    label_selector,
    node_selector,
)
from scheduler_core.plugins import (
    image_locality,
    node_affinity,
    taint_toleration,
)
from scheduler_core.plugins.inter_pod_affinity import plugin as inter_pod_affinity
from scheduler_core.plugins.inter_pod_affinity import state as inter_pod_affinity_state
from scheduler_core.plugins.node_resources import fit
from scheduler_core.plugins.pod_topology_spread import constraints as ptc
from scheduler_core.plugins.pod_topology_spread import plugin as pts

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
RACK = "rack"


def make_node(i: int) -> Node:
    labels = {HOST: f"n{i:02d}", "rank": str(i % 9)}
    if i % 7 != 3:  # a few nodes lack the zone label
        labels[ZONE] = "" if i == 5 else f"z{i % 4}"
    if i % 3:
        labels[RACK] = f"r{i % 5}"
    spec: dict[str, Any] = {}
    if i % 6 == 1:
        spec["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    elif i % 5 == 2:
        spec["taints"] = [
            {"key": "soft", "value": str(i % 2), "effect": "PreferNoSchedule"},
            {"key": "other", "effect": "PreferNoSchedule"},
        ]
    images = [{"names": ["nginx:latest"], "sizeBytes": 300 * 1024 * 1024}] if i % 4 == 0 else []
    return Node(
        {
            "metadata": {"name": f"n{i:02d}", "labels": labels},
            "spec": spec,
            "status": {
                "allocatable": {
                    "cpu": str(2 + i % 3),
                    "memory": f"{4 + i % 5}Gi",
                    "pods": "1" if i in (0, 9) else "110",
                    "ephemeral-storage": "10Gi",
                },
                "images": images,
            },
        }
    )


def make_pod(
    name: str,
    labels: dict[str, str],
    *,
    node: str = "",
    namespace: str = "default",
    deleting: bool = False,
    affinity: dict[str, Any] | None = None,
    constraints: Sequence[dict[str, Any]] = (),
    node_selector_: dict[str, str] | None = None,
    tolerations: Sequence[dict[str, Any]] = (),
) -> Pod:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "c",
                "image": "nginx",
                "resources": {"requests": {"cpu": "300m", "memory": "500Mi"}},
            }
        ],
        "nodeName": node,
    }
    if affinity:
        spec["affinity"] = affinity
    if constraints:
        spec["topologySpreadConstraints"] = list(constraints)
    if node_selector_:
        spec["nodeSelector"] = node_selector_
    if tolerations:
        spec["tolerations"] = list(tolerations)
    return Pod({"metadata": meta, "spec": spec})


def term(key: str, **match: str) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": match}, "topologyKey": key}


RUNNING_AFFINITY = {
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(HOST, app="b")]},
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "podAffinityTerm": term(ZONE, app="a")}
        ]
    },
}


def running_pods() -> list[Pod]:
    out = []
    for j in range(45):
        out.append(
            make_pod(
                f"r{j}",
                {"app": "abc"[j % 3], "tier": str(j % 2)},
                node=f"n{(j * 7) % 31:02d}",
                namespace="other" if j % 5 == 4 else "default",
                deleting=j % 11 == 10,
                affinity=RUNNING_AFFINITY if j % 8 == 0 else None,
            )
        )
    return out


class PlainSnapshot:
    """A snapshot of clones: nothing is column-backed, so plugins take their per-node paths."""

    def __init__(self, infos: list[NodeInfo], objects: ClusterObjects) -> None:
        self.node_info_list = infos
        self.objects = objects

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        return [ni for ni in self.node_info_list if ni.pods_with_affinity]

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        return [ni for ni in self.node_info_list if ni.pods_with_required_anti_affinity]


class Handle:
    def __init__(self, snapshot: Any) -> None:
        self.snapshot = snapshot
        self.framework = self


def cluster() -> tuple[Snapshot, PlainSnapshot]:
    infos = [NodeInfo(make_node(i)) for i in range(31)]
    snap = Snapshot(infos, ClusterObjects())
    by_name = {ni.node.name: ni for ni in infos}
    for p in running_pods():
        by_name[p.node_name].add_pod(p)
    snap.refresh_image_states()
    plain = PlainSnapshot([ni.clone() for ni in snap.node_info_list], snap.objects)
    for ni, clone in zip(snap.node_info_list, plain.node_info_list, strict=True):
        clone.image_states = ni.image_states
    assert columns_of(snap.node_info_list) is not None
    assert columns_of(plain.node_info_list) is None
    return snap, plain


# -- columns ----------------------------------------------------------------------------------


SELECTORS = [
    {"matchLabels": {ZONE: "z1"}},
    {"matchExpressions": [{"key": ZONE, "operator": "NotIn", "values": ["z1", ""]}]},
    {"matchExpressions": [{"key": RACK, "operator": "DoesNotExist"}]},
    {
        "matchExpressions": [
            {"key": RACK, "operator": "Exists"},
            {"key": ZONE, "operator": "In", "values": ["z0", "z2"]},
        ]
    },  # noqa: E501
    {},
    None,
]


@pytest.mark.parametrize(
    "raw", SELECTORS, ids=["in", "notin", "dne", "exists-and-in", "all", "none"]
)
def test_selector_mask_is_selector_matches(raw: dict[str, Any] | None) -> None:
    snap, _ = cluster()
    sel = label_selector(raw)
    mask = snap.columns.selector_mask(sel).tolist()
    assert mask == [sel.matches(ni.node.labels) for ni in snap.node_info_list]


NODE_SELECTORS = [
    {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rank", "operator": "Gt", "values": ["4"]}]}
        ]
    },  # noqa: E501
    {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rank", "operator": "Lt", "values": ["2"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n07"]}]},
        ]
    },  # noqa: E501
    {
        "nodeSelectorTerms": [
            {
                "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n01"]}],
                "matchExpressions": [{"key": ZONE, "operator": "Exists"}],
            }
        ]
    },  # noqa: E501
    {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "Bad", "values": []}]}]},  # noqa: E501
    {"nodeSelectorTerms": []},
]


@pytest.mark.parametrize(
    "raw", NODE_SELECTORS, ids=["gt", "lt-or-name", "notin-name", "error", "empty"]
)
def test_node_selector_mask_is_node_selector_matches(raw: dict[str, Any]) -> None:
    snap, _ = cluster()
    ns = node_selector(raw)
    mask = snap.columns.node_selector_mask(ns).tolist()
    assert mask == [ns.matches(ni.node.labels, ni.node.name) for ni in snap.node_info_list]


def test_label_column_numbers_values_in_node_order() -> None:
    snap, _ = cluster()
    column = snap.columns.label(ZONE)
    for ni, i in zip(snap.node_info_list, column.ids.tolist(), strict=True):
        assert (column.values[i] if i >= 0 else None) == ni.node.labels.get(ZONE)
    first_seen = list(
        dict.fromkeys(
            v for ni in snap.node_info_list if (v := ni.node.labels.get(ZONE)) is not None
        )
    )  # noqa: E501
    assert column.values == first_seen


def test_pod_counts_follow_added_and_removed_pods() -> None:
    snap, _ = cluster()
    cols = snap.columns

    def is_a(p: Pod) -> bool:
        return p.labels.get("app") == "a"

    def expected() -> list[int]:
        return [sum(1 for p in ni.pods if is_a(p)) for ni in snap.node_info_list]

    assert cols.pod_counts("a", is_a).tolist() == expected()
    target = snap.node_info_list[4]
    extra = make_pod("extra", {"app": "a"}, node=target.node.name)
    target.add_pod(extra)
    assert cols.pod_counts("a", is_a).tolist() == expected()
    gone = next(p for ni in snap.node_info_list for p in ni.pods if is_a(p) and p is not extra)
    snap.by_name[gone.node_name].remove_pod(gone)
    target.remove_pod(extra)
    assert cols.pod_counts("a", is_a).tolist() == expected()


# -- PodTopologySpread ------------------------------------------------------------------------


def spread(key: str, when: str, skew: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "maxSkew": skew,
        "topologyKey": key,
        "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": "a"}},
        **extra,
    }


HARD, SOFT = ptc.DO_NOT_SCHEDULE, ptc.SCHEDULE_ANYWAY
SPREAD_PODS = {
    "zone-hard": make_pod("p", {"app": "a"}, constraints=[spread(ZONE, HARD)]),
    "zone-and-host-hard": make_pod(
        "p", {"app": "a"}, constraints=[spread(ZONE, HARD, 2), spread(HOST, HARD, 1)]
    ),
    "min-domains": make_pod("p", {"app": "a"}, constraints=[spread(ZONE, HARD, 1, minDomains=9)]),
    "node-selector-honored": make_pod(
        "p", {"app": "a"}, constraints=[spread(RACK, HARD)], node_selector_={ZONE: "z1"}
    ),
    "taints-honored": make_pod(
        "p", {"app": "a"}, constraints=[spread(ZONE, HARD, nodeTaintsPolicy="Honor")]
    ),
    "soft-zone-host": make_pod(
        "p", {"app": "a"}, constraints=[spread(ZONE, SOFT, 2), spread(HOST, SOFT, 1)]
    ),
    "soft-rack-taints": make_pod(
        "p", {"app": "a"}, constraints=[spread(RACK, SOFT, 3, nodeTaintsPolicy="Honor")]
    ),
    "system-default": make_pod("p", {"app": "a"}),
}


def _spread_state(plugin: pts.PodTopologySpread, pod: Pod, nodes: list[NodeInfo]) -> Any:
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, nodes)
    return state, status


@pytest.mark.parametrize("name", list(SPREAD_PODS))
def test_pod_topology_spread_columns_equal_per_node(name: str) -> None:
    pod = SPREAD_PODS[name]
    snap, plain = cluster()
    fast = pts.new(None, Handle(snap))
    slow = pts.new(None, Handle(plain))
    if name == "system-default":
        # Give the pod a controller-free default selector through a Service.
        objects = ClusterObjects.from_lists(
            services=[
                {
                    "metadata": {"name": "s", "namespace": "default"},
                    "spec": {"selector": {"app": "a"}},
                }
            ]
        )
        snap.objects = plain.objects = objects
    fast_state, fast_status = _spread_state(fast, pod, snap.node_info_list)
    slow_state, slow_status = _spread_state(slow, pod, plain.node_info_list)
    assert fast_status == slow_status
    if fast_status.is_success():
        f = fast_state.get(pts._PRE_FILTER_KEY)
        s = slow_state.get(pts._PRE_FILTER_KEY)
        assert [list(m.items()) for m in f.counts] == [list(m.items()) for m in s.counts]
        assert repr(f.paths) == repr(s.paths)
        fast_rejected = fast.filter_batch(fast_state, pod, snap.node_info_list)
        slow_rejected = slow.filter_batch(slow_state, pod, plain.node_info_list)
        assert fast_rejected == slow_rejected
    # Score the nodes PreScore would see: a subset, so that counting "every node but only the
    # feasible nodes' domains" matters.
    fast_nodes = snap.node_info_list[::2]
    slow_nodes = plain.node_info_list[::2]
    fast_state, slow_state = CycleState(), CycleState()
    assert fast.pre_score(fast_state, pod, fast_nodes) == slow.pre_score(
        slow_state, pod, slow_nodes
    )
    f = fast_state.get(pts._PRE_SCORE_KEY)
    if f is None:
        assert not name.startswith(("soft", "system"))
        return
    s = slow_state.get(pts._PRE_SCORE_KEY)
    assert [list(m.items()) for m in f.counts] == [list(m.items()) for m in s.counts]
    assert (f.ignored, f.weights) == (s.ignored, s.weights)
    fast_column, st = fast.score_columns(fast_state, pod, fast_nodes)
    fast_raw = fast_column.tolist()
    assert st.is_success()
    per_node = [slow.score(slow_state, pod, ni)[0] for ni in slow_nodes]
    assert fast_raw == per_node
    scores = [NodeScore(ni.node.name, v) for ni, v in zip(slow_nodes, per_node, strict=True)]
    slow.normalize_score(slow_state, pod, scores)
    assert fast.normalize_batch(fast_state, pod, fast_column).tolist() == [
        ns.score for ns in scores
    ]


# -- InterPodAffinity -------------------------------------------------------------------------


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


AFFINITY_PODS = {
    "required-affinity-zone": {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(ZONE, app="a")]}
    },
    "required-affinity-two-keys": {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                term(ZONE, app="a"),
                term(RACK, tier="1"),
            ]
        }
    },
    "self-affine-first-pod": {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(ZONE, app="new")]}
    },
    "required-anti-affinity": {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                term(HOST, app="c"),
                term(RACK, app="a"),
            ]  # noqa: E501
        }
    },
    "preferred-both": {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [weighted(7, term(ZONE, app="a"))]
        },
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                weighted(3, term(HOST, app="c")),
                weighted(0, term(RACK, app="b")),
            ]
        },
    },
    "none": None,
    "none-matched-by-existing": None,
}
AFFINITY_POD_APP = {"self-affine-first-pod": "new", "none-matched-by-existing": "a"}


@pytest.mark.parametrize("name", list(AFFINITY_PODS))
def test_inter_pod_affinity_columns_equal_per_node(name: str) -> None:
    app = AFFINITY_POD_APP.get(name, "b")
    pod = make_pod("p", {"app": app}, affinity=AFFINITY_PODS[name])
    snap, plain = cluster()
    args = InterPodAffinityArgs(hard_pod_affinity_weight=2)
    fast = inter_pod_affinity.new(args, Handle(snap))
    slow = inter_pod_affinity.new(args, Handle(plain))
    fast_state, slow_state = CycleState(), CycleState()
    fast_out = fast.pre_filter(fast_state, pod, snap.node_info_list)
    assert fast_out == slow.pre_filter(slow_state, pod, plain.node_info_list)
    if fast_out[1].is_success():
        f = fast_state.get(inter_pod_affinity_state.PRE_FILTER_KEY)
        s = slow_state.get(inter_pod_affinity_state.PRE_FILTER_KEY)
        for attr in ("existing_anti_affinity", "affinity", "anti_affinity"):
            assert getattr(f, attr).by_key == getattr(s, attr).by_key
            assert getattr(f, attr).size == getattr(s, attr).size
        assert fast.filter_batch(fast_state, pod, snap.node_info_list) == slow.filter_batch(
            slow_state, pod, plain.node_info_list
        )
    fast_state, slow_state = CycleState(), CycleState()
    status = fast.pre_score(fast_state, pod, snap.node_info_list)
    assert status == slow.pre_score(slow_state, pod, plain.node_info_list)
    if not status.is_success():
        assert name not in ("preferred-both", "none-matched-by-existing")
        return
    f = fast_state.get(inter_pod_affinity_state.PRE_SCORE_KEY)
    s = slow_state.get(inter_pod_affinity_state.PRE_SCORE_KEY)
    assert f.topology_score == s.topology_score
    fast_column, _ = fast.score_columns(fast_state, pod, snap.node_info_list)
    fast_raw = fast_column.tolist()
    per_node = [slow.score(slow_state, pod, ni)[0] for ni in plain.node_info_list]
    assert fast_raw == per_node
    scores = [
        NodeScore(ni.node.name, v) for ni, v in zip(plain.node_info_list, per_node, strict=True)
    ]  # noqa: E501
    slow.normalize_score(slow_state, pod, scores)
    assert fast.normalize_batch(fast_state, pod, fast_raw) == [ns.score for ns in scores]
    normalized = fast.normalize_batch(fast_state, pod, fast_column)
    assert normalized.tolist() == [ns.score for ns in scores]


# -- NodeAffinity, ImageLocality, MostAllocated -----------------------------------------------


@pytest.mark.parametrize(
    ("added", "spec_affinity", "selector"),
    [
        (None, {"requiredDuringSchedulingIgnoredDuringExecution": NODE_SELECTORS[0]}, None),
        (None, {"requiredDuringSchedulingIgnoredDuringExecution": NODE_SELECTORS[1]}, {ZONE: "z1"}),  # noqa: E501
        (
            {"requiredDuringSchedulingIgnoredDuringExecution": NODE_SELECTORS[2]},
            {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 4, "preference": NODE_SELECTORS[0]["nodeSelectorTerms"][0]},
                    {
                        "weight": 9,
                        "preference": {
                            "matchExpressions": [
                                {"key": RACK, "operator": "In", "values": ["r1", "r2"]}
                            ]
                        },
                    },  # noqa: E501
                ]
            },
            None,
        ),
        (
            {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 2,
                        "preference": {"matchExpressions": [{"key": ZONE, "operator": "Exists"}]},
                    }
                ]
            },  # noqa: E501
            None,
            {RACK: "r3"},
        ),
    ],
    ids=[
        "required-gt",
        "required-or-name-and-selector",
        "enforced-and-preferred",
        "added-preferred",
    ],  # noqa: E501
)
def test_node_affinity_columns_equal_per_node(
    added: dict[str, Any] | None,
    spec_affinity: dict[str, Any] | None,
    selector: dict[str, str] | None,  # noqa: E501
) -> None:
    snap, plain = cluster()
    pod = make_pod(
        "p",
        {},
        affinity={"nodeAffinity": spec_affinity} if spec_affinity else None,
        node_selector_=selector,
    )
    plugin = node_affinity.new(NodeAffinityArgs(added_affinity=added), Handle(snap))
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    per_node = {
        i: st
        for i, ni in enumerate(plain.node_info_list)
        if not (st := plugin.filter(state, pod, ni)).is_success()
    }
    assert plugin.filter_batch(state, pod, snap.node_info_list) == per_node
    assert plugin.filter_batch(state, pod, plain.node_info_list) == per_node
    plugin.pre_score(state, pod, snap.node_info_list)
    raw = plugin.score_columns(state, pod, snap.node_info_list)[0].tolist()
    assert raw == [plugin.score(state, pod, ni)[0] for ni in plain.node_info_list]


def test_image_locality_columns_equal_per_node() -> None:
    snap, plain = cluster()
    plugin = image_locality.new(None, Handle(snap))
    pod = make_pod("p", {})
    fast = plugin.score_columns(CycleState(), pod, snap.node_info_list)[0].tolist()
    assert fast == [plugin.score(CycleState(), pod, ni)[0] for ni in plain.node_info_list]
    assert any(v > 0 for v in fast)


@pytest.mark.parametrize(
    "tolerations",
    [
        [],
        [{"key": "dedicated", "operator": "Exists"}],
        [{"key": "soft", "value": "1", "effect": "PreferNoSchedule"}],
    ],
    ids=["none", "dedicated", "soft-1"],
)
def test_taint_toleration_columns_equal_per_node(tolerations: list[dict[str, Any]]) -> None:
    snap, plain = cluster()
    plugin = taint_toleration.new(None, Handle(snap))
    pod = make_pod("p", {}, tolerations=tolerations)
    state = CycleState()
    per_node = {
        i: st
        for i, ni in enumerate(plain.node_info_list)
        if not (st := plugin.filter(state, pod, ni)).is_success()
    }
    assert plugin.filter_batch(state, pod, snap.node_info_list) == per_node
    plugin.pre_score(state, pod, snap.node_info_list)
    raw = plugin.score_columns(state, pod, snap.node_info_list)[0].tolist()
    assert raw == [plugin.score(state, pod, ni)[0] for ni in plain.node_info_list]
    assert raw == plugin.score_columns(state, pod, plain.node_info_list)[0].tolist()


@pytest.mark.parametrize(
    "requests",
    [
        {"cpu": "2500m"},
        {"cpu": "1", "memory": "6Gi"},
        {"memory": "7Gi", "ephemeral-storage": "11Gi"},
        {"cpu": "4", "memory": "9Gi", "ephemeral-storage": "1Gi"},
    ],
    ids=["cpu", "cpu-memory", "memory-ephemeral", "everything"],
)
def test_fit_filter_columns_equal_per_node(requests: dict[str, str]) -> None:
    snap, plain = cluster()
    plugin = fit.new(None, Handle(snap))
    pod = make_pod("p", {})
    pod = Pod(
        {
            **pod.raw,
            "spec": {
                **pod.raw["spec"],
                "containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}],
            },
        }  # noqa: E501
    )
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    per_node = {
        i: st
        for i, ni in enumerate(plain.node_info_list)
        if not (st := plugin.filter(state, pod, ni)).is_success()
    }
    assert plugin.filter_batch(state, pod, snap.node_info_list) == per_node
    assert len({st for st in per_node.values()}) > 1
