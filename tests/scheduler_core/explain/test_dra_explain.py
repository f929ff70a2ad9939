"""DynamicResources explained: the devices a node reaches, their attributes, verdicts, holders."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain import at_scheduler_cycle, explain_node
from scheduler_core.loop.scheduler import Scheduler
from tests.builders import make_node, make_pod

API = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"
CONFIG = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def _slice(node: str, model: str, memory: str, count: int) -> dict[str, Any]:
    devices = [
        {
            "name": f"gpu-{i}",
            "attributes": {"model": {"string": model}},
            "capacity": {"memory": {"value": memory}},
        }
        for i in range(count)
    ]
    return {
        "apiVersion": API,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpu"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def _claim(name: str, request: dict[str, Any], allocated: str = "") -> dict[str, Any]:
    claim: dict[str, Any] = {
        "apiVersion": API,
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [request]}},
    }
    if allocated:
        node, device = allocated.split("/")
        claim["status"] = {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": node, "device": device}
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [node]}
                            ]
                        }
                    ]
                },
            },
            "reservedFor": [{"resource": "pods", "name": "old", "uid": "old-uid"}],
        }
    return claim


def _pod(name: str, claim: str) -> dict[str, Any]:
    pod = make_pod(name)
    pod["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimName": claim}]
    return pod


L4 = 'device.attributes["gpu.example.com"].model == "l4"'
GPU_CLASS = {
    "apiVersion": API,
    "kind": "DeviceClass",
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
}


def _manifests(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        make_node("n1"),
        make_node("n2"),
        GPU_CLASS,
        _slice("n1", "a100", "40Gi", 1),
        _slice("n2", "l4", "24Gi", 2),
        _claim("held", {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}, "n2/gpu-0"),
        _claim("want", request),
        _pod("p", "want"),
    ]


def _explain(request: dict[str, Any], node: str) -> dict[str, dict[str, Any]]:
    sched = Scheduler(CONFIG, _manifests(request))
    found = at_scheduler_cycle(sched, 1, lambda ctx: explain_node(ctx, node, "DynamicResources"))
    return {e["point"]: e for e in found}


EXACT_L4 = {
    "name": "gpu",
    "exactly": {"deviceClassName": "gpu", "selectors": [{"cel": {"expression": L4}}]},
}


def test_filter_lists_each_device_with_its_attributes_verdict_and_holder() -> None:
    steps = _explain(EXACT_L4, "n2")
    verdict = steps["Filter"]
    assert verdict["value"]["code"] == "Success"
    [row] = verdict["inputs"]["requests"]
    assert row["claim"] == "default/want"
    assert row["classSelectors"] == [f'device.driver == "{DRIVER}"']
    assert row["requestSelectors"] == [L4]
    by_name = {d["device"]: d for d in row["devices"]}
    taken = by_name[f"{DRIVER}/n2/gpu-0"]
    assert taken["verdict"] == "taken"
    assert taken["heldBy"] == "default/held"
    free = by_name[f"{DRIVER}/n2/gpu-1"]
    assert free["verdict"] == "matched"
    assert free["attributes"] == {"model": "l4"}
    assert free["capacity"] == {"memory": "24Gi"}
    assert verdict["inputs"]["allocation"][0]["device"] == "gpu-1"
    assert "n2/gpu-0 (model l4, memory 24Gi): allocated to default/held" in verdict["text"]
    assert "The allocator chose n2/gpu-1 (model l4, memory 24Gi) for gpu." in verdict["text"]


def test_a_rejected_node_says_which_selector_was_false_on_which_device() -> None:
    verdict = _explain(EXACT_L4, "n1")["Filter"]
    assert verdict["value"]["code"] == "UnschedulableAndUnresolvable"
    [device] = verdict["inputs"]["requests"][0]["devices"]
    assert device["verdict"] == "selector"
    assert device["attributes"] == {"model": "a100"}
    assert "0 matched" in verdict["text"]
    assert "n1/gpu-0 (model a100, memory 40Gi): request selector #0 is false" in verdict["text"]
    assert "not enough" in verdict["text"]
    assert verdict["inputs"]["elsewhere"] == {f"{DRIVER}/n2": 2}


def test_reserve_and_pre_bind_name_the_device_kept_on_the_chosen_node() -> None:
    steps = _explain(EXACT_L4, "n2")
    for point in ("Reserve", "PreBind"):
        assert steps[point]["value"]["devices"] == [f"{DRIVER}/n2/gpu-1"]
        assert "default/want: n2/gpu-1 (model l4, memory 24Gi)" in steps[point]["text"]
    assert steps["Reserve"]["inputs"]["devices"][0]["attributes"] == {"model": "l4"}


def test_score_names_the_first_available_subrequest_used() -> None:
    request = {
        "name": "gpu",
        "firstAvailable": [
            {
                "name": "h100",
                "deviceClassName": "gpu",
                "selectors": [{"cel": {"expression": L4.replace("l4", "h100")}}],
            },
            {"name": "any", "deviceClassName": "gpu"},
        ],
    }
    score = _explain(request, "n2")["Score"]
    assert score["value"] == 7
    assert score["formula"] == "(8 − 1) = 7"
    [term] = score["inputs"]["subrequests"]
    assert (term["subrequest"], term["index"], term["points"]) == ("any", 1, 7)
    # the constant named, the alternative counted from 1 where a reader counts (issue 34 item 5)
    assert "alternative 2 of 2: 8 − 1 = 7" in score["text"]
    assert "scores 8 (the most alternatives a list may hold)" in score["text"]
