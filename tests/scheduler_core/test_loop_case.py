"""Loop cases: steps change the cluster between settled loops; bad steps name their field."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.tools.loop_case import loop_case
from tests.builders import make_node, make_pod


def _case(steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "name": "t",
        "nodes": [make_node("n1", cpu="2", labels={"disk": "hdd"})],
        "queue": [make_pod("picky", cpu="1", nodeSelector={"disk": "ssd"})],
        "steps": steps,
        **extra,
    }


def _states(out: dict[str, Any]) -> list[str]:
    return [o["pods"]["default/picky"]["state"] for o in out["outcomes"]]


def test_a_pod_update_that_adds_a_toleration_requeues_and_binds_it() -> None:
    taint = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
    tolerating = make_pod("picky", cpu="1", tolerations=[{**taint, "operator": "Equal"}])
    case = _case([{"update": tolerating}])
    case["nodes"] = [make_node("n1", cpu="2", taints=[taint])]
    case["queue"] = [make_pod("picky", cpu="1")]
    out = loop_case(case)
    assert _states(out) == ["unschedulable", "bound"]


def test_a_node_update_without_status_keeps_the_nodes_capacity() -> None:
    node = make_node("n1", labels={"disk": "ssd"})
    del node["status"]
    out = loop_case(_case([{"advanceSeconds": 0, "update": node}]))
    assert _states(out) == ["unschedulable", "bound"]


def test_a_deleted_pending_pod_is_left_out_from_then_on() -> None:
    out = loop_case(_case([{"delete": {"kind": "Pod", "namespace": "default", "name": "picky"}}]))
    assert [sorted(o["pods"]) for o in out["outcomes"]] == [["default/picky"], []]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"advanceSeconds": 61, "add": make_node("n2")}, "steps[0].advanceSeconds: "),
        ({"advanceSeconds": True, "add": make_node("n2")}, "steps[0].advanceSeconds: "),
        ({"add": make_node("n2"), "delete": {"kind": "Node", "name": "n1"}}, "steps[0]: exactly"),
        ({"update": make_pod("ghost")}, "steps[0].update: metadata.name: no pod 'default/ghost'"),
        ({"add": {"kind": "Service"}}, "steps[0].add: kind: cannot add a 'Service'"),
        ({"delete": {"kind": "Pod"}}, "steps[0].delete: name: required"),
    ],
    ids=["advance-too-far", "advance-not-int", "two-actions", "unknown-pod", "kind", "no-name"],
)
def test_a_bad_step_is_an_error_naming_its_field(step: dict[str, Any], message: str) -> None:
    out = loop_case(_case([step]))
    assert out["error"].startswith(message), out["error"]


def _gang_case(gates: dict[str, bool]) -> dict[str, Any]:
    workload = {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "train", "namespace": "default"},
        "spec": {"podGroups": [{"name": "w", "policy": {"gang": {"minCount": 2}}}]},
    }
    ref = {"name": "train", "podGroup": "w"}
    return {
        "name": "gang",
        "featureGates": {"GenericWorkload": True, "GangScheduling": True, **gates},
        "workloads": [workload],
        "nodes": [make_node("n1", cpu="2")],
        "queue": [make_pod(f"m{i}", cpu="2", workloadRef=ref) for i in range(2)],
    }


def test_a_gang_member_waiting_on_permit_is_nominated_to_its_node_as_an_expectation() -> None:
    pods = loop_case(_gang_case({}))["outcomes"][0]["pods"]
    waiting = [p for p in pods.values() if p["state"] == "waitingOnPermit"]
    assert waiting == [{"state": "waitingOnPermit", "node": "n1", "nominatedNodeName": "n1"}]


def test_without_nominated_node_name_for_expectation_a_waiting_pod_has_no_nomination() -> None:
    case = _gang_case({"NominatedNodeNameForExpectation": False})
    pods = loop_case(case)["outcomes"][0]["pods"]
    waiting = [p for p in pods.values() if p["state"] == "waitingOnPermit"]
    assert waiting == [{"state": "waitingOnPermit", "node": "n1"}]


def test_updating_a_pod_that_waits_on_permit_leaves_it_waiting() -> None:
    case = _gang_case({})
    member = next(p for p in case["queue"])
    relabelled = {**member, "metadata": {**member["metadata"], "labels": {"team": "ml"}}}
    case["steps"] = [{"update": relabelled}]
    outcomes = loop_case(case)["outcomes"]
    assert outcomes[1]["pods"] == outcomes[0]["pods"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("featureGates", ["GangScheduling"], "featureGates: must be a mapping"),
        ("steps", {"add": {}}, "steps: must be a list"),
        ("steps", ["add"], "steps[0]: must be an object"),
    ],
    ids=["gates-not-a-mapping", "steps-not-a-list", "step-not-an-object"],
)
def test_a_malformed_case_is_an_error_naming_the_field(
    field: str, value: Any, message: str
) -> None:
    out = loop_case({**_case([]), field: value})
    assert out["error"].startswith(message), out["error"]
