"""DynamicResources for a cluster without DRA objects: what pods without claims see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, SUCCESS, Code, Status, unresolvable, unschedulable
from scheduler_core.framework.types import NodeScore, Snapshot
from scheduler_core.loop.cluster import (
    Cluster,
    apply_api_defaults,
)
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins.dynamic_resources import plugin as dra


@dataclass
class FakeHandle:
    snapshot: Snapshot


def make(**spec: Any) -> tuple[dra.DynamicResources, Pod, Snapshot]:
    nodes = [Node({"metadata": {"name": n}, "status": {}}) for n in ("n1", "n2")]
    cluster = Cluster(nodes, [], ClusterObjects())
    plugin = dra.new(None, FakeHandle(cluster.snapshot()))  # type: ignore[arg-type]
    raw = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [], **spec}}
    return plugin, Pod(apply_api_defaults(raw)), cluster.snapshot()


def test_pod_without_claims_skips_pre_filter_and_scores_zero() -> None:
    plugin, pod, snap = make()
    state = CycleState()
    assert plugin.pre_filter(state, pod, snap.node_info_list) == (None, SKIP)
    scores, status = plugin.score_columns(state, pod, snap.node_info_list)
    assert (scores.tolist(), status) == ([0, 0], SUCCESS)
    assert plugin.score(state, pod, snap.node_info_list[0]) == (0, SUCCESS)
    scores = [NodeScore("n1", 0), NodeScore("n2", 0)]
    assert plugin.normalize_score(state, pod, scores) == SUCCESS
    assert [s.score for s in scores] == [0, 0]
    assert plugin.reserve(state, pod, "n1") == SUCCESS
    assert plugin.pre_bind(state, pod, "n1") == SUCCESS


def test_post_filter_after_pre_filter_ran() -> None:
    plugin, pod, snap = make()
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    assert plugin.post_filter(state, pod, {}) == (None, unschedulable(dra.MSG_NO_NEW_CLAIMS))


def test_post_filter_without_pre_filter_state_is_not_found_error() -> None:
    plugin, pod, _ = make()
    result, status = plugin.post_filter(CycleState(), pod, {})
    assert result is None
    assert status == Status(Code.ERROR, ("not found",))


@pytest.mark.parametrize(
    ("claims", "status", "expected"),
    [
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "my-claim"}],
            None,
            unresolvable('resourceclaim.resource.k8s.io "my-claim" not found'),
            id="named-claim-missing",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
            None,
            unresolvable('pod "ns/p": ResourceClaim not created yet'),
            id="template-claim-not-generated-yet",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimTemplateName": "tmpl"}],
            {"resourceClaimStatuses": [{"name": "gpu"}]},
            SKIP,
            id="template-claim-deliberately-not-generated",
        ),
    ],
)
def test_pod_with_claims(claims: list[Any], status: Any, expected: Status) -> None:
    plugin, _, snap = make()
    raw: dict[str, Any] = {
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"containers": [], "resourceClaims": claims},
    }
    if status is not None:
        raw["status"] = status
    pod = Pod(apply_api_defaults(raw))
    state = CycleState()
    assert plugin.pre_filter(state, pod, snap.node_info_list) == (None, expected)
    if not expected.is_skip():
        assert plugin.pre_enqueue(pod) == expected
        assert plugin.post_filter(state, pod, {})[1] == unschedulable(dra.MSG_NO_NEW_CLAIMS)


# -- with DRA objects ----------------------------------------------------------------------------

GPU_CLASS = {
    "metadata": {"name": "gpu"},
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
}


def gpu_slice(node: str, count: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{node}-gpu"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}"} for i in range(count)],
        },
    }


def gpu_claim(name: str, request: dict[str, Any], **status: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"devices": {"requests": [request]}},
    }
    if status:
        out["status"] = status
    return out


def with_dra(claims: list[dict[str, Any]], *claim_names: str) -> tuple[Any, Pod, Snapshot]:
    nodes = [Node({"metadata": {"name": n}, "status": {}}) for n in ("n1", "n2")]
    objects = ClusterObjects.from_lists(
        resource_claims=claims,
        resource_slices=[gpu_slice("n1", 1), gpu_slice("n2", 2)],
        device_classes=[GPU_CLASS],
    )
    cluster = Cluster(nodes, [], objects)
    plugin = dra.new(None, FakeHandle(cluster.snapshot()))  # type: ignore[arg-type]
    raw = {
        "metadata": {"name": "p", "namespace": "ns", "uid": "uid-p"},
        "spec": {
            "containers": [],
            "resourceClaims": [
                {"name": f"r{i}", "resourceClaimName": n} for i, n in enumerate(claim_names)
            ],
        },
    }
    return plugin, Pod(apply_api_defaults(raw)), cluster.snapshot()


def filter_all(plugin: Any, state: CycleState, pod: Pod, snap: Snapshot) -> dict[str, Status]:
    return {ni.node.name: plugin.filter(state, pod, ni) for ni in snap.node_info_list}


def test_missing_device_class_fails_pre_filter_with_upstream_text() -> None:
    claim = gpu_claim("c", {"name": "g", "exactly": {"deviceClassName": "tpu"}})
    plugin, pod, snap = with_dra([claim], "c")
    assert plugin.pre_filter(CycleState(), pod, snap.node_info_list) == (
        None,
        unresolvable("request g: device class tpu does not exist"),
    )


def test_filter_allocates_per_node_and_pre_bind_takes_the_devices() -> None:
    claim = gpu_claim("c", {"name": "g", "exactly": {"deviceClassName": "gpu", "count": 2}})
    plugin, pod, snap = with_dra([claim], "c")
    state = CycleState()
    assert plugin.pre_filter(state, pod, snap.node_info_list) == (None, SUCCESS)
    assert filter_all(plugin, state, pod, snap) == {
        "n1": unresolvable(dra.ERR_REASON_CANNOT_ALLOCATE),
        "n2": SUCCESS,
    }
    assert plugin.reserve(state, pod, "n2") == SUCCESS
    assert plugin.pre_bind(state, pod, "n2") == SUCCESS
    stored = snap.objects.dra.claim("ns", "c")
    assert dra.claim_summary(stored) == {
        "allocated": True,
        "devices": [
            {"request": "g", "driver": "gpu.example.com", "pool": "n2", "device": "gpu-0"},
            {"request": "g", "driver": "gpu.example.com", "pool": "n2", "device": "gpu-1"},
        ],
    }
    assert stored.reserved_for_pod("uid-p")
    assert ("gpu.example.com", "n2", "gpu-1") in snap.objects.dra.allocated_devices()


def test_first_available_scores_earlier_subrequests_higher() -> None:
    subs = [
        {"name": "two", "deviceClassName": "gpu", "count": 2},
        {"name": "one", "deviceClassName": "gpu", "count": 1},
    ]
    plugin, pod, snap = with_dra([gpu_claim("c", {"name": "g", "firstAvailable": subs})], "c")
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    assert filter_all(plugin, state, pod, snap) == {"n1": SUCCESS, "n2": SUCCESS}
    scores, status = plugin.score_columns(state, pod, snap.node_info_list)
    assert (scores.tolist(), status) == ([7, 8], SUCCESS)


def test_post_filter_deallocates_a_stale_allocation_elsewhere() -> None:
    stale = {
        "allocation": {
            "devices": {
                "results": [
                    {"request": "g", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                ]
            },
        }
    }
    claim = gpu_claim("c", {"name": "g", "exactly": {"deviceClassName": "gpu"}}, **stale)
    plugin, pod, snap = with_dra([claim], "c")
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    statuses = filter_all(plugin, state, pod, snap)
    assert statuses == {"n1": SUCCESS, "n2": unresolvable(dra.ERR_REASON_NOT_AVAILABLE)}
    assert plugin.post_filter(state, pod, statuses) == (None, unschedulable(dra.MSG_DEALLOCATED))
    assert snap.objects.dra.claim("ns", "c").allocation is None
    assert snap.objects.dra.allocated_devices() == frozenset()


def test_pre_filter_rejection_leaves_no_claims_for_post_filter() -> None:
    claim = gpu_claim("c", {"name": "g", "exactly": {"deviceClassName": "tpu"}})
    plugin, pod, snap = with_dra([claim], "c")
    state = CycleState()
    assert not plugin.pre_filter(state, pod, snap.node_info_list)[1].is_success()
    assert plugin.post_filter(state, pod, {}) == (None, unschedulable(dra.MSG_NO_NEW_CLAIMS))
