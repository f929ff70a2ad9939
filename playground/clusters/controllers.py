"""What controllers would create on a real cluster, deterministically.

``expand_controller`` adds a Deployment's ReplicaSet, a ReplicaSet's pods, one pod per eligible node
for a DaemonSet, ...; names and uids are derived from the objects, so an import gives the same
cluster every time.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Final

from .. import kube

_SAFE_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_UID_NAMESPACE: Final = uuid.UUID("6f1d3c1e-6a4c-4c57-9d1c-4b0f9c7a2e11")


def _fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def _safe_encode(text: str) -> str:
    """apimachinery's rand.SafeEncodeString: no vowels, no look-alike characters."""
    return "".join(_SAFE_ALPHABET[ord(c) % len(_SAFE_ALPHABET)] for c in text)


def template_hash(template: Mapping[str, Any]) -> str:
    """A pod-template-hash: fnv32a of the template, safe-encoded as upstream does."""
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    return _safe_encode(str(_fnv32a(canonical)))


def _suffix(*parts: str) -> str:
    """The 5-character random suffix of generateName, made deterministic."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return "".join(_SAFE_ALPHABET[b % len(_SAFE_ALPHABET)] for b in digest[:5])


def ensure_uid(manifest: dict[str, Any], cluster_key: str = "") -> str:
    metadata = manifest.setdefault("metadata", {})
    if not metadata.get("uid"):
        key = "/".join(
            [
                cluster_key,
                manifest.get("kind", ""),
                metadata.get("namespace") or "",
                metadata.get("name") or "",
            ]
        )
        metadata["uid"] = str(uuid.uuid5(_UID_NAMESPACE, key))
    return str(metadata["uid"])


def _owner_ref(owner: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def owner_keys(manifest: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    """(kind, namespace, name) of every owner an object names."""
    metadata = manifest.get("metadata") or {}
    namespace = metadata.get("namespace") or "default"
    return {
        (ref.get("kind", ""), namespace, ref.get("name", ""))
        for ref in metadata.get("ownerReferences") or []
        if isinstance(ref, dict)
    }


def _pod_from_template(
    owner: Mapping[str, Any], name: str, *, extra_labels: Mapping[str, str] | None = None
) -> dict[str, Any]:
    template = copy.deepcopy((owner.get("spec") or {}).get("template") or {})
    template_meta = template.get("metadata") or {}
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": (owner.get("metadata") or {}).get("namespace") or "default",
    }
    labels = {**(template_meta.get("labels") or {}), **(extra_labels or {})}
    if labels:
        metadata["labels"] = labels
    if template_meta.get("annotations"):
        metadata["annotations"] = template_meta["annotations"]
    metadata["ownerReferences"] = [_owner_ref(owner)]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": template.get("spec") or {},
        "status": {"phase": "Pending"},
    }


def _replicas(spec: Mapping[str, Any], key: str = "replicas", default: int = 1) -> int:
    value = spec.get(key)
    return default if value is None else int(value)


def expand_controller(
    manifest: dict[str, Any], *, nodes: Iterable[Mapping[str, Any]], cluster_key: str = ""
) -> list[dict[str, Any]]:
    """The objects the controller of ``manifest`` would create (it gains a uid if it had none)."""
    kind = manifest["kind"]
    ensure_uid(manifest, cluster_key)
    meta = manifest["metadata"]
    name, namespace = meta["name"], meta.get("namespace") or "default"
    spec = manifest.get("spec") or {}
    template = spec.get("template") or {}
    created: list[dict[str, Any]] = []
    if kind == "Deployment":
        pod_hash = template_hash(template)
        rs_template = copy.deepcopy(template)
        rs_template.setdefault("metadata", {}).setdefault("labels", {})["pod-template-hash"] = (
            pod_hash
        )
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})["pod-template-hash"] = pod_hash
        rs = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": f"{name}-{pod_hash}",
                "namespace": namespace,
                "labels": dict(rs_template["metadata"]["labels"]),
                "ownerReferences": [_owner_ref(manifest)],
            },
            "spec": {"replicas": _replicas(spec), "selector": selector, "template": rs_template},
        }
        created.append(rs)
        created += expand_controller(rs, nodes=nodes, cluster_key=cluster_key)
    elif kind in ("ReplicaSet", "ReplicationController"):
        for i in range(_replicas(spec)):
            created.append(_pod_from_template(manifest, f"{name}-{_suffix(meta['uid'], str(i))}"))
            created[-1]["metadata"]["generateName"] = f"{name}-"
    elif kind == "StatefulSet":
        revision = f"{name}-{template_hash(template)}"
        claims = spec.get("volumeClaimTemplates") or []
        for i in range(_replicas(spec)):
            pod_name = f"{name}-{i}"
            pod = _pod_from_template(
                manifest,
                pod_name,
                extra_labels={
                    "apps.kubernetes.io/pod-index": str(i),
                    "controller-revision-hash": revision,
                    "statefulset.kubernetes.io/pod-name": pod_name,
                },
            )
            pod["spec"]["hostname"] = pod_name
            if spec.get("serviceName"):
                pod["spec"]["subdomain"] = spec["serviceName"]
            for claim in claims:
                claim_name = (claim.get("metadata") or {}).get("name", "data")
                pvc_name = f"{claim_name}-{pod_name}"
                volumes = pod["spec"].setdefault("volumes", [])
                volumes[:] = [v for v in volumes if v.get("name") != claim_name]
                volumes.append(
                    {"name": claim_name, "persistentVolumeClaim": {"claimName": pvc_name}}
                )
                pvc_labels = (manifest.get("spec", {}).get("selector") or {}).get("matchLabels")
                pvc_meta: dict[str, Any] = {"name": pvc_name, "namespace": namespace}
                if pvc_labels:
                    pvc_meta["labels"] = dict(pvc_labels)
                created.append(
                    {
                        "apiVersion": "v1",
                        "kind": "PersistentVolumeClaim",
                        "metadata": pvc_meta,
                        "spec": copy.deepcopy(claim.get("spec") or {}),
                    }
                )
            created.append(pod)
    elif kind == "DaemonSet":
        revision = template_hash(template)
        for node in nodes:
            if not daemon_pod_fits(template.get("spec") or {}, node):
                continue
            node_name = node["metadata"]["name"]
            pod = _pod_from_template(
                manifest,
                f"{name}-{_suffix(meta['uid'], node_name)}",
                extra_labels={"controller-revision-hash": revision, "pod-template-generation": "1"},
            )
            pod["metadata"]["generateName"] = f"{name}-"
            _pin_to_node(pod["spec"], node_name)
            _add_daemon_tolerations(pod["spec"])
            created.append(pod)
    elif kind == "Job":
        parallelism = _replicas(spec, "parallelism")
        completions = spec.get("completions")
        count = parallelism if completions is None else min(parallelism, int(completions))
        uid = meta["uid"]
        labels = {
            "batch.kubernetes.io/controller-uid": uid,
            "batch.kubernetes.io/job-name": name,
            "controller-uid": uid,
            "job-name": name,
        }
        indexed = spec.get("completionMode") == "Indexed"
        for i in range(count):
            pod_name = (
                f"{name}-{i}-{_suffix(uid, str(i))}"
                if indexed
                else f"{name}-{_suffix(uid, str(i))}"
            )
            extra = dict(labels)
            if indexed:
                extra["batch.kubernetes.io/job-completion-index"] = str(i)
            pod = _pod_from_template(manifest, pod_name, extra_labels=extra)
            pod["spec"].setdefault("restartPolicy", "Never")
            created.append(pod)
    return created


_DAEMON_TOLERATIONS: Final = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)


def _daemon_tolerations(pod_spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    added = [{"key": k, "operator": "Exists", "effect": e} for k, e in _DAEMON_TOLERATIONS]
    if pod_spec.get("hostNetwork"):
        added.append(
            {
                "key": "node.kubernetes.io/network-unavailable",
                "operator": "Exists",
                "effect": "NoSchedule",
            }
        )
    return added


def _add_daemon_tolerations(pod_spec: dict[str, Any]) -> None:
    tolerations = pod_spec.setdefault("tolerations", [])
    for toleration in _daemon_tolerations(pod_spec):
        if not any(
            t.get("key") == toleration["key"] and t.get("effect") == toleration["effect"]
            for t in tolerations
        ):
            tolerations.append(toleration)


def _pin_to_node(pod_spec: dict[str, Any], node_name: str) -> None:
    """Upstream ReplaceDaemonSetPodNodeNameNodeAffinity: one matchFields term for the node."""
    affinity = pod_spec.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
        ]
    }


def _tolerates(tolerations: list[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    for tol in tolerations:
        if tol.get("effect") and tol.get("effect") != taint.get("effect"):
            continue
        if tol.get("key") and tol.get("key") != taint.get("key"):
            continue
        if not tol.get("key") and tol.get("operator") != "Exists":
            continue
        if tol.get("operator", "Equal") == "Exists" or tol.get("value", "") == taint.get(
            "value", ""
        ):
            return True
    return False


def daemon_pod_fits(pod_spec: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """The DaemonSet controller's predicates: node selector, required affinity, taints."""
    labels = (node.get("metadata") or {}).get("labels") or {}
    node_name = (node.get("metadata") or {}).get("name")
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = required.get("nodeSelectorTerms") or []
    if terms:
        fields = {"metadata.name": node_name}
        if not any(
            (term.get("matchExpressions") or term.get("matchFields"))
            and kube.requirements_match(term.get("matchExpressions") or [], labels)
            and kube.requirements_match(term.get("matchFields") or [], fields)
            for term in terms
        ):
            return False
    tolerations = list(pod_spec.get("tolerations") or []) + _daemon_tolerations(pod_spec)
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(
            tolerations, taint
        ):
            return False
    return True
