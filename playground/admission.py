"""Checks the API server makes before the scheduler sees an object; used by engine.py.

Quantities in resource maps, required containers, taint effects: what ``kubectl apply`` would
refuse. The engine's own ``from_manifest`` runs after these and is the authority.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.errors import ManifestError
from scheduler_core.quantity import QuantityError, parse_nanos

MAX_RESOURCE_NAMES = 64  # entries in one requests/limits/capacity map


def _check_resource_map(values: Any, path: str, check: Callable[[Any, str], None]) -> None:
    if values is None:
        return
    if not isinstance(values, dict):
        raise ManifestError(path, "must be a map of resource name to quantity")
    if len(values) > MAX_RESOURCE_NAMES:
        raise ManifestError(
            path, f"Too many: {len(values)}: must have at most {MAX_RESOURCE_NAMES}"
        )
    for name, value in values.items():
        check(value, f"{path}.{name}")
        try:
            negative = parse_nanos(value) < 0
        except QuantityError:
            continue  # ``check`` reported it
        if negative:  # as the API server's ValidateNonnegativeQuantity
            raise ManifestError(
                f"{path}.{name}", f"Invalid value: {value!r}: must be greater than or equal to 0"
            )


def check_pod(manifest: dict[str, Any], check: Callable[[Any, str], None]) -> None:
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        raise ManifestError("spec", "a Pod needs a spec")
    for field in ("initContainers", "containers"):
        containers = spec.get(field) or []
        if not isinstance(containers, list):
            raise ManifestError(f"spec.{field}", "must be a list")
        for i, container in enumerate(containers):
            if not isinstance(container, dict):
                raise ManifestError(f"spec.{field}[{i}]", "must be a mapping")
            resources = container.get("resources") or {}
            if not isinstance(resources, dict):
                raise ManifestError(f"spec.{field}[{i}].resources", "must be a mapping")
            for part in ("requests", "limits"):
                _check_resource_map(
                    resources.get(part), f"spec.{field}[{i}].resources.{part}", check
                )
    if not spec.get("containers"):
        raise ManifestError("spec.containers", "Required value")
    _check_resource_map(spec.get("overhead"), "spec.overhead", check)
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        raise ManifestError("spec.priority", f"Invalid value: {priority!r}: must be an integer")


def check_node(manifest: dict[str, Any], check: Callable[[Any, str], None]) -> None:
    status = manifest.get("status") or {}
    if not isinstance(status, dict):
        raise ManifestError("status", "must be a mapping")
    for part in ("capacity", "allocatable"):
        _check_resource_map(status.get(part), f"status.{part}", check)
    taints = (manifest.get("spec") or {}).get("taints") or []
    for i, taint in enumerate(taints):
        effect = taint.get("effect") if isinstance(taint, dict) else None
        if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise ManifestError(
                f"spec.taints[{i}].effect",
                f'Unsupported value: {effect!r}: supported values: "NoExecute", "NoSchedule", '
                '"PreferNoSchedule"',
            )
