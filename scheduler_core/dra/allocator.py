"""The structured allocator: pick devices for a pod's claims on one node.

Mirrors k8s.io/dynamic-resource-allocation/structured in v1.35, in the "incubating"
implementation that NewAllocator picks for the default gates (DRAAdminAccess and
DRAPrioritizedList on, DRAPartitionableDevices, DRADeviceTaints, DRAConsumableCapacity and
DRADeviceBindingConditions off): pools gathered per node, an exhaustive depth-first search over
the claims, their requests (a firstAvailable list tries its subrequests in order) and the
eligible devices, which takes the first full solution. Selectors are the class's then the
request's CEL expressions; matchAttribute constraints are checked as devices are added.

Upstream walks the pools of a node in Go map order (random); here they come in the order of
their first slice, which only matters when one request could be served by two pools.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from scheduler_core.dra.cel_env import Cache, CelError
from scheduler_core.dra.types import (
    ALL,
    ALLOCATION_RESULTS_MAX_SIZE,
    Allocation,
    Attribute,
    Device,
    DeviceClass,
    DeviceResult,
    Request,
    ResourceClaim,
    ResourceSlice,
)

if TYPE_CHECKING:
    from scheduler_core.objects.api import Node

DeviceID = tuple[str, str, str]  # driver, pool, device
# Per (class or request selectors, device): the verdict, kept across Allocate calls.
MatchCache = dict[tuple[tuple[str, ...], int], bool]


class AllocationError(Exception):
    """Allocation cannot be attempted at all (the plugin reports it as an Error status)."""


class FailedOnNode(Exception):
    """ErrFailedAllocationOnNode: allocation failed on this node; other nodes may work."""


def device_id_text(did: DeviceID) -> str:
    return "/".join(did)


def node_matches(node: Node, node_name: str, all_nodes: bool, selector: Any) -> bool:
    """NodeMatches: a slice (or device) is for this node by name, for all nodes, or by selector."""
    if node_name:
        return node.name == node_name
    if all_nodes:
        return True
    if selector is not None:
        return bool(selector.matches(node.labels, node.name))
    return False


@dataclass(slots=True)
class Pool:
    driver: str
    pool: str
    slices: list[ResourceSlice]
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""

    @property
    def id_text(self) -> str:
        return f"{self.driver}/{self.pool}"


def gather_pools(slices: Sequence[ResourceSlice], node: Node) -> list[Pool]:
    """GatherPools: the complete, incomplete and invalid pools with slices for this node."""
    pools: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        if not (s.node_name or s.all_nodes or s.node_selector is not None):
            continue
        if not node_matches(node, s.node_name, s.all_nodes, s.node_selector):
            continue
        key = (s.driver, s.pool)
        have = pools.get(key)
        if have is None or s.generation > have[0].generation:
            pools[key] = [s]
        elif s.generation == have[0].generation:
            have.append(s)
    out = []
    for (driver, name), members in pools.items():
        generation = members[0].generation
        if len(members) != members[0].slice_count:
            same = [s for s in slices if s.driver == driver and s.pool == name]
            if any(s.generation > generation for s in same):
                continue  # obsolete: a newer generation is being published
            if sum(s.generation == generation for s in same) != members[0].slice_count:
                out.append(Pool(driver, name, [], incomplete=True))
                continue
        out.append(_build_pool(driver, name, members))
    return out


def _build_pool(driver: str, name: str, members: list[ResourceSlice]) -> Pool:
    seen: set[str] = set()
    for s in members:
        for d in s.devices:
            if d.name in seen:
                return Pool(
                    driver, name, [], invalid=True, invalid_reason=f"duplicate device name {d.name}"
                )
            seen.add(d.name)
    return Pool(driver, name, members)


def lookup_attribute(device: Device, driver: str, qualified: str) -> Attribute | None:
    """lookupAttribute: the fully qualified name, or its id alone under the driver's domain."""
    attr = device.attribute(qualified)
    if attr is not None:
        return attr
    domain, sep, ident = qualified.partition("/")
    if not sep or domain != driver:
        return None
    return device.attribute(ident)


