"""DRA files written for resource.k8s.io/v1beta1 or v1beta2 are read as v1, as the API server
converts them, and place pods exactly as the same file written for v1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scheduler_core.dra.versions import ConversionError, to_v1

V1BETA1 = (Path(__file__).parent / "v1beta1_cluster.yaml").read_text()


def _docs(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def _by_kind(docs: list[dict], kind: str) -> dict:
    return next(d for d in docs if d["kind"] == kind)


def test_a_v1beta1_slice_loses_basic_and_a_request_gains_exactly():
    docs = _docs(V1BETA1)
    device_slice, source = to_v1(_by_kind(docs, "ResourceSlice"))
    assert (
        source == "resource.k8s.io/v1beta1" and device_slice["apiVersion"] == "resource.k8s.io/v1"
    )
    assert device_slice["spec"]["devices"] == [
        {
            "name": "gpu-0",
            "attributes": {"model": {"string": "a100"}},
            "capacity": {"memory": {"value": "40Gi"}},
        }
    ]
    claim, _ = to_v1(_by_kind(docs, "ResourceClaim"))
    (request,) = claim["spec"]["devices"]["requests"]
    assert request == {
        "name": "gpu",
        "exactly": {
            "deviceClassName": "gpu",
            "selectors": [
                {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "a100"'}}
            ],
        },
    }
    # the input is left as it was
    assert "basic" in _by_kind(docs, "ResourceSlice")["spec"]["devices"][0]


def test_a_template_s_claim_spec_and_first_available_requests_convert():
    template = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "default"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "a",
                            "deviceClassName": "gpu",
                            "allocationMode": "ExactCount",
                            "count": 2,
                        },
                        {
                            "name": "b",
                            "firstAvailable": [{"name": "big", "deviceClassName": "gpu"}],
                        },
                    ]
                }
            }
        },
    }
    converted, source = to_v1(template)
    a, b = converted["spec"]["spec"]["devices"]["requests"]
    assert source == "resource.k8s.io/v1beta1"
    assert a == {
        "name": "a",
        "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2},
    }
    assert b == {"name": "b", "firstAvailable": [{"name": "big", "deviceClassName": "gpu"}]}


def test_v1beta2_changes_only_the_version_and_v1_or_other_kinds_are_untouched():
    claim = {
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
    }
    converted, source = to_v1(claim)
    assert source == "resource.k8s.io/v1beta2"
    assert converted == {**claim, "apiVersion": "resource.k8s.io/v1"}
    for unchanged in (
        {**claim, "apiVersion": "resource.k8s.io/v1"},
        {"apiVersion": "v1", "kind": "Pod"},
    ):
        assert to_v1(unchanged) == (unchanged, None)


def test_an_empty_node_name_and_all_nodes_false_are_left_out_as_v1_leaves_them():
    device_slice = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "d",
            "nodeName": "",
            "allNodes": False,
            "pool": {"name": "p"},
            "devices": [],
        },
    }
    spec = to_v1(device_slice)[0]["spec"]
    assert "nodeName" not in spec and "allNodes" not in spec


@pytest.mark.parametrize(
    ("request_", "path"),
    [
        (
            {
                "name": "r",
                "deviceClassName": "gpu",
                "firstAvailable": [{"name": "s", "deviceClassName": "gpu"}],
            },
            "spec.devices.requests[0].deviceClassName",
        ),
        ({"name": "r", "exactly": {"deviceClassName": "gpu"}}, "spec.devices.requests[0].exactly"),
    ],
)
def test_what_v1beta1_refuses_is_refused_with_its_field(request_, path):
    claim = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": {"requests": [request_]}},
    }
    with pytest.raises(ConversionError) as err:
        to_v1(claim)
    assert err.value.path == path


def _simulate(tmp_path: Path, text: str) -> tuple[dict, str]:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "scheduler_core", "simulate", str(cluster), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout), done.stderr


def test_simulate_places_a_v1beta1_file_as_its_v1_twin_and_says_it_converted(tmp_path):
    v1_text = yaml.safe_dump_all([to_v1(d)[0] for d in _docs(V1BETA1)])
    assert "v1beta1" not in v1_text
    old, said = _simulate(tmp_path, V1BETA1)
    new, said_v1 = _simulate(tmp_path, v1_text)
    assert old == new and old["default/trainer"]["node"] == "gpu-2"
    assert (
        "ResourceSlice gpu-2-slice: converted from resource.k8s.io/v1beta1 to resource.k8s.io/v1"
        in said
    )
    assert "ResourceClaim one-gpu: converted" in said and "converted" not in said_v1
