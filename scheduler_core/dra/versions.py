"""DRA objects written for resource.k8s.io/v1beta1 or v1beta2, read as the v1 the engine models.

The API server serves every version of a kind and converts between them; a file written for an
older version (KWOK's examples, the DRA example driver's own files) is stored as v1 the way the
server would store it:

- v1beta2 has v1's shape: only ``apiVersion`` changes;
- v1beta1 differs in two places. A ResourceSlice's device keeps its fields under ``basic``; in
  v1 they sit on the device itself. A claim's request (in a ResourceClaim, or in the claim spec a
  ResourceClaimTemplate holds) names its device class, selectors, allocation mode, count, admin
  access, tolerations and capacity at the top; in v1 those belong under ``exactly``, unless the
  request lists ``firstAvailable`` subrequests instead. A slice's ``nodeName: ""`` and
  ``allNodes: false`` (v1beta1's empty values) are left out, as v1 leaves out an unset field.

``to_v1`` returns the converted object and the older version it came from (None: already v1 or
not a DRA kind), or raises ``ConversionError`` naming the field the server would refuse.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

GROUP: Final = "resource.k8s.io"
V1: Final = f"{GROUP}/v1"
OLDER: Final = (f"{GROUP}/v1beta1", f"{GROUP}/v1beta2")
KINDS: Final = frozenset({"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"})

# A v1beta1 request's own fields that v1 keeps under ``exactly`` (ExactDeviceRequest).
EXACT_FIELDS: Final = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)


class ConversionError(ValueError):
    """A field no version's conversion can carry to v1, with its path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def is_older_dra(manifest: Mapping[str, Any]) -> bool:
    """Whether the object is a DRA kind written for one of the older versions."""
    return manifest.get("kind") in KINDS and manifest.get("apiVersion") in OLDER


def to_v1(manifest: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The object as v1 and the version it was written for (None when nothing was converted)."""
    if not is_older_dra(manifest):
        return dict(manifest), None
    source = str(manifest["apiVersion"])
    out = copy.deepcopy(dict(manifest))
    out["apiVersion"] = V1
    if source.endswith("/v1beta1"):
        kind = out["kind"]
        spec = out.get("spec")
        if kind == "ResourceSlice" and isinstance(spec, dict):
            _slice_from_v1beta1(spec)
        elif kind == "ResourceClaim" and isinstance(spec, dict):
            _claim_spec_from_v1beta1(spec, "spec")
        elif kind == "ResourceClaimTemplate" and isinstance(spec, dict):
            inner = spec.get("spec")
            if isinstance(inner, dict):
                _claim_spec_from_v1beta1(inner, "spec.spec")
    return out, source


def _slice_from_v1beta1(spec: dict[str, Any]) -> None:
    if spec.get("nodeName") == "":
        del spec["nodeName"]
    if spec.get("allNodes") is False:
        del spec["allNodes"]
    devices = spec.get("devices")
    if not isinstance(devices, list):
        return
    for i, device in enumerate(devices):
        if not isinstance(device, dict) or "basic" not in device:
            continue
        basic = device.pop("basic")
        if basic is None:
            continue
        if not isinstance(basic, dict):
            raise ConversionError(f"spec.devices[{i}].basic", "must be an object")
        clash = sorted(set(basic) & (set(device) - {"name"}))
        if clash:
            raise ConversionError(
                f"spec.devices[{i}].{clash[0]}", "given both on the device and under basic"
            )
        device.update(basic)


def _claim_spec_from_v1beta1(spec: dict[str, Any], where: str) -> None:
    devices = spec.get("devices")
    if not isinstance(devices, dict):
        return
    requests = devices.get("requests")
    if not isinstance(requests, list):
        return
    for i, request in enumerate(requests):
        if not isinstance(request, dict):
            continue
        path = f"{where}.devices.requests[{i}]"
        own = {key: request.pop(key) for key in EXACT_FIELDS if key in request}
        if request.get("firstAvailable"):
            if own:
                first = next(iter(own))
                raise ConversionError(
                    f"{path}.{first}", "must not be given with firstAvailable (v1beta1)"
                )
            continue
        if "exactly" in request:
            raise ConversionError(f"{path}.exactly", "is not a v1beta1 field")
        request["exactly"] = own
