"""DynamicResources for a cluster without DRA objects: what pods without claims see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from scheduler_core.api import ClusterObjects, Node, Pod
from scheduler_core.cluster import Cluster, apply_api_defaults
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, SUCCESS, Code, Status, unresolvable, unschedulable
from scheduler_core.framework.types import NodeScore, Snapshot
from scheduler_core.plugins import dynamic_resources as dra


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
    assert plugin.score_batch(state, pod, snap.node_info_list) == ([0, 0], SUCCESS)
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
