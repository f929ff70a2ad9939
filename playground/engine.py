"""The checks every feature asks of the engine: configurations and manifests.

Configuration loading, defaulting and validation (``scheduler_core.config``), with the
playground's own plugins registered, and the manifest checks ``simulate`` makes too
(``scheduler_core.workloads.admission``: what the API server refuses, then the engine's
``from_manifest``). Forms and services of every feature call these. Running the engine itself
is the run worker's (``runs/execution/attempt.py``); explanations replay it
(``runs/explain/replay.py``); page data reads only its recorded events.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

import yaml
from django.utils.translation import gettext, pgettext

from scheduler_core import config as engine_config
from scheduler_core.errors import ManifestError, UnknownPluginError
from scheduler_core.extenders.policy import (
    ExtenderBudget,
    ExtenderPolicy,
    config_problems,
)
from scheduler_core.framework.registry import Registry
from scheduler_core.plugins import names
from scheduler_core.workloads.admission import (
    DRA_KINDS,
    check_dra_manifest,
    check_node_manifest,
    check_pod_manifest,
    check_quantity,
)

from .inputs import yaml_limits
from .plugins import PLUGIN_NAMES
from .plugins import registry as playground_registry

__all__ = [
    "ConfigResult",
    "FieldProblem",
    "ManifestError",
    "DRA_KINDS",
    "check_dra_manifest",
    "check_node_manifest",
    "check_pod_manifest",
    "check_quantity",
    "default_config_dict",
    "evaluate_config",
    "explained_problem",
    "extender_policy",
    "plugin_names",
]


# upstream's message (framework/runtime) when the weighted Score total could overflow int64
SCORE_OVERFLOW = "total score of Score plugins could overflow"


def explained_problem(text: str) -> str:
    """A validation message of the engine's, kept in upstream's English as kubectl shows it; a
    translation may put a short explanation before it (the English catalog leaves it as is)."""
    return pgettext("a configuration problem in upstream's English", "%(problem)s") % {
        "problem": text
    }


@dataclass(frozen=True)
class FieldProblem:
    """One validation message and the field path it concerns."""

    path: str
    message: str
    own: bool = False  # the playground's own sentence, already in the reader's language

    def said(self) -> str:
        """The problem as the page shows it: upstream's message labelled as such
        (``explained_problem``), the playground's own as it is, after the field's path."""
        if self.own:
            if not self.path:
                return self.message
            return gettext("%(path)s: %(problem)s") % {"path": self.path, "problem": self.message}
        return explained_problem(f"{self.path}: {self.message}" if self.path else self.message)


@dataclass(frozen=True)
class ConfigResult:
    """A configuration after upstream defaulting, or every problem found in it."""

    effective: dict[str, Any] | None
    problems: tuple[FieldProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def evaluate_config(
    source: str | bytes | dict[str, Any] | None, registry: Registry | None = None
) -> ConfigResult:
    """Parse, default and validate a KubeSchedulerConfiguration.

    Returns the effective configuration (v1 wire format) or every problem with its field path;
    YAML syntax errors get the path ``line N``. ``registry`` says which plugins exist (default:
    the in-tree ones and the playground's own; a profile owner's adds their custom plugins).
    """
    if registry is None:
        registry = playground_registry()
    if isinstance(source, bytes):
        source = source.decode("utf-8", errors="replace")
    if isinstance(source, str):
        try:
            parsed = yaml_limits.load(source) if source.strip() else {}
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark is not None else "yaml"
            problem = getattr(err, "problem", None) or str(err)
            return ConfigResult(None, (FieldProblem(where, f"invalid YAML: {problem}"),))
        if parsed is None:
            parsed = {}
        if not isinstance(parsed, dict):
            return ConfigResult(
                None, (FieldProblem("", "must be a KubeSchedulerConfiguration mapping"),)
            )
        source = parsed
    try:
        cfg = engine_config.load_config(source)
    except engine_config.ConfigError as err:
        found = tuple(FieldProblem(e.path, e.message) for e in getattr(err, "errors", ())) or (
            FieldProblem("", str(err)),
        )
        return ConfigResult(None, found + _problems_beside(source or {}, found, registry))
    except (ValueError, TypeError, KeyError) as err:
        return ConfigResult(None, (FieldProblem("", str(err)),))
    effective = engine_config.dump_config(cfg)
    # Paths index the configuration as written, not the defaulted one.
    problems = _unknown_plugins(source or {}, set(plugin_names(registry))) + tuple(
        FieldProblem(e.path, e.message) for e in config_problems(cfg.extenders, extender_policy())
    )
    return ConfigResult(effective, problems or _framework_problems(cfg, source or {}, registry))


def extender_policy() -> ExtenderPolicy:
    """Where users' extenders may connect: public hosts, plus ``EXTENDER_ALLOWED_HOSTS``.

    The same policy is checked when a profile is saved and again by the engine on every call,
    so a profile saved before the policy changed, or a name that now resolves elsewhere, is
    still refused when it runs. Each call gives a fresh ``ExtenderBudget``: the time one run's
    extender calls may take in all (``PLAYGROUND_EXTENDER_RUN_BUDGET_SECONDS``), so a run
    whose extender never answers fails instead of holding its runner to its cycle cap.
    """
    from django.conf import settings

    budget = float(getattr(settings, "PLAYGROUND_EXTENDER_RUN_BUDGET_SECONDS", 120))
    return ExtenderPolicy(
        allowed_hosts=tuple(settings.EXTENDER_ALLOWED_HOSTS),
        max_timeout_seconds=float(settings.EXTENDER_MAX_TIMEOUT_SECONDS),
        budget=ExtenderBudget(budget),
    )


def _framework_problems(
    cfg: Any, written: dict[str, Any], registry: Registry
) -> tuple[FieldProblem, ...]:
    """What kube-scheduler refuses when it builds each profile's framework (NewFramework)."""
    from scheduler_core.framework.runtime import (
        Framework,
        FrameworkError,
        ScoreWeightOverflowError,
    )

    problems = []
    for i, profile in enumerate(cfg.profiles):
        try:
            Framework(profile, registry)
        except ScoreWeightOverflowError as err:
            problems.append(_weight_overflow_problem(i, err.overflow, written))
        except FrameworkError as err:
            problems.append(FieldProblem(f"profiles[{i}].plugins", str(err)))
        except UnknownPluginError:
            continue  # reported with its field path by _unknown_plugins
    return tuple(problems)


