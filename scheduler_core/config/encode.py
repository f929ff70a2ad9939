"""Encoding a KubeSchedulerConfiguration back to its v1 wire form (``dump_config``): profiles,
plugin sets, extenders and every in-tree plugin's args, in the field order and with the
omissions of kube-scheduler's own encoder.

Apart from the reading (io.py, decode.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Final

import yaml

from scheduler_core.config.types import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    PluginArgs,
    PluginSet,
    PodTopologySpreadArgs,
    Profile,
    ResourceSpec,
    UtilizationShapePoint,
    VolumeBindingArgs,
    format_duration,
)
from scheduler_core.config.wire import (
    API_VERSION,
    EXTENSION_POINTS,
    KIND,
)


def dump_config(cfg: KubeSchedulerConfiguration) -> dict[str, Any]:
    """Return ``cfg`` in the v1 wire format; ``load_config`` reads it back to an equal value."""
    out: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND}
    out["parallelism"] = cfg.parallelism
    if cfg.leader_election:
        out["leaderElection"] = copy.deepcopy(dict(cfg.leader_election))
    if cfg.client_connection:
        out["clientConnection"] = copy.deepcopy(dict(cfg.client_connection))
    for key in ("enableProfiling", "enableContentionProfiling"):
        if cfg.debugging.get(key) is not None:
            out[key] = cfg.debugging[key]
    if cfg.percentage_of_nodes_to_score is not None:
        out["percentageOfNodesToScore"] = cfg.percentage_of_nodes_to_score
    out["podInitialBackoffSeconds"] = cfg.pod_initial_backoff_seconds
    out["podMaxBackoffSeconds"] = cfg.pod_max_backoff_seconds
    if cfg.profiles:
        out["profiles"] = [_dump_profile(p) for p in cfg.profiles]
    if cfg.extenders:
        out["extenders"] = [_dump_extender(e) for e in cfg.extenders]
    if cfg.delay_cache_until_active:
        out["delayCacheUntilActive"] = True
    return out


def dump_config_yaml(cfg: KubeSchedulerConfiguration) -> str:
    """Return ``cfg`` as v1 YAML."""
    return yaml.safe_dump(dump_config(cfg), sort_keys=False, allow_unicode=True)


def dump_args(name: str, args: PluginArgs | None) -> dict[str, Any] | None:
    """Return plugin args in the v1 wire format (typed args carry apiVersion and kind)."""
    if args is None:
        return None
    if isinstance(args, Mapping):
        return copy.deepcopy(dict(args))
    body = _ARGS_DUMPERS[type(args)](args)
    return {"apiVersion": API_VERSION, "kind": type(args).__name__, **body}


def _dump_profile(p: Profile) -> dict[str, Any]:
    out: dict[str, Any] = {"schedulerName": p.scheduler_name}
    if p.percentage_of_nodes_to_score is not None:
        out["percentageOfNodesToScore"] = p.percentage_of_nodes_to_score
    plugins = {}
    for attr, wire in EXTENSION_POINTS:
        ps: PluginSet = getattr(p.plugins, attr)
        dumped = {}
        if ps.enabled:
            dumped["enabled"] = [_dump_plugin(x) for x in ps.enabled]
        if ps.disabled:
            dumped["disabled"] = [_dump_plugin(x) for x in ps.disabled]
        if dumped:
            plugins[wire] = dumped
    out["plugins"] = plugins
    if p.plugin_config:
        configs = []
        for pc in p.plugin_config:
            entry: dict[str, Any] = {"name": pc.name}
            args = dump_args(pc.name, pc.args)
            if args is not None:
                entry["args"] = args
            configs.append(entry)
        out["pluginConfig"] = configs
    return out


def _dump_plugin(p: Plugin) -> dict[str, Any]:
    return {"name": p.name, "weight": p.weight} if p.weight else {"name": p.name}


def _dump_extender(e: Extender) -> dict[str, Any]:
    out: dict[str, Any] = {"urlPrefix": e.url_prefix}
    for key, value in (
        ("filterVerb", e.filter_verb),
        ("preemptVerb", e.preempt_verb),
        ("prioritizeVerb", e.prioritize_verb),
        ("weight", e.weight),
        ("bindVerb", e.bind_verb),
        ("enableHTTPS", e.enable_https),
    ):
        if value:
            out[key] = value
    if e.tls_config is not None:
        out["tlsConfig"] = copy.deepcopy(dict(e.tls_config))
    out["httpTimeout"] = format_duration(e.http_timeout_seconds)
    if e.node_cache_capable:
        out["nodeCacheCapable"] = True
    if e.managed_resources:
        out["managedResources"] = [
            {"name": r.name, "ignoredByScheduler": True}
            if r.ignored_by_scheduler
            else {"name": r.name}
            for r in e.managed_resources
        ]
    if e.ignorable:
        out["ignorable"] = True
    return out


def _dump_resources(resources: tuple[ResourceSpec, ...]) -> list[dict[str, Any]]:
    return [
        {"name": r.name, "weight": r.weight} if r.weight else {"name": r.name} for r in resources
    ]


def _dump_shape(shape: tuple[UtilizationShapePoint, ...]) -> list[dict[str, Any]]:
    return [{"utilization": s.utilization, "score": s.score} for s in shape]


def _dump_fit(a: NodeResourcesFitArgs) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.ignored_resources:
        out["ignoredResources"] = list(a.ignored_resources)
    if a.ignored_resource_groups:
        out["ignoredResourceGroups"] = list(a.ignored_resource_groups)
    s = a.scoring_strategy
    strategy: dict[str, Any] = {}
    if s.type:
        strategy["type"] = s.type
    if s.resources:
        strategy["resources"] = _dump_resources(s.resources)
    if s.requested_to_capacity_ratio is not None:
        ratio = s.requested_to_capacity_ratio
        strategy["requestedToCapacityRatio"] = (
            {"shape": _dump_shape(ratio.shape)} if ratio.shape else {}
        )
    out["scoringStrategy"] = strategy
    return out


def _dump_balanced(a: NodeResourcesBalancedAllocationArgs) -> dict[str, Any]:
    return {"resources": _dump_resources(a.resources)} if a.resources else {}


def _dump_spread(a: PodTopologySpreadArgs) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.default_constraints:
        out["defaultConstraints"] = [copy.deepcopy(dict(c)) for c in a.default_constraints]
    if a.defaulting_type:
        out["defaultingType"] = a.defaulting_type
    return out


def _dump_inter_pod(a: InterPodAffinityArgs) -> dict[str, Any]:
    return {
        "hardPodAffinityWeight": a.hard_pod_affinity_weight,
        "ignorePreferredTermsOfExistingPods": a.ignore_preferred_terms_of_existing_pods,
    }


def _dump_node_affinity(a: NodeAffinityArgs) -> dict[str, Any]:
    if a.added_affinity is None:
        return {}
    return {"addedAffinity": copy.deepcopy(dict(a.added_affinity))}


def _dump_volume_binding(a: VolumeBindingArgs) -> dict[str, Any]:
    out: dict[str, Any] = {"bindTimeoutSeconds": a.bind_timeout_seconds}
    if a.shape:
        out["shape"] = _dump_shape(a.shape)
    return out


def _dump_preemption(a: DefaultPreemptionArgs) -> dict[str, Any]:
    return {
        "minCandidateNodesPercentage": a.min_candidate_nodes_percentage,
        "minCandidateNodesAbsolute": a.min_candidate_nodes_absolute,
    }


def _dump_dynamic_resources(a: DynamicResourcesArgs) -> dict[str, Any]:
    out: dict[str, Any] = {
        "filterTimeout": (
            None if a.filter_timeout_seconds is None else format_duration(a.filter_timeout_seconds)
        )
    }
    if a.binding_timeout_seconds is not None:
        out["bindingTimeout"] = format_duration(a.binding_timeout_seconds)
    return out


_ARGS_DUMPERS: Final[dict[type, Callable[[Any], dict[str, Any]]]] = {
    NodeResourcesFitArgs: _dump_fit,
    NodeResourcesBalancedAllocationArgs: _dump_balanced,
    PodTopologySpreadArgs: _dump_spread,
    InterPodAffinityArgs: _dump_inter_pod,
    NodeAffinityArgs: _dump_node_affinity,
    VolumeBindingArgs: _dump_volume_binding,
    DefaultPreemptionArgs: _dump_preemption,
    DynamicResourcesArgs: _dump_dynamic_resources,
}
