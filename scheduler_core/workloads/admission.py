"""What the API server refuses before the scheduler sees an object, and what the engine cannot read.

Quantities in resource maps, required containers, taint effects, DRA objects and their CEL
selectors: what ``kubectl apply`` would refuse, each as a ManifestError naming the field. Then the
engine's own ``from_manifest`` runs and is the authority. The playground's import and ``simulate``
check objects with these same rules and messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from scheduler_core import dra
from scheduler_core.errors import ManifestError
from scheduler_core.objects import api
from scheduler_core.objects.quantity import (
    QuantityError,
    parse_nanos,
    parse_quantity,
)

MAX_RESOURCE_NAMES: Final = 64  # entries in one requests/limits/capacity map
DRA_KINDS: Final = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")


def check_quantity(text: Any, path: str) -> None:
    """Raise ManifestError naming ``path`` unless ``text`` is a Kubernetes quantity."""
    parse_quantity(text, path)


def _check_resource_map(values: Any, path: str) -> None:
    if values is None:
        return
    if not isinstance(values, dict):
        raise ManifestError(path, "must be a map of resource name to quantity")
    if len(values) > MAX_RESOURCE_NAMES:
        raise ManifestError(
            path, f"Too many: {len(values)}: must have at most {MAX_RESOURCE_NAMES}"
        )
    for name, value in values.items():
        check_quantity(value, f"{path}.{name}")
        try:
            negative = parse_nanos(value) < 0
        except QuantityError:
            continue  # check_quantity reported it
        if negative:  # as the API server's ValidateNonnegativeQuantity
            raise ManifestError(
                f"{path}.{name}", f"Invalid value: {value!r}: must be greater than or equal to 0"
            )


def _admit_pod(manifest: Mapping[str, Any]) -> None:
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
                _check_resource_map(resources.get(part), f"spec.{field}[{i}].resources.{part}")
    if not spec.get("containers"):
        raise ManifestError("spec.containers", "Required value")
    _check_resource_map(spec.get("overhead"), "spec.overhead")
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        raise ManifestError("spec.priority", f"Invalid value: {priority!r}: must be an integer")


def _admit_node(manifest: Mapping[str, Any]) -> None:
    status = manifest.get("status") or {}
    if not isinstance(status, dict):
        raise ManifestError("status", "must be a mapping")
    for part in ("capacity", "allocatable"):
        _check_resource_map(status.get(part), f"status.{part}")
    taints = (manifest.get("spec") or {}).get("taints") or []
    for i, taint in enumerate(taints):
        effect = taint.get("effect") if isinstance(taint, dict) else None
        if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise ManifestError(
                f"spec.taints[{i}].effect",
                f'Unsupported value: {effect!r}: supported values: "NoExecute", "NoSchedule", '
                '"PreferNoSchedule"',
            )


def _from_manifest(kind: str, manifest: Mapping[str, Any]) -> None:
    """Build the engine's typed object; what it cannot read is a ManifestError."""
    cls = getattr(api, kind)
    try:
        cls.from_manifest(manifest)
    except ManifestError:
        raise
    except (TypeError, KeyError, AttributeError, ValueError) as err:
        raise ManifestError("", f"not a valid {kind}: {err}") from err


def check_pod_manifest(manifest: Mapping[str, Any]) -> None:
    """Raise ManifestError naming the field if the API server or the engine refuses this Pod."""
    _admit_pod(manifest)
    _from_manifest("Pod", manifest)


def check_node_manifest(manifest: Mapping[str, Any]) -> None:
    """Raise ManifestError naming the field if the API server or the engine refuses this Node."""
    _admit_node(manifest)
    _from_manifest("Node", manifest)


def check_dra_manifest(manifest: Mapping[str, Any]) -> None:
    """Raise ManifestError naming the field if the engine could not read this DRA object.

    Device selectors are compiled here too, so a CEL syntax error is refused as the API server
    refuses it, with cel-go's message.
    """
    kind = manifest.get("kind")
    prefix = ""
    if kind == "ResourceClaimTemplate":
        # A template holds the claim's spec under spec.spec; check it as that claim.
        spec = manifest.get("spec")
        inner = spec.get("spec") if isinstance(spec, dict) else None
        if not isinstance(inner, dict):
            raise ManifestError("spec.spec", "Required value")
        manifest = {"metadata": manifest.get("metadata") or {}, "spec": inner}
        kind, prefix = "ResourceClaim", "spec."
    parse = {
        "DeviceClass": dra.device_class,
        "ResourceSlice": dra.resource_slice,
        "ResourceClaim": dra.resource_claim,
    }[str(kind)]
    try:
        obj = parse(manifest)
    except dra.DraError as err:
        raise ManifestError(prefix + err.path, err.message) from err
    for path, expression in _selector_paths(kind, obj):
        error = dra.compile_selector(expression).error
        if error is not None:
            raise ManifestError(prefix + path, f"Invalid value: {error}")


def _selector_paths(kind: Any, obj: Any) -> list[tuple[str, str]]:
    """(field path, CEL expression) of every selector of a class or claim."""
    if kind == "DeviceClass":
        return [(f"spec.selectors[{i}].cel.expression", e) for i, e in enumerate(obj.selectors)]
    out: list[tuple[str, str]] = []
    for i, req in enumerate(getattr(obj, "requests", ())):
        base = f"spec.devices.requests[{i}]"
        if req.exactly is not None:
            out += [
                (f"{base}.exactly.selectors[{j}].cel.expression", e)
                for j, e in enumerate(req.exactly.selectors)
            ]
        for k, sub in enumerate(req.first_available):
            out += [
                (f"{base}.firstAvailable[{k}].selectors[{j}].cel.expression", e)
                for j, e in enumerate(sub.selectors)
            ]
    return out


def admit(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, message) of what is refused in a Pod, Node or DRA object; [] for other kinds."""
    kind = manifest.get("kind")
    check = {"Pod": check_pod_manifest, "Node": check_node_manifest}.get(str(kind))
    if check is None and kind in DRA_KINDS:
        check = check_dra_manifest
    if check is None:
        return []
    try:
        check(manifest)
    except ManifestError as err:
        return [(err.path, err.message)]
    return []