@dataclass(slots=True)
class _MatchAttribute:
    """matchAttributeConstraint: every device of the named requests shares one attribute value."""

    requests: frozenset[str]
    name: str
    value: Attribute | None = None
    count: int = 0

    def _applies(self, request: str, sub: str) -> bool:
        if not self.requests:
            return True
        return request in self.requests or (bool(sub) and f"{request}/{sub}" in self.requests)

    def add(self, request: str, sub: str, device: Device, did: DeviceID) -> bool:
        if not self._applies(request, sub):
            return True
        attr = lookup_attribute(device, did[0], self.name)
        if attr is None:
            return False
        if self.count == 0:
            self.value, self.count = attr, 1
            return True
        if self.value is None or self.value.kind != attr.kind or self.value.value != attr.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str, device: Device, did: DeviceID) -> None:
        if self._applies(request, sub):
            self.count -= 1


@dataclass(slots=True)
class _RequestData:
    request: Request
    device_class: DeviceClass | None
    num_devices: int
    all_devices: list[tuple[DeviceID, Device, ResourceSlice]] = field(default_factory=list)
    selected_sub: int = 0


@dataclass(slots=True)
class _Picked:
    request: Request
    did: DeviceID
    device: Device
    slice: ResourceSlice


class Allocator:
    """One PreFilter's allocator: the taken devices, classes and slices of that moment."""

    def __init__(
        self,
        allocated: frozenset[DeviceID] | set[DeviceID],
        classes: Mapping[str, DeviceClass],
        slices: Sequence[ResourceSlice],
        cel_cache: Cache,
        match_cache: MatchCache | None = None,
    ) -> None:
        self.allocated = allocated
        self.classes = classes
        self.slices = slices
        self.cel_cache = cel_cache
        self.match_cache: MatchCache = match_cache if match_cache is not None else {}

    def allocate(self, node: Node, claims: Sequence[ResourceClaim]) -> list[Allocation] | None:
        """One AllocationResult per claim, or None when the claims do not fit on this node.

        Raises AllocationError for claims that cannot be allocated anywhere and FailedOnNode
        when only invalid pools were in the way.
        """
        return _Run(self, node, claims).run()


