"""KubeSchedulerConfiguration and the typed args of the in-tree plugins, as plain values.

Mirrors kube-scheduler/config/v1/types.go and types_pluginargs.go in kube-scheduler v1.35.
Field names are the Python spellings of the v1 JSON fields; only ``io.py`` knows the wire
format. Each args class, built with no arguments, equals what upstream defaulting produces
for an empty args object, so ``NodeResourcesFitArgs()`` is the args a fresh scheduler uses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from scheduler_core.errors import SchedulerCoreError

# Scoring strategy types of NodeResourcesFit.
LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"

# Defaulting types of PodTopologySpread.
SYSTEM_DEFAULTING: Final = "System"
LIST_DEFAULTING: Final = "List"

# The highest score a UtilizationShapePoint may give.
MAX_CUSTOM_PRIORITY_SCORE: Final = 10


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem found in a configuration, at the field named by ``path``.

    ``message`` reads like the body of upstream's field.Error (``Invalid value: 0: ...``).
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigError(SchedulerCoreError, ValueError):
    """A configuration could not be read or is not valid; ``errors`` lists every problem."""

    def __init__(self, errors: tuple[FieldError, ...] | list[FieldError]) -> None:
        self.errors: tuple[FieldError, ...] = tuple(errors)
        super().__init__(self._text())

    def _text(self) -> str:
        # Identical messages are listed once, as upstream's aggregate error prints them.
        seen: dict[str, None] = {}
        for err in self.errors:
            seen.setdefault(str(err), None)
        return "\n".join(seen)

    def __str__(self) -> str:
        return self._text()


@dataclass(frozen=True, slots=True)
class Plugin:
    """A plugin named in an extension point; ``weight`` 0 means not set."""

    name: str
    weight: int = 0


@dataclass(frozen=True, slots=True)
class PluginSet:
    """Plugins enabled and disabled at one extension point (``*`` disables every default)."""

    enabled: tuple[Plugin, ...] = ()
    disabled: tuple[Plugin, ...] = ()


@dataclass(frozen=True, slots=True)
class Plugins:
    """The plugin sets of a profile, one per extension point plus ``multi_point``."""

    pre_enqueue: PluginSet = PluginSet()
    queue_sort: PluginSet = PluginSet()
    pre_filter: PluginSet = PluginSet()
    filter: PluginSet = PluginSet()
    post_filter: PluginSet = PluginSet()
    pre_score: PluginSet = PluginSet()
    score: PluginSet = PluginSet()
    reserve: PluginSet = PluginSet()
    permit: PluginSet = PluginSet()
    pre_bind: PluginSet = PluginSet()
    bind: PluginSet = PluginSet()
    post_bind: PluginSet = PluginSet()
    multi_point: PluginSet = PluginSet()


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """A resource and its weight; a weight of 0 is defaulted to 1 where upstream does so."""

    name: str
    weight: int = 1


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    """One point of a scoring function: utilization 0..100 maps to score 0..10."""

    utilization: int
    score: int


@dataclass(frozen=True, slots=True)
class RequestedToCapacityRatioParam:
    """The shape of the RequestedToCapacityRatio scoring function."""

    shape: tuple[UtilizationShapePoint, ...] = ()


_DEFAULT_RESOURCES: Final = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    """How NodeResourcesFit scores nodes."""

    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = _DEFAULT_RESOURCES
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs:
    """Args of NodeResourcesFit."""

    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy = ScoringStrategy()


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    """Args of NodeResourcesBalancedAllocation."""

    resources: tuple[ResourceSpec, ...] = _DEFAULT_RESOURCES


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    """Args of PodTopologySpread.

    ``default_constraints`` are TopologySpreadConstraint manifests (camelCase keys).
    """

    default_constraints: tuple[Mapping[str, Any], ...] = ()
    defaulting_type: str = SYSTEM_DEFAULTING


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    """Args of InterPodAffinity."""

    hard_pod_affinity_weight: int = 1
    ignore_preferred_terms_of_existing_pods: bool = False


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    """Args of NodeAffinity; ``added_affinity`` is a NodeAffinity manifest or None."""

    added_affinity: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs:
    """Args of VolumeBinding.

    ``shape`` stays empty: StorageCapacityScoring is off in v1.35, so validation rejects it.
    """

    bind_timeout_seconds: int = 600
    shape: tuple[UtilizationShapePoint, ...] = ()


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs:
    """Args of DefaultPreemption."""

    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


@dataclass(frozen=True, slots=True)
class DynamicResourcesArgs:
    """Args of DynamicResources, durations in seconds.

    ``filter_timeout_seconds`` 0 disables the Filter timeout. ``binding_timeout_seconds``
    must stay None: DRADeviceBindingConditions is off in v1.35.
    """

    filter_timeout_seconds: float | None = 10.0
    binding_timeout_seconds: float | None = None


InTreeArgs: TypeAlias = (
    NodeResourcesFitArgs
    | NodeResourcesBalancedAllocationArgs
    | PodTopologySpreadArgs
    | InterPodAffinityArgs
    | NodeAffinityArgs
    | VolumeBindingArgs
    | DefaultPreemptionArgs
    | DynamicResourcesArgs
)
"""The typed args of the in-tree plugins that take args."""

PluginArgs: TypeAlias = InTreeArgs | Mapping[str, Any]
"""Args handed to a plugin factory: typed for in-tree plugins, the raw mapping otherwise."""


@dataclass(frozen=True, slots=True)
class PluginConfig:
    """Args for one plugin; ``args`` is None for a plugin configured without args."""

    name: str
    args: PluginArgs | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    """One scheduling profile.

    ``percentage_of_nodes_to_score`` None means the configuration-wide value applies.
    """

    scheduler_name: str = ""
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins = Plugins()
    plugin_config: tuple[PluginConfig, ...] = ()

    def args_for(self, name: str) -> PluginArgs | None:
        """Return the args configured for plugin ``name``, or None if it has none."""
        for pc in self.plugin_config:
            if pc.name == name:
                return pc.args
        return None


@dataclass(frozen=True, slots=True)
class ExtenderManagedResource:
    """An extended resource managed by an extender."""

    name: str
    ignored_by_scheduler: bool = False


@dataclass(frozen=True, slots=True)
class Extender:
    """An HTTP scheduler extender.

    ``http_timeout_seconds`` 0 means not set; the extender client then uses
    ``DEFAULT_EXTENDER_TIMEOUT_SECONDS`` (5s), as upstream's extender.go does.
    ``tls_config`` is the ExtenderTLSConfig manifest (camelCase keys) or None.
    """

    url_prefix: str
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = 0
    bind_verb: str = ""
    enable_https: bool = False
    tls_config: Mapping[str, Any] | None = None
    http_timeout_seconds: float = 0.0
    node_cache_capable: bool = False
    managed_resources: tuple[ExtenderManagedResource, ...] = ()
    ignorable: bool = False


DEFAULT_EXTENDER_TIMEOUT_SECONDS: Final = 5.0


@dataclass(frozen=True, slots=True)
class KubeSchedulerConfiguration:
    """The whole scheduler configuration.

    ``leader_election``, ``client_connection`` and ``debugging`` are kept as their v1
    manifests (camelCase keys; ``debugging`` holds the inlined ``enableProfiling`` and
    ``enableContentionProfiling``) so that they round-trip; the engine does not use them.
    """

    parallelism: int = 16
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    profiles: tuple[Profile, ...] = ()
    extenders: tuple[Extender, ...] = ()
    delay_cache_until_active: bool = False
    leader_election: Mapping[str, Any] = field(default_factory=dict)
    client_connection: Mapping[str, Any] = field(default_factory=dict)
    debugging: Mapping[str, Any] = field(default_factory=dict)

    def profile(self, scheduler_name: str) -> Profile | None:
        """Return the profile named ``scheduler_name``, or None."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


