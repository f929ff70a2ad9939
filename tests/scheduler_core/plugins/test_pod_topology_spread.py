"""Table tests for the PodTopologySpread plugin (constraints, Filter, extensions, scoring)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from scheduler_core.config.types import PodTopologySpreadArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import SKIP, SUCCESS, Code, Status, unresolvable, unschedulable
from scheduler_core.framework.types import NodeScore, Snapshot
from scheduler_core.loop.cluster import Cluster
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins.pod_topology_spread import constraints as ptc
from scheduler_core.plugins.pod_topology_spread import counting as ptk
from scheduler_core.plugins.pod_topology_spread import plugin as pts
from scheduler_core.plugins.shared.helpers import go_round

SKEW = unschedulable(pts.ERR_REASON_CONSTRAINTS_NOT_MATCH)
NO_LABEL = unresolvable(pts.ERR_REASON_NODE_LABEL_NOT_MATCH)
HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"matchLabels": {"foo": ""}}


class _Handle:
    """The part of the Handle the plugin reads: the snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def framework(self) -> Framework:
        raise NotImplementedError

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return []


def node(name: str, zone: str | None = None, taints: Sequence[str] = (), **labels: str) -> Node:
    all_labels = {HOST: name, **labels}
    if zone is not None:
        all_labels[ZONE] = zone
    spec = {"taints": [{"key": t, "effect": "NoSchedule"} for t in taints]}
    return Node({"metadata": {"name": name, "labels": all_labels}, "spec": spec})


def pod(
    name: str,
    labels: dict[str, str] | None = None,
    *,
    node_name: str = "",
    namespace: str = "default",
    constraints: Sequence[dict[str, Any]] = (),
    node_selector: dict[str, str] | None = None,
    owner: tuple[str, str, str] | None = None,
    deleting: bool = False,
) -> Pod:
    spec: dict[str, Any] = {"nodeName": node_name}
    if constraints:
        spec["topologySpreadConstraints"] = list(constraints)
    if node_selector:
        spec["nodeSelector"] = node_selector
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels or {}}
    if owner is not None:
        api_version, kind, owner_name = owner
        meta["ownerReferences"] = [
            {"apiVersion": api_version, "kind": kind, "name": owner_name, "controller": True}
        ]
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return Pod({"metadata": meta, "spec": spec})


def constraint(
    key: str = ZONE,
    max_skew: int = 1,
    when: str = ptc.DO_NOT_SCHEDULE,
    selector: dict[str, Any] | None = FOO,
    **extra: Any,
) -> dict[str, Any]:
    out = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when, **extra}
    if selector is not None:
        out["labelSelector"] = selector
    return out


def cluster(nodes: Sequence[Node], pods: Sequence[Pod] = (), **objects: Any) -> Cluster:
    return Cluster(list(nodes), list(pods), ClusterObjects.from_lists(**objects))


def plugin(c: Cluster, args: PodTopologySpreadArgs | None = None) -> pts.PodTopologySpread:
    return pts.new(args, _Handle(c.snapshot()))


def run_filter(
    c: Cluster, p: Pod, args: PodTopologySpreadArgs | None = None
) -> tuple[Status, dict[str, Status]]:
    pl = plugin(c, args)
    state = CycleState()
    nodes = c.snapshot().node_info_list
    _, status = pl.pre_filter(state, p, nodes)
    if not status.is_success():
        return status, {}
    return status, {ni.node.name: pl.filter(state, p, ni) for ni in nodes}


def run_score(
    c: Cluster,
    p: Pod,
    feasible: Sequence[str] | None = None,
    args: PodTopologySpreadArgs | None = None,
) -> tuple[Status, list[int], list[int]]:
    pl = plugin(c, args)
    state = CycleState()
    snap = c.snapshot()
    nodes = [ni for ni in snap.node_info_list if feasible is None or ni.node.name in feasible]
    nodes.sort(key=lambda ni: ni.node.name)
    status = pl.pre_score(state, p, nodes)
    if not status.is_success():
        return status, [], []
    raw = [pl.score(state, p, ni)[0] for ni in nodes]
    batch, _ = pl.score_columns(state, p, nodes)
    assert batch.tolist() == raw
    scores = [NodeScore(ni.node.name, v) for ni, v in zip(nodes, raw, strict=True)]
    assert pl.normalize_score(state, p, scores) == SUCCESS
    # The columns' NormalizeScore (what the cycle runs) agrees with the per-node one.
    assert pl.normalize_batch(state, p, batch).tolist() == [s.score for s in scores]
    return status, raw, [s.score for s in scores]


