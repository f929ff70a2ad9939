"""Table tests for cluster events: matching, labels, change extraction, what plugins register."""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_node, make_pod

from scheduler_core.framework.events import ClusterEventWithHint
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins import names
from scheduler_core.queue import (
    ClusterEvent,
    build_event_map,
    match_cluster_events,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from scheduler_core.queue.requeuing import matching
from tests.scheduler_core.queue.test_scheduling_queue import in_tree_events

E = ClusterEvent


@pytest.mark.parametrize(
    ("registered", "incoming", "expected"),
    [
        pytest.param(E("Node", "Add"), E("Node", "Add"), True, id="same_event"),
        pytest.param(
            E("Node", "Add|UpdateNodeAllocatable"),
            E("Node", "UpdateNodeAllocatable"),
            True,
            id="one_bit_of_a_combination",
        ),
        pytest.param(
            E("Node", "Update"),
            E("Node", "UpdateNodeLabel"),
            True,
            id="specific_update_matches_generic_registration",
        ),
        pytest.param(
            E("Node", "UpdateNodeLabel"),
            E("Node", "Update"),
            False,
            id="generic_update_does_not_match_specific_registration",
        ),
        pytest.param(E("Node", "All"), E("Node", "Delete"), True, id="all_actions"),
        pytest.param(E("Node", "Add"), E("Pod", "Add"), False, id="other_resource"),
        pytest.param(E("Pod", "Add"), E("AssignedPod", "Add"), True, id="pod_covers_assigned"),
        pytest.param(
            E("Pod", "UpdatePodLabel"),
            E("UnschedulablePod", "UpdatePodLabel"),
            True,
            id="pod_covers_unscheduled",
        ),
        pytest.param(
            E("AssignedPod", "Add"), E("Pod", "Add"), False, id="assigned_does_not_cover_pod"
        ),
        pytest.param(
            E("*", "All"),
            E("PersistentVolume", "Update"),
            True,
            id="wildcard_registration_matches_all",
        ),
        pytest.param(E("*", "Add"), E("Node", "Add"), True, id="wildcard_resource_only"),
        pytest.param(
            E("Node", "All"),
            E("*", "All", "UnschedulableTimeout"),
            False,
            id="wildcard_incoming_needs_wildcard_registration",
        ),
        pytest.param(
            E("Node", "Add|Delete"), E("Node", "Add|Delete"), True, id="combination_equal"
        ),
    ],
)
def test_match_cluster_events(registered: E, incoming: E, expected: bool) -> None:
    assert match_cluster_events(registered, incoming) is expected


@pytest.mark.parametrize(
    ("event", "label"),
    [
        (E("Node", "Add"), "NodeAdd"),
        (E("AssignedPod", "Delete"), "AssignedPodDelete"),
        (E("*", "All", "UnschedulableTimeout"), "UnschedulableTimeout"),
        (E("storage.k8s.io/CSINode", "Update"), "storage.k8s.io/CSINodeUpdate"),
    ],
    ids=["resource_action", "assigned_pod", "custom_label", "group_resource"],
)
def test_label_is_custom_label_or_resource_and_action(event: E, label: str) -> None:
    assert str(event) == label


def test_unknown_action_is_rejected() -> None:
    with pytest.raises(ValueError, match="UpdateNodeLabels"):
        E("Node", "UpdateNodeLabels")


def _pod(**kw: Any) -> Pod:
    return Pod(make_pod("p", **kw))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param({}, {}, ["UnschedulablePodUpdate"], id="nothing_specific"),
        pytest.param({}, {"labels": {"a": "b"}}, ["UnschedulablePodUpdatePodLabel"], id="labels"),
        pytest.param(
            {"cpu": "2"}, {"cpu": "1"}, ["UnschedulablePodUpdatePodScaleDown"], id="cpu_scale_down"
        ),
        pytest.param({"cpu": "1"}, {"cpu": "2"}, ["UnschedulablePodUpdate"], id="scale_up"),
        pytest.param(
            {"memory": "1Gi"},
            {"memory": None},
            ["UnschedulablePodUpdatePodScaleDown"],
            id="request_removed",
        ),
        pytest.param(
            {"schedulingGates": [{"name": "g"}]},
            {},
            ["UnschedulablePodUpdatePodSchedulingGatesEliminated"],
            id="gates_removed",
        ),
        pytest.param(
            {},
            {"tolerations": [{"key": "k", "operator": "Exists"}]},
            ["UnschedulablePodUpdatePodToleration"],
            id="toleration_added",
        ),
        pytest.param(
            {},
            {"node_name": "n1", "labels": {"a": "b"}},
            ["AssignedPodUpdatePodLabel"],
            id="bound_pod_is_assigned",
        ),
        pytest.param(
            {"cpu": "2"},
            {"cpu": "1", "labels": {"a": "b"}},
            ["UnschedulablePodUpdatePodLabel", "UnschedulablePodUpdatePodScaleDown"],
            id="several_in_upstream_order",
        ),
    ],
)
def test_pod_scheduling_properties_change(
    old: dict[str, Any], new: dict[str, Any], expected: list[str]
) -> None:
    got = pod_scheduling_properties_change(_pod(**new), _pod(**old))
    assert [str(e) for e in got] == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param({}, {}, [], id="no_change_no_event"),
        pytest.param({}, {"labels": {"a": "b"}}, ["NodeUpdateNodeLabel"], id="labels"),
        pytest.param({}, {"cpu": "8"}, ["NodeUpdateNodeAllocatable"], id="allocatable"),
        pytest.param(
            {},
            {"taints": [{"key": "k", "effect": "NoSchedule"}]},
            ["NodeUpdateNodeTaint"],
            id="taints",
        ),
        pytest.param(
            {"unschedulable": True}, {}, ["NodeUpdateNodeTaint"], id="cordon_lifted_counts_as_taint"
        ),
        pytest.param({}, {"unschedulable": True}, [], id="cordon_alone_not_an_event"),
    ],
)
def test_node_scheduling_properties_change(
    old: dict[str, Any], new: dict[str, Any], expected: list[str]
) -> None:
    def node(kw: dict[str, Any]) -> Node:
        kw = dict(kw)
        unsched = kw.pop("unschedulable", False)
        m = make_node("n1", **kw)
        if unsched:
            m["spec"]["unschedulable"] = True
        return Node(m)

    got = node_scheduling_properties_change(node(new), node(old))
    assert [str(e) for e in got] == expected


