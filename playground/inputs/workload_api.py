"""The API server's checks of a Workload (scheduling.k8s.io/v1alpha1) and a pod's workloadRef.

Mirrors ValidateWorkload and validateWorkloadReference of Kubernetes v1.35
(pkg/apis/scheduling/validation, pkg/apis/core/validation) for the fields gang scheduling
reads: ``spec.podGroups`` (1 to 8, unique DNS-label names, a policy with exactly one of
``basic`` and ``gang``, ``gang.minCount`` above zero), ``spec.controllerRef`` and the pod's
``spec.workloadRef``. Each problem is ``(path, message)`` naming the field, as import reports it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from scheduler_core.workloads.syntax import dns_subdomain_errors

MAX_POD_GROUPS: Final = 8  # WorkloadMaxPodGroups
_DNS_LABEL_RE: Final = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_INT32_MAX: Final = 2**31 - 1


def _dns_label(value: Any, path: str, *, required: bool = True) -> list[tuple[str, str]]:
    if value is None or value == "":
        return [(path, "Required value")] if required else []
    if not isinstance(value, str):
        return [(path, f"Invalid value: {value!r}: must be a string")]
    if len(value) > 63 or not _DNS_LABEL_RE.match(value):
        return [
            (
                path,
                f"Invalid value: {value!r}: a lowercase RFC 1123 label must consist of lower "
                "case alphanumeric characters or '-', start and end with an alphanumeric "
                "character, and be at most 63 characters",
            )
        ]
    return []


def _path_segment(value: Any, path: str) -> list[tuple[str, str]]:
    if value is None or value == "":
        return [(path, "Required value")]
    if not isinstance(value, str):
        return [(path, f"Invalid value: {value!r}: must be a string")]
    if value in (".", "..") or "/" in value or "%" in value:
        return [(path, f"Invalid value: {value!r}: may not be '.', '..' or contain '/' or '%'")]
    return []


def _policy(policy: Any, path: str) -> list[tuple[str, str]]:
    if policy is None:
        return [(path, "Required value: must specify exactly one of basic or gang")]
    if not isinstance(policy, Mapping):
        return [(path, "Invalid value: must be an object")]
    problems: list[tuple[str, str]] = []
    unknown = sorted(str(k) for k in policy if k not in ("basic", "gang"))
    problems += [(f"{path}.{k}", "unknown field: a policy is basic or gang") for k in unknown]
    present = [k for k in ("basic", "gang") if policy.get(k) is not None]
    if len(present) != 1:
        message = "must specify exactly one of basic or gang"
        problems.append(
            (path, f"Invalid value: {message}" if present else f"Required value: {message}")
        )
    if policy.get("basic") is not None and not isinstance(policy["basic"], Mapping):
        problems.append((f"{path}.basic", "Invalid value: must be an object"))
    gang = policy.get("gang")
    if gang is None:
        return problems
    if not isinstance(gang, Mapping):
        return [*problems, (f"{path}.gang", "Invalid value: must be an object")]
    count = gang.get("minCount")
    where = f"{path}.gang.minCount"
    if count is None:
        problems.append((where, "Required value"))
    elif isinstance(count, bool) or not isinstance(count, int):
        problems.append((where, f"Invalid value: {count!r}: must be an integer"))
    elif count <= 0:
        problems.append((where, f"Invalid value: {count}: must be greater than zero"))
    elif count > _INT32_MAX:
        problems.append((where, f"Invalid value: {count}: must fit in a 32-bit integer"))
    return problems


def _controller_ref(ref: Any, path: str) -> list[tuple[str, str]]:
    if ref is None:
        return []
    if not isinstance(ref, Mapping):
        return [(path, "Invalid value: must be an object")]
    problems: list[tuple[str, str]] = []
    group = ref.get("apiGroup")
    if group not in (None, "") and (not isinstance(group, str) or dns_subdomain_errors(group)):
        problems.append((f"{path}.apiGroup", f"Invalid value: {group!r}: must be a DNS subdomain"))
    problems += _path_segment(ref.get("kind"), f"{path}.kind")
    problems += _path_segment(ref.get("name"), f"{path}.name")
    return problems


def check_workload(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, message) for every problem the API server finds in a Workload's spec."""
    spec = manifest.get("spec")
    if spec is None:
        return [("spec.podGroups", "Required value: a Workload needs at least one pod group")]
    if not isinstance(spec, Mapping):
        return [("spec", "Invalid value: must be an object")]
    problems = _controller_ref(spec.get("controllerRef"), "spec.controllerRef")
    groups = spec.get("podGroups")
    if groups is None or groups == []:
        return [*problems, ("spec.podGroups", "Required value: must have at least one item")]
    if not isinstance(groups, list):
        return [*problems, ("spec.podGroups", "Invalid value: must be a list")]
    if len(groups) > MAX_POD_GROUPS:
        problems.append(
            ("spec.podGroups", f"Too many: {len(groups)}: must have at most {MAX_POD_GROUPS} items")
        )
    seen: set[str] = set()
    for i, group in enumerate(groups):
        path = f"spec.podGroups[{i}]"
        if not isinstance(group, Mapping):
            problems.append((path, "Invalid value: must be an object"))
            continue
        name = group.get("name")
        problems += _dns_label(name, f"{path}.name")
        if isinstance(name, str) and name:
            if name in seen:
                problems.append((f"{path}.name", f"Duplicate value: {name!r}"))
            seen.add(name)
        problems += _policy(group.get("policy"), f"{path}.policy")
    return problems


def check_workload_ref(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, message) for a pod's ``spec.workloadRef`` (none when it has none)."""
    spec = manifest.get("spec")
    ref = spec.get("workloadRef") if isinstance(spec, Mapping) else None
    if ref is None:
        return []
    path = "spec.workloadRef"
    if not isinstance(ref, Mapping):
        return [(path, "Invalid value: must be an object")]
    problems = _path_segment(ref.get("name"), f"{path}.name")
    problems += _dns_label(ref.get("podGroup"), f"{path}.podGroup")
    problems += _dns_label(
        ref.get("podGroupReplicaKey"), f"{path}.podGroupReplicaKey", required=False
    )
    return problems
