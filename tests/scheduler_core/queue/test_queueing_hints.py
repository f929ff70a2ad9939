"""Each in-tree plugin's queueing hints, as upstream's plugin tests check them.

Tables translated from the Test_isSchedulableAfter... cases of kube-scheduler v1.35
(plugins/*/..._test.go): the pod a plugin rejected, the object before and after the change
(None for an Add or a Delete), and the hint expected.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config.types import NodeResourcesFitArgs
from scheduler_core.framework.events import ClusterEvent, ClusterEventWithHint, QueueingHint
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins import (
    node_affinity,
    node_name,
    node_ports,
    node_unschedulable,
    scheduling_gates,
    taint_toleration,
)
from scheduler_core.plugins.inter_pod_affinity import hints as inter_pod_affinity_hints
from scheduler_core.plugins.node_resources.fit import Fit
from scheduler_core.plugins.pod_topology_spread import plugin as pod_topology_spread
from tests.builders import make_node, make_pod
from tests.scheduler_core.queue.test_scheduling_queue import fail, make_queue, pop

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
NO_SCHEDULE = {"key": "dedicated", "value": "db", "effect": "NoSchedule"}
TOLERATE = {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoSchedule"}


def node(name: str = "n1", **kw: Any) -> Node:
    unschedulable = kw.pop("unschedulable", False)
    raw = make_node(name, **kw)
    if unschedulable:
        raw["spec"]["unschedulable"] = True
    return Node(raw)


def pod(name: str = "p", *, uid: str | None = None, **kw: Any) -> Pod:
    nominated = kw.pop("nominated", None)
    raw = make_pod(name, **kw)
    raw["metadata"]["uid"] = uid or name
    if nominated:
        raw["status"] = {"nominatedNodeName": nominated}
    return Pod(raw)


def registered(events: list[ClusterEventWithHint]) -> list[str]:
    return [str(e.event) for e in events]


# -- TaintToleration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tolerations", "old", "new", "want"),
    [
        pytest.param([], None, node(), QUEUE, id="added-node-without-taints-queues"),
        pytest.param([], None, node(taints=[NO_SCHEDULE]), SKIP, id="added-untolerated-skips"),
        pytest.param([TOLERATE], None, node(taints=[NO_SCHEDULE]), QUEUE, id="added-tolerated"),
        pytest.param(
            [], node(taints=[NO_SCHEDULE]), node(), QUEUE, id="untolerated-taint-removed-queues"
        ),
        pytest.param(
            [],
            node(taints=[NO_SCHEDULE]),
            node(taints=[NO_SCHEDULE, {"key": "x", "effect": "NoExecute"}]),
            SKIP,
            id="still-untolerated-skips",
        ),
        pytest.param(
            [TOLERATE],
            node(),
            node(taints=[NO_SCHEDULE]),
            SKIP,
            id="was-tolerated-already-skips",
        ),
    ],
)
def test_taint_toleration_node_change(
    tolerations: list[dict[str, str]], old: Node | None, new: Node, want: QueueingHint
) -> None:
    pl = taint_toleration.TaintToleration()
    assert pl.is_schedulable_after_node_change(pod(tolerations=tolerations), old, new) == want


def test_taint_toleration_pod_toleration_change_only_for_the_pod_itself() -> None:
    pl = taint_toleration.TaintToleration()
    target = pod("p")
    assert pl.is_schedulable_after_pod_toleration_change(target, pod("p"), pod("p")) == QUEUE
    assert pl.is_schedulable_after_pod_toleration_change(target, pod("q"), pod("q")) == SKIP
    assert registered(pl.events_to_register()) == [
        "NodeAdd|UpdateNodeTaint",
        "PodUpdatePodToleration",
    ]


# -- NodeUnschedulable ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, node(), QUEUE, id="schedulable-node-added"),
        pytest.param(None, node(unschedulable=True), SKIP, id="cordoned-node-added"),
        pytest.param(node(unschedulable=True), node(), QUEUE, id="node-uncordoned"),
        pytest.param(node(), node(), SKIP, id="stays-schedulable"),
        pytest.param(node(), node(unschedulable=True), SKIP, id="node-cordoned"),
    ],
)
def test_node_unschedulable_node_change(old: Node | None, new: Node, want: QueueingHint) -> None:
    pl = node_unschedulable.NodeUnschedulable()
    assert pl.is_schedulable_after_node_change(pod(), old, new) == want


@pytest.mark.parametrize(
    ("modified", "want"),
    [
        pytest.param(
            pod(tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]),
            QUEUE,
            id="pod-now-tolerates-unschedulable",
        ),
        pytest.param(pod(tolerations=[TOLERATE]), SKIP, id="unrelated-toleration"),
        pytest.param(
            pod("other", tolerations=[{"operator": "Exists"}]), SKIP, id="another-pod-skips"
        ),
    ],
)
def test_node_unschedulable_pod_toleration_change(modified: Pod, want: QueueingHint) -> None:
    pl = node_unschedulable.NodeUnschedulable()
    assert pl.is_schedulable_after_pod_toleration_change(pod(), pod(), modified) == want


# -- NodeAffinity ---------------------------------------------------------------------------


ZONE_A = {"nodeSelector": {"zone": "a"}}


@pytest.mark.parametrize(
    ("spec", "added", "old", "new", "want"),
    [
        pytest.param({}, None, None, node(), QUEUE, id="no-affinity-node-added"),
        pytest.param(ZONE_A, None, None, node(labels={"zone": "a"}), QUEUE, id="added-matches"),
        pytest.param(ZONE_A, None, None, node(labels={"zone": "b"}), SKIP, id="added-no-match"),
        pytest.param(
            ZONE_A,
            None,
            node(labels={"zone": "b"}),
            node(labels={"zone": "a"}),
            QUEUE,
            id="label-now-matches",
        ),
        pytest.param(
            ZONE_A,
            None,
            node(labels={"zone": "a"}),
            node(labels={"zone": "a", "x": "y"}),
            SKIP,
            id="matched-before-too",
        ),
        pytest.param(
            {},
            {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["x"]}]}
                    ]
                }
            },
            None,
            node(),
            SKIP,
            id="scheduler-enforced-affinity-not-matched",
        ),
    ],
)
def test_node_affinity_node_change(
    spec: dict[str, Any],
    added: dict[str, Any] | None,
    old: Node | None,
    new: Node,
    want: QueueingHint,
) -> None:
    pl = node_affinity.NodeAffinity(added)
    assert pl.is_schedulable_after_node_change(pod(**spec), old, new) == want


# -- NodePorts, NodeName, SchedulingGates ---------------------------------------------------


def ports(port: int) -> list[dict[str, Any]]:
    return [{"name": "app", "image": "x", "ports": [{"containerPort": 80, "hostPort": port}]}]


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(pod("d", containers=ports(8080)), SKIP, id="deleted-pod-unscheduled"),
        pytest.param(pod("d", node_name="n1"), SKIP, id="deleted-pod-without-ports"),
        pytest.param(pod("d", node_name="n1", containers=ports(8080)), QUEUE, id="common-port"),
        pytest.param(pod("d", node_name="n1", containers=ports(9090)), SKIP, id="other-port"),
        pytest.param(
            pod("d", nominated="n1", containers=ports(8080)), QUEUE, id="nominated-common-port"
        ),
    ],
)
def test_node_ports_pod_deleted(deleted: Pod, want: QueueingHint) -> None:
    pl = node_ports.NodePorts()
    target = pod(containers=ports(8080))
    assert pl.is_schedulable_after_pod_deleted(target, deleted, None) == want


def test_node_name_registers_node_add_without_a_hint() -> None:
    (event,) = node_name.NodeName().events_to_register()
    assert (event.event, event.hint) == (ClusterEvent("Node", "Add"), None)


def test_scheduling_gates_only_the_pod_itself() -> None:
    pl = scheduling_gates.SchedulingGates()
    target = pod("p")
    hint = pl.is_schedulable_after_scheduling_gates_eliminated
    assert hint(target, pod("p"), pod("p")) == QUEUE
    assert hint(target, pod("q"), pod("q")) == SKIP


# -- NodeResourcesFit ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(pod("d", node_name="n1"), None, QUEUE, id="scheduled-pod-deleted"),
        pytest.param(pod("d"), None, SKIP, id="unscheduled-pod-deleted"),
        pytest.param(pod("d", nominated="n1"), None, QUEUE, id="nominated-pod-deleted"),
        pytest.param(
            pod("d", node_name="n1", cpu="2"),
            pod("d", node_name="n1", cpu="1"),
            QUEUE,
            id="scheduled-pod-scaled-down-cpu",
        ),
        pytest.param(
            pod("d", node_name="n1", memory="2Gi"),
            pod("d", node_name="n1", memory="1Gi"),
            SKIP,
            id="scaled-down-a-resource-not-requested",
        ),
        pytest.param(pod("d", cpu="2"), pod("d", cpu="1"), SKIP, id="unscheduled-pod-scaled"),
        pytest.param(pod("p", cpu="3"), pod("p", cpu="1"), QUEUE, id="target-pod-scaled-down"),
    ],
)
def test_fit_pod_event(old: Pod, new: Pod | None, want: QueueingHint) -> None:
    pl = Fit(NodeResourcesFitArgs())
    assert pl.is_schedulable_after_pod_event(pod("p", cpu="2", memory=None), old, new) == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, node(cpu="4"), QUEUE, id="added-node-fits"),
        pytest.param(None, node(cpu="1"), SKIP, id="added-node-too-small"),
        pytest.param(node(cpu="1"), node(cpu="4"), QUEUE, id="allocatable-grew-to-fit"),
        pytest.param(node(cpu="1"), node(cpu="1500m"), SKIP, id="grew-but-still-too-small"),
        pytest.param(
            node(cpu="4"), node(cpu="4", memory="32Gi"), SKIP, id="grew-a-resource-not-requested"
        ),
        pytest.param(
            node(cpu="4", pods="10"), node(cpu="4", pods="20"), QUEUE, id="more-pods-allowed"
        ),
    ],
)
def test_fit_node_change(old: Node | None, new: Node, want: QueueingHint) -> None:
    pl = Fit(NodeResourcesFitArgs())
    assert pl.is_schedulable_after_node_change(pod(cpu="2", memory=None), old, new) == want


# -- InterPodAffinity ----------------------------------------------------------------------


def affinity(kind: str, labels: dict[str, str], key: str = "zone") -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": key}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


WITH_AFFINITY = {"affinity": affinity("podAffinity", {"app": "db"})}
WITH_ANTI = {"affinity": affinity("podAntiAffinity", {"app": "db"})}


@pytest.mark.parametrize(
    ("spec", "old", "new", "want"),
    [
        pytest.param(
            WITH_AFFINITY,
            None,
            pod("x", node_name="n1", labels={"app": "db"}),
            QUEUE,
            id="added-pod-matches-affinity",
        ),
        pytest.param(
            WITH_AFFINITY,
            None,
            pod("x", node_name="n1", labels={"app": "web"}),
            SKIP,
            id="added-pod-does-not-match",
        ),
        pytest.param(
            WITH_AFFINITY, None, pod("x", labels={"app": "db"}), SKIP, id="unscheduled-pod-added"
        ),
        pytest.param(
            WITH_AFFINITY,
            pod("x", node_name="n1", labels={"app": "web"}),
            pod("x", node_name="n1", labels={"app": "db"}),
            QUEUE,
            id="labels-updated-to-match-affinity",
        ),
        pytest.param(
            WITH_ANTI,
            pod("x", node_name="n1", labels={"app": "db"}),
            pod("x", node_name="n1", labels={"app": "web"}),
            QUEUE,
            id="labels-updated-away-from-anti-affinity",
        ),
        pytest.param(
            WITH_ANTI,
            pod("x", node_name="n1", labels={"app": "db"}),
            None,
            QUEUE,
            id="deleted-pod-matched-anti-affinity",
        ),
        pytest.param(
            WITH_ANTI,
            pod("x", node_name="n1", labels={"app": "web"}),
            None,
            SKIP,
            id="deleted-pod-unrelated",
        ),
    ],
)
def test_inter_pod_affinity_pod_change(
    spec: dict[str, Any], old: Pod | None, new: Pod | None, want: QueueingHint
) -> None:
    hint = inter_pod_affinity_hints.is_schedulable_after_pod_change
    assert hint(pod(**spec), old, new) == want


@pytest.mark.parametrize(
    ("spec", "old", "new", "want"),
    [
        pytest.param(WITH_AFFINITY, None, node(labels={"zone": "a"}), QUEUE, id="added-with-key"),
        pytest.param(WITH_AFFINITY, None, node(), SKIP, id="added-without-key"),
        pytest.param(
            WITH_AFFINITY, node(), node(labels={"zone": "a"}), QUEUE, id="key-added-to-node"
        ),
        pytest.param(
            WITH_AFFINITY,
            node(labels={"zone": "a"}),
            node(labels={"zone": "b"}),
            QUEUE,
            id="node-moved-domain",
        ),
        pytest.param(
            WITH_AFFINITY,
            node(labels={"zone": "a"}),
            node(labels={"zone": "a", "x": "y"}),
            SKIP,
            id="unrelated-label",
        ),
        pytest.param(WITH_ANTI, None, node(), QUEUE, id="anti-affinity-any-node-added"),
        pytest.param(
            WITH_ANTI, node(labels={"zone": "a"}), node(), QUEUE, id="anti-affinity-key-removed"
        ),
        pytest.param(
            WITH_ANTI, node(), node(labels={"zone": "a"}), SKIP, id="anti-affinity-key-added"
        ),
    ],
)
def test_inter_pod_affinity_node_change(
    spec: dict[str, Any], old: Node | None, new: Node, want: QueueingHint
) -> None:
    hint = inter_pod_affinity_hints.is_schedulable_after_node_change
    assert hint(pod(**spec), old, new) == want


# -- PodTopologySpread ---------------------------------------------------------------------


def spread(policy: str | None = None) -> dict[str, Any]:
    constraint: dict[str, Any] = {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "web"}},
    }
    if policy:
        constraint["nodeTaintsPolicy"] = policy
    return {"topologySpreadConstraints": [constraint], "labels": {"app": "web"}}


def spread_hints() -> list[ClusterEventWithHint]:
    return pod_topology_spread.new(None, None).events_to_register()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(
            None, pod("x", node_name="n1", labels={"app": "web"}), QUEUE, id="matching-pod-added"
        ),
        pytest.param(
            None, pod("x", node_name="n1", labels={"app": "db"}), SKIP, id="other-pod-added"
        ),
        pytest.param(None, pod("x", labels={"app": "web"}), SKIP, id="unscheduled-pod-added"),
        pytest.param(
            None,
            pod("x", node_name="n1", namespace="other", labels={"app": "web"}),
            SKIP,
            id="other-namespace",
        ),
        pytest.param(
            pod("x", node_name="n1", labels={"app": "db"}),
            pod("x", node_name="n1", labels={"app": "web"}),
            QUEUE,
            id="label-now-selected",
        ),
        pytest.param(
            pod("x", node_name="n1", labels={"app": "web"}),
            pod("x", node_name="n1", labels={"app": "web", "v": "2"}),
            SKIP,
            id="label-change-keeps-selection",
        ),
        pytest.param(
            pod("x", node_name="n1", labels={"app": "web"}), None, QUEUE, id="matching-deleted"
        ),
    ],
)
def test_pod_topology_spread_pod_change(
    old: Pod | None, new: Pod | None, want: QueueingHint
) -> None:
    pod_event = spread_hints()[0]
    assert pod_event.hint is not None
    assert pod_event.hint(pod(**spread()), old, new) == want


def test_pod_topology_spread_new_toleration_matters_only_with_honor() -> None:
    pod_event = spread_hints()[0]
    assert pod_event.hint is not None
    before = pod(**spread("Honor"))
    after = pod(**spread("Honor"), tolerations=[TOLERATE])
    assert pod_event.hint(before, before, after) == QUEUE
    ignore = pod(**spread())
    assert pod_event.hint(ignore, ignore, pod(**spread(), tolerations=[TOLERATE])) == SKIP


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, node(labels={"zone": "a"}), QUEUE, id="added-with-key"),
        pytest.param(None, node(), SKIP, id="added-without-key"),
        pytest.param(node(labels={"zone": "a"}), None, QUEUE, id="deleted-with-key"),
        pytest.param(node(), None, SKIP, id="deleted-without-key"),
        pytest.param(node(), node(labels={"zone": "a"}), QUEUE, id="key-added"),
        pytest.param(
            node(labels={"zone": "a"}), node(labels={"zone": "b"}), QUEUE, id="value-changed"
        ),
        pytest.param(
            node(labels={"zone": "a"}),
            node(labels={"zone": "a"}, taints=[NO_SCHEDULE]),
            QUEUE,
            id="taints-changed",
        ),
        pytest.param(
            node(labels={"zone": "a"}),
            node(labels={"zone": "a", "x": "y"}),
            SKIP,
            id="unrelated-label",
        ),
    ],
)
def test_pod_topology_spread_node_change(
    old: Node | None, new: Node | None, want: QueueingHint
) -> None:
    node_event = spread_hints()[1]
    assert node_event.hint is not None
    assert node_event.hint(pod(**spread()), old, new) == want


# -- the queue asks the hints ----------------------------------------------------------------


def _queue(**kw: Any) -> tuple[Any, Any]:
    q, _, rec = make_queue(**kw)
    return q, rec


def _fail(q: Any, p: Pod, *plugins: str) -> None:
    q.add(p)
    fail(q, pop(q), *plugins)


SSD = {"disk": "ssd"}
HINTS = {
    "NodeAffinity": node_affinity.NodeAffinity(None).events_to_register(),
    "NodeResourcesFit": Fit(NodeResourcesFitArgs()).events_to_register(),
}


def test_queue_moves_a_pod_only_when_a_rejecting_plugins_hint_says_queue() -> None:
    q, rec = _queue(events_of_interest=HINTS)
    p = pod("p", nodeSelector=SSD)
    _fail(q, p, "NodeAffinity")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"), new=node(labels={"d": "x"}))
    assert q.location(p) == "unschedulable"
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"), new=node(labels=SSD))
    assert q.location(p) == "backoff"
    kind, _, details = rec.events[-1]
    assert kind == "Backoff"
    assert (details["event"], details["plugin"]) == ("NodeAdd", "NodeAffinity")
    assert details["hints"] == {"NodeAffinity": "Queue"}


def test_event_during_the_pods_cycle_is_weighed_by_its_hint_when_it_fails() -> None:
    for labels, where in ((SSD, "backoff"), ({"disk": "hdd"}, "unschedulable")):
        q, rec = _queue(events_of_interest=HINTS)
        p = pod("p", nodeSelector=SSD)
        q.add(p)
        qpi = pop(q)
        q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"), new=node(labels=labels))
        fail(q, qpi, "NodeAffinity")
        assert q.location(p) == where
        if where == "backoff":
            assert rec.events[-1][2]["in_flight_event"] == "NodeAdd"


def test_a_hint_that_raises_counts_as_queue() -> None:
    def broken(pod: Pod, old: Any, new: Any) -> QueueingHint:
        raise ValueError("bad object")

    q, _ = _queue(
        events_of_interest={"X": [ClusterEventWithHint(ClusterEvent("Node", "Add"), broken)]}
    )
    p = pod("p")
    _fail(q, p, "X")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"), new=node())
    assert q.location(p) == "backoff"


def test_the_pods_profile_decides_which_hints_are_asked() -> None:
    never = [ClusterEventWithHint(ClusterEvent("Node", "Add"), lambda pod, old, new: SKIP)]
    q, _ = _queue(events_of_interest=HINTS, profile_events={"strict": {"NodeAffinity": never}})
    strict = pod("s", nodeSelector=SSD, schedulerName="strict")
    default = pod("d", nodeSelector=SSD)
    _fail(q, strict, "NodeAffinity")
    _fail(q, default, "NodeAffinity")
    q.move_all_to_active_or_backoff(ClusterEvent("Node", "Add"), new=node(labels=SSD))
    assert (q.location(strict), q.location(default)) == ("unschedulable", "backoff")
