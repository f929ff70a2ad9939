"""Bring older scheduler configurations forward to kubescheduler.config.k8s.io/v1.

Upstream kube-scheduler v1.35 refuses every version but v1. A learning tool takes them and shows
what they mean today. The conversion runs the documented migrations one version at a time
(v1alpha1 -> v1alpha2 -> v1beta1 -> v1beta2 -> v1beta3 -> v1), each step recording one line per
change; the legacy Policy is first turned into the v1beta1 plugin sets the legacy registry built
from it (``scheduler_core.config.migrate.policy``) and then takes the same road.

This package's entry is ``migrate`` (here); its modules:

- ``reading``: the file read as kube-scheduler reads it (JSON or the first YAML document, bounded);
- ``legacy_shape``: its field types checked, version by version;
- ``policy``: the legacy Policy turned into the v1beta1 plugin sets;
- ``steps``: one function per version step;
- ``finish``: the last pass: enables the extension points v1.35 plugins need, drops what v1.35
  refuses and reports what it would still refuse.
 Sources of the mapping: KEP-785, the per-version
``default_plugins.go``, ``defaults.go`` and ``conversion.go`` under pkg/scheduler/apis/config/ in
kubernetes v1.18-v1.25, and ``framework/plugins/legacy_registry.go`` (v1.19-v1.22) for predicates
and priorities.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import yaml

from scheduler_core.config.migrate.finish import check_accepted, complete_points, drop_refused
from scheduler_core.config.migrate.legacy_shape import check_configuration
from scheduler_core.config.migrate.policy import policy_to_v1beta1
from scheduler_core.config.migrate.reading import check_depth, read_document
from scheduler_core.config.migrate.steps import IN_TREE, STEPS, custom_plugins, tidy
from scheduler_core.config.types import ConfigError, FieldError

GROUP: Final = "kubescheduler.config.k8s.io"
V1: Final = f"{GROUP}/v1"
VERSIONS: Final = ("v1alpha1", "v1alpha2", "v1beta1", "v1beta2", "v1beta3", "v1")
POLICY: Final = "Policy"
MAX_CUSTOM_PLUGINS: Final = 50  # distinct plugins not in-tree one file may name


@dataclass(frozen=True, slots=True)
class Migration:
    """A configuration brought to v1, what changed on the way, and the plugins not in-tree."""

    source: str
    config: dict[str, Any]
    changes: tuple[str, ...]
    custom_plugins: tuple[str, ...]

    def yaml(self) -> str:
        """The v1 configuration with the change list as YAML comments at its top."""
        head = [f"# Converted from {self.source} to {V1}."]
        head += [f"# - {line}" for line in self.changes] or ["# - nothing to change"]
        if self.custom_plugins:
            head.append(
                f"# Not in-tree (define as custom plugins): {', '.join(self.custom_plugins)}"
            )
        return "\n".join(head) + "\n" + yaml.safe_dump(self.config, sort_keys=False)


def source_version(doc: Mapping[str, Any]) -> str:
    """``Policy``, a ``kubescheduler.config.k8s.io`` version, or ConfigError if neither."""
    kind = doc.get("kind")
    api_version = doc.get("apiVersion")
    if kind == POLICY or (kind is None and ("predicates" in doc or "priorities" in doc)):
        return POLICY
    if kind not in (None, "KubeSchedulerConfiguration"):
        raise ConfigError([FieldError("kind", f"not a scheduler configuration: {kind!r}")])
    if api_version is None:
        return "v1"
    group, _, version = str(api_version).rpartition("/")
    if group != GROUP or version not in VERSIONS:
        raise ConfigError(
            [FieldError("apiVersion", f"unknown scheduler configuration version {api_version!r}")]
        )
    return version


def parse(text: str | bytes) -> dict[str, Any]:
    """The first document of a JSON or YAML file as a mapping, or ConfigError naming the line."""
    doc = read_document(text)
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise ConfigError([FieldError("", "must be a mapping (a configuration or a Policy)")])
    return doc


def migrate(source: Mapping[str, Any] | str | bytes) -> Migration:
    """Convert a configuration of any known version, or a legacy Policy, to v1.

    Raises ConfigError naming the field when the input is malformed, names more than
    ``MAX_CUSTOM_PLUGINS`` plugins that are not in-tree, or converts to something
    kube-scheduler v1.35 would still refuse.
    """
    if isinstance(source, str | bytes):
        doc = parse(source)
    else:
        check_depth(source)
        doc = copy.deepcopy(dict(source))
    version = source_version(doc)
    changes: list[str] = []
    if version == POLICY:
        doc = policy_to_v1beta1(doc, changes)
        label, start = "the legacy Policy", VERSIONS.index("v1beta1")
    else:
        check_configuration(doc)
        label, start = f"{GROUP}/{version}", VERSIONS.index(version)
    for step in STEPS[start:]:
        step(doc, changes)
    _check_custom_count(doc)
    doc["apiVersion"] = V1
    doc["kind"] = "KubeSchedulerConfiguration"
    for profile in doc.get("profiles") or []:
        tidy(profile)
    if version != "v1":  # a v1 file is read strictly, as kube-scheduler reads it
        drop_refused(doc, changes)
    complete_points(doc, changes, IN_TREE)
    for profile in doc.get("profiles") or []:
        tidy(profile)
    ordered = {"apiVersion": V1, "kind": "KubeSchedulerConfiguration"}
    ordered.update((k, v) for k, v in doc.items() if k not in ordered)
    check_accepted(ordered)
    return Migration(label, ordered, tuple(changes), tuple(custom_plugins(ordered)))


def _check_custom_count(doc: dict[str, Any]) -> None:
    """ConfigError when more plugins than anybody writes are not in-tree (each would become a
    placeholder custom plugin in the playground)."""
    found = custom_plugins(doc)
    if len(found) > MAX_CUSTOM_PLUGINS:
        raise ConfigError(
            [
                FieldError(
                    "profiles",
                    f"{len(found)} plugins are not in-tree; at most {MAX_CUSTOM_PLUGINS} "
                    f"(first over the limit: {found[MAX_CUSTOM_PLUGINS]!r})",
                )
            ]
        )


__all__ = ["IN_TREE", "MAX_CUSTOM_PLUGINS", "Migration", "migrate", "parse", "source_version"]
