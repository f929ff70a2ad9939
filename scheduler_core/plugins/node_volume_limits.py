"""NodeVolumeLimits: keep a node's CSI volume attachments within the limits its CSINode reports.

Mirrors plugins/nodevolumelimits (csi.go, utils.go) in kube-scheduler v1.35. Volumes are counted
per CSI driver by unique name (driver and volume handle); in-tree volumes count when their
plugin is migrated to CSI on the node. Not carried over: VolumeAttachment objects (the engine has
none) and the VolumeLimitScaling gate (off in v1.35). In-tree volume handles are derived as the
translation library does for the fields that make them unique.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    CSI_NODE,
    PERSISTENT_VOLUME_CLAIM,
    POD,
    VOLUME_ATTACHMENT,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.volumes import (
    claim_storage_class,
    ephemeral_owner_error,
    pod_claim_names,
    quote,
)
from scheduler_core.words import _

NAME: Final = names.NODE_VOLUME_LIMITS
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: Final = "node(s) exceed max volume count"
MIGRATED_PLUGINS_ANNOTATION: Final = "storage.alpha.kubernetes.io/migrated-plugins"
# Stands in for upstream's random per-plugin prefix of the handles of not-yet-provisioned volumes.
_VOLUME_ID_PREFIX: Final = "scheduler-core-pending-volume"

AWS_EBS: Final = "kubernetes.io/aws-ebs"
GCE_PD: Final = "kubernetes.io/gce-pd"
AZURE_DISK: Final = "kubernetes.io/azure-disk"
AZURE_FILE: Final = "kubernetes.io/azure-file"
CINDER: Final = "kubernetes.io/cinder"
VSPHERE: Final = "kubernetes.io/vsphere-volume"
PORTWORX: Final = "kubernetes.io/portworx-volume"

# in-tree plugin name -> CSI driver name (csi-translation-lib)
CSI_DRIVER_OF: Final[dict[str, str]] = {
    AWS_EBS: "ebs.csi.aws.com",
    GCE_PD: "pd.csi.storage.gke.io",
    AZURE_DISK: "disk.csi.azure.com",
    AZURE_FILE: "file.csi.azure.com",
    CINDER: "cinder.csi.openstack.org",
    VSPHERE: "csi.vsphere.vmware.com",
    PORTWORX: "pxd.portworx.com",
}
# The CSIMigrationPortworx gate is on by default in v1.35.
ENABLE_CSI_MIGRATION_PORTWORX: Final = True

_UNSPECIFIED: Final = "UNSPECIFIED"
_ZONE_LABELS: Final = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


def _gce_handle(src: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
    zone = _UNSPECIFIED
    if labels is not None:
        for key in _ZONE_LABELS:
            if labels.get(key):
                zone = labels[key]
                break
    if "__" in zone:
        return f"projects/{_UNSPECIFIED}/regions/{_UNSPECIFIED}/disks/{src.get('pdName', '')}"
    return f"projects/{_UNSPECIFIED}/zones/{zone}/disks/{src.get('pdName', '')}"


def _aws_handle(src: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
    volume_id = str(src.get("volumeID") or "")
    if volume_id.startswith("aws://"):
        return volume_id.rsplit("/", 1)[-1]
    return volume_id


def _field_handle(field: str) -> Callable[[Mapping[str, Any], Mapping[str, str] | None], str]:
    def handle(src: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
        return str(src.get(field) or "")

    return handle


# volume source field -> (in-tree plugin name, volume handle from the source and PV labels)
_IN_TREE_SOURCES: Final[
    dict[str, tuple[str, Callable[[Mapping[str, Any], Mapping[str, str] | None], str]]]
] = {
    "gcePersistentDisk": (GCE_PD, _gce_handle),
    "awsElasticBlockStore": (AWS_EBS, _aws_handle),
    "azureDisk": (AZURE_DISK, _field_handle("diskURI")),
    "azureFile": (AZURE_FILE, _field_handle("shareName")),
    "cinder": (CINDER, _field_handle("volumeID")),
    "vsphereVolume": (VSPHERE, _field_handle("volumePath")),
    "portworxVolume": (PORTWORX, _field_handle("volumeID")),
}


def is_csi_migration_on(csi_node: KubeObject | None, plugin_name: str) -> bool:
    """isCSIMigrationOn: needs the node's CSINode; Portworx also its migrated-plugins list."""
    if csi_node is None or not plugin_name:
        return False
    if plugin_name in (AWS_EBS, GCE_PD, AZURE_DISK, CINDER):
        return True
    if plugin_name != PORTWORX or not ENABLE_CSI_MIGRATION_PORTWORX:
        return False
    migrated = csi_node.annotations.get(MIGRATED_PLUGINS_ANNOTATION) or ""
    return plugin_name in (migrated.split(",") if migrated else ())


