"""More column paths against the per-node paths: resource scoring, Fit's Filter after pods come
and go, InterPodAffinity once the first pod with affinity arrives, the batched score range check
and the names memo. Same harness as test_column_paths: one cluster, column-backed and cloned.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scheduler_core.config.types import InterPodAffinityArgs, ResourceSpec
from scheduler_core.framework.columns import names_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.plugin_scores import all_in_range
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo, Snapshot
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
)
from scheduler_core.plugins.inter_pod_affinity import plugin as inter_pod_affinity
from scheduler_core.plugins.inter_pod_affinity import state as inter_pod_affinity_state
from scheduler_core.plugins.node_resources import fit
from scheduler_core.plugins.node_resources.balanced_allocation import balanced_scores
from scheduler_core.plugins.node_resources.least_allocated import least_allocated_scorer
from scheduler_core.plugins.node_resources.most_allocated import most_allocated_scorer
from scheduler_core.plugins.node_resources.resource_allocation import (
    KIND_CPU,
    KIND_MEMORY,
    ResourceAllocationScorer,
)
from scheduler_core.tools.case import CaseRun
from tests.builders import make_node
from tests.builders import make_pod as make_pod_manifest
from tests.scheduler_core.test_column_paths import (
    HOST,
    Handle,
    PlainSnapshot,
    cluster,
    make_pod,
    term,
)

SCORERS = {
    "least": least_allocated_scorer,
    "most": most_allocated_scorer,
    "balanced": balanced_scores,
}


def cpu_memory_scores(
    rule: Any,
    nodes: list[NodeInfo],
    use_requested: bool,
    cpu: int,
    cpu_weight: int,
    memory: int,
    memory_weight: int,
) -> Any:
    """The strategy ``rule`` over cpu and memory for ``nodes``, as the plugins score."""
    resources = [ResourceSpec("cpu", cpu_weight), ResourceSpec("memory", memory_weight)]
    scorer = ResourceAllocationScorer(
        "test", resources, rule, use_requested=use_requested, pod_level=True, use_status=False
    )
    entries = [(KIND_CPU, "cpu", cpu, cpu_weight), (KIND_MEMORY, "memory", memory, memory_weight)]
    return scorer.score_nodes(entries, nodes)


def empty_capacity_cluster() -> tuple[Snapshot, PlainSnapshot]:
    """Nodes of which some have no cpu or no memory allocatable, and some are overcommitted."""
    infos = []
    for i in range(12):
        cpu = "0" if i % 4 == 1 else str(1 + i % 3)
        memory = "0" if i % 5 == 2 else f"{1 + i % 2}Gi"
        infos.append(
            NodeInfo(
                Node(
                    {
                        "metadata": {"name": f"e{i:02d}", "labels": {HOST: f"e{i:02d}"}},
                        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "9"}},
                    }
                )
            )
        )
    snap = Snapshot(infos, ClusterObjects())
    for j in range(10):
        infos[j % 12].add_pod(make_pod(f"x{j}", {}, node=f"e{j % 12:02d}"))
    return snap, PlainSnapshot([ni.clone() for ni in infos], snap.objects)


@pytest.mark.parametrize("scorer", list(SCORERS))
@pytest.mark.parametrize("use_requested", [True, False], ids=["requested", "non-zero"])
@pytest.mark.parametrize("empty", [False, True], ids=["every-node-has-both", "some-have-none"])
def test_cpu_memory_scores_equal_per_node(scorer: str, use_requested: bool, empty: bool) -> None:
    snap, plain = empty_capacity_cluster() if empty else cluster()
    assert snap.columns.cpu_memory_positive() is not empty
    rule = SCORERS[scorer]
    for args in [(use_requested, 400, 2, 3 * 1024**3, 1), (use_requested, 2500, 1, 100, 3)]:
        for fast_nodes, slow_nodes in subsets(snap.node_info_list, plain.node_info_list):
            fast = cpu_memory_scores(rule, fast_nodes, *args)
            assert isinstance(fast, np.ndarray)
            slow = cpu_memory_scores(rule, slow_nodes, *args)
            assert fast.tolist() == list(slow)
            assert len(set(slow)) > 2


def subsets(fast: list[NodeInfo], slow: list[NodeInfo]) -> list[tuple[Any, Any]]:
    """Every node, every other node, and every node in another order (no longer the rows in
    snapshot order, though as many), column-backed and not."""
    return [
        (fast, slow),
        (list(fast), list(slow)),
        (fast[::2], slow[::2]),
        (fast[3:] + fast[:3], slow[3:] + slow[:3]),
    ]


def test_fit_filter_follows_pods_added_and_removed() -> None:
    snap, plain = cluster()
    plugin = fit.new(None, Handle(snap))
    pod = make_pod("p", {})
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    before = plugin.filter_batch(state, pod, snap.node_info_list)
    # Fill n04 (cpu 3) to its last 100m, then take one of its pods away again.
    node = snap.node_info_list[4]
    fillers = [make_pod(f"f{k}", {}, node=node.node.name) for k in range(9)]
    for p in fillers:
        node.add_pod(p)
    full = plugin.filter_batch(state, pod, snap.node_info_list)
    assert 4 in full and 4 not in before
    assert full[4].reasons == (fit.ERR_REASON_INSUFFICIENT_CPU,)
    node.remove_pod(fillers[-1])
    node.remove_pod(fillers[-2])
    assert plugin.filter_batch(state, pod, snap.node_info_list) == before
    clones = [ni.clone() for ni in snap.node_info_list]
    for fast_nodes, slow_nodes in subsets(snap.node_info_list, clones):
        per_node = {
            i: st
            for i, ni in enumerate(slow_nodes)
            if not (st := plugin.filter(state, pod, ni)).is_success()
        }
        assert plugin.filter_batch(state, pod, fast_nodes) == per_node
        assert per_node


def test_inter_pod_affinity_columns_follow_affinity_pods_coming_and_going() -> None:
    """No pod with affinity: the tallies answer empty without counting; as such pods come and
    go, they count them as the per-node path does."""
    infos = [NodeInfo(n.node) for n in cluster()[0].node_info_list]
    snap = Snapshot(infos, ClusterObjects())
    args = InterPodAffinityArgs(hard_pod_affinity_weight=2)
    fast = inter_pod_affinity.new(args, Handle(snap))
    pod = make_pod("p", {"app": "b"})
    anti = {"requiredDuringSchedulingIgnoredDuringExecution": [term(HOST, app="b")]}
    prefer = {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 3, "podAffinityTerm": term(HOST, app="b")}
        ]
    }
    first = make_pod("a", {}, node="n03", affinity={"podAntiAffinity": anti, "podAffinity": prefer})
    second = make_pod("c", {}, node="n05", affinity={"podAntiAffinity": anti})
    steps = [
        (None, None),
        (lambda: infos[3].add_pod(first), {3}),
        (lambda: infos[3].remove_pod(first), None),
        (lambda: infos[5].add_pod(second), {5}),
    ]
    for change, rejected in steps:
        if change is not None:
            change()
        plain = PlainSnapshot([ni.clone() for ni in infos], snap.objects)
        slow = inter_pod_affinity.new(args, Handle(plain))
        fast_state, slow_state = CycleState(), CycleState()
        fast_out = fast.pre_filter(fast_state, pod, snap.node_info_list)
        assert fast_out == slow.pre_filter(slow_state, pod, plain.node_info_list)
        assert fast.pre_score(fast_state, pod, snap.node_info_list) == slow.pre_score(
            slow_state, pod, plain.node_info_list
        )
        if rejected is None:
            assert fast_out[1].code == Code.SKIP
            assert snap.columns.anti_affinity_pods == 0
            continue
        assert snap.columns.anti_affinity_pods == 1
        got = fast.filter_batch(fast_state, pod, snap.node_info_list)
        assert got == slow.filter_batch(slow_state, pod, plain.node_info_list)
        assert set(got) == rejected
        f = fast_state.get(inter_pod_affinity_state.PRE_SCORE_KEY)
        s = slow_state.get(inter_pod_affinity_state.PRE_SCORE_KEY)
        assert (f is None) == (s is None)
        if f is not None:
            assert f.topology_score == s.topology_score


def test_all_in_range_checks_every_column_and_names_the_first_bad_plugin() -> None:
    good = np.array([0, 50, 100], dtype=np.int64)
    entries: list[tuple[str, int, Any, Any]] = [
        ("A", 1, good, good),
        ("B", 2, [1, 2, 3], [1, 2, 3]),
    ]
    scores = all_in_range(entries)
    assert not isinstance(scores, Status)
    assert [(ps.name, ps.weight, ps.normalized) for ps in scores] == [
        ("A", 1, [0, 50, 100]),
        ("B", 2, [1, 2, 3]),
    ]
    for bad, value in [(np.array([5, -1, 7], dtype=np.int64), -1), (good + 1, 101)]:
        out = all_in_range([("A", 1, good, good), ("B", 1, bad, bad), ("C", 1, bad, bad)])
        assert isinstance(out, Status) and out.code == Code.ERROR
        assert 'plugin "B" returns an invalid score ' + str(value) in out.message()


def test_names_of_answers_the_same_list_for_the_same_nodes() -> None:
    snap, plain = cluster()
    nodes = snap.node_info_list[3:9]
    names = names_of(nodes)
    assert names == [ni.node.name for ni in nodes]
    assert names_of(nodes) is names
    other = snap.node_info_list[3:8]
    assert names_of(other) == names[:5]
    assert names_of(plain.node_info_list) == snap.node_names
    for fast_nodes, slow_nodes in subsets(snap.node_info_list, plain.node_info_list):
        assert names_of(fast_nodes) == [ni.node.name for ni in slow_nodes]


def test_name_order_lists_the_rows_by_node_name() -> None:
    snap, _ = cluster()
    rows, names = snap.columns.name_order()
    assert names.tolist() == sorted(snap.node_names)
    assert [snap.node_names[r] for r in rows.tolist()] == sorted(snap.node_names)
    mask = np.zeros(len(rows), dtype=bool)
    mask[[7, 2, 30]] = True
    picked = rows[mask[rows]].tolist()
    assert [snap.node_names[r] for r in picked] == sorted(snap.node_names[r] for r in (7, 2, 30))


def test_tied_best_nodes_of_a_narrowed_cycle_are_listed_by_name() -> None:
    """PreFilter narrows the cycle to a few nodes (not every row of the columns), all tied:
    top lists them by name, and the first is selected."""
    nodes = [make_node(f"n{i}", zone=f"z{i % 3}") for i in (6, 1, 5, 2, 4, 3)]
    names = ["n5", "n2", "n4", "n6"]
    pod = make_pod_manifest("p")
    pod["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}
                    for name in names
                ]
            }
        }
    }
    run = CaseRun({"nodes": nodes, "queue": [pod]})
    [(_, rec)] = list(run.cycles())
    assert rec.top == ["n2", "n4", "n5", "n6"]
    assert rec.selected == "n2"
    assert [rec.nodes[r] for r in rec.top_rows.tolist()] == rec.top
