"""Older configurations (v1alpha1 to v1beta3) and the legacy Policy brought to v1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from scheduler_core.config import ConfigError, load_config
from scheduler_core.config.migrate import migrate

FILES = Path(__file__).parent / "migrations"


def _migrate(name: str):
    result = migrate((FILES / name).read_text())
    load_config(result.config)  # every result is a valid v1 configuration
    return result


def _plugins(result: Any, point: str, part: str = "enabled", profile: int = 0) -> list[Any]:
    pset = result.config["profiles"][profile].get("plugins", {}).get(point, {})
    return [(e["name"], e.get("weight")) for e in pset.get(part, [])]


def _args(result: Any, plugin: str, profile: int = 0) -> dict[str, Any]:
    for entry in result.config["profiles"][profile].get("pluginConfig", []):
        if entry["name"] == plugin:
            return entry["args"]
    raise AssertionError(f"no pluginConfig for {plugin}")


def test_v1alpha1_moves_top_level_fields_into_a_profile_and_args() -> None:
    result = _migrate("v1alpha1.yaml")
    profile = result.config["profiles"][0]
    assert profile["schedulerName"] == "my-scheduler"
    assert _plugins(result, "preScore") == [("InterPodAffinity", None)]
    assert _plugins(result, "reserve") == [("VolumeBinding", None)]
    assert _plugins(result, "postFilter", "disabled") == [("DefaultPreemption", None)]
    assert _args(result, "InterPodAffinity") == {"hardPodAffinityWeight": 5}
    assert _args(result, "VolumeBinding") == {"bindTimeoutSeconds": 300}
    assert result.config["percentageOfNodesToScore"] == 50
    assert "healthzBindAddress" not in result.config
    assert result.source == "kubescheduler.config.k8s.io/v1alpha1"
    assert any("postFilter ran before Score: now preScore" in c for c in result.changes)
    assert any("unreserve extension point merged into reserve" in c for c in result.changes)
    assert any("disablePreemption became postFilter disabled" in c for c in result.changes)


def test_v1alpha2_most_allocated_becomes_fit_scoring_strategy_with_its_resources() -> None:
    result = _migrate("v1alpha2.yaml")
    old_weights = [("InterPodAffinity", 1), ("NodeAffinity", 1), ("TaintToleration", 1)]
    assert _plugins(result, "score", profile=1) == [("NodeResourcesFit", 5), *old_weights]
    assert _plugins(result, "score", profile=0) == old_weights
    assert _plugins(result, "score", "disabled", profile=1) == []
    assert _args(result, "NodeResourcesFit", profile=1)["scoringStrategy"] == {
        "type": "MostAllocated",
        "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
    }
    assert (
        "profiles[1] (bin-packing): NodeResourcesMostAllocated (weight 5) became NodeResourcesFit "
        "with scoringStrategy MostAllocated and its args moved into scoringStrategy"
    ) in result.changes


def test_v1beta1_custom_test_plugin_at_five_points_keeps_its_args() -> None:
    result = _migrate("v1beta1.yaml")
    for point in ("queueSort", "preFilter", "permit", "reserve", "postBind"):
        assert _plugins(result, point) == [("Test", None)], point
    assert _plugins(result, "queueSort", "disabled") == [("PrioritySort", None)]
    assert _args(result, "Test") == {
        "favorite_color": "#326CE5",
        "favorite_number": 7,
        "thanks_to": "thockin",
    }
    assert result.custom_plugins == ("Test",)
    assert any("PrioritySort disabled so Test sorts the queue" in c for c in result.changes)
    assert any("default score weights rose in v1beta3" in c for c in result.changes)


def test_v1beta1_removed_plugins_are_dropped_and_ratio_args_move() -> None:
    result = _migrate("v1beta1-labels.yaml")
    assert _plugins(result, "filter") == []
    assert _plugins(result, "score") == [
        ("NodeResourcesFit", 3),
        ("InterPodAffinity", 1),
        ("NodeAffinity", 1),
        ("TaintToleration", 1),
    ]
    strategy = _args(result, "NodeResourcesFit")["scoringStrategy"]
    assert strategy["type"] == "RequestedToCapacityRatio"
    assert strategy["requestedToCapacityRatio"]["shape"][1] == {"utilization": 100, "score": 10}
    names = [e["name"] for e in result.config["profiles"][0]["pluginConfig"]]
    assert names == ["NodeResourcesFit"]
    for plugin in ("NodeLabel", "ServiceAffinity", "NodePreferAvoidPods"):
        assert any(f"{plugin} has no v1 equivalent: dropped" in c for c in result.changes)


def test_v1beta2_disabled_cloud_limits_do_not_disable_node_volume_limits() -> None:
    result = _migrate("v1beta2.yaml")
    assert _plugins(result, "filter", "disabled") == []
    args = _args(result, "NodeResourcesFit")
    assert "apiVersion" not in args
    assert args["scoringStrategy"]["type"] == "MostAllocated"
    assert sum("disabling" in c and "Limits" in c for c in result.changes) == 2


def test_v1beta3_multipoint_custom_plugins_and_selector_spread_removed() -> None:
    result = _migrate("v1beta3.yaml")
    assert _plugins(result, "multiPoint") == [("foo", None), ("bar", None)]
    assert _plugins(result, "reserve", "disabled") == [("baz", None)]
    assert _plugins(result, "preScore") == []
    assert _plugins(result, "score") == []
    assert result.custom_plugins == ("foo", "bar")
    assert any("SelectorSpread has no v1 equivalent: dropped" in c for c in result.changes)


def test_policy_with_ten_predicates_and_six_priorities() -> None:
    result = _migrate("policy.json")
    assert result.source == "the legacy Policy"
    assert _plugins(result, "multiPoint", "disabled") == [("*", None)]
    assert [n for n, _ in _plugins(result, "filter")] == [
        "NodeUnschedulable",
        "NodeName",
        "NodePorts",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "TaintToleration",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "InterPodAffinity",
    ]
    assert _plugins(result, "score") == [
        ("NodeResourcesBalancedAllocation", 1),
        ("InterPodAffinity", 3),
        ("NodeResourcesFit", 1),
        ("NodeAffinity", 2),
        ("PodTopologySpread", 1),
    ]
    assert _args(result, "InterPodAffinity") == {"hardPodAffinityWeight": 10}
    assert _args(result, "PodTopologySpread") == {"defaultingType": "System"}
    assert result.config["extenders"][0]["httpTimeout"] == "30s"
    assert result.config["extenders"][0]["enableHTTPS"] is False
    assert "priority EqualPriority gives every node the same score: dropped" in result.changes
    assert (
        "profiles[0] (default-scheduler): NodeResourcesLeastAllocated (weight 1) became "
        "NodeResourcesFit with scoringStrategy LeastAllocated"
    ) in result.changes


def test_policy_yaml_label_priorities_and_unknown_priority_becomes_custom() -> None:
    result = _migrate("policy.yaml")
    assert _plugins(result, "score") == [("GPUPacking", 3), ("NodeResourcesFit", 4)]
    assert result.custom_plugins == ("GPUPacking",)
    assert any(
        "ZonePreference (a labelPreference) is a NodeLabel priority" in c for c in result.changes
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v2\nkind: KubeSchedulerConfiguration",
            id="unknown-version",
        ),
        pytest.param("apiVersion: v1\nkind: Pod", id="not-a-configuration"),
        pytest.param("- a list", id="not-a-mapping"),
        pytest.param("profiles: [\n", id="bad-yaml"),
    ],
)
def test_unreadable_files_raise_config_error(text: str) -> None:
    with pytest.raises(ConfigError):
        migrate(text)


def test_cli_prints_v1_with_change_comments_and_fails_only_on_unknown_files(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "scheduler_core.config", "migrate"]
    out = subprocess.run([*run, str(FILES / "v1alpha2.yaml")], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.startswith("# Converted from kubescheduler.config.k8s.io/v1alpha2")
    assert "# - profiles[1] (bin-packing): NodeResourcesMostAllocated" in out.stdout
    assert yaml.safe_load(out.stdout)["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: example.com/v1\nkind: Thing\n")
    failed = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert failed.returncode == 1
    assert "not a scheduler configuration" in failed.stderr


def test_policy_requested_to_capacity_ratio_priority_becomes_fit_strategy() -> None:
    policy = {
        "kind": "Policy",
        "apiVersion": "v1",
        "predicates": [],
        "priorities": [
            {
                "name": "RatioPacking",
                "weight": 2,
                "argument": {
                    "requestedToCapacityRatioArguments": {
                        "shape": [
                            {"utilization": 0, "score": 0},
                            {"utilization": 100, "score": 10},
                        ],
                        "resources": [{"name": "cpu", "weight": 1}],
                    }
                },
            }
        ],
    }
    result = migrate(policy)
    load_config(result.config)
    assert _plugins(result, "score") == [("NodeResourcesFit", 2)]
    strategy = _args(result, "NodeResourcesFit")["scoringStrategy"]
    assert strategy["type"] == "RequestedToCapacityRatio"
    assert strategy["resources"] == [{"name": "cpu", "weight": 1}]
    assert [n for n, _ in _plugins(result, "filter")] == ["NodeUnschedulable", "TaintToleration"]


def test_each_needed_point_is_one_the_v1_35_plugin_has_and_so_are_its_users() -> None:
    from scheduler_core.config.migrate.finish import NEEDS, POINT_ATTRS
    from scheduler_core.framework.runtime import Framework
    from scheduler_core.plugins import in_tree_registry

    framework = Framework(load_config(None).profiles[0], in_tree_registry())
    points = {p: {x.name for x in getattr(framework, attr)} for p, attr in POINT_ATTRS.items()}
    for plugin, needs in NEEDS.items():
        for needed, users in needs:
            assert plugin in points[needed], (plugin, needed)
            assert all(plugin in points[u] for u in users), (plugin, users)


def test_most_allocated_beside_the_default_least_allocated_says_the_default_is_not_kept() -> None:
    result = migrate(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1beta1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {"plugins": {"score": {"enabled": [{"name": "NodeResourcesMostAllocated"}]}}}
            ],
        }
    )
    assert _args(result, "NodeResourcesFit") == {"scoringStrategy": {"type": "MostAllocated"}}
    assert any(
        "default NodeResourcesLeastAllocated score (weight 1) also ran beside "
        "NodeResourcesMostAllocated" in c
        for c in result.changes
    )
