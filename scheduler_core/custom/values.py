"""What custom plugins' expressions see as ``pod`` and ``node``: plain values built from the
engine's objects (cpu in millicores, memory in bytes).

Not an upstream module: the variables of ``scheduler_core.custom.plugin``'s expressions.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import Pod, Resource


def _resources(r: Resource) -> dict[str, int]:
    out = {"cpu": r.milli_cpu, "memory": r.memory, "pods": r.allowed_pod_number}
    if r.ephemeral_storage:
        out["ephemeral-storage"] = r.ephemeral_storage
    out.update(r.scalars)
    return out


def pod_value(pod: Pod) -> dict[str, Any]:
    """What expressions see as ``pod`` (cpu in millicores, memory in bytes)."""
    return {
        "name": pod.name,
        "namespace": pod.namespace,
        "labels": dict(pod.labels),
        "annotations": dict(pod.annotations),
        "priority": pod.priority,
        "schedulerName": pod.scheduler_name,
        "nodeSelector": dict(pod.node_selector),
        "requests": _resources(pod.resource),
    }


def node_value(info: NodeInfo | None, node_name: str = "") -> dict[str, Any]:
    """What expressions see as ``node``."""
    if info is None:
        return {"name": node_name, "labels": {}, "annotations": {}, "taints": [], "pods": []}
    node = info.node
    return {
        "name": node.name,
        "labels": dict(node.labels),
        "annotations": dict(node.annotations),
        "unschedulable": node.unschedulable,
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in node.taints],
        "allocatable": _resources(info.allocatable),
        "requested": _resources(info.requested),
        "pods": [
            {"name": p.name, "namespace": p.namespace, "labels": dict(p.labels)} for p in info.pods
        ],
    }
