"""Custom CEL plugins: compile checks, each extension point, errors and the cost bound."""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_node, make_pod

from scheduler_core.custom.examples import (
    BAR,
    BAZ,
    BLINKING_LIGHT,
    FOO,
    LIGHTS,
    MAINTENANCE,
    MAINTENANCE_FILTER,
    PERMIT_GATE,
)
from scheduler_core.custom.plugin import (
    CelPluginError,
    CustomPluginSpec,
    compile_spec,
    registry_of,
)
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry
from scheduler_core.record.events import (
    Event,
    Permit,
    Reserve,
    Score,
)


def _config(plugins: dict[str, Any], plugin_config: list[Any] | None = None) -> dict[str, Any]:
    profile: dict[str, Any] = {"schedulerName": "default-scheduler", "plugins": plugins}
    if plugin_config:
        profile["pluginConfig"] = plugin_config
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }


def _run(config: dict[str, Any], cluster: list[Any], *specs: CustomPluginSpec, cycles: int = 50):
    events: list[Event] = []
    registry = in_tree_registry().merged(registry_of(specs))
    sched = Scheduler(config, cluster, on_event=events.append, registry=registry)
    sched.run_until_idle(max_cycles=cycles)
    return sched, events


def _only_score(name: str, weight: int = 1) -> dict[str, Any]:
    return {
        "multiPoint": {"enabled": [{"name": name, "weight": weight}]},
        "score": {"disabled": [{"name": "*"}], "enabled": [{"name": name, "weight": weight}]},
    }


def test_blinking_light_scores_from_a_label_reversed_in_normalize() -> None:
    nodes = [
        make_node("calm", labels={LIGHTS: "1"}),
        make_node("busy", labels={LIGHTS: "4"}),
        make_node("dark"),
    ]
    sched, events = _run(
        _config(_only_score("BlinkingLight")), [*nodes, make_pod("p")], BLINKING_LIGHT
    )
    score = next(e for e in events if isinstance(e, Score) and e.plugin == "BlinkingLight")
    by_node = dict(zip(score.nodes, zip(score.raw, score.normalized, strict=True), strict=True))
    assert by_node == {"calm": (1, 75), "busy": (4, 0), "dark": (0, 100)}
    assert sched.outcomes["default/p"].node == "dark"


def test_maintenance_filter_rejects_labelled_nodes_with_its_reason() -> None:
    nodes = [make_node("n1", labels={MAINTENANCE: "true"}), make_node("n2")]
    config = _config({"multiPoint": {"enabled": [{"name": "MaintenanceFilter"}]}})
    sched, events = _run(config, [*nodes, make_pod("p")], MAINTENANCE_FILTER)
    assert sched.outcomes["default/p"].node == "n2"
    only_n1 = [make_node("n1", labels={MAINTENANCE: "true"}), make_pod("q")]
    sched, events = _run(config, only_n1, MAINTENANCE_FILTER)
    assert "1 node(s) were under maintenance" in (sched.outcomes["default/q"].message or "")


def test_permit_gate_allows_denies_and_waits_with_args() -> None:
    config = _config(
        {"permit": {"enabled": [{"name": "PermitGate"}]}},
        [{"name": "PermitGate", "args": {"waitSeconds": 5}}],
    )
    pods = [
        make_pod("free"),
        make_pod("no", labels={"example.com/hold": "deny"}),
        make_pod("later", labels={"example.com/hold": "wait"}),
    ]
    sched, events = _run(config, [make_node("n1"), *pods], PERMIT_GATE)
    assert sched.outcomes["default/free"].node == "n1"
    assert "held back by PermitGate" in (sched.outcomes["default/no"].message or "")
    permits = [e for e in events if isinstance(e, Permit) and e.pod == "default/later"]
    assert permits
    assert "5" in str(permits[0].to_dict())


