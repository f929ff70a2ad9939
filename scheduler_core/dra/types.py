"""Typed DeviceClass, ResourceSlice and ResourceClaim (resource.k8s.io/v1) built from manifests.

Mirrors the parts of k8s.io/api/resource/v1 (types.go) the scheduler reads in v1.35, with the
defaults the API server applies on create: a request's ``allocationMode`` is ``ExactCount`` and
its ``count`` 1 unless set, a slice's pool generation 0. Bad input raises DraError naming the
field; nothing is half-built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from scheduler_core.errors import ManifestError
from scheduler_core.objects.labels import (
    NodeSelector,
    node_selector,
)
from scheduler_core.objects.quantity import (
    QuantityError,
    parse_nanos,
)

EXACT_COUNT: Final = "ExactCount"
ALL: Final = "All"
ALLOCATION_MODES: Final = (EXACT_COUNT, ALL)
# resourceapi.AllocationResultsMaxSize and FirstAvailableDeviceRequestMaxSize.
ALLOCATION_RESULTS_MAX_SIZE: Final = 32
FIRST_AVAILABLE_MAX_SIZE: Final = 8
# The attribute value kinds of a DeviceAttribute, in the order the API lists them.
ATTRIBUTE_KINDS: Final = ("int", "bool", "string", "version")

Manifest = Mapping[str, Any]


class DraError(ManifestError):
    """A DRA manifest that the API server would reject: the field's path and what is wrong.

    ``obj`` names the object (``ResourceClaim default/gpu``) once the parser knows it.
    """

    def __init__(self, path: str, message: str, obj: str = "") -> None:
        super().__init__(path, message)
        self.obj = obj
        if obj:
            self.args = (f"{obj}: {path}: {message}",)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class Attribute:
    """One DeviceAttribute: exactly one of int, bool, string or version."""

    kind: str
    value: int | bool | str


@dataclass(frozen=True, slots=True)
class Device:
    """A device of a ResourceSlice; names of attributes and capacities may carry a domain."""

    name: str
    attributes: tuple[tuple[str, Attribute], ...]
    capacity: tuple[tuple[str, str], ...]  # name -> quantity text

    def attribute(self, name: str) -> Attribute | None:
        for key, attr in self.attributes:
            if key == name:
                return attr
        return None


@dataclass(frozen=True, slots=True)
class ResourceSlice:
    """A slice of a pool: node-local (nodeName), shared by a node selector, or on all nodes."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    node_name: str
    all_nodes: bool
    node_selector: NodeSelector | None
    node_selector_raw: Mapping[str, Any] | None
    devices: tuple[Device, ...]
    raw: Manifest


@dataclass(frozen=True, slots=True)
class DeviceClass:
    name: str
    selectors: tuple[str, ...]  # CEL expressions
    raw: Manifest


@dataclass(frozen=True, slots=True)
class Request:
    """An ExactDeviceRequest or a DeviceSubRequest (``parent`` set) after API defaulting."""

    name: str
    device_class: str
    mode: str
    count: int
    selectors: tuple[str, ...]
    admin_access: bool | None = None
    parent: str = ""

    @property
    def full_name(self) -> str:
        """The name an allocation result carries: ``request`` or ``request/subrequest``."""
        return f"{self.parent}/{self.name}" if self.parent else self.name


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """A claim's request: ``exactly`` one Request, or a ``firstAvailable`` list of them."""

    name: str
    exactly: Request | None
    first_available: tuple[Request, ...]


@dataclass(frozen=True, slots=True)
class Constraint:
    requests: tuple[str, ...]
    match_attribute: str | None


@dataclass(frozen=True, slots=True)
class DeviceResult:
    """One allocated device (DeviceRequestAllocationResult)."""

    request: str
    driver: str
    pool: str
    device: str

    def to_dict(self) -> dict[str, str]:
        return {
            "request": self.request,
            "driver": self.driver,
            "pool": self.pool,
            "device": self.device,
        }


@dataclass(frozen=True, slots=True)
class Allocation:
    """A claim's AllocationResult: the devices and where they can be used."""

    devices: tuple[DeviceResult, ...]
    node_selector_raw: Mapping[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"devices": {"results": [d.to_dict() for d in self.devices]}}
        if self.node_selector_raw is not None:
            out["nodeSelector"] = self.node_selector_raw
        return out


@dataclass(frozen=True, slots=True)
class Consumer:
    """A ResourceClaimConsumerReference in ``status.reservedFor``."""

    resource: str
    name: str
    uid: str