def existing(counts: dict[str, int], labels: dict[str, str] | None = None) -> list[Pod]:
    """``counts[node]`` pods labelled foo on each node."""
    return [
        pod(f"{n}-{i}", labels if labels is not None else {"foo": ""}, node_name=n)
        for n, k in counts.items()
        for i in range(k)
    ]


FOUR_NODES = [node("node-a", "zone1"), node("node-b", "zone1"), node("node-x", "zone2"),
              node("node-y", "zone2")]  # fmt: skip


# -- constraints --------------------------------------------------------------------------------


def test_parse_constraints_defaults_optional_fields() -> None:
    (c,) = ptc.parse_constraints([constraint(max_skew=2)], {}, ptc.DO_NOT_SCHEDULE)
    assert (c.max_skew, c.topology_key, c.min_domains) == (2, ZONE, 1)
    assert c.honor_node_affinity and not c.honor_node_taints


def test_parse_constraints_keeps_only_the_requested_action() -> None:
    raws = [constraint(when=ptc.SCHEDULE_ANYWAY), constraint(key=HOST)]
    assert [c.topology_key for c in ptc.parse_constraints(raws, {}, ptc.DO_NOT_SCHEDULE)] == [HOST]


def test_parse_constraints_reads_policies_and_min_domains() -> None:
    raw = constraint(minDomains=3, nodeAffinityPolicy="Ignore", nodeTaintsPolicy="Honor")
    (c,) = ptc.parse_constraints([raw], {}, ptc.DO_NOT_SCHEDULE)
    assert (c.min_domains, c.honor_node_affinity, c.honor_node_taints) == (3, False, True)


@pytest.mark.parametrize(
    ("labels", "candidate", "expected"),
    [
        ({"foo": "", "rev": "1"}, {"foo": "", "rev": "1"}, True),
        ({"foo": "", "rev": "1"}, {"foo": "", "rev": "2"}, False),
        ({"foo": ""}, {"foo": "", "rev": "2"}, True),
    ],
    ids=["same-revision-matches", "other-revision-excluded", "key-absent-on-pod-ignored"],
)
def test_match_label_keys_merge_pod_labels_into_selector(
    labels: dict[str, str], candidate: dict[str, str], expected: bool
) -> None:
    raw = constraint(matchLabelKeys=["rev"])
    (c,) = ptc.parse_constraints([raw], labels, ptc.DO_NOT_SCHEDULE)
    assert c.selector.matches(candidate) is expected


def test_match_label_keys_conflicting_with_selector_match_nothing() -> None:
    raw = constraint(selector={"matchLabels": {"rev": "1"}}, matchLabelKeys=["rev"])
    (c,) = ptc.parse_constraints([raw], {"rev": "2"}, ptc.DO_NOT_SCHEDULE)
    assert not c.selector.matches({"rev": "1"}) and not c.selector.matches({"rev": "2"})


def test_match_label_keys_leave_a_null_selector_matching_nothing() -> None:
    raw = constraint(selector=None, matchLabelKeys=["foo"])
    (c,) = ptc.parse_constraints([raw], {"foo": ""}, ptc.DO_NOT_SCHEDULE)
    assert c.selector.is_nothing


# -- DefaultSelector ----------------------------------------------------------------------------

