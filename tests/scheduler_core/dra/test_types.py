"""DRA objects built from manifests, with the API server's defaults and field-naming errors."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.dra.types import DraError, resource_claim, resource_slice


def _claim(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {"devices": {"requests": [request]}},
    }


def test_request_defaults_to_exact_count_of_one() -> None:
    claim = resource_claim(_claim({"name": "g", "exactly": {"deviceClassName": "gpu"}}))
    req = claim.requests[0].exactly
    assert req is not None
    assert (req.mode, req.count, req.full_name) == ("ExactCount", 1, "g")
    assert claim.key == "ns/c"
    assert claim.allocation is None


def test_subrequests_are_named_request_slash_subrequest() -> None:
    claim = resource_claim(
        _claim(
            {"name": "g", "firstAvailable": [{"name": "big", "deviceClassName": "gpu", "count": 2}]}
        )
    )
    sub = claim.requests[0].first_available[0]
    assert (sub.full_name, sub.count) == ("g/big", 2)


def test_status_round_trips_through_to_manifest() -> None:
    raw = _claim({"name": "g", "exactly": {"deviceClassName": "gpu"}})
    raw["status"] = {
        "allocation": {
            "devices": {"results": [{"request": "g", "driver": "d", "pool": "p", "device": "x"}]}
        },
        "reservedFor": [{"resource": "pods", "name": "p1", "uid": "u1"}],
    }
    claim = resource_claim(raw)
    assert claim.reserved_for_pod("u1")
    assert claim.to_manifest() == raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param(
            _claim({"name": "g", "exactly": {"deviceClassName": "gpu", "count": 0}}),
            "ResourceClaim ns/c: spec.devices.requests[0].exactly.count: Invalid value: 0: "
            "must be greater than zero",
            id="zero-count",
        ),
        pytest.param(
            _claim({"name": "g"}),
            "ResourceClaim ns/c: spec.devices.requests[0]: Invalid value: exactly one of exactly, "
            "firstAvailable is required",
            id="neither-exactly-nor-first-available",
        ),
    ],
)
def test_invalid_claim_names_the_field(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(DraError) as err:
        resource_claim(raw)
    assert str(err.value) == message


def test_invalid_attribute_names_the_field() -> None:
    raw = {
        "metadata": {"name": "s"},
        "spec": {
            "driver": "d",
            "nodeName": "n1",
            "pool": {"name": "p", "resourceSliceCount": 1},
            "devices": [{"name": "x", "attributes": {"model": {"string": "a", "int": 1}}}],
        },
    }
    with pytest.raises(DraError) as err:
        resource_slice(raw)
    assert err.value.path == "spec.devices[0].attributes[model]"
