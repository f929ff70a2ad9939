"""The version steps of ``migrate``: one function per documented change between versions.

Each step takes the wire data of one version and leaves the next one's, appending one line per
change it made. Sources: KEP-785 (component config graduation: what each iteration removed or
renamed), the per-version ``default_plugins.go``, ``defaults.go`` and ``conversion.go`` under
pkg/scheduler/apis/config/ in kubernetes v1.18-v1.25.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from scheduler_core.config.wire import EXTENSION_POINTS
from scheduler_core.plugins import names

# The extension points of a profile's ``plugins`` in the wire format, multiPoint first.
POINTS: Final = ("multiPoint", *(w for _, w in EXTENSION_POINTS if w != "multiPoint"))

IN_TREE: Final = frozenset(
    value for key, value in vars(names).items() if key.isupper() and isinstance(value, str)
)

# v1beta1's three resource scorers, merged into NodeResourcesFit's scoringStrategy in v1beta2.
_FIT_STRATEGIES: Final = {
    "NodeResourcesLeastAllocated": "LeastAllocated",
    "NodeResourcesMostAllocated": "MostAllocated",
    "RequestedToCapacityRatio": "RequestedToCapacityRatio",
}
# Removed without a successor: (plugin, version that removed it, what to use instead).
_REMOVED: Final = {
    "NodeLabel": ("v1beta2", "use NodeAffinity"),
    "ServiceAffinity": ("v1beta2", "use InterPodAffinity"),
    "NodePreferAvoidPods": ("v1beta3", "use node taints with PreferNoSchedule"),
    "SelectorSpread": (
        "v1",
        "PodTopologySpread's system default constraints spread pods of one Service or ReplicaSet",
    ),
}
# The cloud volume-limit plugins, folded into NodeVolumeLimits (CSI migration) in v1.
_VOLUME_LIMITS: Final = ("EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")
# Default score weights that v1beta3 raised (KEP-785, third iteration).
_V1BETA3_WEIGHTS: Final = {"InterPodAffinity": 2, "NodeAffinity": 2, "TaintToleration": 3}


# -- helpers over the wire format ---------------------------------------------------------------


def _profiles(doc: dict[str, Any]) -> list[dict[str, Any]]:
    profiles = doc.get("profiles")
    return [p for p in profiles if isinstance(p, dict)] if isinstance(profiles, list) else []


def _plugin_set(profile: dict[str, Any], point: str) -> dict[str, Any]:
    plugins = profile.setdefault("plugins", {}) or {}
    profile["plugins"] = plugins
    pset = plugins.get(point)
    if not isinstance(pset, dict):
        pset = plugins[point] = {}
    return pset


def _entries(pset: Any, part: str) -> list[dict[str, Any]]:
    items = pset.get(part) if isinstance(pset, dict) else None
    return [e for e in items if isinstance(e, dict)] if isinstance(items, list) else []


def _args_entry(profile: dict[str, Any], name: str) -> dict[str, Any] | None:
    for entry in profile.get("pluginConfig") or []:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
    return None


def _set_args(profile: dict[str, Any], name: str, args: dict[str, Any]) -> None:
    entry = _args_entry(profile, name)
    if entry is None:
        profile.setdefault("pluginConfig", []).append({"name": name, "args": args})
    else:
        entry["args"] = {**(entry.get("args") or {}), **args}


def _drop_args(profile: dict[str, Any], name: str) -> dict[str, Any] | None:
    entry = _args_entry(profile, name)
    if entry is None:
        return None
    profile["pluginConfig"] = [e for e in profile["pluginConfig"] if e is not entry]
    return dict(entry.get("args") or {})


def _where(profile: dict[str, Any], index: int) -> str:
    return f"profiles[{index}] ({profile.get('schedulerName') or 'default-scheduler'})"


def _for_each_entry(
    doc: dict[str, Any], visit: Callable[[dict[str, Any], int, str, str, dict[str, Any]], bool]
) -> None:
    """Call ``visit(profile, index, point, part, entry)``; entries it returns False for go."""
    for i, profile in enumerate(_profiles(doc)):
        for point, pset in list((profile.get("plugins") or {}).items()):
            for part in ("enabled", "disabled"):
                kept = [e for e in _entries(pset, part) if visit(profile, i, point, part, e)]
                if isinstance(pset, dict) and part in pset:
                    pset[part] = kept


# -- one step per documented migration ----------------------------------------------------------


def _v1alpha1_to_v1alpha2(doc: dict[str, Any], changes: list[str]) -> None:
    """v1alpha2 (1.18) put plugins into profiles and renamed v1alpha1's postFilter to preScore."""
    single = {k: doc.pop(k) for k in ("schedulerName", "plugins", "pluginConfig") if k in doc}
    if single or "profiles" not in doc:
        doc["profiles"] = [single]
        if single:
            changes.append(
                f"{', '.join(single)} moved into profiles[0] (profiles arrived in v1alpha2)"
            )
    election = doc.get("leaderElection")
    for old, new in (
        ("lockObjectName", "resourceName"),
        ("lockObjectNamespace", "resourceNamespace"),
    ):
        if isinstance(election, dict) and old in election:
            value = election.pop(old)
            election.setdefault(new, value)
            changes.append(f"leaderElection.{old} became leaderElection.{new} (v1alpha2)")
    for i, profile in enumerate(_profiles(doc)):
        plugins = profile.get("plugins") or {}
        if "postFilter" in plugins:
            plugins["preScore"] = plugins.pop("postFilter")
            changes.append(
                f"{_where(profile, i)}: v1alpha1's postFilter ran before Score: now preScore"
            )


