"""Custom CEL plugins explained: the expression, the inputs it read, the value it gave."""

from __future__ import annotations

from typing import Any

from scheduler_core.custom.plugin import CustomPluginSpec, registry_of
from scheduler_core.explain import at_scheduler_cycle, explain_node
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry
from tests.builders import make_node, make_pod

SPEC = CustomPluginSpec(
    name="Lights",
    expressions={
        "filter": 'node.labels["light"] != "red"',
        "score": 'node.labels["light"] == "green" ? 80 : 20',
        "normalizeScore": "score / 2",
    },
    filter_reason="the light is red",
)


def _config() -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {
                        "enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                        "disabled": [{"name": "*"}],
                    },
                    "filter": {"enabled": [{"name": "Lights"}]},
                    "score": {"enabled": [{"name": "Lights", "weight": 1}]},
                },
            }
        ],
    }


def _explain(node: str) -> list[dict[str, Any]]:
    manifests = [
        make_node("n1", labels={"light": "green"}),
        make_node("n2", labels={"light": "amber"}),
        make_node("n3", labels={"light": "red"}),
        make_pod("p"),
    ]
    registry = in_tree_registry().merged(registry_of([SPEC]))
    sched = Scheduler(_config(), manifests, registry=registry)
    return at_scheduler_cycle(sched, 1, lambda ctx: explain_node(ctx, node, "Lights"))


def test_the_score_shows_its_expression_the_labels_it_read_and_its_value() -> None:
    steps = {e["point"]: e for e in _explain("n1")}
    score = steps["Score"]
    assert score["value"] == 80
    assert score["inputs"]["expression"] == SPEC.expressions["score"]
    assert set(score["inputs"]["reads"]["node"]) == {"labels"}  # only the fields it reads
    assert score["inputs"]["reads"]["node"]["labels"]["light"] == "green"
    normalize = steps["NormalizeScore"]
    assert normalize["inputs"]["expression"] == "score / 2"
    assert normalize["inputs"]["before"] == {"n1": 80, "n2": 20}
    assert normalize["inputs"]["after"] == {"n1": 40, "n2": 10}
    assert normalize["value"] == 40
    # the arithmetic, not only "80 → 40" (issue 34 item 5)
    assert normalize["formula"] == "score / 2 with score = 80, min = 20, max = 80 → 40"


def _normalized(mode: str, node: str) -> dict[str, Any]:
    spec = CustomPluginSpec(
        name="Lights", expressions={**SPEC.expressions}, filter_reason="red", normalize=mode
    )
    del spec.expressions["normalizeScore"]
    manifests = [
        make_node("n1", labels={"light": "green"}),
        make_node("n2", labels={"light": "amber"}),
        make_pod("p"),
    ]
    registry = in_tree_registry().merged(registry_of([spec]))
    sched = Scheduler(_config(), manifests, registry=registry)
    steps = at_scheduler_cycle(sched, 1, lambda ctx: explain_node(ctx, node, "Lights"))
    return next(e for e in steps if e["point"] == "NormalizeScore")


def test_a_custom_normalize_mode_writes_out_its_rule() -> None:
    assert _normalized("default", "n2")["formula"] == "100 × 20 / 80 = 25"
    assert _normalized("reverse", "n2")["formula"] == "100 − 100 × 20 / 80 = 75"
    assert _normalized("minmax", "n2")["formula"] == "⌊100 × (20 − 20) / (80 − 20)⌋ = 0"
    assert _normalized("minmax", "n1")["inputs"]["rule"] == "⌊100 × (raw − min) / (max − min)⌋"


def test_a_rejected_node_shows_the_filter_expression_and_its_false() -> None:
    [verdict] = [e for e in _explain("n3") if e["point"] == "Filter"]
    assert verdict["value"]["code"] == "Unschedulable"
    assert verdict["inputs"]["result"] is False
    assert "the light is red" in verdict["text"]
    assert verdict["inputs"]["reads"]["node"]["labels"]["light"] == "red"