def _weight_overflow_problem(index: int, overflow: Any, written: dict[str, Any]) -> FieldProblem:
    """Upstream's message, pointed at the plugin it stopped at and explained in words."""
    profiles = written.get("profiles") or []
    plugins = (profiles[index].get("plugins") or {}) if index < len(profiles) else {}
    path = f"profiles[{index}].plugins.score"
    for point in ("score", "multiPoint"):
        for j, entry in enumerate((plugins.get(point) or {}).get("enabled") or []):
            if isinstance(entry, dict) and entry.get("name") == overflow.plugin:
                path = f"profiles[{index}].plugins.{point}.enabled[{j}].weight"
                break
        else:
            continue
        break
    if overflow.wrapped:
        negative = _first_negative_weight(index, plugins)
        if negative is not None:
            path, name, weight = negative
            text = gettext(
                "weight %(weight)s of %(plugin)s: kube-scheduler v1.35 refuses it here, since a "
                "negative weight before other Score plugins makes its overflow check wrap "
                "around (%(upstream)s); use 0 or more, or list it after the others."
            ) % {"weight": weight, "plugin": name, "upstream": SCORE_OVERFLOW}
            return FieldProblem(path, text, own=True)
    values = {
        "plugin": overflow.plugin,
        "total": overflow.running_total,
        "headroom": overflow.headroom,
        "points": overflow.weight * 100,
        "weight": overflow.weight,
    }
    if overflow.wrapped:
        explanation = gettext(
            "kube-scheduler adds up weight x 100 for each Score plugin in order (the score list, "
            "then multiPoint) and checks each against 9223372036854775807 minus the total so "
            "far, in 64-bit integers. Before %(plugin)s the total was %(total)s: a negative "
            "weight made it negative, so the subtraction wrapped around to %(headroom)s and "
            "%(plugin)s's %(points)s looks too big. Put negative weights after enough positive "
            "ones (the total must stay at or above 0 until the last Score plugin), or use a "
            "smaller positive weight instead."
        )
    else:
        explanation = gettext(
            "kube-scheduler adds up weight x 100 for each Score plugin in order (the score list, "
            "then multiPoint) and checks each against 9223372036854775807 minus the total so "
            "far, in 64-bit integers. Before %(plugin)s the total was %(total)s, and "
            "%(plugin)s's weight %(weight)s x 100 exceeds the rest."
        )
    text = pgettext(
        "upstream's Score overflow message, explained", "%(upstream)s (%(explanation)s)"
    ) % {
        "upstream": SCORE_OVERFLOW,
        "explanation": explanation % values,
    }
    return FieldProblem(path, text, own=True)