def _v1alpha2_to_v1beta1(doc: dict[str, Any], changes: list[str]) -> None:
    """v1beta1 (1.19): unreserve merged into reserve, top-level knobs became plugin args.

    With DefaultPodTopologySpread (beta in 1.20, taken as on) PodTopologySpread's system
    default constraints replaced the default SelectorSpread score.
    """
    for i, profile in enumerate(_profiles(doc)):
        off = {
            e.get("name") for e in _entries((profile.get("plugins") or {}).get("score"), "disabled")
        }
        if not off & {"*", "SelectorSpread"}:
            changes.append(
                f"{_where(profile, i)}: the default SelectorSpread score is gone: "
                f"{_REMOVED['SelectorSpread'][1]}"
            )
    weight = doc.pop("hardPodAffinitySymmetricWeight", None)
    bind_timeout = doc.pop("bindTimeoutSeconds", None)
    disable_preemption = doc.pop("disablePreemption", None)
    source = doc.pop("algorithmSource", None)
    for key in ("healthzBindAddress", "metricsBindAddress"):
        if doc.pop(key, None) is not None:
            changes.append(f"{key} dropped: the v1 configuration has no such field")
    for i, profile in enumerate(_profiles(doc)):
        where = _where(profile, i)
        if weight is not None:
            _set_args(profile, "InterPodAffinity", {"hardPodAffinityWeight": weight})
            changes.append(
                f"{where}: hardPodAffinitySymmetricWeight {weight} became InterPodAffinity "
                "args.hardPodAffinityWeight"
            )
        if bind_timeout is not None:
            _set_args(profile, "VolumeBinding", {"bindTimeoutSeconds": bind_timeout})
            changes.append(
                f"{where}: bindTimeoutSeconds {bind_timeout} became VolumeBinding "
                "args.bindTimeoutSeconds"
            )
        if disable_preemption:
            _plugin_set(profile, "postFilter").setdefault("disabled", []).append(
                {"name": names.DEFAULT_PREEMPTION}
            )
            changes.append(
                f"{where}: disablePreemption became postFilter disabled DefaultPreemption"
            )
        plugins = profile.get("plugins") or {}
        unreserve = plugins.pop("unreserve", None)
        if unreserve:
            reserve = _plugin_set(profile, "reserve")
            have = {e.get("name") for e in _entries(reserve, "enabled")}
            for entry in _entries(unreserve, "enabled"):
                if entry.get("name") not in have:
                    reserve.setdefault("enabled", []).append({"name": entry.get("name")})
            changes.append(
                f"{where}: the unreserve extension point merged into reserve (a Reserve plugin "
                "also unreserves)"
            )
        if isinstance(source, dict) and source.get("provider") == "ClusterAutoscalerProvider":
            score = _plugin_set(profile, "score")
            score.setdefault("disabled", []).append({"name": "NodeResourcesLeastAllocated"})
            score.setdefault("enabled", []).append(
                {"name": "NodeResourcesMostAllocated", "weight": 1}
            )
            changes.append(
                f"{where}: algorithmSource provider ClusterAutoscalerProvider became "
                "NodeResourcesMostAllocated in place of NodeResourcesLeastAllocated"
            )
    if isinstance(source, dict) and source.get("policy"):
        changes.append(
            "algorithmSource.policy dropped: it names a file or ConfigMap; paste the Policy "
            "itself to convert it"
        )
    elif isinstance(source, dict) and source.get("provider") in (None, "DefaultProvider"):
        changes.append("algorithmSource DefaultProvider dropped: the default plugins apply")