@dataclass(frozen=True, slots=True)
class ResourceClaim:
    name: str
    namespace: str
    uid: str
    requests: tuple[DeviceRequest, ...]
    constraints: tuple[Constraint, ...]
    allocation: Allocation | None
    reserved_for: tuple[Consumer, ...]
    deleting: bool
    raw: Manifest

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def reserved_for_pod(self, pod_uid: str) -> bool:
        return any(c.resource == "pods" and c.uid == pod_uid for c in self.reserved_for)

    def to_manifest(self) -> dict[str, Any]:
        """The claim as the API holds it, status included."""
        out = {k: v for k, v in self.raw.items() if k != "status"}
        status: dict[str, Any] = {}
        if self.allocation is not None:
            status["allocation"] = self.allocation.to_dict()
        if self.reserved_for:
            status["reservedFor"] = [
                {"resource": c.resource, "name": c.name, "uid": c.uid} for c in self.reserved_for
            ]
        if status:
            out["status"] = status
        return out


# -- parsing ---------------------------------------------------------------------------------


def _meta(raw: Manifest, kind: str) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(raw, Mapping):
        raise DraError("", "must be an object", kind)
    meta = raw.get("metadata") or {}
    name = meta.get("name")
    if not name or not isinstance(name, str):
        raise DraError("metadata.name", "Required value", kind)
    spec = raw.get("spec")
    if not isinstance(spec, Mapping):
        raise DraError("spec", "Required value", f"{kind} {name}")
    return name, spec


def _name(raw: Manifest) -> str:
    return str((raw.get("metadata") or {}).get("name") or "")


def _namespace(raw: Manifest) -> str:
    return str((raw.get("metadata") or {}).get("namespace") or "default")


def _selectors(raw: Any, path: str) -> tuple[str, ...]:
    out = []
    for i, sel in enumerate(raw or ()):
        cel = (sel or {}).get("cel") if isinstance(sel, Mapping) else None
        expr = cel.get("expression") if isinstance(cel, Mapping) else None
        if not isinstance(expr, str) or not expr.strip():
            raise DraError(f"{path}[{i}].cel.expression", "Required value")
        out.append(expr)
    return tuple(out)