# The events each in-tree plugin registers in kube-scheduler v1.35 (EventsToRegister under
# framework/plugins/*/, default feature gates), without the hint functions: what the plugins'
# own events_to_register() must state.
UPSTREAM_EVENTS = {
    names.DEFAULT_PREEMPTION: (E("Pod", "Delete"),),
    names.DYNAMIC_RESOURCES: (
        E("Node", "Add|UpdateNodeLabel|UpdateNodeAllocatable"),
        E("resource.k8s.io/ResourceClaim", "Add|Update"),
        E("Pod", "UpdatePodGeneratedResourceClaim"),
        E("resource.k8s.io/DeviceClass", "Add|Update"),
        E("resource.k8s.io/ResourceSlice", "Add|Update"),
    ),
    names.INTER_POD_AFFINITY: (
        E("Pod", "Add|UpdatePodLabel|Delete"),
        E("Node", "Add|UpdateNodeLabel"),
    ),
    names.NODE_AFFINITY: (E("Node", "Add|UpdateNodeLabel"),),
    names.NODE_NAME: (E("Node", "Add"),),
    names.NODE_PORTS: (E("Pod", "Delete"), E("Node", "Add")),
    names.NODE_RESOURCES_FIT: (
        E("Pod", "Delete|UpdatePodScaleDown"),
        E("Node", "Add|UpdateNodeAllocatable"),
    ),
    names.NODE_UNSCHEDULABLE: (E("Node", "Add|UpdateNodeTaint"), E("Pod", "UpdatePodToleration")),
    names.NODE_VOLUME_LIMITS: (
        E("storage.k8s.io/CSINode", "Add"),
        E("storage.k8s.io/CSINode", "Update"),
        E("Pod", "Delete"),
        E("PersistentVolumeClaim", "Add"),
        E("storage.k8s.io/VolumeAttachment", "Delete"),
    ),
    names.POD_TOPOLOGY_SPREAD: (
        E("Pod", "Add|UpdatePodLabel|UpdatePodToleration|Delete"),
        E("Node", "Add|Delete|UpdateNodeLabel|UpdateNodeTaint"),
    ),
    names.SCHEDULING_GATES: (E("Pod", "UpdatePodSchedulingGatesEliminated"),),
    names.TAINT_TOLERATION: (E("Node", "Add|UpdateNodeTaint"), E("Pod", "UpdatePodToleration")),
    names.VOLUME_BINDING: (
        E("storage.k8s.io/StorageClass", "Add|Update"),
        E("PersistentVolumeClaim", "Add|Update"),
        E("PersistentVolume", "Add|Update"),
        E("Node", "Add|UpdateNodeLabel"),
        E("storage.k8s.io/CSINode", "Add|Update"),
        E("storage.k8s.io/CSIDriver", "Update"),
        E("storage.k8s.io/CSIStorageCapacity", "Add|Update"),
    ),
    names.VOLUME_RESTRICTIONS: (
        E("Pod", "Delete"),
        E("Node", "Add"),
        E("PersistentVolumeClaim", "Add"),
    ),
    names.VOLUME_ZONE: (
        E("storage.k8s.io/StorageClass", "Add"),
        E("Node", "Add|UpdateNodeLabel"),
        E("PersistentVolumeClaim", "Add|Update"),
        E("PersistentVolume", "Add|Update"),
    ),
}


