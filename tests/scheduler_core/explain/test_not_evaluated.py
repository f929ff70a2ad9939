"""A node Filter never looked at is explained (sampling, an Error), never a bare 'not found'."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.explain import ExplainError, at_cycle, explain_node
from tests.builders import make_node, make_pod


def _config(**top: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"}],
        **top,
    }


def _case(nodes: int, **top: Any) -> dict[str, Any]:
    return {
        "name": "t",
        "nodes": [make_node(f"n{i:03d}", cpu="4", memory="16Gi") for i in range(nodes)],
        "pods": [],
        "queue": [make_pod("p", cpu="1", memory="1Gi")],
        "config": _config(**top),
        "sampling": True,
    }


def test_a_node_past_the_sampling_stop_is_explained_with_the_numbers() -> None:
    case = _case(200, percentageOfNodesToScore=50)
    found = at_cycle(case, 1, lambda ctx: explain_node(ctx, "n199"))
    [ex] = found
    assert ex["value"] == "not evaluated"
    assert ex["inputs"]["toFind"] == 100
    assert ex["inputs"]["evaluated"] == 101  # the walk goes one past the count, as upstream's
    assert ex["inputs"]["feasibleFound"] == 100
    assert ex["inputs"]["positionFromStart"] == 199
    assert "looks for 100 feasible nodes of 200" in ex["text"]


def test_an_evaluated_node_gets_its_steps_not_the_sampling_note() -> None:
    case = _case(200, percentageOfNodesToScore=50)
    found = at_cycle(case, 1, lambda ctx: explain_node(ctx, "n000"))
    assert all(ex["value"] != "not evaluated" for ex in found)
    assert {ex["point"] for ex in found} >= {"Filter", "Score"}


def test_an_unknown_node_still_raises() -> None:
    case = _case(3)
    with pytest.raises(ExplainError, match="not in the cycle's snapshot"):
        at_cycle(case, 1, lambda ctx: explain_node(ctx, "nope"))
