"""Pod requests and node allocatable are computed as upstream computes them."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.errors import ManifestError
from scheduler_core.loop.cluster import apply_api_defaults
from scheduler_core.objects.api import (
    Node,
    Pod,
)

GI = 1024**3
MI = 1024**2


def _c(name: str, **requests: str) -> dict[str, Any]:
    return {"name": name, "image": "img", "resources": {"requests": requests}}


def _pod(**spec: Any) -> Pod:
    return Pod({"metadata": {"name": "p"}, "spec": spec})


@pytest.mark.parametrize(
    ("spec", "cpu", "mem"),
    [
        pytest.param({"containers": [_c("a", cpu="1"), _c("b", cpu="500m")]}, 1500, 0, id="sum"),
        pytest.param(
            {"containers": [_c("a", cpu="1")], "initContainers": [_c("i", cpu="2")]},
            2000,
            0,
            id="init-by-max",
        ),
        pytest.param(
            {
                "containers": [_c("a", cpu="1")],
                "initContainers": [
                    {**_c("s", cpu="500m"), "restartPolicy": "Always"},
                    _c("i", cpu="1"),
                ],
            },
            1500,
            0,
            id="sidecar-adds-and-raises-later-inits",
        ),
        pytest.param(
            {"containers": [_c("a", cpu="1")], "overhead": {"cpu": "250m", "memory": "10Mi"}},
            1250,
            10 * MI,
            id="overhead",
        ),
        pytest.param(
            {"containers": [_c("a", cpu="1")], "resources": {"requests": {"cpu": "3"}}},
            3000,
            0,
            id="pod-level-requests-win",
        ),
    ],
)
def test_pod_requests(spec: dict[str, Any], cpu: int, mem: int) -> None:
    pod = _pod(**spec)
    assert pod.resource.milli_cpu == cpu
    assert pod.resource.memory == mem


def test_non_zero_defaults_fill_missing_cpu_and_memory() -> None:
    pod = _pod(containers=[_c("a"), _c("b", memory="1Gi")])
    assert (pod.non0_cpu, pod.non0_mem) == (200, GI + 200 * MI)
    assert (pod.resource.milli_cpu, pod.resource.memory) == (0, GI)


def test_extended_resources_are_scalars() -> None:
    pod = _pod(containers=[_c("a", **{"example.com/gpu": "2", "hugepages-2Mi": "4Mi"})])
    assert pod.resource.scalars == {"example.com/gpu": 2, "hugepages-2Mi": 4 * MI}


def test_bad_quantity_names_the_container_field() -> None:
    with pytest.raises(ManifestError) as err:
        _pod(containers=[_c("a", cpu="lots")])
    assert err.value.path == "spec.containers[0].resources.requests.cpu"


def test_node_allocatable_defaults_to_capacity() -> None:
    node = Node({"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "4", "pods": "110"}}})
    assert (node.allocatable.milli_cpu, node.allocatable.allowed_pod_number) == (4000, 110)


def test_api_defaults_copy_limits_into_missing_requests() -> None:
    raw = {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "2"}}}]},
    }
    pod = Pod(apply_api_defaults(raw))
    assert pod.resource.milli_cpu == 2000
    assert pod.namespace == "default"
    assert pod.scheduler_name == "default-scheduler"
    assert "requests" not in raw["spec"]["containers"][0]["resources"]  # input left untouched
