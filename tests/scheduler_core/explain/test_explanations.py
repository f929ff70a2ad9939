"""Each plugin's explanation: its inputs, its formula with the numbers, the engine's value."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.explain import (
    CycleContext,
    ExplainError,
    at_cycle,
    explain_filter,
    explain_node,
    explain_normalize,
    explain_preemption,
    explain_score,
    explain_selection,
)
from tests.builders import make_node, make_pod


def _case(nodes: list[Any], queue: list[Any], pods: list[Any] = (), **extra: Any) -> dict[str, Any]:
    return {"name": "t", "nodes": nodes, "pods": list(pods), "queue": queue, **extra}


def _profile(plugin: str, args: dict[str, Any] | None = None, **plugins: Any) -> dict[str, Any]:
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {
            "multiPoint": {
                "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                "disabled": [{"name": "*"}],
            },
            **plugins,
        },
    }
    if args is not None:
        profile["pluginConfig"] = [{"name": plugin, "args": args}]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }


def _raw(ctx: CycleContext, plugin: str, node: str) -> int:
    ps = next(ps for ps in ctx.record.scores if ps.name == plugin)
    return ps.raw[ctx.record.scored_nodes.index(node)]


def _two_nodes_one_busy() -> dict[str, Any]:
    return _case(
        [make_node("n1", cpu="4", memory="16Gi"), make_node("n2", cpu="4", memory="16Gi")],
        [make_pod("p", cpu="1", memory="2Gi")],
        [make_pod("old", cpu="1", memory="2Gi", node_name="n1")],
    )


# -- NodeResourcesFit -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("strategy", "cpu_line", "value"),
    [
        pytest.param(
            "LeastAllocated", "cpu: (4000m − 2000m) × 100 / 4000m = 50", 62, id="least-allocated"
        ),
        pytest.param(
            "MostAllocated", "cpu: min(2000m, 4000m) × 100 / 4000m = 50", 37, id="most-allocated"
        ),
    ],
)
def test_fit_score_shows_each_resource_and_the_strategy_formula(
    strategy: str, cpu_line: str, value: int
) -> None:
    case = _two_nodes_one_busy()
    case["config"] = _profile(
        "NodeResourcesFit",
        {"scoringStrategy": {"type": strategy}},
        score={"enabled": [{"name": "NodeResourcesFit"}]},
        preScore={"enabled": [{"name": "NodeResourcesFit"}]},
    )

    def explain(ctx: CycleContext) -> tuple[dict[str, Any], int]:
        return explain_score(ctx, "NodeResourcesFit", "n1"), _raw(ctx, "NodeResourcesFit", "n1")

    ex, engine = at_cycle(case, 1, explain)
    assert ex["value"] == engine == value
    cpu = ex["inputs"]["resources"][0]
    assert cpu == {
        "resource": "cpu",
        "pod": 1000,
        "node": 1000,
        "requested": 2000,
        "allocatable": 4000,
        "weight": 1,
        "score": 50,
    }
    assert ex["inputs"]["strategy"] == strategy
    assert cpu_line in ex["formula"]
    assert f"= {value} (integer division)" in ex["formula"]


def test_fit_score_requested_to_capacity_ratio_shows_the_shape() -> None:
    case = _two_nodes_one_busy()
    shape = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
    case["config"] = _profile(
        "NodeResourcesFit",
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {"shape": shape},
            }
        },
        score={"enabled": [{"name": "NodeResourcesFit"}]},
        preScore={"enabled": [{"name": "NodeResourcesFit"}]},
    )
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (
            explain_score(ctx, "NodeResourcesFit", "n1"),
            _raw(ctx, "NodeResourcesFit", "n1"),
        ),
    )
    assert ex["value"] == engine
    assert ex["inputs"]["shape"] == shape
    assert "shape: 0%→0, 100%→100" in ex["formula"]
    assert "cpu: shape(50% used) = 50" in ex["formula"]


def test_fit_filter_gives_requested_and_free_amounts() -> None:
    case = _case(
        [make_node("n1", cpu="2")],
        [make_pod("p", cpu="1")],
        [make_pod("old", cpu="1500m", node_name="n1")],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "NodeResourcesFit", "n1"))
    assert ex["value"] == {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    assert ex["inputs"]["resources"]["cpu"] == {
        "requested": 1000,
        "used": 1500,
        "allocatable": 2000,
        "free": 500,
    }
    assert "cpu: 1000m > free 2000m − 1500m = 500m" in ex["formula"]
    assert "the pod asks 1000m, the node has 500m free" in ex["text"]
    assert ex["ran"] is True


def test_filter_after_the_rejecting_plugin_is_marked_as_not_run() -> None:
    case = _case(
        [make_node("n1", cpu="2", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])],
        [make_pod("p", cpu="8")],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "NodeResourcesFit", "n1"))
    assert ex["value"]["code"] == "UnschedulableAndUnresolvable"
    assert ex["ran"] is False  # TaintToleration rejected the node first
    taint = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "TaintToleration", "n1"))
    assert taint["inputs"]["untolerated"] == "k=v:NoSchedule"
    assert taint["ran"] is True


# -- BalancedAllocation, TaintToleration, NodeAffinity, ImageLocality ----------------------


def test_balanced_allocation_shows_fractions_and_spread() -> None:
    case = _two_nodes_one_busy()
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (
            explain_score(ctx, "NodeResourcesBalancedAllocation", "n1"),
            _raw(ctx, "NodeResourcesBalancedAllocation", "n1"),
        ),
    )
    cpu, mem = ex["inputs"]["resources"]
    assert (cpu["fraction"], mem["fraction"]) == (0.5, 0.25)
    assert ex["value"] == engine == 87
    assert ex["formula"] == "std = |0.5000 − 0.2500| / 2; score = ⌊(1 − std) × 100⌋ = 87"


def test_taint_toleration_counts_intolerable_taints_then_reverses() -> None:
    prefer = [
        {"key": "a", "value": "1", "effect": "PreferNoSchedule"},
        {"key": "b", "value": "2", "effect": "PreferNoSchedule"},
    ]
    case = _case(
        [make_node("n1", taints=prefer), make_node("n2")],
        [make_pod("p", tolerations=[{"key": "a", "operator": "Exists"}])],
    )

    def explain(ctx: CycleContext) -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            explain_score(ctx, "TaintToleration", "n1"),
            explain_normalize(ctx, "TaintToleration", "n1"),
        )

    score, norm = at_cycle(case, 1, explain)
    assert score["value"] == 1
    assert score["inputs"]["intolerable"] == ["b=2:PreferNoSchedule"]
    assert norm["inputs"]["kind"] == "reverse"
    assert norm["formula"] == "100 − 100 × 1 / 1 = 0"
    assert norm["value"] == 0


def test_node_affinity_adds_the_weights_of_matched_terms() -> None:
    def term(key: str, value: str, weight: int) -> dict[str, Any]:
        return {
            "weight": weight,
            "preference": {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]},
        }

    affinity = {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                term("disk", "ssd", 5),
                term("zone", "a", 3),
            ]
        }
    }
    case = _case(
        [make_node("n1", labels={"disk": "ssd", "zone": "b"}), make_node("n2")],
        [make_pod("p", affinity=affinity)],
    )
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (explain_score(ctx, "NodeAffinity", "n1"), _raw(ctx, "NodeAffinity", "n1")),
    )
    assert ex["value"] == engine == 5
    assert [(t["weight"], t["matched"]) for t in ex["inputs"]["terms"]] == [(5, True), (3, False)]
    assert ex["formula"] == "5 = 5"


def test_image_locality_scales_the_image_size_by_its_spread() -> None:
    image = {"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 500 * 1024 * 1024}
    n1 = make_node("n1")
    n1["status"]["images"] = [image]
    case = _case([n1, make_node("n2")], [make_pod("p")])
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (explain_score(ctx, "ImageLocality", "n1"), _raw(ctx, "ImageLocality", "n1")),
    )
    row = ex["inputs"]["images"][0]
    assert (row["size"], row["nodesWithImage"], row["scaled"]) == (524288000, 1, 262144000)
    assert ex["value"] == engine == 23
    assert "sum = 524288000×1/2 = 262144000" in ex["formula"]


# -- PodTopologySpread, InterPodAffinity ------------------------------------------------------


def test_pod_topology_spread_filter_shows_skew_against_max_skew() -> None:
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "w"}},
        }
    ]
    case = _case(
        [make_node("a1", zone="a"), make_node("b1", zone="b")],
        [make_pod("p", labels={"app": "w"}, topologySpreadConstraints=spread)],
        [make_pod("w1", labels={"app": "w"}, node_name="a1")],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "PodTopologySpread", "a1"))
    assert ex["value"]["code"] == "Unschedulable"
    (row,) = ex["inputs"]["constraints"]
    assert row["countsPerDomain"] == {"a": 1, "b": 0}
    assert (row["skew"], row["maxSkew"], row["minMatching"]) == (2, 1, 0)
    assert ex["formula"] == "topology.kubernetes.io/zone=a: skew = 1 + 1 − 0 = 2 > maxSkew 1"


def test_pod_topology_spread_score_shows_counts_and_weights() -> None:
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "w"}},
        }
    ]
    case = _case(
        [make_node("a1", zone="a"), make_node("b1", zone="b")],
        [make_pod("p", labels={"app": "w"}, topologySpreadConstraints=spread)],
        [make_pod("w1", labels={"app": "w"}, node_name="a1")],
    )
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (
            explain_score(ctx, "PodTopologySpread", "a1"),
            _raw(ctx, "PodTopologySpread", "a1"),
        ),
    )
    (row,) = ex["inputs"]["constraints"]
    assert (row["domain"], row["matching"]) == ("a", 1)
    assert ex["value"] == engine == 1
    assert row["domains"] == 2
    assert ex["formula"].startswith(
        "weight(topology.kubernetes.io/zone) = ln(2 + 2) = 1.3863; round(1×1.3863 + (1 − 1)"
    )


def test_inter_pod_affinity_score_sums_the_weights_of_the_node_domains() -> None:
    affinity = {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 7,
                    "podAffinityTerm": {
                        "topologyKey": "topology.kubernetes.io/zone",
                        "labelSelector": {"matchLabels": {"app": "db"}},
                    },
                }
            ]
        }
    }
    case = _case(
        [make_node("a1", zone="a"), make_node("b1", zone="b")],
        [make_pod("p", affinity=affinity)],
        [make_pod("db", labels={"app": "db"}, node_name="a1")],
    )

    def explain(ctx: CycleContext) -> list[dict[str, Any]]:
        return [
            explain_score(ctx, "InterPodAffinity", "a1"),
            explain_normalize(ctx, "InterPodAffinity", "b1"),
        ]

    score, norm = at_cycle(case, 1, explain)
    (pair,) = score["inputs"]["pairs"]
    assert (pair["topologyKey"], pair["domain"], pair["weight"]) == (
        "topology.kubernetes.io/zone",
        "a",
        7,
    )
    assert pair["contributions"] == [
        {
            "term": "the pod's preferred affinity",
            "termWeight": 7,
            "matchingPods": 1,
            "pods": ["default/db"],
            "weight": 7,
        }
    ]
    assert score["value"] == 7
    assert norm["formula"] == "⌊100 × (0 − 0) / (7 − 0)⌋ = 0"


def test_inter_pod_affinity_counts_existing_required_affinity_at_the_hard_weight() -> None:
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "topologyKey": "topology.kubernetes.io/zone",
                    "labelSelector": {"matchLabels": {"app": "web"}},
                }
            ]
        }
    }
    case = _case(
        [make_node("a1", zone="a"), make_node("b1", zone="b")],
        [make_pod("p", labels={"app": "web"})],
        [make_pod("cache", node_name="a1", affinity=affinity)],
    )
    ex, engine = at_cycle(
        case,
        1,
        lambda ctx: (
            explain_score(ctx, "InterPodAffinity", "a1"),
            _raw(ctx, "InterPodAffinity", "a1"),
        ),
    )
    (pair,) = ex["inputs"]["pairs"]
    assert pair["contributions"] == [{"term": "default/cache's required affinity", "weight": 1}]
    assert ex["value"] == engine == 1
    assert "default/cache's required affinity +1" in ex["text"]


# -- the framework's steps and preemption ------------------------------------------------------


def test_selection_names_the_plugins_that_decided() -> None:
    ex = at_cycle(_two_nodes_one_busy(), 1, explain_selection)
    assert ex["value"] == {"top": ["n2"], "selected": "n2"}
    assert ex["inputs"]["runnerUp"] == "n1"
    margin = ex["inputs"]["margin"]
    assert margin == sum(d["difference"] for d in ex["inputs"]["deciding"]) > 0
    assert ex["text"].startswith(f"n2 won by {margin} over n1: NodeResourcesFit +")


def test_selection_says_tie() -> None:
    case = _case([make_node("n1"), make_node("n2")], [make_pod("p")])
    ex = at_cycle(case, 1, explain_selection)
    assert ex["value"] == {"top": ["n1", "n2"], "selected": "n1"}
    assert ex["text"].startswith("Tie: n1, n2 share the highest total")


def test_preemption_lists_victims_and_applies_the_criteria_in_order() -> None:
    pods = [
        make_pod("low", cpu="3", node_name="n1", priority=1),
        make_pod("mid", cpu="3", node_name="n2", priority=5),
    ]
    case = _case([make_node("n1"), make_node("n2")], [make_pod("p", cpu="3", priority=10)], pods)
    ex = at_cycle(case, 1, explain_preemption)
    assert ex["value"] == {"nominatedNode": "n1", "victims": ["default/low"]}
    assert [c["node"] for c in ex["inputs"]["candidates"]] == ["n1", "n2"]
    assert ex["inputs"]["candidates"][1]["victims"] == [
        {"pod": "default/mid", "priority": 5, "startTime": None, "violatesPDB": False}
    ]
    first, second = ex["inputs"]["criteria"]
    assert first == {
        "criterion": "fewest PodDisruptionBudget violations",
        "label": "fewest PodDisruptionBudget violations",  # in the reader's language
        "scores": {"n1": 0, "n2": 0},
        "values": {"n1": 0, "n2": 0},
        "kept": ["n1", "n2"],
        "decided": False,
        "tieLeft": False,
    }
    assert second["scores"] == {"n1": -1, "n2": -5} and second["kept"] == ["n1"]
    # The values as a reader counts them (the highest victim priority), and where it ended.
    assert second["values"] == {"n1": 1, "n2": 5} and second["decided"]
    assert "lowest priority of the highest-priority victim: n1=1, n2=5 → n1" in ex["formula"]
    assert "lowest priority of the highest-priority victim" in ex["text"]


def test_explain_node_refuses_a_node_filter_never_saw() -> None:
    with pytest.raises(ExplainError, match="not in the cycle's snapshot"):
        at_cycle(_two_nodes_one_busy(), 1, lambda ctx: explain_node(ctx, "nope"))


def test_explanations_are_json_ready() -> None:
    import json

    found = at_cycle(_two_nodes_one_busy(), 1, lambda ctx: explain_node(ctx, "n1"))
    assert json.loads(json.dumps(found)) == found
    assert {ex["point"] for ex in found} == {
        "Filter",
        "Score",
        "NormalizeScore",
        "Weight",
        "Combine",
    }


# -- volumes ------------------------------------------------------------------------------------


def _pv(
    name: str, *, zone: str | None = None, host: str | None = None, driver: str | None = None
) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}
    if host:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": [host]}
                        ]
                    }
                ]
            }
        }
    if driver:
        spec["csi"] = {"driver": driver, "volumeHandle": name}
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
    }


def _pvc(name: str, pv: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": name,
            "namespace": "default",
            "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
        },
        "spec": {
            "volumeName": pv,
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
        },
        "status": {"phase": "Bound"},
    }


def _with_claim(pod: dict[str, Any], claim: str) -> dict[str, Any]:
    pod["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]
    return pod


def test_volume_zone_names_the_volume_and_the_zones() -> None:
    case = _case(
        [make_node("a1", zone="a"), make_node("b1", zone="b")],
        [_with_claim(make_pod("p"), "c1")],
        pvs=[_pv("pv1", zone="a")],
        pvcs=[_pvc("c1", "pv1")],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "VolumeZone", "b1"))
    assert ex["value"] == {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) had no available volume zone"],
    }
    assert ex["inputs"]["volumes"] == [
        {
            "pv": "pv1",
            "label": "topology.kubernetes.io/zone",
            "allowed": ["a"],
            "node": "b",
            "matches": False,
        }
    ]
    assert "pv1 is in topology.kubernetes.io/zone a; the node has b" in ex["text"]


def test_volume_binding_names_the_bound_volume_whose_affinity_does_not_match() -> None:
    case = _case(
        [make_node("a1"), make_node("b1")],
        [_with_claim(make_pod("p"), "c1")],
        pvs=[_pv("pv1", host="a1")],
        pvcs=[_pvc("c1", "pv1")],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "VolumeBinding", "b1"))
    assert ex["value"]["code"] == "UnschedulableAndUnresolvable"
    assert ex["inputs"]["boundClaims"] == [
        {"claim": "default/c1", "pv": "pv1", "nodeAffinityMatches": False}
    ]
    assert "default/c1 is bound to pv1, whose node affinity does not match" in ex["text"]


def test_node_volume_limits_counts_attached_and_new_volumes_per_driver() -> None:
    driver = "ebs.csi.aws.com"
    csi_node = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": "a1"},
        "spec": {"drivers": [{"name": driver, "nodeID": "a1", "allocatable": {"count": 1}}]},
    }
    case = _case(
        [make_node("a1")],
        [_with_claim(make_pod("p"), "c2")],
        [_with_claim(make_pod("old", node_name="a1"), "c1")],
        pvs=[_pv("pv1", driver=driver), _pv("pv2", driver=driver)],
        pvcs=[_pvc("c1", "pv1"), _pvc("c2", "pv2")],
        csiNodes=[csi_node],
    )
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "NodeVolumeLimits", "a1"))
    assert ex["value"]["code"] == "Unschedulable"
    assert ex["inputs"]["drivers"] == [{"driver": driver, "attached": 1, "new": 1, "limit": 1}]
    assert ex["formula"] == f"{driver}: 1 + 1 > 1"


def test_filter_counts_pods_nominated_to_the_node() -> None:
    hp = make_pod("hp", cpu="1500m", priority=10)
    hp["status"] = {"nominatedNodeName": "n1"}
    case = _case([make_node("n1", cpu="2")], [make_pod("lp", cpu="1", priority=1), hp])
    ex = at_cycle(case, 1, lambda ctx: explain_filter(ctx, "NodeResourcesFit", "n1"))
    assert ex["value"] == {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    assert ex["inputs"]["nominatedPodsAdded"] == ["default/hp"]
    assert ex["inputs"]["resources"]["cpu"]["used"] == 1500
    assert "evaluated with the pods nominated to it: default/hp" in ex["text"]


def test_a_node_pre_filter_left_out_is_explained_by_pre_filter() -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}
                ]
            }
        }
    }
    case = _case([make_node("n1"), make_node("n2")], [make_pod("p", affinity=affinity)])
    (ex,) = at_cycle(case, 1, lambda ctx: explain_node(ctx, "n1"))
    assert ex["point"] == "PreFilter"
    assert ex["value"] == {"code": "Success", "nodeNames": ["n2"]}
    node_affinity = next(s for s in ex["inputs"]["plugins"] if s["plugin"] == "NodeAffinity")
    assert node_affinity["nodeNames"] == ["n2"]
    assert ex["text"].startswith("PreFilter of NodeAffinity limited Filter to n2")
