"""The cluster events each in-tree plugin registers (EventsToRegister), as in kube-scheduler v1.35.

Taken from each plugin under framework/plugins/*/ with the v1.35 default feature gates:
SchedulerQueueingHints (GA), InPlacePodVerticalScaling, SchedulerAsyncPreemption and
DynamicResourceAllocation on; DRAExtendedResource, GangScheduling and NodeDeclaredFeatures off
(GangScheduling's events are listed anyway: they only matter when a profile enables it).
This table is what a plugin registers without its hint functions: the in-tree plugins supply
their own (``events_to_register()``, with a QueueingHint function per event), which the scheduler
uses instead; the table stays for plugins that have none here (DynamicResources, GangScheduling,
DefaultPreemption) and for queues built without frameworks.

Only plugins that can reject a pod (PreEnqueue, PreFilter, Filter, Reserve, Permit) subscribe;
score-only plugins, PrioritySort and DefaultBinder have no entry. A PreEnqueue/Filter plugin that
registers nothing (NodeDeclaredFeatures with its gate off) maps to an empty tuple: only an update
of the pod itself, or the timeout flush, brings its pods back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from scheduler_core.framework.events import (
    CSI_DRIVER,
    CSI_NODE,
    CSI_STORAGE_CAPACITY,
    DEVICE_CLASS,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    STORAGE_CLASS,
    VOLUME_ATTACHMENT,
    WORKLOAD,
    ClusterEvent,
    ClusterEventWithHint,
    action_bits,
)
from scheduler_core.plugins import names

E = ClusterEvent

EVENTS_OF_INTEREST: Final[dict[str, tuple[ClusterEvent, ...]]] = {
    names.DEFAULT_PREEMPTION: (E(POD, "Delete"),),
    names.DYNAMIC_RESOURCES: (
        E(NODE, "Add|UpdateNodeLabel|UpdateNodeAllocatable"),
        E(RESOURCE_CLAIM, "Add|Update"),
        E(POD, "UpdatePodGeneratedResourceClaim"),
        E(DEVICE_CLASS, "Add|Update"),
        E(RESOURCE_SLICE, "Add|Update"),
    ),
    names.GANG_SCHEDULING: (E(POD, "Add"), E(WORKLOAD, "Add")),
    names.INTER_POD_AFFINITY: (
        E(POD, "Add|UpdatePodLabel|Delete"),
        E(NODE, "Add|UpdateNodeLabel"),
    ),
    names.NODE_AFFINITY: (E(NODE, "Add|UpdateNodeLabel"),),
    names.NODE_DECLARED_FEATURES: (),
    names.NODE_NAME: (E(NODE, "Add"),),
    names.NODE_PORTS: (E(POD, "Delete"), E(NODE, "Add")),
    names.NODE_RESOURCES_FIT: (
        E(POD, "Delete|UpdatePodScaleDown"),
        E(NODE, "Add|UpdateNodeAllocatable"),
    ),
    names.NODE_UNSCHEDULABLE: (
        E(NODE, "Add|UpdateNodeTaint"),
        E(POD, "UpdatePodToleration"),
    ),
    names.NODE_VOLUME_LIMITS: (
        E(CSI_NODE, "Add"),
        E(CSI_NODE, "Update"),
        E(POD, "Delete"),
        E(PERSISTENT_VOLUME_CLAIM, "Add"),
        E(VOLUME_ATTACHMENT, "Delete"),
    ),
    names.POD_TOPOLOGY_SPREAD: (
        E(POD, "Add|UpdatePodLabel|UpdatePodToleration|Delete"),
        E(NODE, "Add|Delete|UpdateNodeLabel|UpdateNodeTaint"),
    ),
    names.SCHEDULING_GATES: (E(POD, "UpdatePodSchedulingGatesEliminated"),),
    names.TAINT_TOLERATION: (
        E(NODE, "Add|UpdateNodeTaint"),
        E(POD, "UpdatePodToleration"),
    ),
    names.VOLUME_BINDING: (
        E(STORAGE_CLASS, "Add|Update"),
        E(PERSISTENT_VOLUME_CLAIM, "Add|Update"),
        E(PERSISTENT_VOLUME, "Add|Update"),
        E(NODE, "Add|UpdateNodeLabel"),
        E(CSI_NODE, "Add|Update"),
        E(CSI_DRIVER, "Update"),
        E(CSI_STORAGE_CAPACITY, "Add|Update"),
    ),
    names.VOLUME_RESTRICTIONS: (
        E(POD, "Delete"),
        E(NODE, "Add"),
        E(PERSISTENT_VOLUME_CLAIM, "Add"),
    ),
    names.VOLUME_ZONE: (
        E(STORAGE_CLASS, "Add"),
        E(NODE, "Add|UpdateNodeLabel"),
        E(PERSISTENT_VOLUME_CLAIM, "Add|Update"),
        E(PERSISTENT_VOLUME, "Add|Update"),
    ),
}

_NODE_UPDATE_TAINT: Final = ClusterEvent(NODE, "UpdateNodeTaint")


Registered = ClusterEvent | ClusterEventWithHint


def with_hint(registered: Registered) -> ClusterEventWithHint:
    """An event as registered with its hint (none for a bare ClusterEvent: always Queue)."""
    return (
        registered
        if isinstance(registered, ClusterEventWithHint)
        else ClusterEventWithHint(registered)
    )


def build_event_map(
    events_of_interest: Mapping[str, Sequence[Registered]],
) -> dict[str, tuple[ClusterEventWithHint, ...]]:
    """The events (with their hints) each plugin is subscribed to in the scheduler's queue.

    As buildQueueingHintMap does, a plugin that registers Node/Add but no Node event covering
    UpdateNodeTaint also gets Node/UpdateNodeTaint with no hint (kubernetes issue 109437): so a
    pod that NodeResourcesFit rejected is retried when a node's taints change.
    """
    add, taint = action_bits("Add"), action_bits("UpdateNodeTaint")
    out: dict[str, tuple[ClusterEventWithHint, ...]] = {}
    for plugin, events in events_of_interest.items():
        registered = tuple(with_hint(e) for e in events)
        node_bits = [r.event.bits for r in registered if r.event.resource == NODE]
        if any(b & add for b in node_bits) and not any(b & taint for b in node_bits):
            registered += (ClusterEventWithHint(_NODE_UPDATE_TAINT),)
        out[plugin] = registered
    return out
