"""Profile forms: one scheduler profile's plugin sets and args, and the whole configuration."""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml
from django import forms
from django.utils.translation import gettext, gettext_lazy

from scheduler_core.config import ConfigError, wire
from scheduler_core.config.migrate import V1, migrate

from .. import engine
from ..clusters.pod_parsing import format_spread, parse_node_terms, parse_spread
from ..forms import line_field, textarea
from ..inputs import kube, manifests, yaml_limits
from ..inputs.upstream import parser_said

# The profile form's extension points in the wire format, multiPoint first.
EXTENSION_POINTS = (
    "multiPoint",
    *(w for _, w in wire.EXTENSION_POINTS if w != "multiPoint"),
)
# (plugin, args key) -> profile form field; the reverse is used to put upstream messages next to
# the field they concern.
ARG_FIELDS = {
    ("NodeResourcesFit", "scoringStrategy.type"): "fit_strategy",
    ("NodeResourcesFit", "scoringStrategy.resources"): "fit_resources",
    ("NodeResourcesBalancedAllocation", "resources"): "balanced_resources",
    ("PodTopologySpread", "defaultingType"): "spread_defaulting",
    ("PodTopologySpread", "defaultConstraints"): "spread_constraints",
    ("InterPodAffinity", "hardPodAffinityWeight"): "hard_pod_affinity_weight",
    ("InterPodAffinity", "ignorePreferredTermsOfExistingPods"): "ignore_preferred_terms",
    ("DefaultPreemption", "minCandidateNodesPercentage"): "min_candidate_percentage",
    ("DefaultPreemption", "minCandidateNodesAbsolute"): "min_candidate_absolute",
    ("NodeAffinity", "addedAffinity"): "added_affinity",
    ("VolumeBinding", "bindTimeoutSeconds"): "bind_timeout_seconds",
}


def _plugin_lines(text: str, *, weights: bool) -> list[dict[str, Any]]:
    """``Name`` or ``Name:weight`` per line, in order; ``*`` means every plugin."""
    plugins = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, weight = line.partition(":")
        entry: dict[str, Any] = {"name": name.strip()}
        if sep:
            if not weights:
                raise kube.line_problem(number, gettext("disabled plugins have no weight"))
            try:
                entry["weight"] = int(weight.strip())
            except ValueError:
                raise kube.line_problem(
                    number,
                    gettext("weight %(weight)s is not a whole number")
                    % {"weight": repr(weight.strip())},
                ) from None
        if not re.fullmatch(r"\*|[A-Za-z0-9][A-Za-z0-9_.\-/]*", entry["name"]):
            raise kube.line_problem(
                number, gettext("%(name)s is not a plugin name") % {"name": repr(entry["name"])}
            )
        plugins.append(entry)
    return plugins


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one: the editor lays its fields over any
    configuration written in the YAML pane, and upstream validation names what is wrong."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _format_plugins(plugins: Any) -> str:
    return "\n".join(
        str(p.get("name", "")) + (f":{p['weight']}" if p.get("weight") is not None else "")
        for p in _list(plugins)
        if isinstance(p, dict)
    )


def _weights_lines(text: str) -> list[dict[str, Any]]:
    values = line_field(lambda t: kube.parse_key_values(t, labels=False), text)
    out = []
    for name, weight in values.items():
        try:
            out.append({"name": name, "weight": int(weight)})
        except ValueError:
            raise forms.ValidationError(
                gettext("%(name)s: weight %(weight)s is not a whole number")
                % {"name": name, "weight": repr(weight)}
            ) from None
    return out


def _invalid_yaml(err: yaml.YAMLError) -> str:
    """``line N: invalid YAML: problem`` (the line when PyYAML knows it)."""
    text = parser_said(str(getattr(err, "problem", err)))
    mark = getattr(err, "problem_mark", None)
    if mark is None:
        return text
    return gettext("line %(line)s: %(problem)s") % {"line": mark.line + 1, "problem": text}


