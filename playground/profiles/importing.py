"""Import a configuration of any version (or a Policy), with custom plugin documents, as a profile.

``profile_import_preview`` converts and validates without storing anything; ``profile_import``
stores the custom plugin definitions, placeholders for plugins still undefined, and the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

import yaml
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext

from scheduler_core.config import ConfigError
from scheduler_core.config.migrate import IN_TREE, migrate
from scheduler_core.config.migrate.reading import read_document
from scheduler_core.custom.plugin import CustomPluginSpec

from .. import engine
from ..custom_plugins import selectors as plugin_selectors
from ..custom_plugins import services as plugin_services
from ..inputs import yaml_limits
from ..inputs.upstream import parser_said
from ..models import Profile
from . import services

# One import: a configuration and its custom plugin definitions (a real one has a few thousand
# values; aliases may not expand it past the bound). migrate() bounds the placeholders.
IMPORT_BUDGET: Final = yaml_limits.Budget(documents=100, values=50_000)


@dataclass
class ImportPreview:
    """What an import would store: the v1 configuration, the changes and the plugins involved."""

    source: str = ""
    config: dict[str, Any] | None = None
    converted_yaml: str = ""
    changes: tuple[str, ...] = ()
    definitions: list[dict[str, Any]] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.config is not None and not self.problems


def _definition_shape(doc: dict[str, Any]) -> str:
    """What is wrong with the shape of an exported CustomPlugin document ("" when nothing)."""
    metadata, spec = doc.get("metadata"), doc.get("spec")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return "metadata.name: Required value: a string"
    if not isinstance(spec, dict):
        return "spec: Invalid value: must be a mapping"
    points = spec.get("points")
    if not isinstance(points, dict) or not points:
        return "spec.points: Invalid value: must map extension points to CEL expressions"
    for point, source in points.items():
        if not isinstance(point, str) or not isinstance(source, str):
            return f"spec.points.{point}: Invalid value: the expression must be a string"
    for key in ("filterReason", "normalize"):
        if key in spec and not isinstance(spec[key], str):
            return f"spec.{key}: Invalid value: must be a string"
    return ""


class _Documents(NamedTuple):
    config: dict[str, Any] | None
    definitions: list[dict[str, Any]]
    problems: list[str]
    skipped: list[str]  # later configurations, which kube-scheduler would not read


def _documents(text: str) -> _Documents:
    if text.lstrip().startswith("{"):  # JSON, tabs and all, as kube-scheduler reads it
        try:
            docs = [read_document(text)]
        except ConfigError as err:
            messages = [
                engine.explained_problem(f"{e.path}: {e.message}" if e.path else e.message)
                for e in err.errors
            ]
            return _Documents(None, [], messages, [])
        return _sorted_documents(docs)
    try:
        docs = [d for d in yaml_limits.load_all(text, IMPORT_BUDGET) if d is not None]
    except yaml_limits.YAMLLimitError as err:
        mark = err.problem_mark
        text = gettext("too big to import: %(problem)s") % {"problem": err.problem}
        return _Documents(None, [], [_at_line(mark, text)], [])
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        text = parser_said(str(getattr(err, "problem", err)))
        return _Documents(None, [], [_at_line(mark, text)], [])
    return _sorted_documents(docs)


def _at_line(mark: Any, text: str) -> str:
    if mark is None:
        return text
    return gettext("line %(line)s: %(problem)s") % {"line": mark.line + 1, "problem": text}


def _sorted_documents(docs: list[Any]) -> _Documents:
    config, definitions, problems, skipped = None, [], [], []
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict):
            problems.append(gettext("document %(number)s: must be a mapping") % {"number": i + 1})
        elif doc.get("kind") == plugin_selectors.EXPORT_KIND:
            shape = _definition_shape(doc)
            if shape:
                problems.append(
                    gettext("document %(number)s: CustomPlugin %(problem)s")
                    % {"number": i + 1, "problem": shape}
                )
            else:
                definitions.append(plugin_selectors.definition_from_document(doc))
        elif config is None:
            config = doc
        else:  # kube-scheduler reads the first document of its --config file
            skipped.append(f"{i + 1} ({doc.get('kind') or gettext('no kind')})")
    if config is None and not problems:
        problems.append(
            gettext("no configuration found (paste a KubeSchedulerConfiguration or a Policy)")
        )
    return _Documents(config, definitions, problems, skipped)


def profile_import_preview(*, owner: Any, text: str) -> ImportPreview:
    """Convert ``text`` to v1 and validate it with the owner's plugins, the file's custom plugin
    definitions and placeholders for the plugins nobody defined."""
    config, definitions, problems, skipped = _documents(text)
    preview = ImportPreview(definitions=definitions, problems=problems)
    if config is None:
        return preview
    for definition in definitions:
        for messages in plugin_services.check_definition(definition).values():
            preview.problems += [f"CustomPlugin {definition.get('name')}: {m}" for m in messages]
    try:
        migration = migrate(config)
    except ConfigError as err:
        preview.problems += [
            engine.explained_problem(f"{e.path}: {e.message}" if e.path else e.message)
            for e in err.errors
        ]
        return preview
    preview.source, preview.changes = migration.source, migration.changes
    preview.changes += tuple(
        gettext(
            "document %(number)s skipped: kube-scheduler reads the first configuration of a file"
        )
        % {"number": d}
        for d in skipped
    )
    preview.config, preview.converted_yaml = migration.config, migration.yaml()
    specs = [CustomPluginSpec.from_dict(d) for d in definitions]
    known = set(plugin_services.registry_for(owner, specs))
    usage = plugin_selectors.used_plugin_names(migration.config)
    for name, points in usage.items():
        if name not in known and name not in IN_TREE:
            preview.placeholders.append(name)
            specs.append(
                CustomPluginSpec.from_dict(plugin_services.placeholder_definition(name, points))
            )
    if preview.problems:
        return preview
    result = engine.evaluate_config(
        migration.config, registry=plugin_services.registry_for(owner, specs)
    )
    preview.problems += [p.said() for p in result.problems]
    return preview


def profile_import(
    *, owner: AbstractBaseUser, name: str, text: str
) -> tuple[Profile, ImportPreview]:
    """Store the imported profile with its custom plugins; ValueError when it has problems."""
    preview = profile_import_preview(owner=owner, text=text)
    if not preview.ok or preview.config is None:
        raise ValueError("; ".join(preview.problems) or "nothing to import")
    with transaction.atomic():
        plugin_services.definitions_import(owner=owner, definitions=preview.definitions)
        usage = plugin_selectors.used_plugin_names(preview.config)
        plugin_services.placeholders_create(
            owner=owner, usage={n: usage[n] for n in preview.placeholders}
        )
        profile = services.profile_create(
            owner=owner,
            name=name,
            description=gettext("Imported from %(source)s.") % {"source": preview.source}
            if preview.changes
            else "",
            config=preview.config,
        )
    return profile, preview
