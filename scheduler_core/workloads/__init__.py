"""What the API server and the workload controllers make of a cluster file, without a cluster.

``plan_objects`` expands controllers (Deployments to ReplicaSets and pods, StatefulSets,
DaemonSets, Jobs) and ResourceClaimTemplates (claims for the pods naming them) with Kubernetes'
naming, deterministically; ``simulate`` and the playground's import share it.

Modules: ``pipeline`` (``plan_objects``, the one pipeline), ``controllers`` (ReplicaSets, pods
and their claims), ``claims`` (the resourceclaim controller), ``naming`` (names and uids as
Kubernetes makes them), ``admission`` (what the API server refuses, what the engine cannot
read), ``syntax`` (names and labels as the API server checks them).
"""

from __future__ import annotations

from scheduler_core.workloads.claims import claims_for_pod, template_index
from scheduler_core.workloads.controllers import (
    CONTROLLER_KINDS,
    daemon_pod_fits,
    expand_controller,
    owner_keys,
)
from scheduler_core.workloads.naming import GeneratedNames, ensure_uid, template_hash
from scheduler_core.workloads.pipeline import (
    ClusterState,
    Plan,
    Planned,
    PlanProblem,
    PlanProblems,
    check_controller,
    check_object,
    object_key,
    plan_objects,
)

__all__ = [
    "CONTROLLER_KINDS",
    "ClusterState",
    "GeneratedNames",
    "Plan",
    "PlanProblem",
    "PlanProblems",
    "Planned",
    "check_controller",
    "check_object",
    "claims_for_pod",
    "daemon_pod_fits",
    "ensure_uid",
    "expand_controller",
    "object_key",
    "owner_keys",
    "plan_objects",
    "template_hash",
    "template_index",
]
