"""Table tests for the InterPodAffinity plugin (PreFilter, Filter, extensions, scoring)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config.types import InterPodAffinityArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Code,
    Status,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeScore, Snapshot
from scheduler_core.loop.cluster import Cluster
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins.inter_pod_affinity import plugin as ipa

AFFINITY = unresolvable(ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = unschedulable(ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING = unschedulable(ipa.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
HOST = "kubernetes.io/hostname"
ZONE = "zone"


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


def node(name: str, **labels: str) -> Node:
    return Node({"metadata": {"name": name, "labels": {HOST: name, **labels}}})


def pod(
    name: str,
    labels: dict[str, str] | None = None,
    *,
    node_name: str = "",
    namespace: str = "default",
    affinity: dict[str, Any] | None = None,
) -> Pod:
    spec: dict[str, Any] = {"nodeName": node_name}
    if affinity is not None:
        spec["affinity"] = affinity
    meta = {"name": name, "namespace": namespace, "labels": labels or {}}
    return Pod({"metadata": meta, "spec": spec})


def term(
    key: str = ZONE,
    selector: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    sel = selector if selector is not None else {"matchLabels": {"app": "db"}}
    return {"labelSelector": sel, "topologyKey": key, **extra}


def required(kind: str, *terms: dict[str, Any]) -> dict[str, Any]:
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def preferred(kind: str, *weighted: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    items = [{"weight": w, "podAffinityTerm": t} for w, t in weighted]
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": items}}


NODES = (
    node("n1", zone="z1"),
    node("n2", zone="z1"),
    node("n3", zone="z2"),
    node("n4"),  # no zone label
)

NAMESPACES = (
    {"metadata": {"name": "default", "labels": {"team": "web"}}},
    {"metadata": {"name": "prod", "labels": {"team": "db"}}},
)


def build(
    running: tuple[Pod, ...],
    *,
    args: InterPodAffinityArgs | None = None,
    nodes: tuple[Node, ...] = NODES,
) -> tuple[ipa.InterPodAffinity, Snapshot, Cluster]:
    objects = ClusterObjects.from_lists(namespaces=NAMESPACES)
    cluster = Cluster(list(nodes), list(running), objects)
    snapshot = cluster.snapshot()
    return ipa.new(args, _Handle(snapshot)), snapshot, cluster


def filter_all(incoming: Pod, running: tuple[Pod, ...]) -> tuple[Status, dict[str, Status]]:
    plugin, snapshot, _ = build(running)
    state = CycleState()
    _, pre = plugin.pre_filter(state, incoming, snapshot.node_info_list)
    if pre.is_skip():
        return pre, {}
    by_node = {ni.name: plugin.filter(state, incoming, ni) for ni in snapshot.node_info_list}
    return pre, {k: v for k, v in sorted(by_node.items()) if not v.is_success()}


DB_Z1 = pod("db", {"app": "db"}, node_name="n1")
DB_PROD = pod("db", {"app": "db"}, node_name="n3", namespace="prod")
ANTI_HOLDER = pod(
    "holder",
    {"app": "x"},
    node_name="n1",
    affinity=required("podAntiAffinity", term(ZONE, {"matchLabels": {"app": "web"}})),
)


@pytest.mark.parametrize(
    ("incoming", "running", "pre", "rejected"),
    [
        pytest.param(pod("p", {"app": "web"}), (DB_Z1,), SKIP, {}, id="skip-without-any-terms"),
        pytest.param(
            pod("p", affinity=required("podAffinity", term())),
            (DB_Z1,),
            SUCCESS,
            {"n3": AFFINITY, "n4": AFFINITY},
            id="affinity-needs-matching-pod-in-zone-and-the-zone-label",
        ),
        pytest.param(
            pod("p", affinity=required("podAffinity", term())),
            (DB_PROD,),
            SUCCESS,
            {n: AFFINITY for n in ("n1", "n2", "n3", "n4")},
            id="affinity-term-defaults-to-own-namespace",
        ),
        pytest.param(
            pod("p", affinity=required("podAffinity", term(namespaces=["prod"]))),
            (DB_PROD,),
            SUCCESS,
            {"n1": AFFINITY, "n2": AFFINITY, "n4": AFFINITY},
            id="affinity-listed-namespace",
        ),
        pytest.param(
            pod(
                "p",
                affinity=required(
                    "podAffinity", term(namespaceSelector={"matchLabels": {"team": "db"}})
                ),
            ),
            (DB_PROD,),
            SUCCESS,
            {"n1": AFFINITY, "n2": AFFINITY, "n4": AFFINITY},
            id="affinity-namespace-selector-resolved-through-namespaces",
        ),
        pytest.param(
            pod("p", affinity=required("podAffinity", term(namespaceSelector={}))),
            (DB_PROD,),
            SUCCESS,
            {"n1": AFFINITY, "n2": AFFINITY, "n4": AFFINITY},
            id="affinity-empty-namespace-selector-means-all-namespaces",
        ),
        pytest.param(
            pod("p", {"app": "db"}, affinity=required("podAffinity", term())),
            (),
            SUCCESS,
            {"n4": AFFINITY},
            id="first-pod-of-a-collection-matching-its-own-terms",
        ),
        pytest.param(
            pod("p", {"app": "web"}, affinity=required("podAffinity", term())),
            (),
            SUCCESS,
            {n: AFFINITY for n in ("n1", "n2", "n3", "n4")},
            id="no-exception-when-pod-does-not-match-its-own-terms",
        ),
        pytest.param(
            pod(
                "p",
                affinity=required(
                    "podAffinity", term(), term(HOST, {"matchLabels": {"tier": "a"}})
                ),
            ),
            (DB_Z1,),
            SUCCESS,
            {n: AFFINITY for n in ("n1", "n2", "n3", "n4")},
            id="existing-pod-must-match-all-terms-to-count",
        ),
        pytest.param(
            pod("p", affinity=required("podAntiAffinity", term())),
            (DB_Z1,),
            SUCCESS,
            {"n1": ANTI, "n2": ANTI},
            id="anti-affinity-rejects-the-whole-zone-not-unlabelled-nodes",
        ),
        pytest.param(
            pod("p", {"app": "web"}),
            (ANTI_HOLDER,),
            SUCCESS,
            {"n1": EXISTING, "n2": EXISTING},
            id="existing-pod-anti-affinity-symmetry",
        ),
        pytest.param(
            pod("p", {"app": "other"}),
            (ANTI_HOLDER,),
            SKIP,
            {},
            id="skip-when-existing-anti-affinity-does-not-match",
        ),
    ],
)
def test_filter(
    incoming: Pod, running: tuple[Pod, ...], pre: Status, rejected: dict[str, Status]
) -> None:
    assert filter_all(incoming, running) == (pre, rejected)


def test_existing_anti_affinity_with_namespace_selector_uses_incoming_namespace_labels() -> None:
    holder = pod(
        "holder",
        node_name="n3",
        namespace="prod",
        affinity=required(
            "podAntiAffinity",
            term(
                ZONE,
                {"matchLabels": {"app": "web"}},
                namespaceSelector={"matchLabels": {"team": "web"}},
            ),
        ),
    )
    assert filter_all(pod("p", {"app": "web"}), (holder,)) == (SUCCESS, {"n3": EXISTING})
    other_ns = pod("p", {"app": "web"}, namespace="prod")
    assert filter_all(other_ns, (holder,)) == (SKIP, {})


def test_add_and_remove_pod_update_the_counts() -> None:
    incoming = pod("p", affinity=required("podAntiAffinity", term()))
    plugin, snapshot, _ = build(())
    state = CycleState()
    plugin.pre_filter(state, incoming, snapshot.node_info_list)
    n3 = snapshot.get("n3")
    assert n3 is not None
    assert plugin.filter(state, incoming, n3) == SUCCESS
    db = pod("db", {"app": "db"}, node_name="n3")
    assert plugin.add_pod(state, incoming, db, n3) == SUCCESS
    assert plugin.filter(state, incoming, n3) == ANTI
    cloned = state.clone()
    assert plugin.remove_pod(state, incoming, db, n3) == SUCCESS
    assert plugin.filter(state, incoming, n3) == SUCCESS
    assert plugin.filter(cloned, incoming, n3) == ANTI


def test_filter_without_pre_filter_state_is_an_error() -> None:
    plugin, snapshot, _ = build(())
    status = plugin.filter(CycleState(), pod("p"), snapshot.node_info_list[0])
    assert status.code == Code.ERROR
    assert status.reasons == (
        'error reading "PreFilterInterPodAffinity" from cycleState: not found',
    )


def scores_for(
    incoming: Pod, running: tuple[Pod, ...], args: InterPodAffinityArgs | None = None
) -> tuple[Status, list[tuple[str, int, int]]]:
    plugin, snapshot, _ = build(running, args=args)
    state = CycleState()
    nodes = snapshot.node_info_list
    status = plugin.pre_score(state, incoming, nodes)
    if status.is_skip():
        return status, []
    raw = [plugin.score(state, incoming, ni)[0] for ni in nodes]
    scores = [NodeScore(ni.name, r) for ni, r in zip(nodes, raw, strict=True)]
    plugin.normalize_score(state, incoming, scores)
    return status, sorted((s.name, r, s.score) for s, r in zip(scores, raw, strict=True))


WEB_Z2 = pod("web", {"app": "web"}, node_name="n3")


@pytest.mark.parametrize(
    ("incoming", "running", "args", "expected"),
    [
        pytest.param(pod("p"), (DB_Z1,), None, (SKIP, []), id="skip-when-nothing-counts"),
        pytest.param(
            pod("p", affinity=preferred("podAffinity", (5, term()))),
            (DB_Z1,),
            None,
            (SUCCESS, [("n1", 5, 100), ("n2", 5, 100), ("n3", 0, 0), ("n4", 0, 0)]),
            id="preferred-affinity-weight-per-zone",
        ),
        pytest.param(
            pod(
                "p",
                affinity={
                    **preferred("podAntiAffinity", (3, term())),
                    **required("podAffinity", term(ZONE, {"matchLabels": {"app": "web"}})),
                },
            ),
            (DB_Z1, WEB_Z2),
            None,
            (SUCCESS, [("n1", -3, 0), ("n2", -3, 0), ("n3", 0, 100), ("n4", 0, 100)]),
            id="preferred-anti-affinity-min-max-normalisation",
        ),
        pytest.param(
            pod("p", {"app": "db"}),
            (pod("w", node_name="n3", affinity=required("podAffinity", term())),),
            InterPodAffinityArgs(hard_pod_affinity_weight=7),
            (SUCCESS, [("n1", 0, 0), ("n2", 0, 0), ("n3", 7, 100), ("n4", 0, 0)]),
            id="existing-required-affinity-scores-with-hard-weight",
        ),
        pytest.param(
            pod("p", {"app": "db"}),
            (pod("w", node_name="n3", affinity=required("podAffinity", term())),),
            InterPodAffinityArgs(hard_pod_affinity_weight=0),
            (SKIP, []),
            id="hard-weight-zero-ignores-existing-required-terms",
        ),
        pytest.param(
            pod("p", {"app": "db"}),
            (pod("w", node_name="n1", affinity=preferred("podAntiAffinity", (4, term()))),),
            None,
            (SUCCESS, [("n1", -4, 0), ("n2", -4, 0), ("n3", 0, 100), ("n4", 0, 100)]),
            id="existing-preferred-anti-affinity-repels",
        ),
        pytest.param(
            pod("p", {"app": "db"}),
            (pod("w", node_name="n1", affinity=preferred("podAntiAffinity", (4, term()))),),
            InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True),
            (SKIP, []),
            id="ignore-preferred-terms-of-existing-pods-skips",
        ),
        pytest.param(
            pod(
                "p",
                affinity=preferred("podAffinity", (1, term()), (2, term(HOST))),
            ),
            (DB_Z1, pod("db2", {"app": "db"}, node_name="n3")),
            None,
            (SUCCESS, [("n1", 3, 100), ("n2", 1, 33), ("n3", 3, 100), ("n4", 0, 0)]),
            id="several-topology-keys-add-up",
        ),
    ],
)
def test_scores(
    incoming: Pod,
    running: tuple[Pod, ...],
    args: InterPodAffinityArgs | None,
    expected: tuple[Status, list[tuple[str, int, int]]],
) -> None:
    assert scores_for(incoming, running, args) == expected


def test_normalize_truncates_float_ratio() -> None:
    incoming = pod("p", affinity=preferred("podAffinity", (1, term()), (2, term(HOST))))
    plugin, snapshot, _ = build((DB_Z1,))
    state = CycleState()
    plugin.pre_score(state, incoming, snapshot.node_info_list)
    scores = [NodeScore("a", 0), NodeScore("b", 1), NodeScore("c", 3), NodeScore("d", -3)]
    assert plugin.normalize_score(state, incoming, scores) == SUCCESS
    assert [s.score for s in scores] == [50, 66, 100, 0]


def test_match_label_keys_are_not_merged_by_the_scheduler() -> None:
    """The API server merges matchLabelKeys at creation; the scheduler reads labelSelector only."""
    incoming = pod(
        "p",
        {"app": "db", "rev": "2"},
        affinity=required("podAntiAffinity", term(HOST, matchLabelKeys=["rev"])),
    )
    old = pod("old", {"app": "db", "rev": "1"}, node_name="n1")
    assert filter_all(incoming, (old,)) == (SUCCESS, {"n1": ANTI})
