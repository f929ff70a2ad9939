"""VolumeBinding's queueing hints: which cluster events may help a pod it rejected.

Mirrors EventsToRegister and the isSchedulableAfter... functions of
plugins/volumebinding/volume_binding.go in kube-scheduler v1.35 (kept apart from the plugin
module, which is long enough). The changed objects are KubeObjects.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.events import (
    CSI_DRIVER,
    CSI_NODE,
    CSI_STORAGE_CAPACITY,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.objects import quantity as q
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.plugins.node_volume_limits import MIGRATED_PLUGINS_ANNOTATION
from scheduler_core.plugins.shared.volumes import pod_claim_names


def events_to_register() -> list[ClusterEventWithHint]:
    return [
        ClusterEventWithHint(
            ClusterEvent(STORAGE_CLASS, "Add|Update"), is_schedulable_after_storage_class_change
        ),
        ClusterEventWithHint(
            ClusterEvent(PERSISTENT_VOLUME_CLAIM, "Add|Update"), is_schedulable_after_pvc_change
        ),
        # Any new or changed volume may be the one to bind: no hint.
        ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME, "Add|Update")),
        ClusterEventWithHint(ClusterEvent(NODE, "Add|UpdateNodeLabel")),
        ClusterEventWithHint(
            ClusterEvent(CSI_NODE, "Add|Update"), is_schedulable_after_csi_node_change
        ),
        ClusterEventWithHint(
            ClusterEvent(CSI_DRIVER, "Update"), is_schedulable_after_csi_driver_change
        ),
        ClusterEventWithHint(
            ClusterEvent(CSI_STORAGE_CAPACITY, "Add|Update"),
            is_schedulable_after_csi_storage_capacity_change,
        ),
    ]


def is_schedulable_after_csi_node_change(
    pod: Pod, old: KubeObject | None, new: KubeObject
) -> QueueingHint:
    """Queue for a new CSINode, or one whose migrated-plugins annotation changed."""
    if old is None:
        return QueueingHint.QUEUE
    key = MIGRATED_PLUGINS_ANNOTATION
    if old.annotations.get(key) != new.annotations.get(key):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def is_schedulable_after_pvc_change(
    pod: Pod, old: KubeObject | None, new: KubeObject
) -> QueueingHint:
    """Queue when the claim is one of the pod's (ephemeral ones included)."""
    if new.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    if any(name == new.name for name, _, _ in pod_claim_names(pod)):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def is_schedulable_after_storage_class_change(
    pod: Pod, old: KubeObject | None, new: KubeObject
) -> QueueingHint:
    """Queue for a new class, or one whose allowedTopologies changed."""
    if old is None or old.raw.get("allowedTopologies") != new.raw.get("allowedTopologies"):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def _volume_limit(capacity: KubeObject) -> int | None:
    """volumeLimit: maximumVolumeSize when set, else capacity (in nano-units)."""
    raw: Any = capacity.raw.get("maximumVolumeSize") or capacity.raw.get("capacity")
    return q.parse_nanos(str(raw)) if raw is not None else None


def is_schedulable_after_csi_storage_capacity_change(
    pod: Pod, old: KubeObject | None, new: KubeObject
) -> QueueingHint:
    """Queue for new capacity, or a volume limit that appeared or grew."""
    if old is None:
        return QueueingHint.QUEUE
    before, after = _volume_limit(old), _volume_limit(new)
    if after is not None and (before is None or after > before):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP


def is_schedulable_after_csi_driver_change(
    pod: Pod, old: KubeObject, new: KubeObject
) -> QueueingHint:
    """Queue when a driver of the pod's inline CSI volumes stopped tracking storage capacity."""
    for vol in pod.volumes:
        csi = vol.get("csi")
        if csi is None or csi.get("driver") != new.name:
            continue
        if old.spec.get("storageCapacity") is True and new.spec.get("storageCapacity") is not True:
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP
