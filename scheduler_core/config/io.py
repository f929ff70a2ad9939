"""Reading and writing the KubeSchedulerConfiguration v1 wire format (YAML or JSON).

Mirrors the strict decoding of kube-scheduler v1.35 (pkg/scheduler/apis/config/scheme with
kube-scheduler/config/v1): unknown or repeated fields, values of the wrong type and numbers
out of their Go integer range are errors. Every decoding problem is reported at once.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import yaml

from scheduler_core.config.defaults import in_tree_args_defaults, set_defaults
from scheduler_core.config.types import (
    ConfigError,
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
    PluginArgs,
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
from scheduler_core.config.validation import validate_config

API_VERSION: Final = "kubescheduler.config.k8s.io/v1"
KIND: Final = "KubeSchedulerConfiguration"
_GROUP: Final = "kubescheduler.config.k8s.io"

# Extension points in the order of the v1 Plugins struct: (Python name, wire name).
EXTENSION_POINTS: Final[tuple[tuple[str, str], ...]] = (
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
    ("multi_point", "multiPoint"),
)

_INT_RANGES: Final = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


# --- public entry points ----------------------------------------------------------------


def load_config(source: str | bytes | Mapping[str, Any] | None) -> KubeSchedulerConfiguration:
    """Read, default and validate a configuration.

    ``source`` is YAML or JSON text, or an already parsed mapping; None or empty text gives
    the defaults. Raises ConfigError listing every decoding or validation problem.
    """
    cfg = set_defaults(decode_config(source))
    errors = validate_config(cfg)
    if errors:
        raise ConfigError(errors)
    return cfg


def decode_config(source: str | bytes | Mapping[str, Any] | None) -> KubeSchedulerConfiguration:
    """Turn v1 wire data into a KubeSchedulerConfiguration without defaulting or validating.

    Fields the data leaves out take the dataclass defaults, which are upstream's v1 defaults
    for the scalar fields; the rest of defaulting is ``defaults.set_defaults``.
    """
    data = parse_text(source) if not isinstance(source, Mapping) else copy.deepcopy(source)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError([FieldError("", f"expected a {KIND} object, got {_json_kind(data)}")])
    decoder = _Decoder()
    cfg = decoder.configuration(data)
    if decoder.errors:
        raise ConfigError(decoder.errors)
    return cfg


def parse_text(source: str | bytes | None) -> Any:
    """Parse YAML or JSON text; a syntax error or a repeated key raises ConfigError."""
    if source is None:
        return None
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ConfigError([FieldError("", f"configuration is not UTF-8 text: {err}")]) from err
    if not source.strip():
        return None
    try:
        return yaml.load(source, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise ConfigError([FieldError("", f"invalid YAML or JSON: {_yaml_problem(err)}")]) from err


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


# --- YAML ------------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that rejects a key repeated in one mapping, as the strict decoder does."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f'duplicate field "{key}" (line {mark.line + 1}, column {mark.column + 1})',
                None,
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def _yaml_problem(err: yaml.YAMLError) -> str:
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = " ".join(p for p in (err.context, err.problem) if p)
        return f"{where}{what}"
    return str(err)


def _go_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# --- decoding --------------------------------------------------------------------------


def _json_kind(value: object) -> str:
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


class _Decoder:
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
            self.fail(path, f"cannot unmarshal {_json_kind(value)} into Go value of type object")
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
                f"cannot unmarshal {_json_kind(value)} into Go value of type array",
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
                f"cannot unmarshal {_json_kind(value)} into Go value of type string",
            )
            return default
        return value

    def boolean(self, m: Mapping[str, Any], key: str, path: str, default: bool = False) -> bool:
        value = m.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(
                _join(path, key), f"cannot unmarshal {_json_kind(value)} into Go value of type bool"
            )
            return default
        return value

    def integer(
        self, m: Mapping[str, Any], key: str, path: str, default: int, bits: str = "int32"
    ) -> int:
        value = m.get(key)
        if value is None:
            return default
        low, high = _INT_RANGES[bits]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(
                _join(path, key),
                f"cannot unmarshal {_json_kind(value)} into Go value of type {bits}",
            )
            return default
        return value

    def duration(
        self, m: Mapping[str, Any], key: str, path: str, default: float | None
    ) -> float | None:
        value = m.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(
                _join(path, key),
                f"cannot unmarshal {_json_kind(value)} into Go value of type string",
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
                        path, f"cannot unmarshal {_json_kind(value)} into Go value of type array"
                    )
                    return None
                return [self.raw(v, f"{path}[{i}]", item) for i, v in enumerate(value)]
            if not isinstance(value, Mapping):
                self.fail(
                    path, f"cannot unmarshal {_json_kind(value)} into Go value of type object"
                )
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
        if kind in _INT_RANGES:
            return value if self._check_int(value, path, kind) else None
        ok = {
            "string": isinstance(value, str),
            "bool": isinstance(value, bool),
            "float": isinstance(value, int | float) and not isinstance(value, bool),
        }[kind]
        if not ok:
            gotype = {"float": "float32"}.get(kind, kind)
            self.fail(path, f"cannot unmarshal {_json_kind(value)} into Go value of type {gotype}")
            return None
        return value

    def _check_int(self, value: Any, path: str, bits: str) -> bool:
        low, high = _INT_RANGES[bits]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(path, f"cannot unmarshal {_json_kind(value)} into Go value of type {bits}")
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
                    key, f"Unsupported value: {_go_quote(got)}: supported values: {_go_quote(want)}"
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
                    f"cannot unmarshal {_json_kind(raw_args)} into Go value of type object",
                )
                return PluginConfig(name, None)
            return PluginConfig(name, None if raw_args is None else copy.deepcopy(dict(raw_args)))
        decode = _ARGS_DECODERS[name]
        return PluginConfig(name, decode(self, raw_args, args_path, name))

    def type_meta(self, m: Mapping[str, Any], path: str, name: str) -> None:
        kind = self.string(m, "kind", path, f"{name}Args")
        version = self.string(m, "apiVersion", path, API_VERSION)
        group = version.rpartition("/")[0] if "/" in version else ""
        if kind != f"{name}Args" or group != _GROUP:
            self.fail(
                path,
                f"args for plugin {name} were not of type {name}Args.{_GROUP}, got {kind}.{group}",
            )
        elif version != API_VERSION:
            self.fail(
                _join(path, "apiVersion"),
                f"Unsupported value: {_go_quote(version)}: supported values: "
                f"{_go_quote(API_VERSION)}",
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


def _decode_fit(d: _Decoder, value: Any, path: str, name: str) -> NodeResourcesFitArgs:
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


def _strings(d: _Decoder, m: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    items = d.array(m, key, path)
    return tuple(d.string({"v": v}, "v", f"{path}.{key}[{i}]") for i, v in enumerate(items))


def _decode_balanced(
    d: _Decoder, value: Any, path: str, name: str
) -> NodeResourcesBalancedAllocationArgs:
    m = d.args_object(value, path, name, ("resources",))
    return NodeResourcesBalancedAllocationArgs(resources=d.resource_specs(m, "resources", path))


def _decode_spread(d: _Decoder, value: Any, path: str, name: str) -> PodTopologySpreadArgs:
    m = d.args_object(value, path, name, ("defaultConstraints", "defaultingType"))
    constraints = tuple(
        d.raw(c, f"{path}.defaultConstraints[{i}]", _TOPOLOGY_SPREAD_CONSTRAINT) or {}
        for i, c in enumerate(d.array(m, "defaultConstraints", path))
    )
    return PodTopologySpreadArgs(
        default_constraints=constraints, defaulting_type=d.string(m, "defaultingType", path)
    )


def _decode_inter_pod(d: _Decoder, value: Any, path: str, name: str) -> InterPodAffinityArgs:
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


def _decode_node_affinity(d: _Decoder, value: Any, path: str, name: str) -> NodeAffinityArgs:
    m = d.args_object(value, path, name, ("addedAffinity",))
    added = d.raw(m.get("addedAffinity"), _join(path, "addedAffinity"), _NODE_AFFINITY)
    return NodeAffinityArgs(added_affinity=added)


def _decode_volume_binding(d: _Decoder, value: Any, path: str, name: str) -> VolumeBindingArgs:
    m = d.args_object(value, path, name, ("bindTimeoutSeconds", "shape"))
    return VolumeBindingArgs(
        bind_timeout_seconds=d.integer(
            m, "bindTimeoutSeconds", path, VolumeBindingArgs().bind_timeout_seconds, "int64"
        ),
        shape=d.shape(m, "shape", path),
    )


def _decode_preemption(d: _Decoder, value: Any, path: str, name: str) -> DefaultPreemptionArgs:
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


def _decode_dynamic_resources(
    d: _Decoder, value: Any, path: str, name: str
) -> DynamicResourcesArgs:
    m = d.args_object(value, path, name, ("filterTimeout", "bindingTimeout"))
    return DynamicResourcesArgs(
        filter_timeout_seconds=d.duration(m, "filterTimeout", path, None),
        binding_timeout_seconds=d.duration(m, "bindingTimeout", path, None),
    )


_ARGS_DECODERS: Final[dict[str, Callable[[_Decoder, Any, str, str], InTreeArgs]]] = {
    "DefaultPreemption": _decode_preemption,
    "DynamicResources": _decode_dynamic_resources,
    "InterPodAffinity": _decode_inter_pod,
    "NodeAffinity": _decode_node_affinity,
    "NodeResourcesBalancedAllocation": _decode_balanced,
    "NodeResourcesFit": _decode_fit,
    "PodTopologySpread": _decode_spread,
    "VolumeBinding": _decode_volume_binding,
}


# --- encoding --------------------------------------------------------------------------


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
