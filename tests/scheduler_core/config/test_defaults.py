"""Defaulting of KubeSchedulerConfiguration, checked against upstream v1.35 defaults.go."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    PodTopologySpreadArgs,
    Profile,
    ResourceSpec,
    ScoringStrategy,
    VolumeBindingArgs,
    decode_config,
    default_config,
    in_tree_args_defaults,
    load_config,
    set_defaults,
)

DEFAULT_MULTI_POINT = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
]

DEFAULT_PLUGIN_CONFIG = (
    PluginConfig("DefaultPreemption", DefaultPreemptionArgs(10, 100)),
    PluginConfig("DynamicResources", DynamicResourcesArgs(filter_timeout_seconds=10.0)),
    PluginConfig("InterPodAffinity", InterPodAffinityArgs(hard_pod_affinity_weight=1)),
    PluginConfig("NodeAffinity", NodeAffinityArgs(added_affinity=None)),
    PluginConfig(
        "NodeResourcesBalancedAllocation",
        NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu", 1), ResourceSpec("memory", 1))),
    ),
    PluginConfig(
        "NodeResourcesFit",
        NodeResourcesFitArgs(
            scoring_strategy=ScoringStrategy(
                "LeastAllocated", (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
            )
        ),
    ),
    PluginConfig("PodTopologySpread", PodTopologySpreadArgs((), "System")),
    PluginConfig("VolumeBinding", VolumeBindingArgs(600, ())),
)


def _multi_point(cfg: KubeSchedulerConfiguration, profile: int = 0) -> list[tuple[str, int]]:
    return [(p.name, p.weight) for p in cfg.profiles[profile].plugins.multi_point.enabled]


def _profile_yaml(plugins: str = "", plugin_config: str = "") -> str:
    text = "profiles:\n- schedulerName: default-scheduler\n"
    if plugins:
        text += "  plugins:\n" + "".join(f"    {line}\n" for line in plugins.splitlines())
    if plugin_config:
        text += "  pluginConfig:\n" + "".join(f"  {line}\n" for line in plugin_config.splitlines())
    return text


def test_default_config_has_one_default_scheduler_profile() -> None:
    cfg = default_config()
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler"]
    assert cfg.profiles[0].percentage_of_nodes_to_score is None


def test_default_config_scalars_match_upstream() -> None:
    cfg = default_config()
    assert (
        cfg.parallelism,
        cfg.percentage_of_nodes_to_score,
        cfg.pod_initial_backoff_seconds,
        cfg.pod_max_backoff_seconds,
        cfg.delay_cache_until_active,
        cfg.extenders,
    ) == (16, 0, 1, 10, False, ())


def test_default_multi_point_lists_every_default_plugin_with_its_weight() -> None:
    assert _multi_point(default_config()) == DEFAULT_MULTI_POINT


def test_default_plugins_live_only_in_multi_point() -> None:
    plugins = default_config().profiles[0].plugins
    assert plugins == Plugins(multi_point=plugins.multi_point)
    assert plugins.multi_point.disabled == ()


def test_default_plugin_config_lists_args_of_enabled_plugins_sorted_by_name() -> None:
    assert default_config().profiles[0].plugin_config == DEFAULT_PLUGIN_CONFIG


def test_default_config_component_settings_match_upstream() -> None:
    cfg = default_config()
    assert cfg.leader_election == {
        "leaderElect": True,
        "leaseDuration": "15s",
        "renewDeadline": "10s",
        "retryPeriod": "2s",
        "resourceLock": "leases",
        "resourceName": "kube-scheduler",
        "resourceNamespace": "kube-system",
    }
    assert cfg.client_connection["contentType"] == "application/vnd.kubernetes.protobuf"
    assert (cfg.client_connection["qps"], cfg.client_connection["burst"]) == (50.0, 100)
    assert cfg.debugging == {"enableProfiling": True, "enableContentionProfiling": True}


@pytest.mark.parametrize(
    "source",
    [
        None,
        "",
        "   \n",
        b"",
        {},
        "{}",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
    ],
    ids=[
        "none",
        "empty-text",
        "blank-text",
        "empty-bytes",
        "empty-dict",
        "empty-json",
        "type-meta-only",
    ],
)
def test_empty_sources_load_as_the_defaults(source: Any) -> None:
    assert load_config(source) == default_config()


def test_set_defaults_is_idempotent() -> None:
    cfg = default_config()
    assert set_defaults(cfg) == cfg


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        pytest.param(
            "multiPoint:\n  disabled:\n  - name: ImageLocality\n",
            [p for p in DEFAULT_MULTI_POINT if p[0] != "ImageLocality"],
            id="disabling-a-default-removes-it",
        ),
        pytest.param(
            "multiPoint:\n  enabled:\n  - name: NodeResourcesFit\n    weight: 5\n",
            [
                ("NodeResourcesFit", 5) if n == "NodeResourcesFit" else (n, w)
                for n, w in DEFAULT_MULTI_POINT
            ],
            id="re-enabling-a-default-replaces-it-in-place",
        ),
        pytest.param(
            "multiPoint:\n  enabled:\n  - name: MyPlugin\n    weight: 4\n",
            [*DEFAULT_MULTI_POINT, ("MyPlugin", 4)],
            id="custom-plugin-is-appended",
        ),
        pytest.param(
            "multiPoint:\n  disabled:\n  - name: '*'\n  enabled:\n  - name: PrioritySort\n  - "
            "name: DefaultBinder\n",
            [("PrioritySort", 0), ("DefaultBinder", 0)],
            id="star-disables-every-default",
        ),
        pytest.param(
            "multiPoint:\n  disabled:\n  - name: NodeName\n  enabled:\n  - name: NodeName\n",
            [p for p in DEFAULT_MULTI_POINT if p[0] != "NodeName"] + [("NodeName", 0)],
            id="disabled-then-enabled-default-moves-to-the-end",
        ),
        pytest.param(
            "score:\n  enabled:\n  - name: ImageLocality\n    weight: 7\n",
            DEFAULT_MULTI_POINT,
            id="other-extension-points-leave-multi-point-alone",
        ),
    ],
)
def test_multi_point_merge(plugins: str, expected: list[tuple[str, int]]) -> None:
    assert _multi_point(load_config(_profile_yaml(plugins))) == expected


def test_merge_keeps_disabled_names_without_weights() -> None:
    cfg = load_config(
        _profile_yaml("multiPoint:\n  disabled:\n  - name: ImageLocality\n    weight: 3\n")
    )
    assert cfg.profiles[0].plugins.multi_point.disabled == (Plugin("ImageLocality"),)


def test_merge_into_a_specific_extension_point_keeps_user_order() -> None:
    cfg = load_config(
        _profile_yaml(
            "score:\n  disabled:\n  - name: '*'\n  enabled:\n  - name: B\n    weight: 2\n  - "
            "name: A\n"
        )
    )
    assert cfg.profiles[0].plugins.score == PluginSet(
        enabled=(Plugin("B", 2), Plugin("A")), disabled=(Plugin("*"),)
    )


def test_disabled_default_plugin_gets_no_default_args() -> None:
    cfg = load_config(_profile_yaml("multiPoint:\n  disabled:\n  - name: NodeAffinity\n"))
    names = [pc.name for pc in cfg.profiles[0].plugin_config]
    assert "NodeAffinity" not in names
    assert cfg.profiles[0].args_for("NodeAffinity") is None


def test_plugin_enabled_at_another_point_still_gets_default_args() -> None:
    cfg = load_config(
        _profile_yaml(
            "multiPoint:\n  disabled:\n  - name: NodeAffinity\n"
            "filter:\n  enabled:\n  - name: NodeAffinity\n"
        )
    )
    assert cfg.profiles[0].args_for("NodeAffinity") == NodeAffinityArgs()


def test_user_plugin_config_comes_first_and_the_rest_is_added_sorted() -> None:
    cfg = load_config(
        _profile_yaml(
            plugin_config=(
                "- name: VolumeBinding\n  args:\n    bindTimeoutSeconds: 30\n"
                "- name: MyPlugin\n  args:\n    foo: bar\n"
            )
        )
    )
    configs = cfg.profiles[0].plugin_config
    assert configs[0] == PluginConfig("VolumeBinding", VolumeBindingArgs(30, ()))
    assert configs[1] == PluginConfig("MyPlugin", {"foo": "bar"})
    assert configs[2:] == tuple(pc for pc in DEFAULT_PLUGIN_CONFIG if pc.name != "VolumeBinding")


@pytest.mark.parametrize(
    ("plugin_config", "expected"),
    [
        pytest.param(
            "- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      type: MostAllocated\n",
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy(
                    "MostAllocated", (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
                )
            ),
            id="fit-strategy-without-resources-gets-cpu-and-memory",
        ),
        pytest.param(
            "- name: NodeResourcesFit\n  args:\n    scoringStrategy:\n      resources:\n"
            "      - name: nvidia.com/gpu\n      - name: cpu\n        weight: 3\n",
            NodeResourcesFitArgs(
                scoring_strategy=ScoringStrategy(
                    "", (ResourceSpec("nvidia.com/gpu", 1), ResourceSpec("cpu", 3))
                )
            ),
            id="fit-resource-weight-zero-becomes-one-and-type-stays-unset",
        ),
        pytest.param(
            "- name: NodeResourcesFit\n  args:\n    ignoredResources: [example.com/foo]\n",
            NodeResourcesFitArgs(ignored_resources=("example.com/foo",)),
            id="fit-without-strategy-gets-least-allocated",
        ),
        pytest.param(
            "- name: NodeResourcesBalancedAllocation\n  args:\n    resources:\n    - name: cpu\n",
            NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu", 1),)),
            id="balanced-resource-weight-zero-becomes-one",
        ),
        pytest.param(
            "- name: PodTopologySpread\n  args:\n    defaultConstraints:\n"
            "    - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n",
            PodTopologySpreadArgs(
                ({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},),
                "System",
            ),
            id="spread-defaulting-type-is-system-even-with-constraints",
        ),
        pytest.param(
            "- name: InterPodAffinity\n  args:\n    hardPodAffinityWeight: 0\n",
            InterPodAffinityArgs(hard_pod_affinity_weight=0),
            id="inter-pod-affinity-explicit-zero-is-kept",
        ),
        pytest.param(
            "- name: DefaultPreemption\n  args:\n    minCandidateNodesAbsolute: 5\n",
            DefaultPreemptionArgs(10, 5),
            id="preemption-unset-percentage-is-ten",
        ),
        pytest.param(
            "- name: DynamicResources\n  args:\n    filterTimeout: null\n",
            DynamicResourcesArgs(filter_timeout_seconds=10.0),
            id="dynamic-resources-null-filter-timeout-is-ten-seconds",
        ),
        pytest.param(
            "- name: DynamicResources\n  args:\n    filterTimeout: 0s\n",
            DynamicResourcesArgs(filter_timeout_seconds=0.0),
            id="dynamic-resources-zero-filter-timeout-is-kept",
        ),
        pytest.param(
            "- name: VolumeBinding\n",
            VolumeBindingArgs(600, ()),
            id="in-tree-plugin-without-args-gets-default-args",
        ),
    ],
)
def test_partial_plugin_args_are_defaulted(plugin_config: str, expected: object) -> None:
    # Defaulting alone: some rows are refused later by validation, as upstream refuses them.
    cfg = set_defaults(decode_config(_profile_yaml(plugin_config=plugin_config)))
    assert cfg.profiles[0].plugin_config[0].args == expected


def test_in_tree_args_defaults_match_the_default_plugin_config() -> None:
    assert {name: factory() for name, factory in in_tree_args_defaults.items()} == {
        pc.name: pc.args for pc in DEFAULT_PLUGIN_CONFIG
    }


def test_only_a_lone_profile_gets_the_default_scheduler_name() -> None:
    lone = set_defaults(KubeSchedulerConfiguration(profiles=(Profile(),)))
    two = set_defaults(KubeSchedulerConfiguration(profiles=(Profile(), Profile("b"))))
    assert lone.profiles[0].scheduler_name == "default-scheduler"
    assert [p.scheduler_name for p in two.profiles] == ["", "b"]


def test_every_profile_gets_default_plugins() -> None:
    cfg = load_config("profiles:\n- schedulerName: a\n- schedulerName: b\n")
    assert _multi_point(cfg, 0) == _multi_point(cfg, 1) == DEFAULT_MULTI_POINT


def test_set_defaults_leaves_its_input_unchanged() -> None:
    cfg = KubeSchedulerConfiguration()
    set_defaults(cfg)
    assert cfg == KubeSchedulerConfiguration()


def test_explicit_component_settings_are_kept() -> None:
    cfg = load_config(
        "leaderElection:\n  leaderElect: false\n  resourceLock: leases\n"
        "clientConnection:\n  qps: 5\n  burst: 7\nenableProfiling: false\n"
    )
    assert cfg.leader_election["leaderElect"] is False
    assert (cfg.client_connection["qps"], cfg.client_connection["burst"]) == (5, 7)
    assert cfg.debugging == {"enableProfiling": False}
