"""Cluster events: what changed in the cluster, and which changes can requeue a rejected pod.

Mirrors ClusterEvent, ActionType and EventResource of kube-scheduler v1.35
(staging k8s.io/kube-scheduler/framework/types.go), the matching rules and the well-known events
of pkg/scheduler/framework/types.go and framework/events.go, and the change extractors that turn
a Pod or Node update into specific events (PodSchedulingPropertiesChange,
NodeSchedulingPropertiesChange).

An action is spelled as upstream prints it (``"Add"``, ``"UpdateNodeTaint"``); a registered event
may combine several with ``|`` (``"Add|UpdateNodeAllocatable"``), as upstream ORs ActionType bits.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Any, Final

from scheduler_core.objects import quantity as q
from scheduler_core.objects.api import (
    Node,
    Pod,
)

# -- EventResource ---------------------------------------------------------------------------

POD: Final = "Pod"
NODE: Final = "Node"
PERSISTENT_VOLUME: Final = "PersistentVolume"
PERSISTENT_VOLUME_CLAIM: Final = "PersistentVolumeClaim"
CSI_NODE: Final = "storage.k8s.io/CSINode"
CSI_DRIVER: Final = "storage.k8s.io/CSIDriver"
VOLUME_ATTACHMENT: Final = "storage.k8s.io/VolumeAttachment"
CSI_STORAGE_CAPACITY: Final = "storage.k8s.io/CSIStorageCapacity"
STORAGE_CLASS: Final = "storage.k8s.io/StorageClass"
RESOURCE_CLAIM: Final = "resource.k8s.io/ResourceClaim"
RESOURCE_SLICE: Final = "resource.k8s.io/ResourceSlice"
DEVICE_CLASS: Final = "resource.k8s.io/DeviceClass"
WORKLOAD: Final = "scheduling.k8s.io/Workload"
WILDCARD: Final = "*"
# Only ever used for incoming events; a plugin registers "Pod", which matches both.
ASSIGNED_POD: Final = "AssignedPod"
UNSCHEDULABLE_POD: Final = "UnschedulablePod"

# -- ActionType ------------------------------------------------------------------------------

# Upstream bit order; "All" and "Update" are the unions defined there.
_ACTION_BITS: Final[dict[str, int]] = {
    name: 1 << i
    for i, name in enumerate(
        (
            "Add",
            "Delete",
            "UpdateNodeAllocatable",
            "UpdateNodeLabel",
            "UpdateNodeTaint",
            "UpdateNodeCondition",
            "UpdateNodeAnnotation",
            "UpdateNodeDeclaredFeature",
            "UpdatePodLabel",
            "UpdatePodScaleDown",
            "UpdatePodToleration",
            "UpdatePodSchedulingGatesEliminated",
            "UpdatePodGeneratedResourceClaim",
        )
    )
}
_ALL_BITS: Final = (1 << len(_ACTION_BITS)) - 1
_UPDATE_BITS: Final = _ALL_BITS & ~(_ACTION_BITS["Add"] | _ACTION_BITS["Delete"])
_ACTION_BITS["All"] = _ALL_BITS
_ACTION_BITS["Update"] = _UPDATE_BITS

ACTION_TYPES: Final = tuple(_ACTION_BITS)


@cache
def action_bits(action: str) -> int:
    """The ActionType bit mask of an action spelling (``"Add|Delete"`` -> 3)."""
    bits = 0
    for part in action.split("|"):
        try:
            bits |= _ACTION_BITS[part.strip()]
        except KeyError:
            raise ValueError(f"unknown cluster event action {part!r} in {action!r}") from None
    return bits


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """A change of one kind of object: ``resource`` (EventResource), ``action``, optional label.

    ``label`` is upstream's CustomLabel; ``str(event)`` is upstream's Label(): the custom label
    when set, else resource followed by action (``"NodeAdd"``).
    """

    resource: str
    action: str
    label: str = ""

    def __post_init__(self) -> None:
        action_bits(self.action)  # reject misspelled actions at construction

    @property
    def bits(self) -> int:
        return action_bits(self.action)

    def is_wildcard(self) -> bool:
        """ClusterEventIsWildCard: resource "*" with every action."""
        return self.resource == WILDCARD and self.bits == _ALL_BITS

    def __str__(self) -> str:
        return self.label or f"{self.resource}{self.action}"


class QueueingHint(IntEnum):
    """A plugin's answer to a cluster event for a pod it rejected (fwk.QueueingHint)."""

    QUEUE_SKIP = 0  # the event cannot make the pod schedulable: leave it where it is
    QUEUE = 1  # it may: requeue the pod

    @property
    def upstream(self) -> str:
        return "QueueSkip" if self is QueueingHint.QUEUE_SKIP else "Queue"


# hint(pod, old, new): ``old`` is None for an Add, ``new`` None for a Delete. The objects are
# api.Node, api.Pod, or the api types of the other resources. An exception counts as Queue, as
# upstream treats a hint's error, so that no pod is stuck in the unschedulable pool.
QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """An event a plugin registers, with the function that says whether it helps a pod.

    ``hint`` None means Queue for every such event (upstream's defaultQueueingHintFn).
    """

    event: ClusterEvent
    hint: QueueingHintFn | None = None


def _resources_match(registered: str, incoming: str) -> bool:
    return registered in (WILDCARD, incoming) or (
        registered == POD and incoming in (ASSIGNED_POD, UNSCHEDULABLE_POD)
    )