class _Run:
    """The state of one Allocate call (upstream's ``allocator``)."""

    def __init__(self, owner: Allocator, node: Node, claims: Sequence[ResourceClaim]) -> None:
        self.a = owner
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.data: dict[tuple[int, int, int], _RequestData] = {}
        self.constraints: list[list[_MatchAttribute]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.result: list[list[_Picked]] = [[] for _ in claims]
        self.candidates: dict[
            tuple[int, int, int],
            list[tuple[DeviceID, Device, ResourceSlice, bool | AllocationError]],
        ] = {}

    # -- setup ------------------------------------------------------------------------------

    def run(self) -> list[Allocation] | None:
        self.pools = gather_pools(self.a.slices, self.node)
        for ci, claim in enumerate(self.claims):
            min_devices = 0
            for ri, req in enumerate(claim.requests):
                if req.first_available:
                    fewest = None
                    for si, sub in enumerate(req.first_available):
                        rd = self._validate(claim, sub)
                        self.data[(ci, ri, si)] = rd
                        fewest = rd.num_devices if fewest is None else min(fewest, rd.num_devices)
                    min_devices += fewest or 0
                elif req.exactly is not None:
                    rd = self._validate(claim, req.exactly)
                    self.data[(ci, ri, 0)] = rd
                    min_devices += rd.num_devices
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {claim.key}: number of requested devices {min_devices} exceeds the "
                    f"claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            cons = []
            for i, c in enumerate(claim.constraints):
                if c.match_attribute is None:
                    raise AllocationError(
                        f"claim {claim.key}, constraint #{i}: empty constraint "
                        "(unsupported constraint type?)"
                    )
                cons.append(_MatchAttribute(frozenset(c.requests), c.match_attribute))
            self.constraints.append(cons)
        try:
            done = self._one(0, 0, 0, 0, False)
        except _MaxSizeExceeded as err:
            raise AllocationError("allocation max size exceeded") from err
        if not done:
            if any(p.invalid for p in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return [self._allocation(picks) for picks in self.result]

    def _validate(self, claim: ResourceClaim, req: Request) -> _RequestData:
        if not req.device_class:
            raise AllocationError(
                f"claim {claim.key}, request {req.name}: missing device class name "
                "(unsupported request type?)"
            )
        cls = self.a.classes.get(req.device_class)
        if cls is None:
            raise AllocationError(
                f"claim {claim.key}, request {req.name}: could not retrieve device class "
                f'{req.device_class}: deviceclass.resource.k8s.io "{req.device_class}" not found'
            )
        rd = _RequestData(req, cls, req.count)
        if req.mode == ALL:
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {claim.key}, request {req.name}: asks for all devices, but "
                        f"resource pool {pool.id_text} is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"claim {claim.key}, request {req.name}: asks for all devices, but "
                        f"resource pool {pool.id_text} is currently invalid"
                    )
                for s in pool.slices:
                    for d in s.devices:
                        if self._selectable(claim, rd, s, d):
                            rd.all_devices.append(((s.driver, s.pool, d.name), d, s))
            rd.num_devices = len(rd.all_devices)
        return rd

    # -- the search ---------------------------------------------------------------------------

    def _one(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        """allocateOne: place device ``di`` of (sub)request (ci, ri, si); True when all fit."""
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.requests):
            try:
                return self._one(ci + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        rd = self.data[(ci, ri, si)]
        if not in_sub and rd.request.parent:
            all_exceeded = True
            sub = 0
            while (ci, ri, sub) in self.data:
                try:
                    ok = self._one(ci, ri, sub, di, True)
                except _MaxSizeExceeded:
                    sub += 1
                    continue
                all_exceeded = False
                if ok:
                    self.data[(ci, ri, 0)].selected_sub = sub
                    return True
                sub += 1
            if all_exceeded:
                raise _MaxSizeExceeded
            return False
        req = rd.request
        every = req.mode == ALL
        if every and not rd.all_devices:
            return False
        if di >= rd.num_devices:
            return self._one(ci, ri + 1, 0, 0, False)
        if len(self.result[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded
        if every:
            did, device, slc = rd.all_devices[di]
            undo = self._take(ci, rd, did, device, slc, must=True)
            return undo is not None and self._next(undo, ci, ri, si, di + 1, in_sub)
        free = [
            c for c in self._candidates(claim, rd, (ci, ri, si)) if not self._blocked(ci, req, c[0])
        ]
        if len(free) < rd.num_devices - di and all(c[3] is True for c in free):
            # Too few devices left for this request: upstream's search would try every order
            # of them and fail the same way (no selector error can come up on the way).
            return False
        for did, device, slc, verdict in free:
            if isinstance(verdict, AllocationError):
                raise verdict
            undo = self._take(ci, rd, did, device, slc, must=False)
            if undo is not None and self._next(undo, ci, ri, si, di + 1, in_sub):
                return True
        return False

    def _candidates(
        self, claim: ResourceClaim, rd: _RequestData, key: tuple[int, int, int]
    ) -> list[tuple[DeviceID, Device, ResourceSlice, bool | AllocationError]]:
        """The devices a (sub)request may take, in pool order, with their selector verdict.

        Computed once per Allocate call. A selector error is kept, not raised: upstream only
        meets it for a device that is free when the search reaches it.
        """
        found = self.candidates.get(key)
        if found is None:
            found = []
            for pool in self.pools:
                if pool.incomplete or pool.invalid:
                    continue
                for slc in pool.slices:
                    for device in slc.devices:
                        verdict: bool | AllocationError
                        try:
                            verdict = self._selectable(claim, rd, slc, device)
                        except AllocationError as err:
                            verdict = err
                        if verdict is not False:
                            found.append(
                                ((pool.driver, pool.pool, device.name), device, slc, verdict)
                            )
            self.candidates[key] = found
        return found

    def _next(
        self, undo: Callable[[], None], ci: int, ri: int, si: int, di: int, in_sub: bool
    ) -> bool:
        """Go on with the next device after a tentative pick; undo the pick if that fails."""
        try:
            if self._one(ci, ri, si, di, in_sub):
                return True
        except _MaxSizeExceeded:
            undo()
            raise
        undo()
        return False

    def _blocked(self, ci: int, req: Request, did: DeviceID) -> bool:
        """Taken: by anyone (admin access: by this claim already)."""
        if req.admin_access:
            return ci in self.allocating.get(did, ())
        return did in self.a.allocated or bool(self.allocating.get(did))

    def _selectable(
        self, claim: ResourceClaim, rd: _RequestData, slc: ResourceSlice, device: Device
    ) -> bool:
        """isSelectable: the class's selectors, then the request's, all true for the device."""
        cls = rd.device_class
        if cls is not None and not self._selectors_match(claim, cls, cls.selectors, slc, device):
            return False
        return self._selectors_match(claim, None, rd.request.selectors, slc, device)

    def _selectors_match(
        self,
        claim: ResourceClaim,
        cls: DeviceClass | None,
        selectors: tuple[str, ...],
        slc: ResourceSlice,
        device: Device,
    ) -> bool:
        if not selectors:
            return True
        key = (selectors, id(device))
        cached = self.a.match_cache.get(key)
        if cached is not None:
            return cached
        for i, expr in enumerate(selectors):
            compiled = self.a.cel_cache.get_or_compile(expr)
            owner = f"class {cls.name}" if cls is not None else f"claim {claim.key}"
            if compiled.error is not None:
                raise AllocationError(
                    f"{owner}: selector #{i}: CEL compile error: {compiled.error}"
                )
            try:
                ok = compiled.matches(slc.driver, device)
            except CelError as err:
                raise AllocationError(f"{owner}: selector #{i}: CEL runtime error: {err}") from err
            if not ok:
                self.a.match_cache[key] = False
                return False
        self.a.match_cache[key] = True
        return True

    def _take(
        self,
        ci: int,
        rd: _RequestData,
        did: DeviceID,
        device: Device,
        slc: ResourceSlice,
        *,
        must: bool,
    ) -> Callable[[], None] | None:
        """allocateDevice: mark the device as allocating if constraints allow; the undo, or None."""
        req = rd.request
        if self._blocked(ci, req, did):
            return None
        base = req.parent or req.name
        sub = req.name if req.parent else ""
        cons = self.constraints[ci]
        for i, c in enumerate(cons):
            if not c.add(base, sub, device, did):
                if must:
                    raise AllocationError(
                        f"claim {self.claims[ci].key}, request {req.name}: cannot add device "
                        f"{device_id_text(did)} because a claim constraint would not be satisfied"
                    )
                for prev in cons[:i]:
                    prev.remove(base, sub, device, did)
                return None
        self.allocating.setdefault(did, set()).add(ci)
        picks = self.result[ci]
        before = len(picks)
        picks.append(_Picked(req, did, device, slc))

        def undo() -> None:
            for c in cons:
                c.remove(base, sub, device, did)
            self.allocating[did].discard(ci)
            del picks[before:]

        return undo

    # -- results ----------------------------------------------------------------------------

    def _allocation(self, picks: list[_Picked]) -> Allocation:
        results = tuple(
            DeviceResult(p.request.full_name, p.did[0], p.did[1], p.did[2]) for p in picks
        )
        return Allocation(results, _node_selector(picks))


class _MaxSizeExceeded(Exception):
    """errAllocationResultMaxSizeExceeded: backtrack further, another subrequest may fit."""


_NAME_FIELD: Final = "metadata.name"


def _node_selector(picks: list[_Picked]) -> dict[str, Any] | None:
    """createNodeSelector: where the allocated devices can be used (None: everywhere)."""
    fields: list[dict[str, Any]] = []
    exprs: list[dict[str, Any]] = []
    for p in picks:
        s = p.slice
        if s.node_name:
            return {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": _NAME_FIELD, "operator": "In", "values": [s.node_name]}
                        ]
                    }
                ]
            }
        terms = (s.node_selector_raw or {}).get("nodeSelectorTerms") or []
        if len(terms) > 1:
            raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
        if terms:
            _merge(terms[0].get("matchFields") or [], fields)
            _merge(terms[0].get("matchExpressions") or [], exprs)
    if not fields and not exprs:
        return None
    term: dict[str, Any] = {}
    if exprs:
        term["matchExpressions"] = exprs
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def _merge(source: list[dict[str, Any]], into: list[dict[str, Any]]) -> None:
    for req in source:
        values = set(req.get("values") or ())
        if not any(
            r.get("key") == req.get("key")
            and r.get("operator") == req.get("operator")
            and set(r.get("values") or ()) == values
            for r in into
        ):
            into.append(req)
