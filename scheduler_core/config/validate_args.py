"""Validating each in-tree plugin's args as kube-scheduler v1.35 does
(pkg/scheduler/apis/config/validation/validation_pluginargs.go): DefaultPreemption,
InterPodAffinity, PodTopologySpread, NodeResourcesFit and BalancedAllocation, VolumeBinding,
DynamicResources and NodeAffinity (its node selector terms and label requirements).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.config.field_errors import (
    args_json,
    duplicate,
    forbidden,
    go_json,
    go_quote,
    invalid,
    join,
    label_key_errors,
    label_value_errors,
    not_supported,
    required,
    validate_label_name,
)
from scheduler_core.config.types import (
    LIST_DEFAULTING,
    MAX_CUSTOM_PRIORITY_SCORE,
    SYSTEM_DEFAULTING,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    FieldError,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
    UtilizationShapePoint,
    VolumeBindingArgs,
    format_duration,
)
from scheduler_core.plugins import names

_SCORING_STRATEGY_TYPES: Final = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
_WHEN_UNSATISFIABLE: Final = ("DoNotSchedule", "ScheduleAnyway")
_NODE_SELECTOR_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_SELECTOR_OPERATORS: Final = ("In", "NotIn")
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
        return [invalid(path, args_json(args), "has to match plugin args")]
    return validate(path, args)


def _validate_preemption(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, DefaultPreemptionArgs)
    errs = []
    pct_path = join(path, "minCandidateNodesPercentage")
    abs_path = join(path, "minCandidateNodesAbsolute")
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
            invalid(join(path, "hardPodAffinityWeight"), str(weight), "not in valid range [0, 100]")
        ]
    return []


def _validate_pod_topology_spread(path: str, args: Any) -> list[FieldError]:
    assert isinstance(args, PodTopologySpreadArgs)
    errs: list[FieldError] = []
    dt_path = join(path, "defaultingType")
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
    base = join(path, "defaultConstraints")
    for i, c in enumerate(args.default_constraints):
        p = f"{base}[{i}]"
        max_skew = c.get("maxSkew") or 0
        if max_skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", str(max_skew), "not in valid range (0, inf)"))
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += validate_label_name(f"{p}.topologyKey", key)
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
        p = f"{join(path, 'resources')}[{i}]"
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
                join(path, "bindTimeoutSeconds"),
                str(args.bind_timeout_seconds),
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    # StorageCapacityScoring is off in v1.35, so any shape is refused.
    if args.shape:
        shape = go_json([{"Utilization": s.utilization, "Score": s.score} for s in args.shape])
        errs.append(
            invalid(
                join(path, "shape"),
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
        errs += validate_label_name(f"{join(path, 'ignoredResources')}[{i}]", res)
    for i, group in enumerate(args.ignored_resource_groups):
        p = f"{join(path, 'ignoredResourceGroups')}[{i}]"
        if "/" in group:
            errs.append(invalid(p, go_quote(group), "resource group name can't contain '/'"))
        errs += validate_label_name(p, group)
    strategy = args.scoring_strategy
    s_path = join(path, "scoringStrategy")
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
                join(path, "filterTimeout"),
                go_quote(format_duration(timeout)),
                "must be zero or positive",
            )
        )
    # DRADeviceBindingConditions is off in v1.35, so setting bindingTimeout is refused.
    if args.binding_timeout_seconds is not None:
        errs.append(
            forbidden(
                join(path, "bindingTimeout"),
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
    base = join(path, "addedAffinity")
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