def _v1beta1_to_v1beta2(doc: dict[str, Any], changes: list[str]) -> None:
    """v1beta2 (1.22): the three resource scorers merged into NodeResourcesFit."""
    for i, profile in enumerate(_profiles(doc)):
        _merge_fit_strategies(profile, i, changes)
        spread = _args_entry(profile, names.POD_TOPOLOGY_SPREAD)
        args = spread.get("args") if spread is not None else None
        if (
            isinstance(args, dict)
            and args.get("defaultConstraints")
            and not args.get("defaultingType")
        ):
            args["defaultingType"] = "List"
            changes.append(
                f"{_where(profile, i)}: PodTopologySpread args.defaultingType List: before "
                "v1beta2 defaultConstraints without a defaultingType meant List (now System, "
                "which refuses them)"
            )


def _merge_fit_strategies(profile: dict[str, Any], index: int, changes: list[str]) -> None:
    where = _where(profile, index)
    score = (profile.get("plugins") or {}).get("score")
    default_on = not {e.get("name") for e in _entries(score, "disabled")} & {
        "*",
        "NodeResourcesLeastAllocated",
    }
    chosen: tuple[str, int] | None = None
    disabled_old = False
    for point, pset in list((profile.get("plugins") or {}).items()):
        kept_enabled = []
        for entry in _entries(pset, "enabled"):
            old = entry.get("name")
            if old not in _FIT_STRATEGIES:
                kept_enabled.append(entry)
                continue
            weight = int(entry.get("weight") or 1)
            if point != "score":
                changes.append(f"{where}: {old} at {point} dropped: it only ever scored")
            elif chosen is None:
                chosen = (old, weight)
                kept_enabled.append({"name": names.NODE_RESOURCES_FIT, "weight": weight})
            else:
                changes.append(
                    f"{where}: {old} (weight {weight}) dropped: NodeResourcesFit has one "
                    f"scoringStrategy and {chosen[0]} already set it"
                )
        if isinstance(pset, dict) and "enabled" in pset:
            pset["enabled"] = kept_enabled
        kept_disabled = []
        for entry in _entries(pset, "disabled"):
            if entry.get("name") in _FIT_STRATEGIES:
                disabled_old = True
            else:
                kept_disabled.append(entry)
        if isinstance(pset, dict) and "disabled" in pset:
            pset["disabled"] = kept_disabled
    if chosen is not None and chosen[0] != "NodeResourcesLeastAllocated" and default_on:
        changes.append(
            f"{where}: the default NodeResourcesLeastAllocated score (weight 1) also ran beside "
            f"{chosen[0]}; NodeResourcesFit has one scoringStrategy, so it is not kept"
        )
    if chosen is not None:
        old, weight = chosen
        strategy: dict[str, Any] = {"type": _FIT_STRATEGIES[old]}
        args = _drop_args(profile, old) or {}
        if args.get("resources"):
            strategy["resources"] = args["resources"]
        if old == "RequestedToCapacityRatio" and args.get("shape"):
            strategy["requestedToCapacityRatio"] = {"shape": args["shape"]}
        fit = _args_entry(profile, names.NODE_RESOURCES_FIT)
        fit_args = {
            k: v
            for k, v in ((fit or {}).get("args") or {}).items()
            if k not in ("apiVersion", "kind")
        }
        _set_args(profile, names.NODE_RESOURCES_FIT, {**fit_args, "scoringStrategy": strategy})
        moved = " and its args moved into scoringStrategy" if args else ""
        changes.append(
            f"{where}: {old} (weight {weight}) became NodeResourcesFit with scoringStrategy "
            f"{strategy['type']}{moved}"
        )
    elif disabled_old:
        _plugin_set(profile, "score").setdefault("disabled", []).append(
            {"name": names.NODE_RESOURCES_FIT}
        )
        changes.append(
            f"{where}: disabling NodeResourcesLeastAllocated became disabling NodeResourcesFit "
            "at score (its scoring now lives there)"
        )
    for old in _FIT_STRATEGIES:
        if (chosen is None or old != chosen[0]) and _drop_args(profile, old) is not None:
            changes.append(f"{where}: pluginConfig of {old} dropped with the plugin")


