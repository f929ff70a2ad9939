"""Validation of a defaulted KubeSchedulerConfiguration; returns every problem found.

Mirrors pkg/scheduler/apis/config/validation/validation.go and validation_pluginargs.go in
kube-scheduler v1.35, with the v1.35 default feature gates. Paths and messages are those
upstream's field.Error prints, values rendered as apimachinery v0.35 renders them: integers
and booleans plainly, strings quoted, anything else as Go's JSON encoding of the value.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.config.types import (
    LIST_DEFAULTING,
    MAX_CUSTOM_PRIORITY_SCORE,
    SYSTEM_DEFAULTING,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    FieldError,
    InterPodAffinityArgs,
    KubeSchedulerConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PluginSet,
    PodTopologySpreadArgs,
    Profile,
    ResourceSpec,
    UtilizationShapePoint,
    VolumeBindingArgs,
    format_duration,
    parse_duration,
)
from scheduler_core.plugins import names

API_VERSION: Final = "kubescheduler.config.k8s.io/v1"

# Plugins removed from the v1 API; naming one is an error.
REMOVED_PLUGINS: Final = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")

# Extension points checked for removed plugins, in the order of the v1 Plugins struct.
# multiPoint is left out, as upstream leaves it out.
_STAGES: Final = (
    ("pre_enqueue", "preEnqueue"),
    ("queue_sort", "queueSort"),
    ("pre_filter", "preFilter"),
    ("filter", "filter"),
    ("post_filter", "postFilter"),
    ("pre_score", "preScore"),
    ("score", "score"),
    ("reserve", "reserve"),
    ("permit", "permit"),
    ("pre_bind", "preBind"),
    ("bind", "bind"),
    ("post_bind", "postBind"),
)

_SCORING_STRATEGY_TYPES: Final = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
_WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")
_NODE_SELECTOR_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_SELECTOR_OPERATORS: Final = ("In", "NotIn")


# --- field errors, printed as field.Error.Error() prints them ----------------------------


def go_quote(text: str) -> str:
    """Quote a string as Go's %q does for printable text."""
    return json.dumps(text, ensure_ascii=False)