_SVC = {"metadata": {"name": "svc", "namespace": "default"}, "spec": {"selector": {"app": "web"}}}
_RS = {
    "metadata": {"name": "rs", "namespace": "default"},
    "spec": {"selector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}},
}
_SS = {"metadata": {"name": "ss", "namespace": "default"}, "spec": {"selector": {}}}
_RC = {"metadata": {"name": "rc", "namespace": "default"}, "spec": {"selector": {"rc": "x"}}}


@pytest.mark.parametrize(
    ("p", "objects", "matching", "not_matching"),
    [
        (pod("p", {"app": "web"}), {"services": [_SVC]}, {"app": "web"}, {"app": "db"}),
        (pod("p", {"app": "db"}), {"services": [_SVC]}, None, None),
        (pod("p", {"app": "web"}, namespace="other"), {"services": [_SVC]}, None, None),
        (
            pod("p", {"app": "web"}, owner=("apps/v1", "ReplicaSet", "rs")),
            {"services": [_SVC], "replica_sets": [_RS]},
            {"app": "web", "tier": "a"},
            {"app": "web"},
        ),
        (
            pod("p", {"rc": "x"}, owner=("v1", "ReplicationController", "rc")),
            {"replication_controllers": [_RC]},
            {"rc": "x"},
            {"rc": "y"},
        ),
        (
            pod("p", {}, owner=("apps/v1", "StatefulSet", "ss")),
            {"stateful_sets": [_SS]},
            None,
            None,
        ),
        (
            pod("p", {}, owner=("apps/v1beta1", "ReplicaSet", "rs")),
            {"replica_sets": [_RS]},
            None,
            None,
        ),
        (
            pod("p", {}, owner=("apps/v1", "ReplicaSet", "gone")),
            {"replica_sets": [_RS]},
            None,
            None,
        ),
    ],
    ids=[
        "service-selecting-pod",
        "service-not-selecting-pod",
        "service-in-other-namespace",
        "service-and-replicaset-requirements-combined",
        "replication-controller-selector-map",
        "statefulset-empty-selector-adds-nothing",
        "owner-with-other-api-version-ignored",
        "missing-owner-ignored",
    ],
)
def test_default_selector(
    p: Pod,
    objects: dict[str, Any],
    matching: dict[str, str] | None,
    not_matching: dict[str, str] | None,
) -> None:
    sel = ptc.default_selector(p, ClusterObjects.from_lists(**objects))
    if matching is None:
        assert sel.is_empty
        return
    assert sel.matches(matching)
    assert not_matching is not None and not sel.matches(not_matching)


# -- PreFilter and Filter -----------------------------------------------------------------------


def test_pre_filter_skips_pod_without_hard_constraints() -> None:
    c = cluster(FOUR_NODES)
    p = pod("p", {"foo": ""}, constraints=[constraint(when=ptc.SCHEDULE_ANYWAY)])
    assert run_filter(c, p)[0] == SKIP


def test_pre_filter_skips_system_defaults_which_are_soft() -> None:
    c = cluster(FOUR_NODES, services=[_SVC])
    assert run_filter(c, pod("p", {"app": "web"}))[0] == SKIP


def test_pre_filter_reports_bad_selector_as_error() -> None:
    bad = constraint(selector={"matchExpressions": [{"key": "a", "operator": "Bogus"}]})
    status, _ = run_filter(cluster(FOUR_NODES), pod("p", constraints=[bad]))
    assert status.code == Code.ERROR


def _filter_case(
    counts: dict[str, int],
    constraints: Sequence[dict[str, Any]],
    expected: dict[str, Status],
    nodes: Sequence[Node] = FOUR_NODES,
    labels: dict[str, str] | None = None,
    **pod_kw: Any,
) -> tuple[Any, ...]:
    labels = {"foo": ""} if labels is None else labels
    return (nodes, existing(counts), pod("p", labels, constraints=constraints, **pod_kw), expected)


@pytest.mark.parametrize(
    ("nodes", "pods", "p", "expected"),
    [
        _filter_case(
            {},
            [constraint(key=HOST)],
            dict.fromkeys(["node-a", "node-b", "node-x", "node-y"], SUCCESS),
        ),
        _filter_case(
            {"node-a": 2, "node-b": 1, "node-y": 3},
            [constraint(key=HOST)],
            {"node-a": SKEW, "node-b": SKEW, "node-x": SUCCESS, "node-y": SKEW},
        ),
        _filter_case(
            {"node-a": 2, "node-b": 1, "node-y": 3},
            [constraint(key=HOST, max_skew=2)],
            {"node-a": SKEW, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": SKEW},
        ),
        _filter_case(
            {"node-a": 3, "node-x": 3},
            [constraint()],
            dict.fromkeys(["node-a", "node-b", "node-x", "node-y"], SUCCESS),
        ),
        _filter_case(
            {"node-a": 3, "node-x": 2},
            [constraint()],
            {"node-a": SKEW, "node-b": SKEW, "node-x": SUCCESS, "node-y": SUCCESS},
        ),
        _filter_case(
            {"node-a": 1},
            [constraint(key=HOST)],
            dict.fromkeys(["node-a", "node-b", "node-x", "node-y"], SUCCESS),
            labels={"bar": ""},
        ),
        _filter_case(
            {},
            [constraint()],
            {"node-a": SUCCESS, "node-b": NO_LABEL},
            nodes=[node("node-a", "zone1"), node("node-b")],
        ),
        _filter_case(
            {"node-a": 1, "node-x": 2},
            [constraint(minDomains=3, max_skew=2)],
            {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SKEW, "node-y": SKEW},
        ),
        _filter_case(
            {"node-a": 1, "node-x": 2},
            [constraint()],
            {"node-a": SUCCESS, "node-x": SUCCESS},
            nodes=[node("node-a", "zone1"), node("node-x", "zone2", pool="b")],
            node_selector={"pool": "b"},
        ),
        _filter_case(
            {"node-a": 1, "node-x": 2},
            [constraint(nodeAffinityPolicy="Ignore")],
            {"node-a": SUCCESS, "node-x": SKEW},
            nodes=[node("node-a", "zone1"), node("node-x", "zone2", pool="b")],
            node_selector={"pool": "b"},
        ),
        _filter_case(
            {"node-a": 1, "node-x": 2},
            [constraint(nodeTaintsPolicy="Honor")],
            {"node-a": SUCCESS, "node-x": SUCCESS},
            nodes=[node("node-a", "zone1", taints=["t"]), node("node-x", "zone2")],
        ),
        _filter_case(
            {"node-a": 1, "node-x": 2},
            [constraint()],
            {"node-a": SUCCESS, "node-x": SKEW},
            nodes=[node("node-a", "zone1", taints=["t"]), node("node-x", "zone2")],
        ),
        _filter_case(
            {"node-x": 2},
            [constraint(), constraint(key=HOST)],
            {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SKEW, "node-y": SKEW},
        ),
    ],
    ids=[
        "no-existing-pods",
        "hostname-2-1-0-3-rejects-above-min-plus-skew",
        "hostname-2-1-0-3-maxskew-2",
        "zones-3-3-both-fit",
        "zones-3-2-only-smaller-fits",
        "incoming-pod-not-matching-itself-adds-nothing",
        "node-without-topology-key-unresolvable",
        "min-domains-not-reached-treats-minimum-as-zero",
        "node-affinity-honor-counts-only-selected-nodes",
        "node-affinity-ignore-counts-every-node",
        "node-taints-honor-leaves-out-tainted-nodes",
        "node-taints-ignored-by-default",
        "zone-and-hostname-both-checked",
    ],
)
def test_filter(
    nodes: Sequence[Node], pods: Sequence[Pod], p: Pod, expected: dict[str, Status]
) -> None:
    status, statuses = run_filter(cluster(nodes, pods), p)
    assert status == SUCCESS
    assert statuses == expected


def test_filter_ignores_other_namespaces_and_terminating_pods() -> None:
    pods = [
        pod("o", {"foo": ""}, node_name="node-a", namespace="other"),
        pod("t", {"foo": ""}, node_name="node-a", deleting=True),
    ]
    c = cluster([node("node-a", "zone1"), node("node-x", "zone2")], pods)
    _, statuses = run_filter(c, pod("p", {"foo": ""}, constraints=[constraint()]))
    assert statuses == {"node-a": SUCCESS, "node-x": SUCCESS}


def test_add_and_remove_pod_update_counts() -> None:
    c = cluster([node("node-a", "zone1"), node("node-x", "zone2")])
    p = pod("p", {"foo": ""}, constraints=[constraint()])
    pl = plugin(c)
    state = CycleState()
    nodes = c.snapshot().node_info_list
    assert pl.pre_filter(state, p, nodes)[1] == SUCCESS
    node_a = c.snapshot().get("node-a")
    assert node_a is not None
    before = state.clone()
    added = pod("n", {"foo": ""}, node_name="node-a")
    assert pl.add_pod(state, p, added, node_a) == SUCCESS
    assert pl.filter(state, p, node_a) == SKEW
    assert pl.filter(before, p, node_a) == SUCCESS  # the clone is independent
    assert pl.remove_pod(state, p, added, node_a) == SUCCESS
    assert pl.filter(state, p, node_a) == SUCCESS


def test_add_pod_from_other_namespace_changes_nothing() -> None:
    c = cluster([node("node-a", "zone1"), node("node-x", "zone2")])
    p = pod("p", {"foo": ""}, constraints=[constraint()])
    pl = plugin(c)
    state = CycleState()
    pl.pre_filter(state, p, c.snapshot().node_info_list)
    node_a = c.snapshot().get("node-a")
    assert node_a is not None
    other = pod("n", {"foo": ""}, node_name="node-a", namespace="other")
    assert pl.add_pod(state, p, other, node_a) == SUCCESS
    assert pl.filter(state, p, node_a) == SUCCESS


def test_critical_paths_keep_the_two_smallest() -> None:
    paths = ptk.CriticalPaths()
    for value, num in [("a", 3), ("b", 1), ("c", 2), ("d", 0)]:
        paths.update(value, num)
    assert (paths.value0, paths.num0, paths.value1, paths.num1) == ("d", 0, "b", 1)
    paths.update("d", 4)
    assert (paths.value0, paths.num0, paths.value1, paths.num1) == ("b", 1, "d", 4)


# -- PreScore, Score, NormalizeScore ------------------------------------------------------------


def test_go_log_matches_go_not_libm() -> None:
    assert ptc.go_log(3) == 1.0986122886681096
    assert ptc.go_log(3) != math.log(3)
    assert ptc.go_log(6) == math.log(6)


@pytest.mark.parametrize(
    ("x", "expected"),
    [(2.5, 3), (0.5, 1), (1.4999999999999998, 1), (0.49999999999999994, 0), (-2.5, -3)],
    ids=["half-up", "half-from-zero", "below-half", "just-below-half", "negative-half"],
)
def test_go_round_rounds_halves_away_from_zero(x: float, expected: int) -> None:
    assert go_round(x) == expected


@pytest.mark.parametrize(
    ("nodes", "pods", "p", "feasible", "raw", "normalized"),
    [
        (
            FOUR_NODES,
            existing({"node-a": 2, "node-b": 1, "node-y": 3}),
            pod("p", {"foo": ""}, constraints=[constraint(HOST, when=ptc.SCHEDULE_ANYWAY)]),
            None,
            [4, 2, 0, 5],
            [20, 60, 100, 0],
        ),
        (
            FOUR_NODES,
            existing({"node-a": 2, "node-b": 1, "node-y": 3}),
            pod("p", {"foo": ""}, constraints=[constraint(HOST, 2, ptc.SCHEDULE_ANYWAY)]),
            None,
            [5, 3, 1, 6],
            [33, 66, 100, 16],
        ),
        (
            FOUR_NODES,
            existing({"node-a": 1, "node-b": 1, "node-x": 2}),
            pod("p", {"foo": ""}, constraints=[constraint(when=ptc.SCHEDULE_ANYWAY)]),
            ["node-a", "node-x", "node-y"],
            [3, 3, 3],
            [100, 100, 100],
        ),
        (
            FOUR_NODES,
            existing({"node-a": 2, "node-x": 1}),
            pod("p", {"foo": ""}, constraints=[constraint(when=ptc.SCHEDULE_ANYWAY)]),
            ["node-a", "node-b", "node-x"],
            [3, 3, 1],
            [33, 33, 100],
        ),
        (
            [node("node-a", "zone1"), node("node-b")],
            [],
            pod("p", {"foo": ""}, constraints=[constraint(when=ptc.SCHEDULE_ANYWAY)]),
            None,
            [0, 0],
            [100, 0],
        ),
        (
            FOUR_NODES,
            existing({"node-a": 2}),
            pod("p", {"foo": ""}, constraints=[constraint(HOST, when=ptc.SCHEDULE_ANYWAY)]),
            ["node-a", "node-b"],
            [3, 0],
            [0, 100],
        ),
    ],
    ids=[
        "hostname-2-1-0-3",
        "hostname-maxskew-2-adds-one",
        "zone-counts-pods-on-unfeasible-nodes",
        "zone-3-of-4-candidates",
        "node-missing-key-ignored-and-scored-zero",
        "hostname-weight-uses-feasible-node-count",
    ],
)
def test_score(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    p: Pod,
    feasible: Sequence[str] | None,
    raw: list[int],
    normalized: list[int],
) -> None:
    status, got_raw, got_normalized = run_score(cluster(nodes, pods), p, feasible)
    assert status == SUCCESS
    assert (got_raw, got_normalized) == (raw, normalized)


def test_pre_score_skips_pod_without_soft_constraints() -> None:
    c = cluster(FOUR_NODES)
    p = pod("p", {"foo": ""}, constraints=[constraint()])
    assert run_score(c, p)[0] == SKIP


def test_pre_score_skips_pod_no_workload_selects() -> None:
    assert run_score(cluster(FOUR_NODES), pod("p", {"app": "web"}))[0] == SKIP


def test_system_defaults_score_nodes_without_zone_label() -> None:
    nodes = [node("node-a", "zone1"), node("node-b")]
    pods = existing({"node-a": 1}, {"app": "web"})
    c = cluster(nodes, pods, services=[_SVC])
    status, raw, normalized = run_score(c, pod("p", {"app": "web"}))
    assert status == SUCCESS
    # hostname (maxSkew 3, weight log 4) plus zone (maxSkew 5, weight log 4) on node-a only.
    assert raw == [go_round(math.log(4) + 2 + math.log(4) + 4), 2]
    assert normalized == [100 * (raw[0] + 2 - raw[0]) // raw[0], 100]


def test_list_defaulting_uses_the_configured_constraints() -> None:
    args = PodTopologySpreadArgs(
        default_constraints=(constraint(HOST, selector=None),),
        defaulting_type="List",
    )
    c = cluster(FOUR_NODES, existing({"node-a": 1}, {"app": "web"}), services=[_SVC])
    status, statuses = run_filter(c, pod("p", {"app": "web"}), args)
    assert status == SUCCESS
    assert statuses["node-a"] == SKEW and statuses["node-b"] == SUCCESS


def test_list_defaulting_requires_topology_keys_for_scoring() -> None:
    args = PodTopologySpreadArgs(
        default_constraints=(constraint(when=ptc.SCHEDULE_ANYWAY, selector=None),),
        defaulting_type="List",
    )
    c = cluster([node("node-a", "zone1"), node("node-b")], services=[_SVC])
    status, raw, normalized = run_score(c, pod("p", {"app": "web"}), args=args)
    assert status == SUCCESS
    assert (raw, normalized) == ([0, 0], [100, 0])


def test_filter_without_pre_filter_state_is_an_error() -> None:
    c = cluster(FOUR_NODES)
    ni = c.snapshot().node_info_list[0]
    status = plugin(c).filter(CycleState(), pod("p"), ni)
    assert status.code == Code.ERROR
    assert status.reasons == ('reading "PreFilterPodTopologySpread" from cycleState: not found',)


def test_score_without_pre_score_state_is_an_error() -> None:
    c = cluster(FOUR_NODES)
    ni = c.snapshot().node_info_list[0]
    score, status = plugin(c).score(CycleState(), pod("p"), ni)
    assert (score, status.code) == (0, Code.ERROR)
    assert status.reasons == (
        'error reading "PreScorePodTopologySpread" from cycleState: not found',
    )
