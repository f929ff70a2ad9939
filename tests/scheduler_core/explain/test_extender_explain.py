"""Extenders explained as upstream combines them: raw 0-10, ×10, ×weight; filter answers."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain import at_scheduler_cycle, explain_node
from scheduler_core.loop.scheduler import Scheduler
from tests.builders import make_node, make_pod
from tests.scheduler_core.extender_server import LOCAL_POLICY, ExtenderServer


def _config(url: str, weight: int) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"}],
        "extenders": [
            {
                "urlPrefix": url,
                "filterVerb": "filter",
                "prioritizeVerb": "prioritize",
                "weight": weight,
            }
        ],
    }


def _explain(srv: ExtenderServer, node: str, plugin: str | None = None) -> Any:
    manifests = [make_node("n1"), make_node("n2"), make_node("n3"), make_pod("p")]
    sched = Scheduler(_config(srv.url, 2), manifests, extender_policy=LOCAL_POLICY)
    return at_scheduler_cycle(sched, 1, lambda ctx: (ctx.record, explain_node(ctx, node, plugin)))


def test_the_extender_column_keeps_raw_scale_and_weight_apart() -> None:
    with ExtenderServer(priorities={"n1": 7, "n2": 3}) as srv:
        srv.behaviour.passes = lambda name: name != "n3"
        rec, steps = _explain(srv, "n1", f"Extender:{srv.url}")
    [column] = [ps for ps in rec.scores if ps.name.startswith("Extender:")]
    assert column.weight == 2
    assert dict(zip(rec.scored_nodes, column.raw, strict=True)) == {"n1": 7, "n2": 3}
    assert dict(zip(rec.scored_nodes, column.normalized, strict=True)) == {"n1": 70, "n2": 30}
    assert [(e["point"], e["value"]) for e in steps] == [
        ("Score", 7),
        ("NormalizeScore", 70),
        ("Weight", 140),
    ]
    assert steps[2]["formula"] == "7 × 2 × 10 = 140"


def test_a_node_the_extender_filtered_out_says_so_with_its_reason() -> None:
    with ExtenderServer(priorities={"n1": 7}) as srv:
        srv.behaviour.passes = lambda name: name != "n3"
        _, steps = _explain(srv, "n3", "Extender")
    [step] = steps
    assert step["point"] == "Filter" and step["plugin"] == "Extender"
    assert "rejected by test extender" in step["text"]


def test_a_whole_node_lists_the_extender_steps_and_totals_them() -> None:
    with ExtenderServer(priorities={"n1": 7}) as srv:
        rec, steps = _explain(srv, "n1")
    weights = [e for e in steps if e["point"] == "Weight"]
    total = next(e for e in steps if e["point"] == "Combine" and isinstance(e["value"], int))
    assert sum(e["value"] for e in weights) == total["value"] == rec.totals["n1"]
    assert any(e["plugin"].startswith("Extender:") for e in weights)