# Durations are carried as seconds; the wire format writes them in Go's notation.

_UNITS_NS: Final = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART: Final = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")


def _parse_ns(text: str) -> int:
    invalid = ValueError(f"time: invalid duration {_go_quote(text)}")
    s = text
    sign = 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid
    total = 0
    while s:
        m = _DURATION_PART.match(s)
        if m is None or (not m.group(1) and not m.group(2)):
            raise invalid
        whole, frac, unit = m.group(1), m.group(2) or "", m.group(3)
        if not unit:
            raise ValueError(f"time: missing unit in duration {_go_quote(text)}")
        if unit not in _UNITS_NS:
            raise ValueError(f"time: unknown unit {_go_quote(unit)} in duration {_go_quote(text)}")
        scale = _UNITS_NS[unit]
        total += int(whole or "0") * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        s = s[m.end() :]
    if total > 2**63 - 1:
        raise invalid
    return sign * total


def _format_ns(ns: int) -> str:
    if ns == 0:
        return "0s"
    u = abs(ns)
    if u < 1_000_000_000:
        if u < 1_000:
            text = f"{u}ns"
        elif u < 1_000_000:
            text = _fraction(u, 1_000) + "\u00b5s"
        else:
            text = _fraction(u, 1_000_000) + "ms"
    else:
        hours, rest = divmod(u, 3_600_000_000_000)
        minutes, rest = divmod(rest, 60_000_000_000)
        text = _fraction(rest, 1_000_000_000) + "s"
        if u >= 60_000_000_000:
            text = f"{minutes}m" + text
        if u >= 3_600_000_000_000:
            text = f"{hours}h" + text
    return "-" + text if ns < 0 else text


def _fraction(value: int, unit: int) -> str:
    whole, rest = divmod(value, unit)
    if not rest:
        return str(whole)
    digits = str(rest).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def format_duration(seconds: float) -> str:
    """Format seconds as Go's time.Duration.String() does ("1m30s", "500ms", "0s")."""
    return _format_ns(round(seconds * 1_000_000_000))


def parse_duration(text: str) -> float:
    """Parse a Go duration string ("1m30s") into seconds; raises ValueError as Go would."""
    return _parse_ns(text) / 1_000_000_000


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
