"""The legacy scheduler Policy (predicates and priorities) as the v1beta1 plugins it stood for.

Mirrors framework/plugins/legacy_registry.go of kubernetes v1.19-v1.22 (the Policy API was removed
in v1.23): each predicate and priority name produces plugins at fixed extension points, predicates
in the registry's fixed order, priorities sorted by name, a repeated plugin keeping its highest
weight. A Policy replaced the default plugins, so the result disables multiPoint's defaults and
lists every plugin explicitly. The DefaultPodTopologySpread gate is taken as on (GA in v1.20).
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.config.migrate.legacy_shape import ShapeChecker
from scheduler_core.config.types import ConfigError, FieldError
from scheduler_core.plugins import names

_FIT: Final = names.NODE_RESOURCES_FIT
_SPREAD: Final = names.POD_TOPOLOGY_SPREAD

# predicate -> ((extension point, plugin), ...), in the order the producer appends them.
PREDICATES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "CheckNodeUnschedulable": (("filter", names.NODE_UNSCHEDULABLE),),
    "GeneralPredicates": (
        ("filter", _FIT),
        ("preFilter", _FIT),
        ("filter", names.NODE_NAME),
        ("filter", names.NODE_PORTS),
        ("preFilter", names.NODE_PORTS),
        ("filter", names.NODE_AFFINITY),
        ("preFilter", names.NODE_AFFINITY),
    ),
    "HostName": (("filter", names.NODE_NAME),),
    "PodFitsHostPorts": (("filter", names.NODE_PORTS), ("preFilter", names.NODE_PORTS)),
    "MatchNodeSelector": (("filter", names.NODE_AFFINITY), ("preFilter", names.NODE_AFFINITY)),
    "PodFitsResources": (("filter", _FIT), ("preFilter", _FIT)),
    "NoDiskConflict": (("filter", names.VOLUME_RESTRICTIONS),),
    "PodToleratesNodeTaints": (("filter", names.TAINT_TOLERATION),),
    "CheckNodeLabelPresence": (("filter", "NodeLabel"),),
    "CheckServiceAffinity": (("filter", "ServiceAffinity"), ("preFilter", "ServiceAffinity")),
    "MaxEBSVolumeCount": (("filter", "EBSLimits"),),
    "MaxGCEPDVolumeCount": (("filter", "GCEPDLimits"),),
    "MaxCSIVolumeCountPred": (("filter", names.NODE_VOLUME_LIMITS),),
    "MaxAzureDiskVolumeCount": (("filter", "AzureDiskLimits"),),
    "MaxCinderVolumeCount": (("filter", "CinderLimits"),),
    "CheckVolumeBinding": (
        ("preFilter", names.VOLUME_BINDING),
        ("filter", names.VOLUME_BINDING),
        ("reserve", names.VOLUME_BINDING),
        ("preBind", names.VOLUME_BINDING),
    ),
    "NoVolumeZoneConflict": (("filter", names.VOLUME_ZONE),),
    "EvenPodsSpread": (("preFilter", _SPREAD), ("filter", _SPREAD)),
    "MatchInterPodAffinity": (
        ("filter", names.INTER_POD_AFFINITY),
        ("preFilter", names.INTER_POD_AFFINITY),
    ),
}
# The legacy registry's predicateOrdering is the key order above.
MANDATORY_PREDICATES: Final = ("PodToleratesNodeTaints", "CheckNodeUnschedulable")
DEFAULT_PREDICATES: Final = (
    "NoVolumeZoneConflict",
    "MaxEBSVolumeCount",
    "MaxGCEPDVolumeCount",
    "MaxAzureDiskVolumeCount",
    "MaxCSIVolumeCountPred",
    "MatchInterPodAffinity",
    "NoDiskConflict",
    "GeneralPredicates",
    "PodToleratesNodeTaints",
    "CheckVolumeBinding",
    "CheckNodeUnschedulable",
    "EvenPodsSpread",
)
# priority -> (score plugin, also at preScore)
PRIORITIES: Final[dict[str, tuple[str, bool]]] = {
    "SelectorSpreadPriority": (_SPREAD, True),
    "TaintTolerationPriority": (names.TAINT_TOLERATION, True),
    "NodeAffinityPriority": (names.NODE_AFFINITY, True),
    "ImageLocalityPriority": (names.IMAGE_LOCALITY, False),
    "InterPodAffinityPriority": (names.INTER_POD_AFFINITY, True),
    "NodePreferAvoidPodsPriority": ("NodePreferAvoidPods", False),
    "MostRequestedPriority": ("NodeResourcesMostAllocated", False),
    "BalancedResourceAllocation": (names.NODE_RESOURCES_BALANCED_ALLOCATION, False),
    "LeastRequestedPriority": ("NodeResourcesLeastAllocated", False),
    "RequestedToCapacityRatioPriority": ("RequestedToCapacityRatio", False),
    # The registry keys this one by the plugin name (what a custom RTCR priority becomes).
    "RequestedToCapacityRatio": ("RequestedToCapacityRatio", False),
    "EvenPodsSpreadPriority": (_SPREAD, True),
    "NodeLabel": ("NodeLabel", False),
    "ServiceAffinity": ("ServiceAffinity", False),
}
DEFAULT_PRIORITIES: Final = {
    "SelectorSpreadPriority": 1,
    "InterPodAffinityPriority": 1,
    "LeastRequestedPriority": 1,
    "BalancedResourceAllocation": 1,
    "NodePreferAvoidPodsPriority": 10000,
    "NodeAffinityPriority": 1,
    "TaintTolerationPriority": 1,
    "ImageLocalityPriority": 1,
    "EvenPodsSpreadPriority": 2,
}
# Predicates the node conditions' taints replaced (TaintNodesByCondition, GA in v1.17): the
# legacy registry of v1.19-v1.22 no longer knew them; TaintToleration now keeps such pods off.
RETIRED_PREDICATES: Final = (
    "CheckNodeCondition",
    "CheckNodeMemoryPressure",
    "CheckNodeDiskPressure",
    "CheckNodePIDPressure",
)
_ALIASES: Final = {
    "PodFitsPorts": "PodFitsHostPorts",
    "ServiceSpreadingPriority": "SelectorSpreadPriority",
}


class _Builder:
    """Plugin sets per extension point, appended the way appendToPluginSet does."""

    def __init__(self) -> None:
        self.points: dict[str, list[dict[str, Any]]] = {}
        self.args: dict[str, dict[str, Any]] = {}

    def add(self, point: str, plugin: str, weight: int | None = None) -> None:
        entries = self.points.setdefault(point, [])
        for entry in entries:
            if entry["name"] == plugin:
                if weight is not None and weight > entry.get("weight", 0):
                    entry["weight"] = weight  # keep the highest weight
                return
        entries.append({"name": plugin} if weight is None else {"name": plugin, "weight": weight})


def check_policy(policy: dict[str, Any]) -> None:
    """ConfigError naming every field of a Policy that has the wrong type."""
    c = ShapeChecker()
    for key in ("predicates", "priorities"):
        for where, item in c.mappings(policy.get(key), key):
            c.expect(item.get("name"), f"{where}.name", str, "a string")
            if key == "priorities":
                c.expect(item.get("weight"), f"{where}.weight", int, "an integer")
            if c.expect(item.get("argument"), f"{where}.argument", dict, "an object"):
                for name, value in item["argument"].items():
                    c.expect(value, f"{where}.argument.{name}", dict, "an object")
    for where, extender in c.mappings(policy.get("extenders"), "extenders"):
        c.expect(extender.get("httpTimeout"), f"{where}.httpTimeout", (int, str), "a duration")
    c.expect(
        policy.get("hardPodAffinitySymmetricWeight"),
        "hardPodAffinitySymmetricWeight",
        int,
        "an integer",
    )
    c.expect(policy.get("alwaysCheckAllPredicates"), "alwaysCheckAllPredicates", bool, "a boolean")
    c.raise_if_any()


def _labels(value: Any, path: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError([FieldError(path, "must be a list of strings")])
    return list(value)


def policy_to_v1beta1(policy: dict[str, Any], changes: list[str]) -> dict[str, Any]:
    """The v1beta1 KubeSchedulerConfiguration the legacy registry built from ``policy``."""
    check_policy(policy)
    b = _Builder()
    predicates = _predicate_names(policy, b, changes)
    for name in [n for n in PREDICATES if n in predicates] + sorted(
        n for n in predicates if n not in PREDICATES
    ):
        if name in PREDICATES:
            for point, plugin in PREDICATES[name]:
                b.add(point, plugin)
        else:
            b.add("filter", name)
            changes.append(f"predicate {name} is not in-tree: kept as Filter plugin {name}")
    covered = sorted({p for n in predicates if n in PREDICATES for _, p in PREDICATES[n]})
    if covered:
        changes.append(
            f"predicates {', '.join(sorted(predicates))} became Filter plugins {', '.join(covered)}"
        )
    priorities = _priority_weights(policy, b, changes)
    for name in sorted(priorities):
        weight = priorities[name]
        if name == "EqualPriority":
            changes.append("priority EqualPriority gives every node the same score: dropped")
            continue
        if name in PRIORITIES:
            plugin, pre_score = PRIORITIES[name]
        else:
            plugin, pre_score = name, False
            changes.append(f"priority {name} is not in-tree: kept as Score plugin {name}")
        if pre_score:
            b.add("preScore", plugin)
        b.add("score", plugin, weight)
        if plugin != name:
            changes.append(f"priority {name} (weight {weight}) became Score plugin {plugin}")
        if name == "SelectorSpreadPriority":
            b.args[_SPREAD] = {"defaultingType": "System"}
        elif name == "EvenPodsSpreadPriority":
            b.args.setdefault(_SPREAD, {"defaultingType": "List"})
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": _plugins(b),
    }
    config = [{"name": k, "args": v} for k, v in b.args.items()]
    symmetric = policy.get("hardPodAffinitySymmetricWeight")
    if symmetric is not None:
        config.append(
            {"name": names.INTER_POD_AFFINITY, "args": {"hardPodAffinityWeight": symmetric}}
        )
        changes.append(
            f"hardPodAffinitySymmetricWeight {symmetric} became InterPodAffinity "
            "args.hardPodAffinityWeight"
        )
    if config:
        profile["pluginConfig"] = config
    changes.append(
        "a Policy replaced the default plugins: multiPoint defaults disabled, every plugin listed "
        "(so SchedulingGates and DynamicResources, which came after Policies, are not enabled: "
        "pods' schedulingGates and resource claims are not looked at)"
    )
    if policy.get("alwaysCheckAllPredicates"):
        changes.append("alwaysCheckAllPredicates dropped: Filter stops at the first rejection")
    out: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1beta1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }
    extenders = [_extender(e, i, changes) for i, e in enumerate(policy.get("extenders") or [])]
    if extenders:
        out["extenders"] = extenders
    return out


def _predicate_names(policy: dict[str, Any], b: _Builder, changes: list[str]) -> list[str]:
    raw = policy.get("predicates")
    if raw is None:
        changes.append("no predicates listed: the Policy defaults applied")
        listed = list(DEFAULT_PREDICATES)
    else:
        listed = []
        for i, item in enumerate(raw):
            name = _ALIASES.get(item.get("name") or "", item.get("name") or "")
            argument = item.get("argument") or {}
            where = f"predicates[{i}].argument"
            if name not in PREDICATES and argument.get("serviceAffinity"):
                labels = _labels(
                    argument["serviceAffinity"].get("labels"), f"{where}.serviceAffinity.labels"
                )
                b.args.setdefault("ServiceAffinity", {}).setdefault("affinityLabels", []).extend(
                    labels
                )
                name = "CheckServiceAffinity"
            elif name not in PREDICATES and argument.get("labelsPresence"):
                presence = argument["labelsPresence"]
                key = "presentLabels" if presence.get("presence") else "absentLabels"
                b.args.setdefault("NodeLabel", {}).setdefault(key, []).extend(
                    _labels(presence.get("labels"), f"{where}.labelsPresence.labels")
                )
                name = "CheckNodeLabelPresence"
            elif not name:
                raise ConfigError([FieldError(f"predicates[{i}].name", "Required value")])
            elif name in RETIRED_PREDICATES:
                changes.append(
                    f"predicate {name} dropped: node conditions became taints "
                    "(TaintNodesByCondition), which TaintToleration checks"
                )
                continue
            listed.append(name)
    for name in MANDATORY_PREDICATES:
        if name not in listed:
            listed.append(name)
            changes.append(f"predicate {name} is mandatory: added")
    return list(dict.fromkeys(listed))


def _priority_weights(policy: dict[str, Any], b: _Builder, changes: list[str]) -> dict[str, int]:
    raw = policy.get("priorities")
    if raw is None:
        changes.append("no priorities listed: the Policy defaults applied")
        return dict(DEFAULT_PRIORITIES)
    out: dict[str, int] = {}
    for i, item in enumerate(raw):
        name = _ALIASES.get(item.get("name") or "", item.get("name") or "")
        weight = int(item.get("weight") or 0)
        argument = item.get("argument") or {}
        if not name and not argument:
            raise ConfigError([FieldError(f"priorities[{i}].name", "Required value")])
        if name not in PRIORITIES and argument.get("requestedToCapacityRatioArguments"):
            rtcr = argument["requestedToCapacityRatioArguments"]
            b.args["RequestedToCapacityRatio"] = {
                "shape": rtcr.get("shape") or [],
                "resources": rtcr.get("resources") or [],
            }
            name = "RequestedToCapacityRatio"
        elif name not in PRIORITIES and argument.get("labelPreference"):
            changes.append(f"priority {name} (a labelPreference) is a NodeLabel priority")
            name = "NodeLabel"
        elif name not in PRIORITIES and argument.get("serviceAntiAffinity"):
            changes.append(f"priority {name} (a serviceAntiAffinity) is a ServiceAffinity priority")
            name = "ServiceAffinity"
        out[name] = max(out.get(name, weight), weight)
    return out


def _plugins(b: _Builder) -> dict[str, Any]:
    plugins: dict[str, Any] = {"multiPoint": {"disabled": [{"name": "*"}]}}
    fixed = {
        "queueSort": [{"name": names.PRIORITY_SORT}],
        "postFilter": [{"name": names.DEFAULT_PREEMPTION}],
        "bind": [{"name": names.DEFAULT_BINDER}],
    }
    for point in (
        "queueSort",
        "preFilter",
        "filter",
        "postFilter",
        "preScore",
        "score",
        "reserve",
        "preBind",
        "bind",
    ):
        entries = fixed.get(point) or b.points.get(point)
        if entries:
            plugins[point] = {"enabled": entries}
    return plugins


def _extender(raw: dict[str, Any], index: int, changes: list[str]) -> dict[str, Any]:
    """A Policy extender in v1 spelling: enableHttps -> enableHTTPS, nanoseconds -> duration."""
    out = {k: v for k, v in raw.items() if k not in ("enableHttps", "httpTimeout", "apiVersion")}
    if "enableHttps" in raw:
        out["enableHTTPS"] = raw["enableHttps"]
    timeout = raw.get("httpTimeout")
    if isinstance(timeout, int):
        whole = timeout % 1_000_000_000 == 0
        out["httpTimeout"] = f"{timeout // 1_000_000_000}s" if whole else f"{timeout}ns"
        changes.append(
            f"extenders[{index}].httpTimeout {timeout} (nanoseconds) became {out['httpTimeout']}"
        )
    elif timeout is not None:
        out["httpTimeout"] = timeout
    changes.append(f"extender {raw.get('urlPrefix', index)} moved to the configuration's extenders")
    return out