def _drop_removed(doc: dict[str, Any], changes: list[str], version: str) -> None:
    """Drop the plugins ``version`` removed, with their args; one line per plugin and profile."""
    seen: set[tuple[int, str]] = set()

    def visit(
        profile: dict[str, Any], i: int, point: str, part: str, entry: dict[str, Any]
    ) -> bool:
        name = entry.get("name")
        if name not in _REMOVED or _REMOVED[name][0] != version:
            return True
        if (i, name) not in seen:
            seen.add((i, name))
            changes.append(
                f"{_where(profile, i)}: {name} has no v1 equivalent: dropped ({_REMOVED[name][1]})"
            )
        return False

    _for_each_entry(doc, visit)
    for i, profile in enumerate(_profiles(doc)):
        for name, (removed_in, _) in _REMOVED.items():
            if removed_in == version and _drop_args(profile, name) is not None:
                changes.append(f"{_where(profile, i)}: pluginConfig of {name} dropped with it")


def _v1beta2_to_v1beta3(doc: dict[str, Any], changes: list[str]) -> None:
    """v1beta3 (1.23): multiPoint arrived and three default weights rose."""
    for i, profile in enumerate(_profiles(doc)):
        plugins = profile.get("plugins") or {}
        off = {e.get("name") for e in _entries(plugins.get("score") or {}, "disabled")}
        off |= {e.get("name") for e in _entries(plugins.get("multiPoint") or {}, "disabled")}
        if not off & {"*", "NodePreferAvoidPods"}:
            changes.append(
                f"{_where(profile, i)}: the default NodePreferAvoidPods score (weight 10000) is "
                f"gone in v1beta3: {_REMOVED['NodePreferAvoidPods'][1]}"
            )
    _drop_removed(doc, changes, "v1beta2")
    _drop_removed(doc, changes, "v1beta3")
    for i, profile in enumerate(_profiles(doc)):
        plugins = profile.get("plugins") or {}
        score = plugins.get("score") or {}
        disabled = {e.get("name") for e in _entries(score, "disabled")}
        disabled |= {e.get("name") for e in _entries(plugins.get("multiPoint") or {}, "disabled")}
        configured = {e.get("name") for e in _entries(score, "enabled")}
        raised = [
            name
            for name in _V1BETA3_WEIGHTS
            if "*" not in disabled and name not in disabled and name not in configured
        ]
        for name in raised:
            _plugin_set(profile, "score").setdefault("enabled", []).append(
                {"name": name, "weight": 1}
            )
        if raised:
            changes.append(
                f"{_where(profile, i)}: default score weights rose in v1beta3 ("
                + ", ".join(f"{n} {_V1BETA3_WEIGHTS[n]}" for n in raised)
                + "): the file relied on weight 1, kept at score"
            )


def _v1beta3_to_v1(doc: dict[str, Any], changes: list[str]) -> None:
    """v1 (1.25): SelectorSpread and the cloud volume-limit plugins went in later releases."""
    _drop_removed(doc, changes, "v1")
    _drop_no_ops(doc, changes)
    seen: set[tuple[int, str]] = set()

    def visit(
        profile: dict[str, Any], i: int, point: str, part: str, entry: dict[str, Any]
    ) -> bool:
        name = entry.get("name")
        if name not in _VOLUME_LIMITS:
            return True
        pset = (profile.get("plugins") or {}).get(point) or {}
        if part == "disabled":
            # Disabling a plugin that is gone must not disable the one that absorbed it.
            changes.append(
                f"{_where(profile, i)}: disabling {name} at {point} dropped: the plugin is gone "
                "(NodeVolumeLimits counts those volumes through CSI migration)"
            )
            return False
        keep = not any(e.get("name") == names.NODE_VOLUME_LIMITS for e in _entries(pset, part))
        if keep:
            entry["name"] = names.NODE_VOLUME_LIMITS
        if (i, name) not in seen:
            seen.add((i, name))
            changes.append(
                f"{_where(profile, i)}: {name} folded into NodeVolumeLimits (cloud volume limits "
                "are counted through CSI migration)"
            )
        return keep

    _for_each_entry(doc, visit)
    for i, profile in enumerate(_profiles(doc)):
        for name in _VOLUME_LIMITS:
            if _drop_args(profile, name) is not None:
                changes.append(f"{_where(profile, i)}: pluginConfig of {name} dropped")


