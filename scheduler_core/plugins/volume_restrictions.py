"""VolumeRestrictions: refuse nodes where the pod's disks conflict with running pods' disks, and
pods whose ReadWriteOncePod claim is already in use.

Mirrors plugins/volumerestrictions in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.events import (
    NODE,
    PERSISTENT_VOLUME_CLAIM,
    POD,
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
from scheduler_core.plugins.shared.volumes import is_pod_claim, quote
from scheduler_core.words import _, listed

NAME: Final = names.VOLUME_RESTRICTIONS
ERR_REASON_DISK_CONFLICT: Final = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT: Final = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
READ_WRITE_ONCE_POD: Final = "ReadWriteOncePod"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_RESTRICTED_SOURCES: Final = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


class _PreFilterState:
    """The pod's ReadWriteOncePod claim names and how many uses of them other pods hold."""

    __slots__ = ("rwop_claims", "conflicting_ref_count")

    def __init__(self, rwop_claims: frozenset[str], conflicting_ref_count: int) -> None:
        self.rwop_claims = rwop_claims
        self.conflicting_ref_count = conflicting_ref_count

    def clone(self) -> StateData:
        return _PreFilterState(self.rwop_claims, self.conflicting_ref_count)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        # Upstream compares claim names only, whatever the other pod's namespace.
        conflicts = 0
        for vol in pod.volumes:
            src = vol.get("persistentVolumeClaim")
            if src is not None and (src.get("claimName") or "") in self.rwop_claims:
                conflicts += 1
        self.conflicting_ref_count += multiplier * conflicts


def _needs_restrictions_check(vol: Mapping[str, Any]) -> bool:
    return any(vol.get(src) is not None for src in _RESTRICTED_SOURCES)


def _have_overlap(a: Sequence[str], b: Sequence[str]) -> bool:
    return bool(set(a) & set(b))


def _both_writable(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Not read-only in both pods: only then do two uses of one disk conflict."""
    return not (a.get("readOnly") and b.get("readOnly"))


def _same_disk(source: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two volume sources of one kind name the same disk and conflict."""
    if source == "gcePersistentDisk":
        return (a.get("pdName") or "") == (b.get("pdName") or "") and _both_writable(a, b)
    if source == "awsElasticBlockStore":
        # Read-only or not, an EBS volume attaches to one node at a time.
        return (a.get("volumeID") or "") == (b.get("volumeID") or "")
    if source == "iscsi":
        return (a.get("iqn") or "") == (b.get("iqn") or "") and _both_writable(a, b)
    # rbd: the API server defaults the pool to "rbd".
    return (
        _have_overlap(a.get("monitors") or (), b.get("monitors") or ())
        and (a.get("pool") or "rbd") == (b.get("pool") or "rbd")
        and (a.get("image") or "") == (b.get("image") or "")
        and _both_writable(a, b)
    )


def _is_volume_conflict(vol: Mapping[str, Any], existing_pod: Pod) -> bool:
    """isVolumeConflict: the same disk used by both pods, not read-only by both."""
    for ev in existing_pod.volumes:
        for source in _RESTRICTED_SOURCES:
            a = vol.get(source)
            b = ev.get(source)
            if a is not None and b is not None and _same_disk(source, a, b):
                return True
    return False


def _read(state: CycleState) -> _PreFilterState:
    value = state.get(_PRE_FILTER_KEY)
    if not isinstance(value, _PreFilterState):
        raise KeyError(f"cannot read {quote(_PRE_FILTER_KEY)} from cycleState")
    return value


class VolumeRestrictions:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.volumes:
            return None, SKIP
        needs_check = any(_needs_restrictions_check(v) for v in pod.volumes)
        snapshot = self.handle.snapshot
        pvcs = snapshot.objects.pvcs
        rwop: set[str] = set()
        for vol in pod.volumes:
            src = vol.get("persistentVolumeClaim")
            if src is None:
                continue
            claim_name = str(src.get("claimName") or "")
            pvc = pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None:
                return None, unresolvable(f"persistentvolumeclaim {quote(claim_name)} not found")
            if READ_WRITE_ONCE_POD in (pvc.spec.get("accessModes") or ()):
                rwop.add(pvc.name)
        conflicts = sum(
            1 for claim in rwop if snapshot.is_pvc_used_by_pods(f"{pod.namespace}/{claim}")
        )
        if not needs_check and conflicts == 0:
            return None, SKIP
        state.write(_PRE_FILTER_KEY, _PreFilterState(frozenset(rwop), conflicts))
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        try:
            s = _read(state)
        except KeyError as err:
            return error(err.args[0])
        s.update_with_pod(pod_to_add, 1)
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        try:
            s = _read(state)
        except KeyError as err:
            return error(err.args[0])
        s.update_with_pod(pod_to_remove, -1)
        return SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        for vol in pod.volumes:
            if not _needs_restrictions_check(vol):
                continue
            for existing in node_info.pods:
                if _is_volume_conflict(vol, existing):
                    return unschedulable(ERR_REASON_DISK_CONFLICT)
        try:
            s = _read(state)
        except KeyError as err:
            return error(err.args[0])
        if s.conflicting_ref_count > 0:
            return unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return SUCCESS

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Volumes are immutable, so pod updates are ignored; any added node may do.
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, "Delete"), self.is_schedulable_after_pod_deleted
            ),
            ClusterEventWithHint(ClusterEvent(NODE, "Add")),
            ClusterEventWithHint(
                ClusterEvent(PERSISTENT_VOLUME_CLAIM, "Add"),
                self.is_schedulable_after_pvc_added,
            ),
        ]

    def is_schedulable_after_pvc_added(self, pod: Pod, old: None, new: KubeObject) -> QueueingHint:
        """Queue when the added claim is one the pod uses (its access modes were unknown)."""
        if is_pod_claim(pod, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: None) -> QueueingHint:
        """Queue when the deleted pod of the namespace held a disk the pod conflicts on, or used
        one of its claims (a ReadWriteOncePod claim may be free now)."""
        if old.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if any(
            _needs_restrictions_check(vol) and _is_volume_conflict(vol, old) for vol in pod.volumes
        ):
            return QueueingHint.QUEUE
        if set(pod.pvc_names()) & set(old.pvc_names()):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        claims = list(ctx.pod.pvc_names())
        return (
            {"claims": claims},
            "",
            (
                _("The pod's claims: %(claims)s.") % {"claims": listed(claims)}
                if claims
                else _("The pod uses no claim.")
            ),
        )


def new(args: Any, handle: Handle) -> VolumeRestrictions:
    return VolumeRestrictions(handle)