class SchedulerProfileForm(forms.Form):
    """One entry of ``profiles``: plugin sets per extension point and typed plugin args.

    A blank args field means "upstream default"; the effective configuration shows its value.
    """

    scheduler_name = forms.CharField(max_length=253, label="schedulerName")
    percentage_of_nodes_to_score = forms.IntegerField(
        required=False, label="percentageOfNodesToScore"
    )
    fit_strategy = forms.ChoiceField(
        required=False,
        label=gettext_lazy("NodeResourcesFit scoring strategy"),
        choices=[
            ("", gettext_lazy("(default: LeastAllocated)")),
            ("LeastAllocated", "LeastAllocated"),
            ("MostAllocated", "MostAllocated"),
            ("RequestedToCapacityRatio", "RequestedToCapacityRatio"),
        ],
    )
    fit_resources = forms.CharField(
        required=False,
        widget=textarea(2, "cpu=1\nmemory=1"),
        label="NodeResourcesFit resources",
        help_text=gettext_lazy("resource=weight, one per line"),
    )
    balanced_resources = forms.CharField(
        required=False,
        widget=textarea(2, "cpu=1\nmemory=1"),
        label="NodeResourcesBalancedAllocation resources",
    )
    spread_defaulting = forms.ChoiceField(
        required=False,
        label="PodTopologySpread defaultingType",
        choices=[
            ("", gettext_lazy("(default: System)")),
            ("System", "System"),
            ("List", "List"),
        ],
    )
    spread_constraints = forms.CharField(
        required=False,
        widget=textarea(2, "1 topology.kubernetes.io/zone ScheduleAnyway"),
        label="PodTopologySpread defaultConstraints",
        help_text=gettext_lazy("MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway, one per line"),
    )
    hard_pod_affinity_weight = forms.IntegerField(
        required=False, label="InterPodAffinity hardPodAffinityWeight"
    )
    ignore_preferred_terms = forms.NullBooleanField(
        required=False, label="InterPodAffinity ignorePreferredTermsOfExistingPods"
    )
    min_candidate_percentage = forms.IntegerField(
        required=False, label="DefaultPreemption minCandidateNodesPercentage"
    )
    min_candidate_absolute = forms.IntegerField(
        required=False, label="DefaultPreemption minCandidateNodesAbsolute"
    )
    added_affinity = forms.CharField(
        required=False,
        widget=textarea(2, "node-role.kubernetes.io/worker"),
        label=gettext_lazy("NodeAffinity addedAffinity (required)"),
        help_text=gettext_lazy("one node selector term per line; requirements joined by ';'"),
    )
    bind_timeout_seconds = forms.IntegerField(
        required=False, label="VolumeBinding bindTimeoutSeconds"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for point in EXTENSION_POINTS:
            self.fields[f"{point}_enabled"] = forms.CharField(
                required=False,
                widget=textarea(3 if point in ("multiPoint", "score") else 2),
                label=gettext("%(point)s enabled") % {"point": point},
                help_text=gettext("Name or Name:weight, one per line, in order"),
            )
            self.fields[f"{point}_disabled"] = forms.CharField(
                required=False,
                widget=textarea(2),
                label=gettext("%(point)s disabled") % {"point": point},
                help_text=gettext("Name, or * for every default plugin"),
            )

    def extension_point_fields(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        return [(p, self[f"{p}_enabled"], self[f"{p}_disabled"]) for p in EXTENSION_POINTS]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for point in EXTENSION_POINTS:
            for part in ("enabled", "disabled"):
                key = f"{point}_{part}"
                try:
                    data[key] = _plugin_lines(data.get(key) or "", weights=part == "enabled")
                except kube.SyntaxProblem as err:
                    self.add_error(key, str(err))
        for key, parser in (
            ("fit_resources", _weights_lines),
            ("balanced_resources", _weights_lines),
            ("spread_constraints", lambda t: line_field(parse_spread, t)),
            ("added_affinity", lambda t: line_field(parse_node_terms, t)),
        ):
            if key in data:
                try:
                    data[key] = parser(data[key] or "")
                except forms.ValidationError as err:
                    self.add_error(key, err)
        return data

    def to_profile(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """This profile in wire format, keeping what the form does not show from ``base``."""
        data = self.cleaned_data
        base = copy.deepcopy(_dict(base))
        profile: dict[str, Any] = {"schedulerName": data["scheduler_name"].strip()}
        if data.get("percentage_of_nodes_to_score") is not None:
            profile["percentageOfNodesToScore"] = data["percentage_of_nodes_to_score"]
        plugins: dict[str, Any] = {}
        for point in EXTENSION_POINTS:
            plugin_set = {}
            if data.get(f"{point}_enabled"):
                plugin_set["enabled"] = data[f"{point}_enabled"]
            if data.get(f"{point}_disabled"):
                plugin_set["disabled"] = data[f"{point}_disabled"]
            if plugin_set:
                plugins[point] = plugin_set
        if plugins:
            profile["plugins"] = plugins
        # A written entry that is not a plugin's (no name) keeps its place, for validation.
        written = _list(base.get("pluginConfig"))
        order: list[Any] = [_entry_key(e, i) for i, e in enumerate(written)]
        entries = dict(zip(order, written, strict=True))
        values: dict[str, dict[str, Any]] = {}
        for (plugin, path), field in ARG_FIELDS.items():
            value = data.get(field)
            if value in (None, "", []):
                continue
            args = values.setdefault(plugin, {})
            head, _, tail = path.partition(".")
            if tail:
                args.setdefault(head, {})[tail] = value
            else:
                args[head] = value
        if "addedAffinity" in values.get("NodeAffinity", {}):
            values["NodeAffinity"]["addedAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": values["NodeAffinity"]["addedAffinity"]
                }
            }
        managed_keys = {
            p: {path.partition(".")[0] for (pl, path) in ARG_FIELDS if pl == p}
            for p, _ in ARG_FIELDS
        }
        for plugin in managed_keys:
            entry = entries.get(plugin)
            written_args = _dict(_dict(entry).get("args"))
            kept = {
                k: v
                for k, v in written_args.items()
                if k not in managed_keys[plugin] and k not in ("apiVersion", "kind")
            }
            if plugin == "NodeResourcesFit" and "scoringStrategy" in values.get(plugin, {}):
                old = _dict(written_args.get("scoringStrategy"))
                values[plugin]["scoringStrategy"] = {
                    **{k: v for k, v in old.items() if k not in ("type", "resources")},
                    **values[plugin]["scoringStrategy"],
                }
            args = {**kept, **values.get(plugin, {})}
            if args:
                entries[plugin] = {
                    "name": plugin,
                    "args": {
                        "apiVersion": "kubescheduler.config.k8s.io/v1",
                        "kind": f"{plugin}Args",
                        **args,
                    },
                }
                if plugin not in order:
                    order.append(plugin)
            else:
                entries.pop(plugin, None)
        plugin_config = [entries[n] for n in order if n in entries]
        if plugin_config:
            profile["pluginConfig"] = plugin_config
        for key, value in base.items():
            if key not in ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"):
                profile[key] = value
        return profile

    @staticmethod
    def initial_from_profile(profile: Any) -> dict[str, Any]:
        profile = _dict(profile)
        initial: dict[str, Any] = {
            "scheduler_name": profile.get("schedulerName", ""),
            "percentage_of_nodes_to_score": profile.get("percentageOfNodesToScore"),
        }
        plugins = _dict(profile.get("plugins"))
        for point in EXTENSION_POINTS:
            plugin_set = _dict(plugins.get(point))
            initial[f"{point}_enabled"] = _format_plugins(plugin_set.get("enabled"))
            initial[f"{point}_disabled"] = _format_plugins(plugin_set.get("disabled"))
        args_of = {
            e.get("name"): _dict(e.get("args"))
            for e in _list(profile.get("pluginConfig"))
            if isinstance(e, dict) and isinstance(e.get("name"), str)
        }
        for (plugin, path), field in ARG_FIELDS.items():
            value: Any = args_of.get(plugin, {})
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value is None:
                continue
            try:
                initial[field] = _arg_text(field, value)
            except (AttributeError, TypeError):
                continue  # a shape the field cannot show: the YAML pane and validation do
        return initial


def _entry_key(entry: Any, index: int) -> Any:
    """A written pluginConfig entry's key: its plugin's name, or its place when it has none."""
    name = entry.get("name") if isinstance(entry, dict) else None
    return name if isinstance(name, str) else ("#", index)


def _arg_text(field: str, value: Any) -> Any:
    """A plugin argument as its form field shows it (the lists in the fields' line syntax)."""
    if field in ("fit_resources", "balanced_resources"):
        return "\n".join(f"{r.get('name')}={r.get('weight', 1)}" for r in value)
    if field == "spread_constraints":
        return format_spread(value)
    if field == "added_affinity":
        required = _dict(value.get("requiredDuringSchedulingIgnoredDuringExecution"))
        return "\n".join(
            kube.format_requirements(t.get("matchExpressions"), sep="; ")
            for t in _list(required.get("nodeSelectorTerms"))
        )
    return value


# What the editor reads from its YAML fields, as an import: a real configuration has a few
# thousand values. The live preview reads, converts and writes the pane back on each pause in
# typing: at the general bound (200,000 values) one preview cost 4 s of CPU, at this one 1 s.
CONFIG_BUDGET = yaml_limits.Budget(values=50_000)


class ConfigurationForm(forms.Form):
    """The profile record and the top-level fields of its KubeSchedulerConfiguration."""

    name = forms.CharField(max_length=200, label=gettext_lazy("Name"))
    description = forms.CharField(
        required=False, widget=textarea(2), label=gettext_lazy("Description")
    )
    percentage_of_nodes_to_score = forms.IntegerField(
        required=False, label="percentageOfNodesToScore"
    )
    parallelism = forms.IntegerField(required=False, label="parallelism")
    extenders = forms.CharField(
        required=False,
        widget=textarea(4, "- urlPrefix: http://..."),
        label=gettext_lazy("extenders (YAML list)"),
    )
    config_yaml = forms.CharField(
        required=False, widget=textarea(30), label="KubeSchedulerConfiguration YAML"
    )
    mode = forms.ChoiceField(
        choices=[("form", "form"), ("yaml", "yaml")], initial="form", widget=forms.HiddenInput
    )
    profile_count = forms.IntegerField(
        min_value=1, max_value=20, initial=1, widget=forms.HiddenInput
    )

    def clean_extenders(self) -> list[Any]:
        text = self.cleaned_data.get("extenders") or ""
        try:
            value = yaml_limits.load(text, CONFIG_BUDGET) if text.strip() else []
        except yaml.YAMLError as err:
            raise forms.ValidationError(_invalid_yaml(err)) from err
        if not isinstance(value, list):
            raise forms.ValidationError(gettext("extenders must be a YAML list"))
        return value

    def clean_config_yaml(self) -> dict[str, Any] | None:
        text = self.cleaned_data.get("config_yaml") or ""
        if self.data.get("mode") != "yaml":
            try:
                value = yaml_limits.load(text, CONFIG_BUDGET) if text.strip() else None
            except yaml.YAMLError:
                return None
            return value if isinstance(value, dict) else None
        try:
            value = yaml_limits.load(text, CONFIG_BUDGET) if text.strip() else {}
        except yaml.YAMLError as err:
            raise forms.ValidationError(_invalid_yaml(err)) from err
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext("must be a KubeSchedulerConfiguration mapping"))
        return self._brought_forward(value)

    def _brought_forward(self, value: dict[str, Any]) -> dict[str, Any]:
        """An older configuration or a Policy, converted to v1 (``self.migration`` says how)."""

        if value.get("apiVersion") in (None, V1) and value.get("kind") != "Policy":
            return value
        if value.get("kind") != "Policy" and not str(value.get("apiVersion")).startswith(
            "kubescheduler.config.k8s.io/"
        ):
            return value  # v1 validation reports the apiVersion as upstream would
        try:
            self.migration = migrate(value)
        except ConfigError as err:
            raise forms.ValidationError(
                [
                    engine.explained_problem(f"{e.path}: {e.message}" if e.path else e.message)
                    for e in err.errors
                ]
            ) from err
        return self.migration.config

    migration: Any = None

    def to_config(self, profile_forms: list[SchedulerProfileForm]) -> dict[str, Any]:
        data = self.cleaned_data
        if data.get("mode") == "yaml":
            return data.get("config_yaml") or {}
        base = _dict(data.get("config_yaml"))
        base_profiles = _list(base.get("profiles"))
        config: dict[str, Any] = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
        }
        for key, value in base.items():
            if key not in (
                "apiVersion",
                "kind",
                "profiles",
                "extenders",
                "parallelism",
                "percentageOfNodesToScore",
            ):
                config[key] = value
        if data.get("parallelism") is not None:
            config["parallelism"] = data["parallelism"]
        if data.get("percentage_of_nodes_to_score") is not None:
            config["percentageOfNodesToScore"] = data["percentage_of_nodes_to_score"]
        config["profiles"] = [
            form.to_profile(base_profiles[i] if i < len(base_profiles) else None)
            for i, form in enumerate(profile_forms)
        ]
        if data.get("extenders"):
            config["extenders"] = data["extenders"]
        return config

    @staticmethod
    def initial_from_config(config: dict[str, Any]) -> dict[str, Any]:
        extenders = config.get("extenders")
        return {
            "percentage_of_nodes_to_score": config.get("percentageOfNodesToScore"),
            "parallelism": config.get("parallelism"),
            "extenders": manifests.dump_yaml(extenders) if extenders else "",
            "config_yaml": manifests.dump_yaml(config),
            "profile_count": max(1, len(_list(config.get("profiles")))),
        }