def _in_tree_source(
    spec: Mapping[str, Any],
) -> tuple[str, Mapping[str, Any], Callable[[Mapping[str, Any], Mapping[str, str] | None], str]]:
    for field, (plugin, handle) in _IN_TREE_SOURCES.items():
        src = spec.get(field)
        if src is not None:
            return plugin, src, handle
    return "", {}, _field_handle("")


def volume_limits(csi_node: KubeObject | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable count, for drivers that report one."""
    out: dict[str, int] = {}
    if csi_node is None:
        return out
    for driver in csi_node.spec.get("drivers") or ():
        count = (driver.get("allocatable") or {}).get("count")
        if count is not None:
            out[str(driver.get("name") or "")] = int(count)
    return out


class _LookupError(Exception):
    def __init__(self, message: str, not_found: bool) -> None:
        super().__init__(message)
        self.not_found = not_found


@dataclass(frozen=True, slots=True)
class DriverCount:
    """A CSI driver's volumes on a node: attached already, new with the pod, the limit."""

    driver: str
    attached: int
    new: int
    limit: int | None


class NodeVolumeLimits:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        for vol in pod.volumes:
            if vol.get("persistentVolumeClaim") is not None or vol.get("ephemeral") is not None:
                return None, SUCCESS
            if _in_tree_source(vol)[0]:
                return None, SUCCESS
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.volumes:
            return SUCCESS
        counts, status = self.driver_counts(pod, node_info)
        if not status.is_success():
            return status
        for c in counts:
            if c.limit is not None and c.attached + c.new > c.limit:
                return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return SUCCESS

    def driver_counts(self, pod: Pod, node_info: NodeInfo) -> tuple[list[DriverCount], Status]:
        """Per CSI driver of the pod's volumes not yet on the node: the volumes attached there,
        the pod's new ones and the node's limit (none when the node sets no limits)."""
        node = node_info.node
        csi_node = self.handle.snapshot.objects.csi_nodes.get(node.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi_node, True, new_volumes)
        except _LookupError as err:
            if err.not_found:
                return [], unresolvable(str(err))
            return [], error(str(err))
        if not new_volumes:
            return [], SUCCESS
        limits = volume_limits(csi_node)
        if not limits:
            return [], SUCCESS
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            try:
                self._attachable_volumes(existing, csi_node, False, attached)
            except _LookupError as err:
                return [], error(str(err))
        attached_count: dict[str, int] = {}
        for unique_name, driver in attached.items():
            new_volumes.pop(unique_name, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        return [
            DriverCount(driver, attached_count.get(driver, 0), count, limits.get(driver))
            for driver, count in new_count.items()
        ], SUCCESS

    def _attachable_volumes(
        self, pod: Pod, csi_node: KubeObject | None, new_pod: bool, result: dict[str, str]
    ) -> None:
        """filterAttachableVolumes: add unique volume name -> driver for the pod's CSI volumes."""
        objs = self.handle.snapshot.objects
        claims = {id(vol): (name, eph) for name, eph, vol in pod_claim_names(pod)}
        for vol in pod.volumes:
            claim = claims.get(id(vol))
            if claim is None:
                self._inline_volume(vol, csi_node, result)
                continue
            claim_name, ephemeral = claim
            if not claim_name:
                raise _LookupError("PersistentVolumeClaim had no name", False)
            pvc = objs.pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None:
                if new_pod:
                    raise _LookupError(
                        f"looking up PVC {pod.namespace}/{claim_name}: "
                        f"persistentvolumeclaim {quote(claim_name)} not found",
                        True,
                    )
                continue
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err is not None:
                    raise _LookupError(err, False)
            driver, handle = self._csi_driver_info(csi_node, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = driver

    def _inline_volume(
        self, vol: Mapping[str, Any], csi_node: KubeObject | None, result: dict[str, str]
    ) -> None:
        plugin, src, handle_of = _in_tree_source(vol)
        if not plugin or not is_csi_migration_on(csi_node, plugin):
            return
        driver = CSI_DRIVER_OF[plugin]
        result[f"{driver}/{handle_of(src, None)}"] = driver

    def _csi_driver_info(self, csi_node: KubeObject | None, pvc: KubeObject) -> tuple[str, str]:
        objs = self.handle.snapshot.objects
        pv_name = str(pvc.spec.get("volumeName") or "")
        pv = objs.pvs.get(pv_name) if pv_name else None
        if pv is None:
            return self._csi_driver_info_from_class(csi_node, pvc)
        csi = pv.spec.get("csi")
        if csi is not None:
            return str(csi.get("driver") or ""), str(csi.get("volumeHandle") or "")
        plugin, src, handle_of = _in_tree_source(pv.spec)
        if not plugin or not is_csi_migration_on(csi_node, plugin):
            return "", ""
        return CSI_DRIVER_OF[plugin], handle_of(src, pv.labels)

    def _csi_driver_info_from_class(
        self, csi_node: KubeObject | None, pvc: KubeObject
    ) -> tuple[str, str]:
        class_name = claim_storage_class(pvc)
        if not class_name:
            return "", ""
        sc = self.handle.snapshot.objects.storage_classes.get(class_name)
        if sc is None:
            return "", ""
        handle = f"{_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        provisioner = str(sc.raw.get("provisioner") or "")
        if provisioner in CSI_DRIVER_OF:
            if not is_csi_migration_on(csi_node, provisioner):
                return "", ""
            return CSI_DRIVER_OF[provisioner], handle
        return provisioner, handle

    # -- queueing hints -------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # Any new CSINode may bring the limits a rejected pod needs: no hint.
            ClusterEventWithHint(ClusterEvent(CSI_NODE, "Add")),
            ClusterEventWithHint(
                ClusterEvent(CSI_NODE, "Update"), self.is_schedulable_after_csi_node_updated
            ),
            ClusterEventWithHint(
                ClusterEvent(POD, "Delete"), self.is_schedulable_after_pod_deleted
            ),
            ClusterEventWithHint(
                ClusterEvent(PERSISTENT_VOLUME_CLAIM, "Add"), self.is_schedulable_after_pvc_added
            ),
            ClusterEventWithHint(
                ClusterEvent(VOLUME_ATTACHMENT, "Delete"),
                self.is_schedulable_after_volume_attachment_deleted,
            ),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: None) -> QueueingHint:
        """Queue when a scheduled (or nominated) pod with a claim, an ephemeral or a migratable
        in-tree volume went."""
        if not old.volumes or (not old.node_name and not old.nominated_node_name):
            return QueueingHint.QUEUE_SKIP
        for vol in old.volumes:
            if vol.get("persistentVolumeClaim") or vol.get("ephemeral") or _in_tree_source(vol)[0]:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pvc_added(self, pod: Pod, old: None, new: KubeObject) -> QueueingHint:
        """Queue when the added claim is one of the pod's (ephemeral ones included)."""
        if new.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(name == new.name for name, _, _ in pod_claim_names(pod)):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_volume_attachment_deleted(
        self, pod: Pod, old: KubeObject, new: None
    ) -> QueueingHint:
        """Queue when the pod uses a claim, or an inline volume migrated to the attacher."""
        attacher = str(old.spec.get("attacher") or "")
        for vol in pod.volumes:
            if vol.get("persistentVolumeClaim"):
                return QueueingHint.QUEUE
            plugin = _in_tree_source(vol)[0]
            if plugin and CSI_DRIVER_OF[plugin] == attacher:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_node_updated(
        self, pod: Pod, old: KubeObject, new: KubeObject
    ) -> QueueingHint:
        """Queue when a driver's allocatable count grew (a driver without one counts 0)."""
        before = _driver_counts(old)
        for name, count in _driver_counts(new).items():
            if count > before.get(name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        counts, _per_driver = self.driver_counts(ctx.pod, view.node_info)
        rows = [
            {"driver": c.driver, "attached": c.attached, "new": c.new, "limit": c.limit}
            for c in counts
        ]
        lines = [
            f"{c.driver}: {c.attached} + {c.new} {'>' if c.attached + c.new > c.limit else '≤'} "
            f"{c.limit}"
            for c in counts
            if c.limit is not None
        ]
        text = (
            _(
                "Volumes per CSI driver, attached on the node plus new with the pod, against the "
                "node's limit: %(lines)s."
            )
            % {"lines": "; ".join(lines)}
            if lines
            else _("No attach limit applies to the pod's new volumes on this node.")
        )
        return {"drivers": rows}, "; ".join(lines), text


def _driver_counts(csi_node: KubeObject) -> dict[str, int]:
    out: dict[str, int] = {}
    for driver in csi_node.spec.get("drivers") or ():
        count = (driver.get("allocatable") or {}).get("count")
        out[str(driver.get("name") or "")] = int(count) if count is not None else 0
    return out


def new(args: Any, handle: Handle) -> NodeVolumeLimits:
    return NodeVolumeLimits(handle)
