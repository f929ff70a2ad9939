"""The DRA manager: the claims, slices and classes the scheduler sees, and the taken devices.

Mirrors plugins/dynamicresources/dra_manager.go and allocateddevices.go in kube-scheduler v1.35:
claims are looked up by namespace and name, the devices of every allocated claim (admin access
excepted) are taken, and what PreBind writes (allocation, reservedFor) and PostFilter undoes
(deallocation) is kept here so later cycles see it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scheduler_core.dra.allocator import DeviceID, MatchCache
from scheduler_core.dra.cel_env import DEFAULT_CACHE, Cache
from scheduler_core.dra.types import (
    Allocation,
    Consumer,
    DeviceClass,
    ResourceClaim,
    ResourceSlice,
    device_class,
    resource_claim,
    resource_slice,
)


class DraManager:
    """SharedDRAManager: listers for claims, slices and classes, plus the allocated devices."""

    def __init__(
        self,
        claims: Iterable[ResourceClaim] = (),
        slices: Iterable[ResourceSlice] = (),
        classes: Iterable[DeviceClass] = (),
    ) -> None:
        self.claims: dict[str, ResourceClaim] = {c.key: c for c in claims}
        self.slices: list[ResourceSlice] = list(slices)
        self.classes: dict[str, DeviceClass] = {c.name: c for c in classes}
        self.cel_cache: Cache = DEFAULT_CACHE
        self.match_cache: MatchCache = {}
        self._allocated: frozenset[DeviceID] | None = None

    @classmethod
    def from_lists(
        cls,
        claims: Sequence[Mapping[str, Any]] = (),
        slices: Sequence[Mapping[str, Any]] = (),
        classes: Sequence[Mapping[str, Any]] = (),
    ) -> DraManager:
        """Build from manifests; raises DraError naming the first invalid field."""
        return cls(
            [resource_claim(r) for r in claims],
            [resource_slice(r) for r in slices],
            [device_class(r) for r in classes],
        )

    def empty(self) -> bool:
        return not (self.claims or self.slices or self.classes)

    def claim(self, namespace: str, name: str) -> ResourceClaim | None:
        return self.claims.get(f"{namespace}/{name}")

    def allocated_devices(self) -> frozenset[DeviceID]:
        """ListAllAllocatedDevices: every device of an allocated claim, admin access excepted."""
        if self._allocated is None:
            taken: set[DeviceID] = set()
            for c in self.claims.values():
                if c.allocation is None:
                    continue
                for d in c.allocation.devices:
                    taken.add((d.driver, d.pool, d.device))
            self._allocated = frozenset(taken)
        return self._allocated

    def _store(self, claim: ResourceClaim) -> ResourceClaim:
        self.claims[claim.key] = claim
        self._allocated = None
        return claim

    def reserve(
        self, claim: ResourceClaim, allocation: Allocation | None, pod_name: str, pod_uid: str
    ) -> ResourceClaim:
        """What PreBind's bindClaim writes: the allocation (if new) and the pod in reservedFor."""
        current = self.claims.get(claim.key, claim)
        return self._store(
            dataclasses.replace(
                current,
                allocation=allocation if allocation is not None else current.allocation,
                reserved_for=(*current.reserved_for, Consumer("pods", pod_name, pod_uid)),
            )
        )

    def deallocate(self, claim: ResourceClaim) -> ResourceClaim:
        """What PostFilter writes: no allocation, no reservations."""
        current = self.claims.get(claim.key, claim)
        return self._store(dataclasses.replace(current, allocation=None, reserved_for=()))

    def unreserve(self, claim: ResourceClaim, pod_uid: str) -> None:
        """Unreserve's patch: drop the pod from reservedFor."""
        current = self.claims.get(claim.key)
        if current is None:
            return
        kept = tuple(c for c in current.reserved_for if c.uid != pod_uid)
        self._store(dataclasses.replace(current, reserved_for=kept))