def test_foo_bar_enabled_baz_disabled_at_reserve_in_configured_order() -> None:
    config = _config(
        {
            "multiPoint": {"enabled": [{"name": "baz"}]},
            "reserve": {
                "enabled": [{"name": "bar"}, {"name": "foo"}],
                "disabled": [{"name": "baz"}],
            },
        }
    )
    sched, events = _run(config, [make_node("n1"), make_pod("p")], FOO, BAR, BAZ)
    reserve = [e for e in events if isinstance(e, Reserve)]
    text = str([e.to_dict() for e in reserve])
    assert "baz reserved" not in text
    assert text.index("bar reserved p on n1") < text.index("foo reserved p on n1")


def test_runtime_error_is_an_error_status_naming_plugin_point_and_key() -> None:
    broken = CustomPluginSpec("Broken", {"filter": 'node.labels["missing"] == "x"'})
    config = _config({"multiPoint": {"enabled": [{"name": "Broken"}]}})
    sched, events = _run(config, [make_node("n1"), make_pod("p")], broken)
    message = sched.outcomes["default/p"].message or ""
    assert "custom plugin Broken filter expression: no such key: missing" in message
    assert sched.outcomes["default/p"].node is None


def test_type_error_reports_the_library_message() -> None:
    broken = CustomPluginSpec("Typo", {"score": "node.name + 1"})
    cluster = [make_node("n1"), make_node("n2"), make_pod("p")]
    sched, _ = _run(_config(_only_score("Typo")), cluster, broken)
    assert "custom plugin Typo score expression: Unsupported operation" in (
        sched.outcomes["default/p"].message or ""
    )


def test_compile_error_names_plugin_point_and_position() -> None:
    with pytest.raises(CelPluginError) as err:
        compile_spec(CustomPluginSpec("Bad", {"score": "1 +\n  2 +"}))
    assert err.value.errors[0].startswith("Bad score: at 2:6:")


def test_cost_limit_breach_stops_the_expression_not_the_run() -> None:
    heavy = CustomPluginSpec("Heavy", {"filter": 'node.labels.all(k, k != "")'})
    node = make_node("n1", labels={f"example.com/k{i}": "v" for i in range(5_000)})
    config = _config({"multiPoint": {"enabled": [{"name": "Heavy"}]}})
    sched, _ = _run(config, [node, make_pod("p")], heavy, cycles=1)
    message = sched.outcomes["default/p"].message or ""
    assert "custom plugin Heavy filter expression: cost limit exceeded (" in message
    assert "> 200,000 units) in 'node.labels.all(k, k != \"\")'" in message


def test_node_only_expressions_are_evaluated_once_per_node_not_per_pod() -> None:
    nodes = [make_node("calm", labels={LIGHTS: "1"}), make_node("busy", labels={LIGHTS: "4"})]
    pods = [make_pod(f"p{i}") for i in range(5)]
    sched, events = _run(_config(_only_score("BlinkingLight")), [*nodes, *pods], BLINKING_LIGHT)
    plugin = sched.frameworks["default-scheduler"].plugins["BlinkingLight"]
    assert plugin._node_only == {"score"}
    assert sorted(plugin._memo) == [("score", "busy"), ("score", "calm")]
    scores = [e for e in events if isinstance(e, Score) and e.plugin == "BlinkingLight"]
    assert len(scores) == 5
    assert all(dict(zip(e.nodes, e.raw, strict=True)) == {"calm": 1, "busy": 4} for e in scores)


def test_expressions_reading_the_pod_are_not_memoised() -> None:
    spec = CustomPluginSpec("ByPod", {"score": "size(pod.name) + size(node.name)"})
    cluster = [make_node("a"), make_node("bb"), make_pod("p"), make_pod("pppp")]
    sched, events = _run(_config(_only_score("ByPod")), cluster, spec)
    assert sched.frameworks["default-scheduler"].plugins["ByPod"]._memo == {}
    scores = [dict(zip(e.nodes, e.raw, strict=True)) for e in events if isinstance(e, Score)]
    assert {"a": 2, "bb": 3} in scores and {"a": 5, "bb": 6} in scores


def test_deeply_nested_expression_is_a_compile_error_not_a_crash() -> None:
    with pytest.raises(CelPluginError) as err:
        compile_spec(CustomPluginSpec("Deep", {"filter": "(" * 900 + "true" + ")" * 900}))
    assert err.value.errors[0].startswith("Deep filter:")