def match_cluster_events(registered: ClusterEvent, incoming: ClusterEvent) -> bool:
    """MatchClusterEvents: ``incoming`` is the same as or more specific than ``registered``.

    A wildcard incoming event matches only a wildcard registration; the queue handles wildcard
    events (timeouts, forced activation) before matching.
    """
    if registered.is_wildcard():
        return True
    r_bits, i_bits = registered.bits, incoming.bits
    return (
        _resources_match(registered.resource, incoming.resource)
        and r_bits & i_bits != 0
        and i_bits <= r_bits
    )


def match_any_cluster_event(incoming: ClusterEvent, registered: Sequence[ClusterEvent]) -> bool:
    """MatchAnyClusterEvent."""
    return any(match_cluster_events(e, incoming) for e in registered)


# -- Well-known events and queue move reasons -------------------------------------------------

SCHEDULE_ATTEMPT_FAILURE: Final = "ScheduleAttemptFailure"
BACKOFF_COMPLETE: Final = "BackoffComplete"
POP_FROM_BACKOFF_Q: Final = "PopFromBackoffQ"
FORCE_ACTIVATE: Final = "ForceActivate"
UNSCHEDULABLE_TIMEOUT: Final = "UnschedulableTimeout"

EVENT_ASSIGNED_POD_ADD: Final = ClusterEvent(ASSIGNED_POD, "Add")
EVENT_ASSIGNED_POD_UPDATE: Final = ClusterEvent(ASSIGNED_POD, "Update")
EVENT_ASSIGNED_POD_DELETE: Final = ClusterEvent(ASSIGNED_POD, "Delete")
EVENT_UNSCHEDULED_POD_ADD: Final = ClusterEvent(UNSCHEDULABLE_POD, "Add")
EVENT_UNSCHEDULED_POD_UPDATE: Final = ClusterEvent(UNSCHEDULABLE_POD, "Update")
EVENT_UNSCHEDULED_POD_DELETE: Final = ClusterEvent(UNSCHEDULABLE_POD, "Delete")
EVENT_UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(WILDCARD, "All", UNSCHEDULABLE_TIMEOUT)
EVENT_FORCE_ACTIVATE: Final = ClusterEvent(WILDCARD, "All", FORCE_ACTIVATE)
EVENT_NODE_ADD: Final = ClusterEvent(NODE, "Add")
EVENT_NODE_DELETE: Final = ClusterEvent(NODE, "Delete")

# The resources a plugin without EventsToRegister is subscribed to (UnrollWildCardResource,
# GenericWorkload off).
UNROLLED_WILDCARD: Final = tuple(
    ClusterEvent(r, "All")
    for r in (
        POD,
        NODE,
        PERSISTENT_VOLUME,
        PERSISTENT_VOLUME_CLAIM,
        CSI_NODE,
        CSI_DRIVER,
        CSI_STORAGE_CAPACITY,
        STORAGE_CLASS,
        RESOURCE_CLAIM,
        DEVICE_CLASS,
    )
)


# -- Change extractors -------------------------------------------------------------------------


def pod_scheduling_properties_change(new: Pod, old: Pod) -> list[ClusterEvent]:
    """PodSchedulingPropertiesChange: the specific events a pod update amounts to, in order.

    Resource is AssignedPod when ``new`` is bound, else UnschedulablePod; when nothing specific
    changed the single event is a plain Update. Scale-down compares spec requests (the
    status-resources refinement of in-place resize is not modelled).
    """
    resource = ASSIGNED_POD if new.node_name else UNSCHEDULABLE_POD
    actions: list[str] = []
    if new.labels != old.labels:
        actions.append("UpdatePodLabel")
    if _is_scale_down(new, old):
        actions.append("UpdatePodScaleDown")
    if not new.scheduling_gates and old.scheduling_gates:
        actions.append("UpdatePodSchedulingGatesEliminated")
    if len(new.tolerations) != len(old.tolerations):
        actions.append("UpdatePodToleration")
    if _claim_statuses(new) != _claim_statuses(old):
        actions.append("UpdatePodGeneratedResourceClaim")
    if not actions:
        actions.append("Update")
    return [ClusterEvent(resource, a) for a in actions]


def _is_scale_down(new: Pod, old: Pod) -> bool:
    new_req = new.requests
    for name, old_nanos in old.requests.items():
        new_nanos = new_req.get(name)
        if new_nanos is None or q.milli_value(old_nanos) > q.milli_value(new_nanos):
            return True
    return False


def _claim_statuses(pod: Pod) -> tuple[Any, Any]:
    status: Mapping[str, Any] = pod.raw.get("status") or {}
    return (
        status.get("resourceClaimStatuses") or None,
        status.get("extendedResourceClaimStatus") or None,
    )


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """NodeSchedulingPropertiesChange: the specific Node update events, in upstream order.

    An empty list means the update changed nothing the scheduler looks at (no event is sent).
    NodeDeclaredFeatures (alpha, off) is not tracked.
    """
    actions: list[str] = []
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        actions.append("UpdateNodeTaint")
    if new.allocatable_list != old.allocatable_list:
        actions.append("UpdateNodeAllocatable")
    if new.labels != old.labels:
        actions.append("UpdateNodeLabel")
    if (_node_spec(new).get("taints") or None) != (_node_spec(old).get("taints") or None):
        actions.append("UpdateNodeTaint")
    if _conditions(new) != _conditions(old):
        actions.append("UpdateNodeCondition")
    if new.annotations != old.annotations:
        actions.append("UpdateNodeAnnotation")
    return [ClusterEvent(NODE, a) for a in actions]


def _node_spec(node: Node) -> Mapping[str, Any]:
    spec: Mapping[str, Any] = node.raw.get("spec") or {}
    return spec


def _conditions(node: Node) -> dict[str, Any]:
    status: Mapping[str, Any] = node.raw.get("status") or {}
    return {c.get("type"): c.get("status") for c in status.get("conditions") or ()}
