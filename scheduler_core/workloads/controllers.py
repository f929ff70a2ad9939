"""What workload controllers create on a real cluster: ReplicaSets, pods and their claims.

``expand_controller`` gives a Deployment its ReplicaSet and that ReplicaSet's pods, a ReplicaSet
or ReplicationController its pods, a StatefulSet its pods and PersistentVolumeClaims, a DaemonSet
one pod per eligible node and a Job its running pods, with the labels, owner references and
tolerations the controllers add. Names come from ``naming.GeneratedNames``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Final

from scheduler_core.objects import labels as label_match
from scheduler_core.workloads.naming import GeneratedNames, ensure_uid, template_hash

CONTROLLER_KINDS: Final = (
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "ReplicationController",
    "Job",
)


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
        (str(ref.get("kind", "")), namespace, str(ref.get("name", "")))
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


def _generated_pod(
    owner: Mapping[str, Any], names: GeneratedNames, seed: str, **extra: Any
) -> dict[str, Any]:
    meta = owner["metadata"]
    namespace = meta.get("namespace") or "default"
    name = names.generate("Pod", namespace, f"{meta['name']}-", meta["uid"], seed)
    pod = _pod_from_template(owner, name, **extra)
    pod["metadata"]["generateName"] = f"{meta['name']}-"
    return pod


def expand_controller(
    manifest: dict[str, Any],
    *,
    nodes: Iterable[Mapping[str, Any]],
    cluster_key: str = "",
    names: GeneratedNames | None = None,
) -> list[dict[str, Any]]:
    """The objects the controller of ``manifest`` would create (it gains a uid if it had none).

    ``names`` holds the names already taken in the cluster; generated ones are added to it.
    """
    names = names if names is not None else GeneratedNames()
    kind = manifest["kind"]
    ensure_uid(manifest, cluster_key)
    meta = manifest["metadata"]
    name, namespace = meta["name"], meta.get("namespace") or "default"
    spec = manifest.get("spec") or {}
    template = spec.get("template") or {}
    created: list[dict[str, Any]] = []
    if kind == "Deployment":
        pod_hash = names.pod_template_hash(namespace, name, template)
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
        created += expand_controller(rs, nodes=nodes, cluster_key=cluster_key, names=names)
    elif kind in ("ReplicaSet", "ReplicationController"):
        created += [_generated_pod(manifest, names, str(i)) for i in range(_replicas(spec))]
    elif kind == "StatefulSet":
        created += _stateful_set(manifest, template, namespace)
    elif kind == "DaemonSet":
        revision = template_hash(template)
        for node in nodes:
            if not daemon_pod_fits(template.get("spec") or {}, node):
                continue
            node_name = node["metadata"]["name"]
            pod = _generated_pod(
                manifest,
                names,
                node_name,
                extra_labels={"controller-revision-hash": revision, "pod-template-generation": "1"},
            )
            _pin_to_node(pod["spec"], node_name)
            _add_daemon_tolerations(pod["spec"])
            created.append(pod)
    elif kind == "Job":
        created += _job(manifest, names, name, namespace)
    return created


def _stateful_set(
    manifest: Mapping[str, Any], template: Mapping[str, Any], namespace: str
) -> list[dict[str, Any]]:
    spec = manifest.get("spec") or {}
    name = manifest["metadata"]["name"]
    revision = f"{name}-{template_hash(template)}"
    created: list[dict[str, Any]] = []
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
        for claim in spec.get("volumeClaimTemplates") or []:
            claim_name = (claim.get("metadata") or {}).get("name", "data")
            pvc_name = f"{claim_name}-{pod_name}"
            volumes = pod["spec"].setdefault("volumes", [])
            volumes[:] = [v for v in volumes if v.get("name") != claim_name]
            volumes.append({"name": claim_name, "persistentVolumeClaim": {"claimName": pvc_name}})
            pvc_labels = (spec.get("selector") or {}).get("matchLabels")
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
    return created


def _job(
    manifest: Mapping[str, Any], names: GeneratedNames, name: str, namespace: str
) -> list[dict[str, Any]]:
    spec = manifest.get("spec") or {}
    parallelism = _replicas(spec, "parallelism")
    completions = spec.get("completions")
    count = parallelism if completions is None else min(parallelism, int(completions))
    uid = manifest["metadata"]["uid"]
    job_labels = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }
    indexed = spec.get("completionMode") == "Indexed"
    created = []
    for i in range(count):
        prefix = f"{name}-{i}-" if indexed else f"{name}-"
        pod_name = names.generate("Pod", namespace, prefix, uid, str(i))
        extra = dict(job_labels)
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
    node_labels = (node.get("metadata") or {}).get("labels") or {}
    node_name = str((node.get("metadata") or {}).get("name") or "")
    for key, value in (pod_spec.get("nodeSelector") or {}).items():
        if node_labels.get(key) != value:
            return False
    required = ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    if required.get("nodeSelectorTerms") and not label_match.node_selector(required).matches(
        node_labels, node_name
    ):
        return False
    tolerations = list(pod_spec.get("tolerations") or []) + _daemon_tolerations(pod_spec)
    for taint in (node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(
            tolerations, taint
        ):
            return False
    return True
