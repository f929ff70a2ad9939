"""VolumeZone: keep pods on nodes in the zones and regions of their bound PersistentVolumes.

Mirrors plugins/volumezone in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SKIP, SUCCESS, Status, unresolvable
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import FrozenState
from scheduler_core.plugins.shared.volumes import (
    WAIT_FOR_FIRST_CONSUMER,
    claim_storage_class,
    is_pod_claim,
    quote,
)
from scheduler_core.words import _, sentence_of

NAME: Final = names.VOLUME_ZONE
ERR_REASON_CONFLICT: Final = "node(s) had no available volume zone"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"

_BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"
_GA_ZONE: Final = "topology.kubernetes.io/zone"
_GA_REGION: Final = "topology.kubernetes.io/region"
TOPOLOGY_LABELS: Final = (_BETA_ZONE, _BETA_REGION, _GA_ZONE, _GA_REGION)
_TO_GA: Final = {_BETA_ZONE: _GA_ZONE, _BETA_REGION: _GA_REGION}
# cloud-provider volume helpers: a label may list several zones joined by this.
MULTI_ZONE_DELIMITER: Final = "__"


class _PVTopology:
    __slots__ = ("pv_name", "key", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset[str]) -> None:
        self.pv_name = pv_name
        self.key = key
        self.values = values


class _State(FrozenState):
    __slots__ = ("topologies",)

    def __init__(self, topologies: tuple[_PVTopology, ...]) -> None:
        self.topologies = topologies


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """LabelZonesToSet; None when an element is empty (the label is then ignored)."""
    zones = set()
    for zone in value.split(MULTI_ZONE_DELIMITER):
        zone = zone.strip()
        if not zone:
            return None
        zones.add(zone)
    return frozenset(zones)


def pv_topologies(pv: KubeObject) -> list[_PVTopology]:
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is not None:
            out.append(_PVTopology(pv.name, key, zones))
    return out


class VolumeZone:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _pv_topologies_of(self, pod: Pod) -> tuple[list[_PVTopology], Status]:
        """getPVbyPod: the zone constraints of the pod's bound volumes."""
        objs = self.handle.snapshot.objects
        out: list[_PVTopology] = []
        for vol in pod.volumes:
            src = vol.get("persistentVolumeClaim")
            if src is None:
                continue
            claim_name = str(src.get("claimName") or "")
            if not claim_name:
                return [], unresolvable("PersistentVolumeClaim had no name")
            pvc = objs.pvcs.get(f"{pod.namespace}/{claim_name}")
            if pvc is None:
                return [], unresolvable(f"persistentvolumeclaim {quote(claim_name)} not found")
            pv_name = str(pvc.spec.get("volumeName") or "")
            if not pv_name:
                class_name = claim_storage_class(pvc)
                if not class_name:
                    return [], unresolvable(
                        "PersistentVolumeClaim had no pv name and storageClass name"
                    )
                sc = objs.storage_classes.get(class_name)
                if sc is None:
                    return [], unresolvable(
                        f"storageclass.storage.k8s.io {quote(class_name)} not found"
                    )
                # The API server defaults an absent volumeBindingMode to Immediate.
                if sc.raw.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER:
                    continue
                return [], unresolvable("PersistentVolume had no name")
            pv = objs.pvs.get(pv_name)
            if pv is None:
                return [], unresolvable(f"persistentvolume {quote(pv_name)} not found")
            out.extend(pv_topologies(pv))
        return out, SUCCESS

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.volumes:
            return None, SKIP
        topologies, status = self._pv_topologies_of(pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, SKIP
        state.write(_PRE_FILTER_KEY, _State(tuple(topologies)))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if not pod.volumes:
            return SUCCESS
        s = state.get(_PRE_FILTER_KEY)
        if isinstance(s, _State):
            topologies: Sequence[_PVTopology] = s.topologies
        else:
            found, status = self._pv_topologies_of(pod)
            if not status.is_success():
                return status
            topologies = found
        labels = node_info.node.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return SUCCESS
        for _key, _value, ok in zone_checks(topologies, labels):
            if not ok:
                return unresolvable(ERR_REASON_CONFLICT)
        return SUCCESS

    def topologies(self, state: CycleState) -> Sequence[_PVTopology]:
        """The zone and region labels of the pod's bound volumes, as PreFilter found them."""
        s = state.get(_PRE_FILTER_KEY)
        return s.topologies if isinstance(s, _State) else ()

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # volumeBindingMode is immutable: only an added class can newly wait for a consumer.
            ClusterEventWithHint(
                ClusterEvent(STORAGE_CLASS, "Add"), self.is_schedulable_after_storage_class_added
            ),
            ClusterEventWithHint(ClusterEvent(NODE, "Add|UpdateNodeLabel")),
            ClusterEventWithHint(
                ClusterEvent(PERSISTENT_VOLUME_CLAIM, "Add|Update"),
                self.is_schedulable_after_pvc_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(PERSISTENT_VOLUME, "Add|Update"), self.is_schedulable_after_pv_change
            ),
        ]

    def is_schedulable_after_pvc_change(
        self, pod: Pod, old: KubeObject | None, new: KubeObject
    ) -> QueueingHint:
        """Queue when the claim is one the pod uses."""
        if is_pod_claim(pod, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_added(
        self, pod: Pod, old: None, new: KubeObject
    ) -> QueueingHint:
        """Queue when the added class binds volumes at the first consumer."""
        if new.raw.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pv_change(
        self, pod: Pod, old: KubeObject | None, new: KubeObject
    ) -> QueueingHint:
        """Queue when a volume is created, or its zone labels changed."""
        if old is None or _zones(old) != _zones(new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        labels = view.node_info.node.labels
        checks = zone_checks(self.topologies(view.state), labels)
        rows = [
            {"pv": t.pv_name, "label": t.key, "allowed": sorted(t.values), "node": v, "matches": ok}
            for t, v, ok in checks
        ]
        texts = [
            (
                _("%(pv)s is in %(key)s %(values)s; the node has %(value)s")
                if v is not None
                else _("%(pv)s is in %(key)s %(values)s; the node has no such label")
            )
            % {"pv": t.pv_name, "key": t.key, "values": "/".join(sorted(t.values)), "value": v}
            for t, v, _ok in checks
        ]
        return (
            {"volumes": rows},
            _("the node's zone/region is one each bound volume allows"),
            sentence_of(texts) or _("The pod has no bound volume with a zone."),
        )


def _zones(pv: KubeObject) -> list[tuple[str, frozenset[str]]]:
    return [(t.key, t.values) for t in pv_topologies(pv)]


def zone_checks(
    topologies: Sequence[_PVTopology], labels: Mapping[str, str]
) -> list[tuple[_PVTopology, str | None, bool]]:
    """Each volume topology label with the node's value for it (the beta key falling back to
    the GA one) and whether that value is one the volume allows."""
    out = []
    for topo in topologies:
        value = labels.get(topo.key)
        if value is None:
            value = labels.get(_TO_GA.get(topo.key, topo.key))
        out.append((topo, value, value is not None and value in topo.values))
    return out


def new(args: Any, handle: Handle) -> VolumeZone:
    return VolumeZone(handle)
