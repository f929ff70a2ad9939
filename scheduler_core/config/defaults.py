"""Defaulting of a KubeSchedulerConfiguration: the default plugins, weights and args.

Mirrors pkg/scheduler/apis/config/v1/defaults.go and default_plugins.go in kube-scheduler
v1.35, with the v1.35 default feature gates: DynamicResourceAllocation and
DRASchedulerFilterTimeout on; NodeDeclaredFeatures, DRADeviceBindingConditions and
StorageCapacityScoring off; GangScheduling as the ``features`` given say (off by default).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Final

from scheduler_core.config.types import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    InterPodAffinityArgs,
    InTreeArgs,
    KubeSchedulerConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    PluginArgs,
    PluginConfig,
    Plugins,
    PluginSet,
    PodTopologySpreadArgs,
    Profile,
    ResourceSpec,
    VolumeBindingArgs,
)
from scheduler_core.features import V1_35_DEFAULTS, Features
from scheduler_core.plugins import names

DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE: Final = 0

_DEFAULT_RESOURCES: Final = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

# The multiPoint set of a fresh scheduler, in upstream order. DynamicResources sits just
# before DefaultPreemption so that PostFilter frees an idle claim before evicting a pod.
DEFAULT_MULTI_POINT: Final[tuple[Plugin, ...]] = (
    Plugin(names.SCHEDULING_GATES),
    Plugin(names.PRIORITY_SORT),
    Plugin(names.NODE_UNSCHEDULABLE),
    Plugin(names.NODE_NAME),
    Plugin(names.TAINT_TOLERATION, 3),
    Plugin(names.NODE_AFFINITY, 2),
    Plugin(names.NODE_PORTS),
    Plugin(names.NODE_RESOURCES_FIT, 1),
    Plugin(names.VOLUME_RESTRICTIONS),
    Plugin(names.NODE_VOLUME_LIMITS),
    Plugin(names.VOLUME_BINDING),
    Plugin(names.VOLUME_ZONE),
    Plugin(names.POD_TOPOLOGY_SPREAD, 2),
    Plugin(names.INTER_POD_AFFINITY, 2),
    Plugin(names.DYNAMIC_RESOURCES, 2),
    Plugin(names.DEFAULT_PREEMPTION),
    Plugin(names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    Plugin(names.IMAGE_LOCALITY, 1),
    Plugin(names.DEFAULT_BINDER),
)

# Plugins whose args type the v1 API registers, with their fully defaulted args.
in_tree_args_defaults: Final[dict[str, Callable[[], InTreeArgs]]] = {
    names.DEFAULT_PREEMPTION: DefaultPreemptionArgs,
    names.DYNAMIC_RESOURCES: DynamicResourcesArgs,
    names.INTER_POD_AFFINITY: InterPodAffinityArgs,
    names.NODE_AFFINITY: NodeAffinityArgs,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: NodeResourcesBalancedAllocationArgs,
    names.NODE_RESOURCES_FIT: NodeResourcesFitArgs,
    names.POD_TOPOLOGY_SPREAD: PodTopologySpreadArgs,
    names.VOLUME_BINDING: VolumeBindingArgs,
}

_LEADER_ELECTION_DEFAULTS: Final[dict[str, Any]] = {
    "leaderElect": True,
    "leaseDuration": "15s",
    "renewDeadline": "10s",
    "retryPeriod": "2s",
    "resourceLock": "leases",
    "resourceName": "kube-scheduler",
    "resourceNamespace": "kube-system",
}
_CLIENT_CONNECTION_DEFAULTS: Final[dict[str, Any]] = {
    "kubeconfig": "",
    "acceptContentTypes": "",
    "contentType": "application/vnd.kubernetes.protobuf",
    "qps": 50.0,
    "burst": 100,
}
# Values that upstream treats as unset and replaces, per key.
_ZERO_VALUES: Final[tuple[object, ...]] = ("", 0, 0.0, "0s", None)


def default_plugins(features: Features = V1_35_DEFAULTS) -> Plugins:
    """Return the default plugins of a profile: everything in ``multi_point``, GangScheduling
    appended when its feature gate is on (applyFeatureGates)."""
    enabled = DEFAULT_MULTI_POINT
    if features.gang_scheduling:
        enabled = (*enabled, Plugin(names.GANG_SCHEDULING))
    return Plugins(multi_point=PluginSet(enabled=enabled))


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> PluginSet:
    """Merge a user's plugin set into a default one, as upstream's mergePluginSet does.

    Defaults keep their order; a default the user enables again is replaced in place;
    the user's other plugins follow in their order (duplicates included, for validation
    to report). Disabled entries lose their weight.
    """
    disabled = tuple(Plugin(p.name) for p in (*custom.disabled, *default.disabled))
    disabled_names = {p.name for p in disabled}
    last_index = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[Plugin] = []
    if "*" not in disabled_names:
        for plugin in default.enabled:
            if plugin.name in disabled_names:
                continue
            idx = last_index.get(plugin.name)
            if idx is not None:
                plugin = custom.enabled[idx]
                replaced.add(idx)
            enabled.append(plugin)
    enabled.extend(p for i, p in enumerate(custom.enabled) if i not in replaced)
    return PluginSet(enabled=tuple(enabled), disabled=disabled)


def merge_plugins(default: Plugins, custom: Plugins | None) -> Plugins:
    """Merge every extension point of ``custom`` into ``default``."""
    if custom is None:
        return default
    merged = {
        f.name: merge_plugin_set(getattr(default, f.name), getattr(custom, f.name))
        for f in dataclasses.fields(Plugins)
    }
    return Plugins(**merged)


def enabled_plugin_names(plugins: Plugins) -> list[str]:
    """Return the sorted names of every plugin enabled at any extension point."""
    found: set[str] = set()
    for f in dataclasses.fields(Plugins):
        found.update(p.name for p in getattr(plugins, f.name).enabled)
    return sorted(found)


def default_args(args: PluginArgs | None) -> PluginArgs | None:
    """Fill what upstream's SetDefaults_*Args fill in typed args; raw args pass through."""
    if isinstance(args, NodeResourcesFitArgs):
        strategy = args.scoring_strategy
        resources = strategy.resources or _DEFAULT_RESOURCES
        strategy = dataclasses.replace(strategy, resources=_weights_or_one(resources))
        return dataclasses.replace(args, scoring_strategy=strategy)
    if isinstance(args, NodeResourcesBalancedAllocationArgs):
        resources = _weights_or_one(args.resources) if args.resources else _DEFAULT_RESOURCES
        return dataclasses.replace(args, resources=resources)
    if isinstance(args, PodTopologySpreadArgs) and not args.defaulting_type:
        return dataclasses.replace(args, defaulting_type=PodTopologySpreadArgs().defaulting_type)
    if isinstance(args, DynamicResourcesArgs) and args.filter_timeout_seconds is None:
        return dataclasses.replace(
            args, filter_timeout_seconds=DynamicResourcesArgs().filter_timeout_seconds
        )
    return args