def problem_field(config: dict[str, Any], path: str) -> tuple[str, str, int | None]:
    """Where an upstream message belongs: (form prefix, field name, line within that field).

    ``profiles[0].plugins.score.enabled[1].weight`` -> ("p0", "score_enabled", 2);
    unknown paths give ("", "", None) and are shown above the form.
    """
    if match := re.match(r"^profiles\[(\d+)\]\.(.*)$", path):
        index, rest = int(match.group(1)), match.group(2)
        prefix = f"p{index}"
        if m := re.match(r"^plugins\.(\w+)\.(enabled|disabled)\[(\d+)\]", rest):
            return prefix, f"{m.group(1)}_{m.group(2)}", int(m.group(3)) + 1
        if rest.startswith("plugins."):
            point = rest.split(".")[1]
            return prefix, f"{point}_enabled", None
        if rest.startswith("schedulerName"):
            return prefix, "scheduler_name", None
        if rest.startswith("percentageOfNodesToScore"):
            return prefix, "percentage_of_nodes_to_score", None
        if m := re.match(r"^pluginConfig\[(\d+)\](?:\.args\.?(.*))?$", rest):
            profiles = _list(config.get("profiles"))
            profile = _dict(profiles[index]) if index < len(profiles) else {}
            entries = _list(profile.get("pluginConfig"))
            j = int(m.group(1))
            plugin = _dict(entries[j]).get("name") if j < len(entries) else None
            args_path = m.group(2) or ""
            for (pl, key), field in ARG_FIELDS.items():
                if (
                    pl == plugin
                    and args_path
                    and (
                        args_path == key
                        or args_path.startswith(key + ".")
                        or args_path.startswith(key + "[")
                        or key.startswith(args_path.split("[")[0])
                    )
                ):
                    return prefix, field, None
            return prefix, "", None
        return prefix, "", None
    if path.startswith("percentageOfNodesToScore"):
        return "", "percentage_of_nodes_to_score", None
    if path.startswith("parallelism"):
        return "", "parallelism", None
    if path.startswith("extenders"):
        return "", "extenders", None
    return "", "", None
