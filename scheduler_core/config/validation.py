"""Validation of a defaulted KubeSchedulerConfiguration; returns every problem found.

Mirrors pkg/scheduler/apis/config/validation/validation.go and validation_pluginargs.go in
kube-scheduler v1.35, with the v1.35 default feature gates. Paths and messages are those
upstream's field.Error prints, values rendered as apimachinery v0.35 renders them: integers
and booleans plainly, strings quoted, anything else as Go's JSON encoding of the value.

This module validates the configuration and its profiles; the plugin args are validated in
``validate_args``, and the field errors and label syntax checks both use are in
``field_errors``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.config.field_errors import (
    args_json,
    duplicate,
    go_json,
    go_quote,
    invalid,
    is_extended_resource_name,
    label_key_errors,
    required,
)
from scheduler_core.config.types import (
    Extender,
    FieldError,
    KubeSchedulerConfiguration,
    PluginSet,
    Profile,
    parse_duration,
)
from scheduler_core.config.validate_args import (
    _ARGS_VALIDATORS,
    validate_plugin_args,
)
from scheduler_core.config.wire import API_VERSION, EXTENSION_POINTS

# Plugins removed from the v1 API; naming one is an error.
REMOVED_PLUGINS: Final = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")

# Extension points checked for removed plugins, in the order of the v1 Plugins struct.
# multiPoint is left out, as upstream leaves it out.
_STAGES: Final = tuple(p for p in EXTENSION_POINTS if p[0] != "multi_point")


# --- the configuration --------------------------------------------------------------------


def validate_config(cfg: KubeSchedulerConfiguration) -> list[FieldError]:
    """Return every problem in a defaulted configuration, in upstream's order."""
    errs: list[FieldError] = []
    errs += _validate_client_connection(cfg.client_connection)
    errs += _validate_leader_election(cfg.leader_election)
    if cfg.parallelism <= 0:
        errs.append(
            invalid(
                "parallelism", str(cfg.parallelism), "should be an integer value greater than zero"
            )
        )
    if not cfg.profiles:
        errs.append(required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, profile in enumerate(cfg.profiles):
            path = f"profiles[{i}]"
            errs += _validate_profile(path, profile)
            if profile.scheduler_name in seen:
                # Upstream passes the other profile's *field.Path as the value; Go's JSON
                # encoding of it is {} since its fields are unexported.
                errs.append(duplicate(f"{path}.schedulerName", "{}"))
            seen[profile.scheduler_name] = i
        errs += _validate_common_queue_sort(cfg.profiles)
    errs += _validate_percentage("percentageOfNodesToScore", cfg.percentage_of_nodes_to_score)
    if cfg.pod_initial_backoff_seconds <= 0:
        errs.append(
            invalid(
                "podInitialBackoffSeconds",
                str(cfg.pod_initial_backoff_seconds),
                "must be greater than 0",
            )
        )
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds:
        errs.append(
            invalid(
                "podMaxBackoffSeconds",
                str(cfg.pod_max_backoff_seconds),
                "must be greater than or equal to PodInitialBackoffSeconds",
            )
        )
    errs += _validate_extenders(cfg.extenders)
    return errs


def _validate_client_connection(cc: Mapping[str, Any]) -> list[FieldError]:
    burst = cc.get("burst", 0)
    if isinstance(burst, int) and burst < 0:
        return [invalid("clientConnection.burst", str(burst), "must be non-negative")]
    return []


def _duration_ns(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return round(parse_duration(value) * 1_000_000_000)
    except ValueError:
        return 0


def _validate_leader_election(le: Mapping[str, Any]) -> list[FieldError]:
    if not le.get("leaderElect"):
        return []
    errs = []
    durations = {}
    for key in ("leaseDuration", "renewDeadline", "retryPeriod"):
        durations[key] = _duration_ns(le.get(key))
        if durations[key] <= 0:
            errs.append(
                invalid(
                    f"leaderElection.{key}",
                    go_quote(str(le.get(key, "0s"))),
                    "must be greater than zero",
                )
            )
    if durations["leaseDuration"] <= durations["renewDeadline"]:
        errs.append(
            invalid(
                "leaderElection.leaseDuration",
                go_quote(str(le.get("renewDeadline", "0s"))),
                "must be greater than `RenewDeadline`",
            )
        )
    for key in ("resourceLock", "resourceNamespace", "resourceName"):
        if not le.get(key):
            errs.append(required(f"leaderElection.{key}"))
    lock = le.get("resourceLock", "")
    if lock != "leases":
        errs.append(
            invalid(
                "leaderElection.resourceLock",
                go_quote(str(lock)),
                'resourceLock value must be "leases"',
            )
        )
    return errs


def _validate_percentage(path: str, value: int | None) -> list[FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, str(value), "not in valid range [0-100]")]
    return []


def _removed_message() -> str:
    return (
        f"was invalid in version {go_quote(API_VERSION)} "
        f"(KubeSchedulerConfiguration is version {go_quote(API_VERSION)})"
    )


def _validate_profile(path: str, profile: Profile) -> list[FieldError]:
    errs: list[FieldError] = []
    if not profile.scheduler_name:
        errs.append(required(f"{path}.schedulerName"))
    errs += _validate_percentage(
        f"{path}.percentageOfNodesToScore", profile.percentage_of_nodes_to_score
    )
    for attr, wire in _STAGES:
        plugin_set: PluginSet = getattr(profile.plugins, attr)
        for j, plugin in enumerate(plugin_set.enabled):
            if plugin.name in REMOVED_PLUGINS:
                errs.append(
                    invalid(
                        f"{path}.plugins.{wire}.enabled[{j}]",
                        go_quote(plugin.name),
                        _removed_message(),
                    )
                )
    seen: set[str] = set()
    for i, pc in enumerate(profile.plugin_config):
        pc_path = f"{path}.pluginConfig[{i}]"
        if pc.name in seen:
            errs.append(duplicate(pc_path, go_quote(pc.name)))
        seen.add(pc.name)
        if pc.name in REMOVED_PLUGINS:
            errs.append(invalid(pc_path, go_quote(pc.name), _removed_message()))
        elif pc.name in _ARGS_VALIDATORS:
            errs += validate_plugin_args(pc.name, pc.args, f"{pc_path}.args")
    errs += _validate_unique_plugins(path, profile)
    return errs


def _validate_unique_plugins(path: str, profile: Profile) -> list[FieldError]:
    # Upstream's framework refuses a plugin enabled twice at one extension point ("plugin
    # %q already registered"); reporting it here lets the user see it with the rest.
    errs = []
    for attr, wire in EXTENSION_POINTS:
        plugin_set: PluginSet = getattr(profile.plugins, attr)
        seen: set[str] = set()
        for j, plugin in enumerate(plugin_set.enabled):
            if plugin.name in seen:
                errs.append(duplicate(f"{path}.plugins.{wire}.enabled[{j}]", go_quote(plugin.name)))
            seen.add(plugin.name)
    return errs


def _go_plugin_set(ps: PluginSet) -> str:
    def plugins(items: Sequence[Any]) -> list[dict[str, Any]] | None:
        return [{"Name": p.name, "Weight": p.weight} for p in items] or None

    return go_json({"Enabled": plugins(ps.enabled), "Disabled": plugins(ps.disabled)})


def _validate_common_queue_sort(profiles: Sequence[Profile]) -> list[FieldError]:
    errs = []
    canon = profiles[0].plugins.queue_sort
    queue_sort_name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        # "Enabled" is capitalised in upstream's path.
        errs.append(
            invalid(
                "profiles[0].plugins.queueSort.Enabled",
                str(len(canon.enabled)),
                "only one queue sort plugin can be enabled",
            )
        )
    queue_sort_args: object = None
    for pc in profiles[0].plugin_config:
        if queue_sort_name and pc.name == queue_sort_name:
            queue_sort_args = pc.args
    for i in range(1, len(profiles)):
        curr = profiles[i].plugins.queue_sort
        if curr != canon:
            errs.append(
                invalid(
                    f"profiles[{i}].plugins.queueSort",
                    _go_plugin_set(curr),
                    "must be the same for all profiles",
                )
            )
        for pc in profiles[i].plugin_config:
            if pc.name == queue_sort_name and pc.args != queue_sort_args:
                errs.append(
                    invalid(
                        f"profiles[{i}].pluginConfig.args",
                        args_json(pc.args),
                        "queueSort must be the same for all profiles",
                    )
                )
    return errs


def _validate_extenders(extenders: Sequence[Extender]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        path = f"extenders[{i}]"
        if ext.prioritize_verb and ext.weight <= 0:
            errs.append(
                invalid(
                    f"{path}.weight", str(ext.weight), "must have a positive weight applied to it"
                )
            )
        if ext.bind_verb:
            binders += 1
        for j, resource in enumerate(ext.managed_resources):
            name_path = f"{path}.managedResources[{j}].name"
            errs += _validate_extended_resource_name(name_path, resource.name)
            if resource.name in managed:
                errs.append(
                    invalid(
                        name_path,
                        go_quote(resource.name),
                        "duplicate extender managed resource name",
                    )
                )
            managed.add(resource.name)
    if binders > 1:
        errs.append(
            invalid(
                "extenders",
                go_quote(f"found {binders} extenders implementing bind"),
                "only one extender can implement bind",
            )
        )
    return errs


def _validate_extended_resource_name(path: str, name: str) -> list[FieldError]:
    errs = [invalid(path, go_json(name), msg) for msg in label_key_errors(name)]
    if errs:
        return errs
    if not is_extended_resource_name(name):
        return [invalid(path, go_quote(name), "is an invalid extended resource name")]
    return []