def _weights_or_one(resources: tuple[ResourceSpec, ...]) -> tuple[ResourceSpec, ...]:
    return tuple(r if r.weight else ResourceSpec(r.name, 1) for r in resources)


def default_profile(profile: Profile, features: Features = V1_35_DEFAULTS) -> Profile:
    """Merge the default plugins into a profile and add args for its in-tree plugins.

    The user's pluginConfig entries come first, defaulted; then one entry per enabled
    plugin that has an args type and no entry yet, sorted by plugin name.
    """
    plugins = merge_plugins(default_plugins(features), profile.plugins)
    configs = [PluginConfig(pc.name, _args_or_default(pc)) for pc in profile.plugin_config]
    configured = {pc.name for pc in configs}
    for name in enabled_plugin_names(plugins):
        factory = in_tree_args_defaults.get(name)
        if factory is None or name in configured:
            continue
        configs.append(PluginConfig(name, factory()))
    return dataclasses.replace(profile, plugins=plugins, plugin_config=tuple(configs))


def _args_or_default(pc: PluginConfig) -> PluginArgs | None:
    # An in-tree plugin listed without args gets its default args, as decoding empty args does.
    factory = in_tree_args_defaults.get(pc.name)
    if pc.args is None and factory is not None:
        return factory()
    return default_args(pc.args)


def set_defaults(
    cfg: KubeSchedulerConfiguration, features: Features = V1_35_DEFAULTS
) -> KubeSchedulerConfiguration:
    """Return ``cfg`` with upstream v1 defaulting applied under ``features`` (the feature
    gates); ``cfg`` itself is unchanged.

    Applying it twice gives the same result as applying it once.
    """
    profiles = cfg.profiles or (Profile(),)
    # Only a lone profile gets the default name; validation requires names otherwise.
    if len(profiles) == 1 and not profiles[0].scheduler_name:
        profiles = (dataclasses.replace(profiles[0], scheduler_name=DEFAULT_SCHEDULER_NAME),)
    percentage = cfg.percentage_of_nodes_to_score
    return dataclasses.replace(
        cfg,
        profiles=tuple(default_profile(p, features) for p in profiles),
        percentage_of_nodes_to_score=(
            DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE if percentage is None else percentage
        ),
        leader_election=_fill(cfg.leader_election, _LEADER_ELECTION_DEFAULTS),
        client_connection=_fill(cfg.client_connection, _CLIENT_CONNECTION_DEFAULTS),
        debugging=_default_debugging(cfg.debugging),
    )


def _fill(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: given.get(key) for key in defaults}
    out.update(given)
    for key, value in defaults.items():
        if _is_unset(out[key]):
            out[key] = value
    return out


def _is_unset(value: object) -> bool:
    # bool is an int: False must count as set (leaderElect: false is a choice).
    return not isinstance(value, bool) and value in _ZERO_VALUES


def _default_debugging(given: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(given)
    if out.get("enableProfiling") is None:
        out["enableProfiling"] = True
    if out["enableProfiling"] and out.get("enableContentionProfiling") is None:
        out["enableContentionProfiling"] = True
    return out


def default_config() -> KubeSchedulerConfiguration:
    """Return the configuration a fresh kube-scheduler runs with."""
    return set_defaults(KubeSchedulerConfiguration())
