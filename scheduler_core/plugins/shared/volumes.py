"""Storage helpers shared by the volume plugins (VolumeBinding, VolumeZone, NodeVolumeLimits,
VolumeRestrictions): a pod's claims, storage classes and binding modes, a PV's capacity and node
affinity, and binding a PV to a claim as the PV controller would. Mirrors
component-helpers/storage/volume and the volume binder's helpers in kube-scheduler v1.35.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.objects import quantity as q
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.objects.labels import (
    IN,
    NodeSelector,
    Selector,
    SelectorError,
    make_requirement,
    node_selector,
)

ANN_BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
BETA_STORAGE_CLASS_ANNOTATION: Final = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER: Final = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER: Final = "WaitForFirstConsumer"
# CheckNodeAffinity matches a PV against a node that carries labels only: no metadata.name field
# requirement can match it. A name no node can have stands in for the empty one.
_NO_NODE_NAME: Final = "\x01"
# -- storage helpers (component-helpers/storage/volume), also used by the other volume plugins --


def quote(text: str) -> str:
    """Go's %q for the plain names found in object names."""
    return json.dumps(text, ensure_ascii=False)


def claim_storage_class(pvc: KubeObject) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName."""
    ann = pvc.annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if ann is not None:
        return ann
    return str(pvc.spec.get("storageClassName") or "")


def pv_storage_class(pv: KubeObject) -> str:
    """GetPersistentVolumeClass."""
    ann = pv.annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if ann is not None:
        return ann
    return str(pv.spec.get("storageClassName") or "")


def binding_mode(storage_class: KubeObject) -> str:
    """The class's volumeBindingMode; the API server defaults an absent one to Immediate."""
    return str(storage_class.raw.get("volumeBindingMode") or "Immediate")


def is_deleting(obj: KubeObject) -> bool:
    meta = obj.raw.get("metadata") or {}
    return meta.get("deletionTimestamp") is not None


def pod_claim_names(pod: Pod) -> list[tuple[str, bool, Mapping[str, Any]]]:
    """The claims of the pod's PVC and generic ephemeral volumes: (name, ephemeral?, volume)."""
    out: list[tuple[str, bool, Mapping[str, Any]]] = []
    for vol in pod.volumes:
        pvc_src = vol.get("persistentVolumeClaim")
        if pvc_src is not None:
            out.append((str(pvc_src.get("claimName") or ""), False, vol))
        elif vol.get("ephemeral") is not None:
            out.append((f"{pod.name}-{vol.get('name', '')}", True, vol))
    return out


def is_pod_claim(pod: Pod, pvc: KubeObject) -> bool:
    """Whether a persistentVolumeClaim volume of the pod names ``pvc`` (not ephemeral ones)."""
    return pvc.namespace == pod.namespace and pvc.name in pod.pvc_names()


def ephemeral_owner_error(pod: Pod, pvc: KubeObject) -> str | None:
    """ephemeral.VolumeIsForPod: the claim must be controlled by the pod."""
    meta = pvc.raw.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if ref.get("controller") and ref.get("uid") == pod.uid:
            return None
    return (
        f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
        f"{pod.namespace}/{pod.name} (pod is not owner)"
    )


def storage_request(pvc: KubeObject) -> int:
    """The claim's storage request in nano-units (0 when absent)."""
    resources = pvc.spec.get("resources") or {}
    return _nanos((resources.get("requests") or {}).get("storage"))


def pv_capacity(pv: KubeObject) -> int:
    """The volume's storage capacity in nano-units (0 when absent)."""
    return _nanos((pv.spec.get("capacity") or {}).get("storage"))


def _nanos(text: Any) -> int:
    if text is None:
        return 0
    try:
        return q.parse_nanos(text)
    except q.QuantityError:
        return 0


def pv_node_affinity(pv: KubeObject) -> NodeSelector | None:
    """The PV's required node affinity, or None when it admits every node."""
    affinity = pv.spec.get("nodeAffinity")
    if not affinity:
        return None
    required = affinity.get("required")
    if required is None:
        return None
    return node_selector(required)


def check_node_affinity(affinity: NodeSelector | None, node_labels: Mapping[str, str]) -> bool:
    """CheckNodeAffinity over a parsed PV affinity."""
    if affinity is None:
        return True
    return affinity.matches(node_labels, _NO_NODE_NAME)


def is_volume_bound_to_claim(pv: KubeObject, claim: KubeObject) -> bool:
    ref = pv.spec.get("claimRef")
    if ref is None:
        return False
    if claim.name != (ref.get("name") or "") or claim.namespace != (ref.get("namespace") or ""):
        return False
    ref_uid = ref.get("uid") or ""
    return not (ref_uid and claim_uid(claim) != ref_uid)


def claim_uid(claim: KubeObject) -> str:
    return claim.uid


def is_claim_fully_bound(pvc: KubeObject) -> bool:
    return bool(pvc.spec.get("volumeName")) and ANN_BIND_COMPLETED in pvc.annotations


def match_topology_selector_terms(
    terms: Sequence[Mapping[str, Any]] | None, node_labels: Mapping[str, str]
) -> bool:
    """v1helper.MatchTopologySelectorTerms: no terms match everything; an empty term nothing."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or ()
        if not exprs:
            continue
        try:
            reqs = [
                make_requirement(str(e.get("key") or ""), IN, list(e.get("values") or ()))
                for e in exprs
            ]
        except SelectorError:
            continue
        if Selector(reqs).matches(node_labels):
            return True
    return False


def with_annotation(obj: KubeObject, key: str, value: str) -> KubeObject:
    raw = copy.deepcopy(dict(obj.raw))
    meta = raw.setdefault("metadata", {})
    anns = dict(meta.get("annotations") or {})
    anns[key] = value
    meta["annotations"] = anns
    return KubeObject(raw)


def bind_volume_to_claim(pv: KubeObject, claim: KubeObject) -> tuple[KubeObject, bool]:
    """GetBindVolumeToClaim: the PV with a claimRef to claim; dirty when anything changed."""
    set_bound_by_controller = not is_volume_bound_to_claim(pv, claim)
    raw = copy.deepcopy(dict(pv.raw))
    spec = raw.setdefault("spec", {})
    ref = spec.get("claimRef")
    dirty = False
    if (
        ref is None
        or ref.get("name") != claim.name
        or (ref.get("namespace") or "") != claim.namespace
        or (ref.get("uid") or "") != claim_uid(claim)
    ):
        spec["claimRef"] = {
            "kind": "PersistentVolumeClaim",
            "namespace": claim.namespace,
            "name": claim.name,
            "uid": claim_uid(claim),
            "apiVersion": "v1",
        }
        dirty = True
    meta = raw.setdefault("metadata", {})
    anns = dict(meta.get("annotations") or {})
    if set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in anns:
        anns[ANN_BOUND_BY_CONTROLLER] = "yes"
        meta["annotations"] = anns
        dirty = True
    return KubeObject(raw), dirty
