"""Decoding a KubeSchedulerConfiguration v1 document into its types, strictly: each field
checked against its schema (unknown or repeated fields, wrong types, integers out of their Go
range), every plugin's args by its own decoder, and every problem reported at once.

Apart from the entry points and the YAML reading (io.py) and the encoding (encode.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.config.defaults import in_tree_args_defaults
from scheduler_core.config.field_errors import go_quote
from scheduler_core.config.types import (
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    ExtenderManagedResource,
    FieldError,
    InterPodAffinityArgs,
    InTreeArgs,
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
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
    format_duration,
    parse_duration,
)
from scheduler_core.config.wire import (
    API_VERSION,
    EXTENSION_POINTS,
    GROUP,
    INT_RANGES,
    KIND,
)


def json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# A schema for a raw manifest part: a scalar type name, ("list", item), ("map", value) or a
# mapping from field name to schema.
_Schema = str | tuple[str, Any] | Mapping[str, Any]

_LABEL_SELECTOR: Final[Mapping[str, Any]] = {
    "matchLabels": ("map", "string"),
    "matchExpressions": (
        "list",
        {"key": "string", "operator": "string", "values": ("list", "string")},
    ),
}
_TOPOLOGY_SPREAD_CONSTRAINT: Final[Mapping[str, Any]] = {
    "maxSkew": "int32",
    "topologyKey": "string",
    "whenUnsatisfiable": "string",
    "labelSelector": _LABEL_SELECTOR,
    "minDomains": "int32",
    "nodeAffinityPolicy": "string",
    "nodeTaintsPolicy": "string",
    "matchLabelKeys": ("list", "string"),
}
_NODE_SELECTOR_REQUIREMENT: Final[Mapping[str, Any]] = {
    "key": "string",
    "operator": "string",
    "values": ("list", "string"),
}
_NODE_SELECTOR_TERM: Final[Mapping[str, Any]] = {
    "matchExpressions": ("list", _NODE_SELECTOR_REQUIREMENT),
    "matchFields": ("list", _NODE_SELECTOR_REQUIREMENT),
}
_NODE_AFFINITY: Final[Mapping[str, Any]] = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": ("list", _NODE_SELECTOR_TERM)
    },
    "preferredDuringSchedulingIgnoredDuringExecution": (
        "list",
        {"weight": "int32", "preference": _NODE_SELECTOR_TERM},
    ),
}
_TLS_CONFIG: Final[Mapping[str, Any]] = {
    "insecure": "bool",
    "serverName": "string",
    "certFile": "string",
    "keyFile": "string",
    "caFile": "string",
    "certData": "string",
    "keyData": "string",
    "caData": "string",
}
_LEADER_ELECTION: Final[Mapping[str, Any]] = {
    "leaderElect": "bool",
    "leaseDuration": "duration",
    "renewDeadline": "duration",
    "retryPeriod": "duration",
    "resourceLock": "string",
    "resourceName": "string",
    "resourceNamespace": "string",
}
_CLIENT_CONNECTION: Final[Mapping[str, Any]] = {
    "kubeconfig": "string",
    "acceptContentTypes": "string",
    "contentType": "string",
    "qps": "float",
    "burst": "int32",
}


class Decoder:
    """Builds typed values from wire data, collecting every problem in ``errors``."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def fail(self, path: str, message: str) -> None:
        self.errors.append(FieldError(path, message))

    # scalars

    def object(self, value: Any, path: str, allowed: Sequence[str]) -> Mapping[str, Any]:
        """Return ``value`` as a mapping with only ``allowed`` keys; {} after an error."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.fail(path, f"cannot unmarshal {json_kind(value)} into Go value of type object")
            return {}
        for key in value:
            if key not in allowed:
                self.fail(_join(path, str(key)), "unknown field")
        return value

    def array(self, m: Mapping[str, Any], key: str, path: str) -> list[Any]:
        value = m.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(
                _join(path, key),
                f"cannot unmarshal {json_kind(value)} into Go value of type array",
            )
            return []
        return value

    def string(self, m: Mapping[str, Any], key: str, path: str, default: str = "") -> str:
        value = m.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(
                _join(path, key),
                f"cannot unmarshal {json_kind(value)} into Go value of type string",
            )
            return default
        return value

    def boolean(self, m: Mapping[str, Any], key: str, path: str, default: bool = False) -> bool:
        value = m.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(
                _join(path, key), f"cannot unmarshal {json_kind(value)} into Go value of type bool"
            )
            return default
        return value

    def integer(
        self, m: Mapping[str, Any], key: str, path: str, default: int, bits: str = "int32"
    ) -> int:
        value = m.get(key)
        if value is None:
            return default
        return value if self._check_int(value, _join(path, key), bits) else default

    def duration(
        self, m: Mapping[str, Any], key: str, path: str, default: float | None
    ) -> float | None:
        value = m.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(
                _join(path, key),
                f"cannot unmarshal {json_kind(value)} into Go value of type string",
            )
            return default
        try:
            return parse_duration(value)
        except ValueError as err:
            self.fail(_join(path, key), str(err))
            return default

    def raw(self, value: Any, path: str, schema: _Schema) -> Any:
        """Check a raw manifest part against ``schema``; return a copy without null fields."""
        if value is None:
            return None
        if isinstance(schema, str):
            return self._raw_scalar(value, path, schema)
        if isinstance(schema, tuple):
            shape, item = schema
            if shape == "list":
                if not isinstance(value, list):
                    self.fail(
                        path, f"cannot unmarshal {json_kind(value)} into Go value of type array"
                    )
                    return None
                return [self.raw(v, f"{path}[{i}]", item) for i, v in enumerate(value)]
            if not isinstance(value, Mapping):
                self.fail(path, f"cannot unmarshal {json_kind(value)} into Go value of type object")
                return None
            return {str(k): self.raw(v, _join(path, str(k)), item) for k, v in value.items()}
        fields = self.object(value, path, list(schema))
        out: dict[str, Any] = {}
        for key, v in fields.items():
            if key in schema and v is not None:
                out[key] = self.raw(v, _join(path, key), schema[key])
        return out

    def _raw_scalar(self, value: Any, path: str, kind: str) -> Any:
        if kind == "duration":
            got = self.duration({"v": value}, "v", "", None)
            if got is None:
                self.errors[-1] = FieldError(path, self.errors[-1].message)
                return None
            return format_duration(got)
        if kind in INT_RANGES:
            return value if self._check_int(value, path, kind) else None
        ok = {
            "string": isinstance(value, str),
            "bool": isinstance(value, bool),
            "float": isinstance(value, int | float) and not isinstance(value, bool),
        }[kind]
        if not ok:
            gotype = {"float": "float32"}.get(kind, kind)
            self.fail(path, f"cannot unmarshal {json_kind(value)} into Go value of type {gotype}")
            return None
        return value

    def _check_int(self, value: Any, path: str, bits: str) -> bool:
        low, high = INT_RANGES[bits]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(path, f"cannot unmarshal {json_kind(value)} into Go value of type {bits}")
            return False
        return True

    # the configuration

    def configuration(self, data: Mapping[str, Any]) -> KubeSchedulerConfiguration:
        m = self.object(
            data,
            "",
            (
                "apiVersion",
                "kind",
                "parallelism",
                "leaderElection",
                "clientConnection",
                "enableProfiling",
                "enableContentionProfiling",
                "percentageOfNodesToScore",
                "podInitialBackoffSeconds",
                "podMaxBackoffSeconds",
                "profiles",
                "extenders",
                "delayCacheUntilActive",
            ),
        )
        # Without apiVersion and kind the data is taken to be v1; a wrong one is an error.
        for key, want in (("apiVersion", API_VERSION), ("kind", KIND)):
            got = self.string(m, key, "", want)
            if got != want:
                self.fail(
                    key, f"Unsupported value: {go_quote(got)}: supported values: {go_quote(want)}"
                )
        defaults = KubeSchedulerConfiguration()
        debugging = {}
        for key in ("enableProfiling", "enableContentionProfiling"):
            if m.get(key) is not None:
                debugging[key] = self.boolean(m, key, "")
        percentage = m.get("percentageOfNodesToScore")
        return KubeSchedulerConfiguration(
            parallelism=self.integer(m, "parallelism", "", defaults.parallelism),
            percentage_of_nodes_to_score=(
                None if percentage is None else self.integer(m, "percentageOfNodesToScore", "", 0)
            ),
            pod_initial_backoff_seconds=self.integer(
                m, "podInitialBackoffSeconds", "", defaults.pod_initial_backoff_seconds, "int64"
            ),
            pod_max_backoff_seconds=self.integer(
                m, "podMaxBackoffSeconds", "", defaults.pod_max_backoff_seconds, "int64"
            ),
            profiles=tuple(
                self.profile(p, f"profiles[{i}]")
                for i, p in enumerate(self.array(m, "profiles", ""))
            ),
            extenders=tuple(
                self.extender(e, f"extenders[{i}]")
                for i, e in enumerate(self.array(m, "extenders", ""))
            ),
            delay_cache_until_active=self.boolean(m, "delayCacheUntilActive", ""),
            leader_election=self.raw(m.get("leaderElection"), "leaderElection", _LEADER_ELECTION)
            or {},
            client_connection=self.raw(
                m.get("clientConnection"), "clientConnection", _CLIENT_CONNECTION
            )
            or {},
            debugging=debugging,
        )

    def profile(self, value: Any, path: str) -> Profile:
        m = self.object(
            value, path, ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")
        )
        percentage = m.get("percentageOfNodesToScore")
        return Profile(
            scheduler_name=self.string(m, "schedulerName", path),
            percentage_of_nodes_to_score=(
                None if percentage is None else self.integer(m, "percentageOfNodesToScore", path, 0)
            ),
            plugins=self.plugins(m.get("plugins"), _join(path, "plugins")),
            plugin_config=tuple(
                self.plugin_config(pc, f"{path}.pluginConfig[{i}]")
                for i, pc in enumerate(self.array(m, "pluginConfig", path))
            ),
        )

    def plugins(self, value: Any, path: str) -> Plugins:
        m = self.object(value, path, [wire for _, wire in EXTENSION_POINTS])
        return Plugins(
            **{
                attr: self.plugin_set(m.get(wire), _join(path, wire))
                for attr, wire in EXTENSION_POINTS
            }
        )

    def plugin_set(self, value: Any, path: str) -> PluginSet:
        m = self.object(value, path, ("enabled", "disabled"))
        return PluginSet(
            enabled=self.plugin_list(m, "enabled", path),
            disabled=self.plugin_list(m, "disabled", path),
        )

    def plugin_list(self, m: Mapping[str, Any], key: str, path: str) -> tuple[Plugin, ...]:
        out = []
        for i, item in enumerate(self.array(m, key, path)):
            p = f"{path}.{key}[{i}]"
            pm = self.object(item, p, ("name", "weight"))
            out.append(Plugin(self.string(pm, "name", p), self.integer(pm, "weight", p, 0)))
        return tuple(out)

    def plugin_config(self, value: Any, path: str) -> PluginConfig:
        m = self.object(value, path, ("name", "args"))
        name = self.string(m, "name", path)
        args_path = _join(path, "args")
        raw_args = m.get("args")
        if name not in in_tree_args_defaults:
            if raw_args is not None and not isinstance(raw_args, Mapping):
                self.fail(
                    args_path,
                    f"cannot unmarshal {json_kind(raw_args)} into Go value of type object",
                )
                return PluginConfig(name, None)
            return PluginConfig(name, None if raw_args is None else copy.deepcopy(dict(raw_args)))
        decode = _ARGS_DECODERS[name]
        return PluginConfig(name, decode(self, raw_args, args_path, name))

    def type_meta(self, m: Mapping[str, Any], path: str, name: str) -> None:
        kind = self.string(m, "kind", path, f"{name}Args")
        version = self.string(m, "apiVersion", path, API_VERSION)
        group = version.rpartition("/")[0] if "/" in version else ""
        if kind != f"{name}Args" or group != GROUP:
            self.fail(
                path,
                f"args for plugin {name} were not of type {name}Args.{GROUP}, got {kind}.{group}",
            )
        elif version != API_VERSION:
            self.fail(
                _join(path, "apiVersion"),
                f"Unsupported value: {go_quote(version)}: supported values: "
                f"{go_quote(API_VERSION)}",
            )

    def args_object(
        self, value: Any, path: str, name: str, fields: Sequence[str]
    ) -> Mapping[str, Any]:
        m = self.object(value, path, ("apiVersion", "kind", *fields))
        self.type_meta(m, path, name)
        return m

    def extender(self, value: Any, path: str) -> Extender:
        m = self.object(
            value,
            path,
            (
                "urlPrefix",
                "filterVerb",
                "preemptVerb",
                "prioritizeVerb",
                "weight",
                "bindVerb",
                "enableHTTPS",
                "tlsConfig",
                "httpTimeout",
                "nodeCacheCapable",
                "managedResources",
                "ignorable",
            ),
        )
        resources = []
        for i, item in enumerate(self.array(m, "managedResources", path)):
            p = f"{path}.managedResources[{i}]"
            rm = self.object(item, p, ("name", "ignoredByScheduler"))
            resources.append(
                ExtenderManagedResource(
                    self.string(rm, "name", p), self.boolean(rm, "ignoredByScheduler", p)
                )
            )
        return Extender(
            url_prefix=self.string(m, "urlPrefix", path),
            filter_verb=self.string(m, "filterVerb", path),
            preempt_verb=self.string(m, "preemptVerb", path),
            prioritize_verb=self.string(m, "prioritizeVerb", path),
            weight=self.integer(m, "weight", path, 0, "int64"),
            bind_verb=self.string(m, "bindVerb", path),
            enable_https=self.boolean(m, "enableHTTPS", path),
            tls_config=self.raw(m.get("tlsConfig"), _join(path, "tlsConfig"), _TLS_CONFIG),
            http_timeout_seconds=self.duration(m, "httpTimeout", path, 0.0) or 0.0,
            node_cache_capable=self.boolean(m, "nodeCacheCapable", path),
            managed_resources=tuple(resources),
            ignorable=self.boolean(m, "ignorable", path),
        )

    # args

    def resource_specs(self, m: Mapping[str, Any], key: str, path: str) -> tuple[ResourceSpec, ...]:
        out = []
        for i, item in enumerate(self.array(m, key, path)):
            p = f"{path}.{key}[{i}]"
            rm = self.object(item, p, ("name", "weight"))
            out.append(
                ResourceSpec(self.string(rm, "name", p), self.integer(rm, "weight", p, 0, "int64"))
            )
        return tuple(out)

    def shape(self, m: Mapping[str, Any], key: str, path: str) -> tuple[UtilizationShapePoint, ...]:
        out = []
        for i, item in enumerate(self.array(m, key, path)):
            p = f"{path}.{key}[{i}]"
            sm = self.object(item, p, ("utilization", "score"))
            out.append(
                UtilizationShapePoint(
                    self.integer(sm, "utilization", p, 0), self.integer(sm, "score", p, 0)
                )
            )
        return tuple(out)


def _decode_fit(d: Decoder, value: Any, path: str, name: str) -> NodeResourcesFitArgs:
    m = d.args_object(
        value, path, name, ("ignoredResources", "ignoredResourceGroups", "scoringStrategy")
    )
    strategy = NodeResourcesFitArgs().scoring_strategy
    if m.get("scoringStrategy") is not None:
        sp = _join(path, "scoringStrategy")
        sm = d.object(m["scoringStrategy"], sp, ("type", "resources", "requestedToCapacityRatio"))
        ratio = None
        if sm.get("requestedToCapacityRatio") is not None:
            rp = _join(sp, "requestedToCapacityRatio")
            rm = d.object(sm["requestedToCapacityRatio"], rp, ("shape",))
            ratio = RequestedToCapacityRatioParam(d.shape(rm, "shape", rp))
        strategy = ScoringStrategy(
            type=d.string(sm, "type", sp),
            resources=d.resource_specs(sm, "resources", sp),
            requested_to_capacity_ratio=ratio,
        )
    return NodeResourcesFitArgs(
        ignored_resources=_strings(d, m, "ignoredResources", path),
        ignored_resource_groups=_strings(d, m, "ignoredResourceGroups", path),
        scoring_strategy=strategy,
    )


def _strings(d: Decoder, m: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    items = d.array(m, key, path)
    return tuple(d.string({"v": v}, "v", f"{path}.{key}[{i}]") for i, v in enumerate(items))


def _decode_balanced(
    d: Decoder, value: Any, path: str, name: str
) -> NodeResourcesBalancedAllocationArgs:
    m = d.args_object(value, path, name, ("resources",))
    return NodeResourcesBalancedAllocationArgs(resources=d.resource_specs(m, "resources", path))


def _decode_spread(d: Decoder, value: Any, path: str, name: str) -> PodTopologySpreadArgs:
    m = d.args_object(value, path, name, ("defaultConstraints", "defaultingType"))
    constraints = tuple(
        d.raw(c, f"{path}.defaultConstraints[{i}]", _TOPOLOGY_SPREAD_CONSTRAINT) or {}
        for i, c in enumerate(d.array(m, "defaultConstraints", path))
    )
    return PodTopologySpreadArgs(
        default_constraints=constraints, defaulting_type=d.string(m, "defaultingType", path)
    )


def _decode_inter_pod(d: Decoder, value: Any, path: str, name: str) -> InterPodAffinityArgs:
    fields = ("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods")
    m = d.args_object(value, path, name, fields)
    return InterPodAffinityArgs(
        hard_pod_affinity_weight=d.integer(
            m, "hardPodAffinityWeight", path, InterPodAffinityArgs().hard_pod_affinity_weight
        ),
        ignore_preferred_terms_of_existing_pods=d.boolean(
            m, "ignorePreferredTermsOfExistingPods", path
        ),
    )


def _decode_node_affinity(d: Decoder, value: Any, path: str, name: str) -> NodeAffinityArgs:
    m = d.args_object(value, path, name, ("addedAffinity",))
    added = d.raw(m.get("addedAffinity"), _join(path, "addedAffinity"), _NODE_AFFINITY)
    return NodeAffinityArgs(added_affinity=added)


def _decode_volume_binding(d: Decoder, value: Any, path: str, name: str) -> VolumeBindingArgs:
    m = d.args_object(value, path, name, ("bindTimeoutSeconds", "shape"))
    return VolumeBindingArgs(
        bind_timeout_seconds=d.integer(
            m, "bindTimeoutSeconds", path, VolumeBindingArgs().bind_timeout_seconds, "int64"
        ),
        shape=d.shape(m, "shape", path),
    )


def _decode_preemption(d: Decoder, value: Any, path: str, name: str) -> DefaultPreemptionArgs:
    fields = ("minCandidateNodesPercentage", "minCandidateNodesAbsolute")
    m = d.args_object(value, path, name, fields)
    defaults = DefaultPreemptionArgs()
    return DefaultPreemptionArgs(
        min_candidate_nodes_percentage=d.integer(
            m, "minCandidateNodesPercentage", path, defaults.min_candidate_nodes_percentage
        ),
        min_candidate_nodes_absolute=d.integer(
            m, "minCandidateNodesAbsolute", path, defaults.min_candidate_nodes_absolute
        ),
    )


def _decode_dynamic_resources(d: Decoder, value: Any, path: str, name: str) -> DynamicResourcesArgs:
    m = d.args_object(value, path, name, ("filterTimeout", "bindingTimeout"))
    return DynamicResourcesArgs(
        filter_timeout_seconds=d.duration(m, "filterTimeout", path, None),
        binding_timeout_seconds=d.duration(m, "bindingTimeout", path, None),
    )


_ARGS_DECODERS: Final[dict[str, Callable[[Decoder, Any, str, str], InTreeArgs]]] = {
    "DefaultPreemption": _decode_preemption,
    "DynamicResources": _decode_dynamic_resources,
    "InterPodAffinity": _decode_inter_pod,
    "NodeAffinity": _decode_node_affinity,
    "NodeResourcesBalancedAllocation": _decode_balanced,
    "NodeResourcesFit": _decode_fit,
    "PodTopologySpread": _decode_spread,
    "VolumeBinding": _decode_volume_binding,
}