def _int(value: Any, path: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise DraError(path, f"Invalid value: {value!r}: must be an integer")
    return value


def _device_class(raw: Manifest) -> DeviceClass:
    name, spec = _meta(raw, "DeviceClass")
    return DeviceClass(name, _selectors(spec.get("selectors"), "spec.selectors"), raw)


def _attribute(raw: Any, path: str) -> Attribute:
    if not isinstance(raw, Mapping):
        raise DraError(path, "must be an object")
    kinds = [k for k in ATTRIBUTE_KINDS if raw.get(k) is not None]
    if len(kinds) != 1:
        raise DraError(path, "Invalid value: exactly one of int, bool, string, version is required")
    kind = kinds[0]
    value = raw[kind]
    ok = (
        isinstance(value, bool)
        if kind == "bool"
        else isinstance(value, int) and not isinstance(value, bool)
        if kind == "int"
        else isinstance(value, str)
    )
    if not ok:
        raise DraError(f"{path}.{kind}", f"Invalid value: {value!r}")
    return Attribute(kind, value)


def _device(raw: Any, path: str) -> Device:
    if not isinstance(raw, Mapping) or not raw.get("name"):
        raise DraError(f"{path}.name", "Required value")
    attrs = tuple(
        (str(k), _attribute(v, f"{path}.attributes[{k}]"))
        for k, v in (raw.get("attributes") or {}).items()
    )
    caps = []
    for k, v in (raw.get("capacity") or {}).items():
        text = v.get("value") if isinstance(v, Mapping) else None
        try:
            parse_nanos(str(text))
        except QuantityError as err:
            raise DraError(
                f"{path}.capacity[{k}].value", f"Invalid value: {text!r}: {err}"
            ) from err
        caps.append((str(k), str(text)))
    return Device(str(raw["name"]), attrs, tuple(caps))


def _resource_slice(raw: Manifest) -> ResourceSlice:
    name, spec = _meta(raw, "ResourceSlice")
    path = "spec"
    driver = spec.get("driver")
    if not driver:
        raise DraError(f"{path}.driver", "Required value")
    pool = spec.get("pool") or {}
    if not pool.get("name"):
        raise DraError(f"{path}.pool.name", "Required value")
    sel_raw = spec.get("nodeSelector")
    node_name = spec.get("nodeName") or ""
    all_nodes = bool(spec.get("allNodes"))
    if sum(bool(x) for x in (node_name, all_nodes, sel_raw)) > 1:
        raise DraError(path, "Invalid value: nodeName, nodeSelector and allNodes are exclusive")
    devices = tuple(
        _device(d, f"{path}.devices[{i}]") for i, d in enumerate(spec.get("devices") or ())
    )
    return ResourceSlice(
        name=name,
        driver=str(driver),
        pool=str(pool["name"]),
        generation=_int(pool.get("generation"), f"{path}.pool.generation", 0),
        slice_count=_int(pool.get("resourceSliceCount"), f"{path}.pool.resourceSliceCount", 1),
        node_name=str(node_name),
        all_nodes=all_nodes,
        node_selector=node_selector(sel_raw) if sel_raw else None,
        node_selector_raw=sel_raw or None,
        devices=devices,
        raw=raw,
    )


def _request(raw: Any, path: str, name: str, parent: str = "") -> Request:
    if not isinstance(raw, Mapping):
        raise DraError(path, "must be an object")
    mode = raw.get("allocationMode") or EXACT_COUNT
    if mode not in ALLOCATION_MODES:
        raise DraError(f"{path}.allocationMode", f"Unsupported value: {mode!r}")
    count = _int(raw.get("count"), f"{path}.count", 1 if mode == EXACT_COUNT else 0)
    if mode == EXACT_COUNT and count <= 0:
        raise DraError(f"{path}.count", f"Invalid value: {count}: must be greater than zero")
    admin = raw.get("adminAccess")
    return Request(
        name=name,
        device_class=str(raw.get("deviceClassName") or ""),
        mode=mode,
        count=count,
        selectors=_selectors(raw.get("selectors"), f"{path}.selectors"),
        admin_access=bool(admin) if admin is not None else None,
        parent=parent,
    )


def _resource_claim(raw: Manifest) -> ResourceClaim:
    name, spec = _meta(raw, "ResourceClaim")
    meta = raw.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    path = "spec.devices"
    devices = spec.get("devices") or {}
    requests = []
    for i, r in enumerate(devices.get("requests") or ()):
        rpath = f"{path}.requests[{i}]"
        rname = (r or {}).get("name")
        if not rname:
            raise DraError(f"{rpath}.name", "Required value")
        exactly = r.get("exactly")
        first = r.get("firstAvailable") or ()
        if bool(exactly) == bool(first):
            raise DraError(
                rpath, "Invalid value: exactly one of exactly, firstAvailable is required"
            )
        if len(first) > FIRST_AVAILABLE_MAX_SIZE:
            raise DraError(
                f"{rpath}.firstAvailable", f"Too many: {len(first)}: must have at most 8 items"
            )
        subs = []
        for j, sub in enumerate(first):
            sname = (sub or {}).get("name")
            if not sname:
                raise DraError(f"{rpath}.firstAvailable[{j}].name", "Required value")
            subs.append(_request(sub, f"{rpath}.firstAvailable[{j}]", str(sname), str(rname)))
        one = _request(exactly, f"{rpath}.exactly", str(rname)) if exactly else None
        requests.append(DeviceRequest(str(rname), one, tuple(subs)))
    constraints = tuple(
        Constraint(tuple(c.get("requests") or ()), c.get("matchAttribute"))
        for c in devices.get("constraints") or ()
    )
    status = raw.get("status") or {}
    alloc_raw = status.get("allocation")
    allocation = None
    if alloc_raw:
        results = tuple(
            DeviceResult(str(d["request"]), str(d["driver"]), str(d["pool"]), str(d["device"]))
            for d in (alloc_raw.get("devices") or {}).get("results") or ()
        )
        allocation = Allocation(results, alloc_raw.get("nodeSelector"))
    reserved = tuple(
        Consumer(str(c.get("resource", "pods")), str(c.get("name", "")), str(c.get("uid", "")))
        for c in status.get("reservedFor") or ()
    )
    return ResourceClaim(
        name=name,
        namespace=namespace,
        uid=str(meta.get("uid") or f"uid-claim-{namespace}-{name}"),
        requests=tuple(requests),
        constraints=constraints,
        allocation=allocation,
        reserved_for=reserved,
        deleting=bool(meta.get("deletionTimestamp")),
        raw=raw,
    )


T = TypeVar("T")


def _labelled(label: str, parse: Callable[[Manifest], T], raw: Manifest) -> T:
    """Run a parser; a DraError it raises gets the object's label."""
    try:
        return parse(raw)
    except DraError as err:
        if err.obj:
            raise
        raise DraError(err.path, err.message, label) from None


def device_class(raw: Manifest) -> DeviceClass:
    """Parse a DeviceClass manifest; DraError names the object and the field."""
    return _labelled(f"DeviceClass {_name(raw)}", _device_class, raw)


def resource_slice(raw: Manifest) -> ResourceSlice:
    """Parse a ResourceSlice manifest; DraError names the object and the field."""
    return _labelled(f"ResourceSlice {_name(raw)}", _resource_slice, raw)


def resource_claim(raw: Manifest) -> ResourceClaim:
    """Parse a ResourceClaim manifest; DraError names the object and the field."""
    return _labelled(f"ResourceClaim {_namespace(raw)}/{_name(raw)}", _resource_claim, raw)