def _first_negative_weight(index: int, plugins: dict[str, Any]) -> tuple[str, str, int] | None:
    """(path, plugin, weight) of the first Score plugin written with a negative weight."""
    for point in ("score", "multiPoint"):
        for j, entry in enumerate((plugins.get(point) or {}).get("enabled") or []):
            weight = entry.get("weight") if isinstance(entry, dict) else None
            if isinstance(weight, int) and weight < 0:
                path = f"profiles[{index}].plugins.{point}.enabled[{j}].weight"
                return path, str(entry.get("name")), weight
    return None


def _problems_beside(
    source: dict[str, Any], found: tuple[FieldProblem, ...], registry: Registry
) -> tuple[FieldProblem, ...]:
    """What else kube-scheduler would refuse, so a form shows every problem after one save:
    unknown plugins, and the framework's own checks on the configuration with the fields
    already found invalid left out (when they are plain fields that can be)."""
    seen = {p.path for p in found}
    more = [p for p in _unknown_plugins(source, set(plugin_names(registry))) if p.path not in seen]
    trimmed = copy.deepcopy(source)
    for problem in found:
        if not _drop_path(trimmed, problem.path):
            return tuple(more)
    # Unknown plugins left out too (last first, so earlier indexes stay right).
    for problem in reversed(more):
        _drop_item(trimmed, problem.path.removesuffix(".name"))
    try:
        cfg = engine_config.load_config(trimmed)
    except (engine_config.ConfigError, ValueError, TypeError, KeyError):
        return tuple(more)
    seen |= {p.path for p in more}
    more.extend(p for p in _framework_problems(cfg, trimmed, registry) if p.path not in seen)
    return tuple(more)


def _drop_item(config: dict[str, Any], path: str) -> None:
    """Remove the list item ``path`` names (``profiles[0].plugins.score.enabled[2]``)."""
    head, _, index = path.rpartition("[")
    parts = re.findall(r"([^.\[\]]+)|\[(\d+)\]", head)
    node: Any = config
    try:
        for key, i in parts:
            node = node[int(i)] if i else node[key]
        del node[int(index.rstrip("]"))]
    except (KeyError, IndexError, TypeError, ValueError):
        return


def _drop_path(config: dict[str, Any], path: str) -> bool:
    """Remove the mapping key ``path`` names (``profiles[0].percentageOfNodesToScore``);
    False when it names a list item or cannot be found (removing it would shift paths)."""
    parts = re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    if not parts or parts[-1][1]:
        return False
    node: Any = config
    for key, index in parts[:-1]:
        try:
            node = node[int(index)] if index else node[key]
        except (KeyError, IndexError, TypeError):
            return False
    if not isinstance(node, dict) or parts[-1][0] not in node:
        return False
    del node[parts[-1][0]]
    return True


def _unknown_plugins(config: dict[str, Any], known: set[str]) -> tuple[FieldProblem, ...]:
    """Plugins no registry knows: kube-scheduler refuses these when it builds the framework."""
    problems = []
    profiles = config.get("profiles")  # of any shape: validation has named what is wrong
    for i, profile in enumerate(profiles if isinstance(profiles, list) else []):
        plugins = profile.get("plugins") if isinstance(profile, dict) else None
        for point, plugin_set in (plugins if isinstance(plugins, dict) else {}).items():
            enabled = plugin_set.get("enabled") if isinstance(plugin_set, dict) else None
            for j, plugin in enumerate(enabled if isinstance(enabled, list) else []):
                name = plugin.get("name") if isinstance(plugin, dict) else None
                if name != "*" and not (isinstance(name, str) and name in known):
                    problems.append(
                        FieldProblem(
                            f"profiles[{i}].plugins.{point}.enabled[{j}].name",
                            f'plugin "{name}" does not exist',
                        )
                    )
    return tuple(problems)


def default_config_dict() -> dict[str, Any]:
    """What a fresh kube-scheduler runs with, in v1 wire format."""
    result = evaluate_config({})
    assert result.effective is not None
    return result.effective


def plugin_names(registry: Registry | None = None) -> list[str]:
    """In-tree plugin names and the playground's own (``playground.plugins``), sorted; with a
    registry, its names too (a user's custom plugins)."""

    in_tree = {
        value for key, value in vars(names).items() if key.isupper() and isinstance(value, str)
    }
    return sorted(in_tree | set(PLUGIN_NAMES) | set(registry or ()))
