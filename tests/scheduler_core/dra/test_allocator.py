"""The structured allocator: devices for a pod's claims on one node."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.dra.allocator import AllocationError, Allocator, FailedOnNode
from scheduler_core.dra.cel_env import Cache
from scheduler_core.dra.types import (
    ResourceClaim,
    device_class,
    resource_claim,
    resource_slice,
)
from scheduler_core.objects.api import Node
from tests.builders import make_node

GPU = "gpu.example.com"
CLASSES = {
    c.name: c
    for c in (
        device_class(
            {
                "metadata": {"name": "gpu"},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}]},
            }
        ),
        device_class(
            {
                "metadata": {"name": "fabric"},
                "spec": {
                    "selectors": [{"cel": {"expression": 'device.driver == "fabric.example.com"'}}]
                },
            }
        ),
        device_class(
            {
                "metadata": {"name": "broken"},
                "spec": {
                    "selectors": [{"cel": {"expression": f'device.attributes["{GPU}"].nothing'}}]
                },
            }
        ),
    )
}


def gpu_slice(node: str, models: list[str], *, pool: str | None = None, **pool_extra: Any) -> Any:
    return resource_slice(
        {
            "metadata": {"name": f"{node}-gpu"},
            "spec": {
                "driver": GPU,
                "nodeName": node,
                "pool": {
                    "name": pool or node,
                    "generation": 1,
                    "resourceSliceCount": 1,
                    **pool_extra,
                },
                "devices": [
                    {
                        "name": f"gpu-{i}",
                        "attributes": {"model": {"string": m}, "index": {"int": i}},
                        "capacity": {"memory": {"value": "40Gi"}},
                    }
                    for i, m in enumerate(models)
                ],
            },
        }
    )


FABRIC = resource_slice(
    {
        "metadata": {"name": "fabric-rack-a"},
        "spec": {
            "driver": "fabric.example.com",
            "pool": {"name": "rack-a", "generation": 1, "resourceSliceCount": 1},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["a"]}]}
                ]
            },
            "devices": [{"name": "acc-0"}, {"name": "acc-1"}],
        },
    }
)


def claim(name: str, *requests: dict[str, Any], constraints: Any = None) -> ResourceClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    return resource_claim({"metadata": {"name": name}, "spec": {"devices": devices}})


def exactly(name: str, cls: str = "gpu", **extra: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, **extra}}


def node(name: str = "n1", **labels: str) -> Node:
    return Node(make_node(name, labels=labels))


def devices(result: Any) -> list[list[tuple[str, str, str]]]:
    return [[(d.request, d.pool, d.device) for d in a.devices] for a in result]


def allocator(slices: list[Any], taken: set[tuple[str, str, str]] | None = None) -> Allocator:
    return Allocator(frozenset(taken or ()), CLASSES, slices, Cache())


def test_exact_count_takes_first_free_devices_in_slice_order() -> None:
    a = allocator([gpu_slice("n1", ["a100", "a100", "a100"])], taken={(GPU, "n1", "gpu-0")})
    result = a.allocate(node(), [claim("c", exactly("g", count=2))])
    assert result is not None
    assert devices(result) == [[("g", "n1", "gpu-1"), ("g", "n1", "gpu-2")]]
    assert result[0].node_selector_raw == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
        ]
    }


def test_devices_of_another_node_are_not_seen() -> None:
    a = allocator([gpu_slice("n2", ["a100"])])
    assert a.allocate(node("n1"), [claim("c", exactly("g"))]) is None


def test_two_claims_of_one_pod_do_not_share_a_device() -> None:
    a = allocator([gpu_slice("n1", ["a100", "a100"])])
    result = a.allocate(node(), [claim("c1", exactly("g")), claim("c2", exactly("g"))])
    assert result is not None
    assert devices(result) == [[("g", "n1", "gpu-0")], [("g", "n1", "gpu-1")]]
    assert a.allocate(node(), [claim("c", exactly("g", count=3))]) is None


def test_request_selector_filters_devices() -> None:
    sel = [{"cel": {"expression": f'device.attributes["{GPU}"].model == "h100"'}}]
    a = allocator([gpu_slice("n1", ["a100", "h100"])])
    result = a.allocate(node(), [claim("c", exactly("g", selectors=sel))])
    assert result is not None
    assert devices(result) == [[("g", "n1", "gpu-1")]]


def test_all_mode_takes_every_matching_device_or_nothing() -> None:
    a = allocator([gpu_slice("n1", ["a100", "a100"])])
    result = a.allocate(node(), [claim("c", exactly("g", allocationMode="All"))])
    assert result is not None
    assert devices(result) == [[("g", "n1", "gpu-0"), ("g", "n1", "gpu-1")]]
    busy = allocator([gpu_slice("n1", ["a100", "a100"])], taken={(GPU, "n1", "gpu-1")})
    assert busy.allocate(node(), [claim("c", exactly("g", allocationMode="All"))]) is None


def test_first_available_tries_subrequests_in_order() -> None:
    big = {"name": "big", "deviceClassName": "gpu", "count": 3}
    small = {"name": "small", "deviceClassName": "gpu", "count": 1}
    a = allocator([gpu_slice("n1", ["a100", "a100"])])
    result = a.allocate(node(), [claim("c", {"name": "g", "firstAvailable": [big, small]})])
    assert result is not None
    assert devices(result) == [[("g/small", "n1", "gpu-0")]]


def test_match_attribute_backtracks_to_devices_that_agree() -> None:
    cons = [{"requests": ["g"], "matchAttribute": f"{GPU}/model"}]
    a = allocator([gpu_slice("n1", ["a100", "h100", "h100"])])
    result = a.allocate(node(), [claim("c", exactly("g", count=2), constraints=cons)])
    assert result is not None
    assert devices(result) == [[("g", "n1", "gpu-1"), ("g", "n1", "gpu-2")]]
    mixed = allocator([gpu_slice("n1", ["a100", "h100"])])
    assert mixed.allocate(node(), [claim("c", exactly("g", count=2), constraints=cons)]) is None


def test_network_attached_pool_follows_its_node_selector() -> None:
    a = allocator([FABRIC])
    result = a.allocate(node("n1", rack="a"), [claim("c", exactly("f", "fabric"))])
    assert result is not None
    assert devices(result) == [[("f", "rack-a", "acc-0")]]
    assert result[0].node_selector_raw == {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["a"]}]}
        ]
    }
    assert a.allocate(node("n2", rack="b"), [claim("c", exactly("f", "fabric"))]) is None


def test_incomplete_pool_is_skipped_and_refused_for_all() -> None:
    partial = gpu_slice("n1", ["a100"], resourceSliceCount=2)
    a = allocator([partial])
    assert a.allocate(node(), [claim("c", exactly("g"))]) is None
    with pytest.raises(
        AllocationError,
        match=r"asks for all devices, but resource pool gpu.example.com/n1 is currently being",
    ):
        a.allocate(node(), [claim("c", exactly("g", allocationMode="All"))])


def test_duplicate_device_names_make_the_pool_invalid_on_this_node() -> None:
    s1 = gpu_slice("n1", ["a100"], resourceSliceCount=2)
    s2 = resource_slice({**s1.raw, "metadata": {"name": "other"}})
    with pytest.raises(FailedOnNode):
        allocator([s1, s2]).allocate(node(), [claim("c", exactly("g"))])


def test_selector_runtime_error_names_class_and_selector() -> None:
    a = allocator([gpu_slice("n1", ["a100"])])
    with pytest.raises(
        AllocationError,
        match=r"^class broken: selector #0: CEL runtime error: no such key: nothing$",
    ):
        a.allocate(node(), [claim("c", exactly("g", "broken"))])


def test_too_many_devices_for_one_claim() -> None:
    a = allocator([gpu_slice("n1", ["a100"])])
    with pytest.raises(
        AllocationError, match="number of requested devices 33 exceeds the claim limit of 32"
    ):
        a.allocate(node(), [claim("c", exactly("g", count=33))])
