"""Workload references and pod groups (scheduling.k8s.io/v1alpha1, GenericWorkload).

Mirrors the Workload API's types (k8s.io/api/scheduling/v1alpha1) and WorkloadReference of
k8s.io/api/core/v1 in v1.35, as far as gang scheduling reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduler_core.objects.api import KubeObject, Pod


@dataclass(frozen=True, slots=True)
class WorkloadRef:
    """A pod's ``spec.workloadRef``: its Workload, pod group and replica key."""

    name: str
    pod_group: str
    replica_key: str = ""


@dataclass(frozen=True, slots=True)
class GroupKey:
    """One gang: a pod group of one Workload, per replica key (upstream's podGroupKey)."""

    namespace: str
    ref: WorkloadRef


def workload_ref(pod: Pod) -> WorkloadRef | None:
    """The pod's workloadRef, or None when it has none."""
    raw = (pod.raw.get("spec") or {}).get("workloadRef")
    if not isinstance(raw, dict):
        return None
    return WorkloadRef(
        str(raw.get("name") or ""),
        str(raw.get("podGroup") or ""),
        str(raw.get("podGroupReplicaKey") or ""),
    )


def group_key(pod: Pod) -> GroupKey | None:
    ref = workload_ref(pod)
    return GroupKey(pod.namespace, ref) if ref is not None else None


def gang_min_count(workload: KubeObject, pod_group: str) -> tuple[bool, int | None]:
    """Whether the Workload has the pod group, and its gang's minCount (None: not a gang)."""
    groups: Any = (workload.raw.get("spec") or {}).get("podGroups") or ()
    for group in groups:
        if isinstance(group, dict) and group.get("name") == pod_group:
            gang = (group.get("policy") or {}).get("gang")
            if not isinstance(gang, dict):
                return True, None
            return True, int(gang.get("minCount") or 0)
    return False, None
