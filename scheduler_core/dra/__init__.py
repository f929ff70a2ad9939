"""Dynamic Resource Allocation: typed claims, slices and classes, CEL selectors, the allocator.

Modules:

- ``types``: typed DeviceClass, ResourceSlice and ResourceClaim built from manifests;
- ``versions``: objects written for resource.k8s.io/v1beta1 or v1beta2 converted to v1;
- ``manager``: the claims, slices and classes the scheduler sees, and the taken devices;
- ``cel_env``: Kubernetes' CEL environment for device selectors;
- ``cel_functions``: its quantity and semantic-version functions (the sandbox registers them too);
- ``allocator``: the structured allocator (devices for a pod's claims on one node);
- ``explain``: why each device did or did not match each request, per node.
"""

from __future__ import annotations

from scheduler_core.dra.allocator import AllocationError, Allocator, FailedOnNode
from scheduler_core.dra.cel_env import Cache, CelError, compile_selector
from scheduler_core.dra.manager import DraManager
from scheduler_core.dra.types import (
    Allocation,
    DeviceClass,
    DeviceResult,
    DraError,
    ResourceClaim,
    ResourceSlice,
    device_class,
    resource_claim,
    resource_slice,
)

__all__ = [
    "Allocation",
    "AllocationError",
    "Allocator",
    "Cache",
    "CelError",
    "DeviceClass",
    "DeviceResult",
    "DraError",
    "DraManager",
    "FailedOnNode",
    "ResourceClaim",
    "ResourceSlice",
    "compile_selector",
    "device_class",
    "resource_claim",
    "resource_slice",
]
