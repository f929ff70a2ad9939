"""Manifest builders for tests: make_node(), make_pod() with keyword options."""

from __future__ import annotations

from typing import Any


def make_node(
    name: str = "n1",
    *,
    cpu: str = "4",
    memory: str = "16Gi",
    pods: str = "110",
    zone: str | None = None,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    node_labels = {"kubernetes.io/hostname": name, **(labels or {})}
    if zone:
        node_labels["topology.kubernetes.io/zone"] = zone
    resources = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": node_labels},
        "spec": {},
        "status": {"capacity": dict(resources), "allocatable": dict(resources)},
    }
    if taints:
        node["spec"]["taints"] = taints
    return node


def make_pod(
    name: str = "p1",
    *,
    namespace: str = "default",
    cpu: str | None = "100m",
    memory: str | None = "128Mi",
    node_name: str | None = None,
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    container: dict[str, Any] = {"name": "app", "image": "registry.k8s.io/pause:3.10"}
    if requests:
        container["resources"] = {"requests": requests}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [container], **spec},
    }
    if labels:
        pod["metadata"]["labels"] = labels
    if node_name:
        pod["spec"]["nodeName"] = node_name
        pod["status"] = {"phase": "Running"}
    return pod


def make_deployment(
    name: str = "web",
    *,
    replicas: int = 3,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    **pod_spec: Any,
) -> dict[str, Any]:
    labels = labels or {"app": name}
    spec = {
        "containers": [
            {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
        ],
        **pod_spec,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": spec},
        },
    }