def _drop_no_ops(doc: dict[str, Any], changes: list[str]) -> None:
    """Disabling a plugin that no longer exists did nothing (v1beta3 files still do it)."""

    def visit(
        profile: dict[str, Any], i: int, point: str, part: str, entry: dict[str, Any]
    ) -> bool:
        name = entry.get("name")
        if part != "disabled" or name not in _FIT_STRATEGIES:
            return True
        changes.append(
            f"{_where(profile, i)}: disabling {name} at {point} dropped: the plugin is "
            "NodeResourcesFit's scoringStrategy since v1beta2, so it disabled nothing"
        )
        return False

    _for_each_entry(doc, visit)


def _leases_lock(doc: dict[str, Any], changes: list[str]) -> None:
    """Leader election locks other than leases went with client-go v1.29; v1.35 takes leases."""
    election = doc.get("leaderElection")
    lock = election.get("resourceLock") if isinstance(election, dict) else None
    if isinstance(election, dict) and isinstance(lock, str) and lock != "leases":
        election["resourceLock"] = "leases"
        changes.append(f"leaderElection.resourceLock {lock} became leases (the only lock in v1)")


def _one_queue_sort(doc: dict[str, Any], changes: list[str]) -> None:
    """A plugin enabled at queueSort replaces PrioritySort: exactly one may sort the queue."""
    for i, profile in enumerate(_profiles(doc)):
        pset = (profile.get("plugins") or {}).get("queueSort") or {}
        others = [e.get("name") for e in _entries(pset, "enabled")]
        others = [n for n in others if n != names.PRIORITY_SORT]
        disabled = {e.get("name") for e in _entries(pset, "disabled")}
        if others and not disabled & {"*", names.PRIORITY_SORT}:
            pset.setdefault("disabled", []).append({"name": names.PRIORITY_SORT})
            changes.append(
                f"{_where(profile, i)}: queueSort takes exactly one plugin: PrioritySort "
                f"disabled so {others[0]} sorts the queue"
            )


STEPS: Final[tuple[Callable[[dict[str, Any], list[str]], None], ...]] = (
    _v1alpha1_to_v1alpha2,
    _v1alpha2_to_v1beta1,
    _v1beta1_to_v1beta2,
    _v1beta2_to_v1beta3,
    _v1beta3_to_v1,
    _leases_lock,
    _one_queue_sort,
)


def tidy(profile: dict[str, Any]) -> None:
    """Drop empty plugin sets, and old apiVersion/kind inside args (v1 args need neither)."""
    plugins = profile.get("plugins")
    if isinstance(plugins, dict):
        for point in list(plugins):
            pset = plugins[point]
            if isinstance(pset, dict):
                for part in ("enabled", "disabled"):
                    if part in pset and not pset[part]:
                        del pset[part]
            if not pset:
                del plugins[point]
        if not plugins:
            del profile["plugins"]
    for entry in profile.get("pluginConfig") or []:
        args = entry.get("args") if isinstance(entry, dict) else None
        if isinstance(args, dict):
            args.pop("apiVersion", None)
            args.pop("kind", None)
    if "pluginConfig" in profile and not profile["pluginConfig"]:
        del profile["pluginConfig"]


def custom_plugins(doc: dict[str, Any]) -> list[str]:
    found: list[str] = []

    def visit(
        profile: dict[str, Any], i: int, point: str, part: str, entry: dict[str, Any]
    ) -> bool:
        name = entry.get("name")
        if part == "enabled" and name not in IN_TREE and name != "*" and name not in found:
            found.append(str(name))
        return True

    _for_each_entry(doc, visit)
    return found