def go_json(value: Any) -> str:
    """Render a value as Go's json.Marshal would (compact, HTML characters escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def invalid(path: str, value: str, detail: str) -> FieldError:
    """field.Invalid; ``value`` is already rendered."""
    return FieldError(
        path, f"Invalid value: {value}: {detail}" if detail else f"Invalid value: {value}"
    )


def required(path: str, detail: str = "") -> FieldError:
    """field.Required."""
    return FieldError(path, f"Required value: {detail}" if detail else "Required value")


def duplicate(path: str, value: str) -> FieldError:
    """field.Duplicate; ``value`` is already rendered."""
    return FieldError(path, f"Duplicate value: {value}")


def not_supported(path: str, value: str, supported: Sequence[str]) -> FieldError:
    """field.NotSupported; ``value`` is already rendered."""
    valid = ", ".join(go_quote(s) for s in supported)
    return FieldError(path, f"Unsupported value: {value}: supported values: {valid}")


def forbidden(path: str, detail: str) -> FieldError:
    """field.Forbidden."""
    return FieldError(path, f"Forbidden: {detail}" if detail else "Forbidden")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# --- names and label syntax (apimachinery validate/content) -----------------------------

_LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _dns1123_subdomain_errors(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append(_max_len_error(253))
    if not re.fullmatch(_DNS1123_SUBDOMAIN_FMT, value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(value: str) -> list[str]:
    """Return why ``value`` is not a qualified name (label key); empty if it is one."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _dns1123_subdomain_errors(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len_error(63))
    if not re.fullmatch(_LABEL_KEY_FMT, name):
        errs.append(
            "name part "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """Return why ``value`` is not a valid label value; empty if it is one."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len_error(63))
    if not re.fullmatch(_LABEL_VALUE_FMT, value):
        errs.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs


def _validate_label_name(path: str, value: str) -> list[FieldError]:
    return [invalid(path, go_quote(value), msg) for msg in label_key_errors(value)]


def _is_extended_resource_name(name: str) -> bool:
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not label_key_errors("requests." + name)


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
    for attr, wire in (*_STAGES, ("multi_point", "multiPoint")):
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


def _args_json(args: object) -> str:
    if args is None:
        return "null"
    if isinstance(args, Mapping):
        return go_json(args)
    # Upstream encodes its internal args struct, whose fields carry their Go names.
    return go_json(_go_names(dataclasses.asdict(args)))  # type: ignore[call-overload]


def _go_names(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            "".join(w.title() for w in str(k).split("_")): _go_names(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_go_names(v) for v in value]
    return value


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
                        _args_json(pc.args),
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
    if not _is_extended_resource_name(name):
        return [invalid(path, go_quote(name), "is an invalid extended resource name")]
    return []


# --- plugin args ----------------------------------------------------------------------------


def validate_plugin_args(name: str, args: PluginArgs | None, path: str = "") -> list[FieldError]:
    """Return the problems in the args of in-tree plugin ``name``; other plugins pass.

    With the default empty ``path`` the paths start at the args' own fields, as they do
    when an upstream plugin validates its args at construction.
    """
    entry = _ARGS_VALIDATORS.get(name)
    if entry is None:
        return []
    args_type, validate = entry
    if not isinstance(args, args_type):
        return [invalid(path, _args_json(args), "has to match plugin args")]
    return validate(path, args)


def _validate_preemption(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, DefaultPreemptionArgs)
    errs = []
    pct_path = _join(path, "minCandidateNodesPercentage")
    abs_path = _join(path, "minCandidateNodesAbsolute")
    pct, absolute = args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute
    if not 0 <= pct <= 100:
        errs.append(invalid(pct_path, str(pct), "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, str(absolute), "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(
            invalid(pct_path, "0", "cannot be zero at the same time as minCandidateNodesAbsolute")
        )
        errs.append(
            invalid(abs_path, "0", "cannot be zero at the same time as minCandidateNodesPercentage")
        )
    return errs


def _validate_inter_pod_affinity(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, InterPodAffinityArgs)
    weight = args.hard_pod_affinity_weight
    if not 0 <= weight <= 100:
        return [
            invalid(
                _join(path, "hardPodAffinityWeight"), str(weight), "not in valid range [0, 100]"
            )
        ]
    return []


def _validate_pod_topology_spread(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, PodTopologySpreadArgs)
    errs: list[FieldError] = []
    dt_path = _join(path, "defaultingType")
    if args.defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(
            not_supported(
                dt_path, go_json(args.defaulting_type), (SYSTEM_DEFAULTING, LIST_DEFAULTING)
            )
        )
    elif args.defaulting_type == SYSTEM_DEFAULTING and args.default_constraints:
        errs.append(
            invalid(
                dt_path, go_json(args.defaulting_type), "when .defaultConstraints are not empty"
            )
        )
    base = _join(path, "defaultConstraints")
    for i, c in enumerate(args.default_constraints):
        p = f"{base}[{i}]"
        max_skew = c.get("maxSkew") or 0
        if max_skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", str(max_skew), "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += _validate_label_name(f"{p}.topologyKey", key)
        action = c.get("whenUnsatisfiable") or ""
        if not action:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif action not in _WHEN_UNSATISFIABLE:
            errs.append(
                not_supported(f"{p}.whenUnsatisfiable", go_json(action), _WHEN_UNSATISFIABLE)
            )
        if c.get("labelSelector") is not None:
            errs.append(
                forbidden(
                    f"{p}.labelSelector",
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        for other in args.default_constraints[:i]:
            if (other.get("topologyKey") or "") == key and (
                other.get("whenUnsatisfiable") or ""
            ) == action:
                errs.append(duplicate(p, go_quote(f"{{{key}, {action}}}")))
                break
    return errs


def _validate_shape(path: str, shape: Sequence[UtilizationShapePoint]) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(
                invalid(
                    f"{path}[{i}].utilization",
                    str(shape[i].utilization),
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errs.append(
                invalid(
                    f"{path}[{i}].utilization",
                    str(point.utilization),
                    "not in valid range [0, 100]",
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(
                invalid(
                    f"{path}[{i}].score",
                    str(point.score),
                    f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                )
            )
    return errs


def _validate_resources(path: str, resources: Sequence[ResourceSpec]) -> list[FieldError]:
    return [
        invalid(
            f"{path}[{i}].weight",
            str(r.weight),
            f"resource weight of {r.name} not in valid range (0, 100]",
        )
        for i, r in enumerate(resources)
        if not 0 < r.weight <= 100
    ]


def _validate_balanced_allocation(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, NodeResourcesBalancedAllocationArgs)
    errs = []
    seen: set[str] = set()
    for i, r in enumerate(args.resources):
        p = f"{_join(path, 'resources')}[{i}]"
        if r.name in seen:
            errs.append(duplicate(f"{p}.name", go_quote(r.name)))
        seen.add(r.name)
        if r.weight != 1:
            errs.append(invalid(f"{p}.weight", str(r.weight), "must be 1"))
    return errs


def _validate_volume_binding(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, VolumeBindingArgs)
    errs = []
    if args.bind_timeout_seconds < 0:
        errs.append(
            invalid(
                _join(path, "bindTimeoutSeconds"),
                str(args.bind_timeout_seconds),
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    # StorageCapacityScoring is off in v1.35, so any shape is refused.
    if args.shape:
        shape = go_json([{"Utilization": s.utilization, "Score": s.score} for s in args.shape])
        errs.append(
            invalid(
                _join(path, "shape"),
                shape,
                "unexpected field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring",
            )
        )
    return errs


def _validate_node_resources_fit(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, NodeResourcesFitArgs)
    errs: list[FieldError] = []
    for i, res in enumerate(args.ignored_resources):
        errs += _validate_label_name(f"{_join(path, 'ignoredResources')}[{i}]", res)
    for i, group in enumerate(args.ignored_resource_groups):
        p = f"{_join(path, 'ignoredResourceGroups')}[{i}]"
        if "/" in group:
            errs.append(invalid(p, go_quote(group), "resource group name can't contain '/'"))
        errs += _validate_label_name(p, group)
    strategy = args.scoring_strategy
    s_path = _join(path, "scoringStrategy")
    if strategy.type not in _SCORING_STRATEGY_TYPES:
        errs.append(
            not_supported(f"{s_path}.type", go_json(strategy.type), _SCORING_STRATEGY_TYPES)
        )
    errs += _validate_resources(f"{s_path}.resources", strategy.resources)
    if strategy.requested_to_capacity_ratio is not None:
        # Upstream reports the shape at scoringStrategy.shape, not under requestedToCapacityRatio.
        errs += _validate_shape(f"{s_path}.shape", strategy.requested_to_capacity_ratio.shape)
    return errs


def _validate_dynamic_resources(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, DynamicResourcesArgs)
    errs = []
    timeout = args.filter_timeout_seconds
    if timeout is not None and timeout < 0:
        errs.append(
            invalid(
                _join(path, "filterTimeout"),
                go_quote(format_duration(timeout)),
                "must be zero or positive",
            )
        )
    # DRADeviceBindingConditions is off in v1.35, so setting bindingTimeout is refused.
    if args.binding_timeout_seconds is not None:
        errs.append(
            forbidden(
                _join(path, "bindingTimeout"),
                "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is "
                "disabled",
            )
        )
    return errs


def _validate_node_affinity(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, NodeAffinityArgs)
    affinity = args.added_affinity
    if affinity is None:
        return []
    errs: list[FieldError] = []
    base = _join(path, "addedAffinity")
    required_selector = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required_selector is not None:
        terms_path = f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(required_selector.get("nodeSelectorTerms") or []):
            if not _is_empty_term(term):
                errs += _validate_node_selector_term(f"{terms_path}[{i}]", term)
    preferred_path = f"{base}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        preference = pref.get("preference") or {}
        if not pref.get("weight") or _is_empty_term(preference):
            continue
        # Upstream's path has no ".preference" segment here.
        errs += _validate_node_selector_term(f"{preferred_path}[{i}]", preference)
    return errs


def _is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def _values_json(req: Mapping[str, Any]) -> str:
    values = req.get("values")
    return "null" if values is None else go_json(list(values))


def _validate_node_selector_term(path: str, term: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, req in enumerate(term.get("matchExpressions") or []):
        errs += _validate_label_requirement(f"{path}.matchExpressions[{j}]", req)
    for j, req in enumerate(term.get("matchFields") or []):
        p = f"{path}.matchFields[{j}]"
        op = req.get("operator") or ""
        if op in _FIELD_SELECTOR_OPERATORS:
            if len(req.get("values") or []) != 1:
                errs.append(invalid(f"{p}.values", _values_json(req), "must have one element"))
        else:
            errs.append(not_supported(f"{p}.operator", go_json(op), _FIELD_SELECTOR_OPERATORS))
    return errs


_GO_INT: Final = re.compile(r"[+-]?[0-9]+")


def _validate_label_requirement(path: str, req: Mapping[str, Any]) -> list[FieldError]:
    op = req.get("operator") or ""
    if op not in _NODE_SELECTOR_OPERATORS:
        return [not_supported(f"{path}.operator", go_json(op), _NODE_SELECTOR_OPERATORS)]
    errs: list[FieldError] = []
    key = req.get("key") or ""
    key_errs = label_key_errors(key)
    if key_errs:
        errs.append(invalid(f"{path}.key", go_quote(key), "; ".join(key_errs)))
    values: list[str] = list(req.get("values") or [])
    values_path = f"{path}.values"
    if op in ("In", "NotIn"):
        if not values:
            errs.append(
                invalid(
                    values_path,
                    _values_json(req),
                    "for 'in', 'notin' operators, values set can't be empty",
                )
            )
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                invalid(
                    values_path,
                    _values_json(req),
                    "values set must be empty for exists and does not exist",
                )
            )
    else:
        if len(values) != 1:
            errs.append(
                invalid(
                    values_path,
                    _values_json(req),
                    "for 'Gt', 'Lt' operators, exactly one value is required",
                )
            )
        for i, v in enumerate(values):
            if not _GO_INT.fullmatch(v) or not -(2**63) <= int(v) < 2**63:
                errs.append(
                    invalid(
                        f"{values_path}[{i}]",
                        go_quote(v),
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    for i, v in enumerate(values):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.append(invalid(f"{values_path}[{i}][{key}]", go_quote(v), "; ".join(value_errs)))
    return errs


# NodeResourcesFit is listed although upstream's table misspells its key
# ("NodeResourcesFitArgs") and so leaves it to the plugin's constructor: checking it here
# reports the same problems together with the rest.
_ARGS_VALIDATORS: Final[dict[str, tuple[type, Callable[[str, Any], list[FieldError]]]]] = {
    names.DEFAULT_PREEMPTION: (DefaultPreemptionArgs, _validate_preemption),
    names.INTER_POD_AFFINITY: (InterPodAffinityArgs, _validate_inter_pod_affinity),
    names.NODE_AFFINITY: (NodeAffinityArgs, _validate_node_affinity),
    names.NODE_RESOURCES_BALANCED_ALLOCATION: (
        NodeResourcesBalancedAllocationArgs,
        _validate_balanced_allocation,
    ),
    names.NODE_RESOURCES_FIT: (NodeResourcesFitArgs, _validate_node_resources_fit),
    names.POD_TOPOLOGY_SPREAD: (PodTopologySpreadArgs, _validate_pod_topology_spread),
    names.VOLUME_BINDING: (VolumeBindingArgs, _validate_volume_binding),
    names.DYNAMIC_RESOURCES: (DynamicResourcesArgs, _validate_dynamic_resources),
}
