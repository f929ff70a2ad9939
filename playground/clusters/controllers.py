"""What controllers would create on a real cluster, deterministically: the engine's pipeline.

The expansion itself (a Deployment's ReplicaSet and pods, a DaemonSet's pod per node, Kubernetes'
naming) lives in ``scheduler_core.workloads``, so ``python -m scheduler_core simulate`` and the
import see the same objects; this module keeps the names the playground has always imported.
"""

from __future__ import annotations

from scheduler_core.workloads import (
    CONTROLLER_KINDS,
    ClusterState,
    GeneratedNames,
    PlanProblems,
    daemon_pod_fits,
    ensure_uid,
    expand_controller,
    object_key,
    owner_keys,
    plan_objects,
    template_hash,
)

__all__ = [
    "CONTROLLER_KINDS",
    "ClusterState",
    "GeneratedNames",
    "PlanProblems",
    "daemon_pod_fits",
    "ensure_uid",
    "expand_controller",
    "object_key",
    "owner_keys",
    "plan_objects",
    "template_hash",
]