def test_the_default_profile_plugins_register_upstreams_events() -> None:
    """Every plugin that can reject a pod registers upstream's events; score-only plugins,
    PrioritySort and DefaultBinder register none."""
    assert in_tree_events() == UPSTREAM_EVENTS


def test_event_map_adds_taint_update_for_node_add_plugins() -> None:
    registered = in_tree_events()
    m = {
        plugin: tuple(r.event for r in events)
        for plugin, events in build_event_map(registered).items()
    }
    taint = E("Node", "UpdateNodeTaint")
    assert taint in m[names.NODE_RESOURCES_FIT]
    assert taint in m[names.NODE_AFFINITY]
    assert taint not in registered[names.NODE_AFFINITY]
    assert m[names.TAINT_TOLERATION] == registered[names.TAINT_TOLERATION]
    assert m[names.SCHEDULING_GATES] == registered[names.SCHEDULING_GATES]


def test_matching_registrations_are_those_match_cluster_events_accepts() -> None:
    registered = (
        ClusterEventWithHint(ClusterEvent("Node", "Add|UpdateNodeLabel")),
        ClusterEventWithHint(ClusterEvent("Pod", "Delete")),
        ClusterEventWithHint(ClusterEvent("*", "All")),
    )
    for event in (
        ClusterEvent("Node", "Add"),
        ClusterEvent("Node", "UpdateNodeTaint"),
        ClusterEvent("AssignedPod", "Delete"),
        ClusterEvent("Pod", "Add"),
    ):
        expected = tuple(r for r in registered if match_cluster_events(r.event, event))
        assert matching(registered, event) == expected
        assert matching(registered, event) == expected  # asked again: the same answer
    other = registered[:2]  # another tuple is matched on its own
    assert matching(other, ClusterEvent("Node", "Add")) == registered[:1]
