"""Writes for custom plugins, and the plugin registry a profile's owner resolves names with."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils.translation import gettext

from playground import plugins
from scheduler_core.custom.examples import EXAMPLES
from scheduler_core.custom.plugin import (
    CelPluginError,
    CustomPluginSpec,
    Meter,
    compile_spec,
    registry_of,
)
from scheduler_core.framework.registry import Registry

from .models import CustomPlugin

User = AbstractBaseUser | AnonymousUser | None

# What a placeholder does at each point: pass, score 0, allow, note nothing.
PLACEHOLDER_EXPRESSIONS: dict[str, str] = {
    "queueSort": "a.priority > b.priority",
    "preFilter": "true",
    "filter": "true",
    "preScore": "true",
    "score": "0",
    "reserve": "true",
    "permit": '"allow"',
    "preBind": "true",
    "postBind": "true",
}
# Where a configuration's extension point puts a placeholder's expressions.
_POINT_EXPRESSIONS: dict[str, tuple[str, ...]] = {
    "multiPoint": ("preFilter", "filter", "score"),
    "queueSort": ("queueSort",),
    "preFilter": ("preFilter",),
    "filter": ("filter",),
    "preScore": ("preScore",),
    "score": ("score",),
    "reserve": ("reserve",),
    "permit": ("permit",),
    "preBind": ("preBind",),
    "postBind": ("postBind",),
}


class CustomPluginInvalid(ValueError):
    """A definition that does not compile; ``errors`` maps a point (or field) to messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(m for ms in errors.values() for m in ms))
        self.errors = errors


def spec_of(plugin: CustomPlugin | Mapping[str, Any]) -> CustomPluginSpec:
    raw = plugin.as_definition() if isinstance(plugin, CustomPlugin) else plugin
    return CustomPluginSpec.from_dict(raw)


def check_definition(definition: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every compile problem of a definition, keyed by extension point ("" for the rest)."""
    spec = CustomPluginSpec.from_dict(definition)
    try:
        compile_spec(spec)
    except CelPluginError as err:
        out: dict[str, list[str]] = {}
        for line in err.errors:
            head = line.split(":", 1)[0]
            point = head.split(" ")[-1] if " " in head else ""
            out.setdefault(point if point in spec.expressions else "", []).append(line)
        return out
    return {}


def custom_plugin_save(
    *,
    owner: AbstractBaseUser,
    definition: Mapping[str, Any],
    description: str = "",
    plugin: CustomPlugin | None = None,
) -> CustomPlugin:
    """Create or update the owner's plugin; a demo plugin is copied under the same name."""
    errors = check_definition(definition)
    if errors:
        raise CustomPluginInvalid(errors)
    spec = CustomPluginSpec.from_dict(definition)
    fields = {
        "points": dict(spec.expressions),
        "filter_reason": spec.filter_reason,
        "normalize": spec.normalize,
        "description": description,
        "is_placeholder": False,
    }
    renamed = plugin is not None and plugin.owner_id == owner.pk and plugin.name != spec.name
    if renamed and CustomPlugin.objects.filter(owner=owner, name=spec.name).exists():
        raise CustomPluginInvalid(
            {"": [gettext("you already have a custom plugin named %(name)s") % {"name": spec.name}]}
        )
    with transaction.atomic():
        if plugin is not None and plugin.owner_id == owner.pk:
            for key, value in fields.items():
                setattr(plugin, key, value)
            plugin.name = spec.name
            plugin.save()
            return plugin
        saved, _ = CustomPlugin.objects.update_or_create(
            owner=owner, name=spec.name, defaults=fields
        )
        return saved


def custom_plugin_delete(*, plugin: CustomPlugin, user: AbstractBaseUser) -> None:
    if plugin.owner_id != user.pk:
        raise PermissionError("not the owner")
    plugin.delete()


def custom_plugin_share(*, plugin: CustomPlugin, user: AbstractBaseUser) -> uuid.UUID:
    """Give the plugin a read-only link (kept once made)."""
    if plugin.owner_id != user.pk:
        raise PermissionError("not the owner")
    if plugin.share_token is None:
        plugin.share_token = uuid.uuid4()
        plugin.save(update_fields=["share_token"])
    return plugin.share_token


def placeholder_definition(name: str, points: Iterable[str]) -> dict[str, Any]:
    """A definition that lets every pod through at the configuration's ``points``."""
    expressions: dict[str, str] = {}
    for point in points:
        for key in _POINT_EXPRESSIONS.get(point, ()):
            expressions[key] = PLACEHOLDER_EXPRESSIONS[key]
    return {"name": name, "points": expressions or {"filter": "true"}}


def placeholders_create(
    *, owner: AbstractBaseUser, usage: Mapping[str, Iterable[str]]
) -> list[CustomPlugin]:
    """Placeholders that pass, for plugin names the owner has not defined yet.

    ``usage`` maps a plugin name to the configuration's extension points that enable it.
    """
    known = set(registry_for(owner))
    made = []
    for name, points in usage.items():
        if name in known:
            continue
        made.append(
            CustomPlugin.objects.create(
                owner=owner,
                name=name,
                points=placeholder_definition(name, points)["points"],
                description=gettext(
                    "Placeholder from an imported configuration: it lets every pod "
                    "through. Edit it to give the plugin a meaning."
                ),
                is_placeholder=True,
            )
        )
    return made


def definitions_import(*, owner: AbstractBaseUser, definitions: Iterable[Mapping[str, Any]]) -> int:
    """Save exported definitions (from a profile export) as the owner's plugins."""
    count = 0
    for definition in definitions:
        custom_plugin_save(owner=owner, definition=definition)
        count += 1
    return count


def demo_load() -> int:
    """Create or refresh the shipped example plugins (demo: readable and usable by all)."""
    with transaction.atomic():
        for spec in EXAMPLES:
            d = spec.to_dict()
            CustomPlugin.objects.update_or_create(
                is_demo=True,
                owner=None,
                name=spec.name,
                defaults={
                    "points": d["points"],
                    "filter_reason": spec.filter_reason,
                    "normalize": spec.normalize,
                    "description": "Shipped example.",
                },
            )
    return len(EXAMPLES)


def specs_for(user: User) -> list[CustomPluginSpec]:
    """The definitions a profile owned by ``user`` resolves: the demo ones, then the user's own
    (which shadow a demo plugin of the same name)."""
    by_name: dict[str, CustomPlugin] = {}
    for plugin in CustomPlugin.objects.filter(is_demo=True, owner=None):
        by_name[plugin.name] = plugin
    if user is not None and user.is_authenticated:
        for plugin in CustomPlugin.objects.filter(owner=user):
            by_name[plugin.name] = plugin
    specs = []
    for plugin in by_name.values():
        spec = spec_of(plugin)
        try:
            compile_spec(spec)
        except CelPluginError:
            continue  # stored before a stricter bound; it shows as unknown until fixed
        specs.append(spec)
    return specs


def registry_for(
    user: User, extra: Iterable[CustomPluginSpec] = (), *, meter: Meter | None = None
) -> Registry:
    """The in-tree plugins, the playground's own and ``user``'s custom plugins; ``extra``
    definitions (an import being previewed) take precedence over stored ones. The custom
    plugins spend ``meter``'s run budget and call its checkpoint (a run passes its own)."""
    return registry_with(custom_specs_for(user, extra), meter=meter)


def custom_specs_for(user: User, extra: Iterable[CustomPluginSpec] = ()) -> list[CustomPluginSpec]:
    """The custom plugin definitions a profile of ``user`` resolves (``extra`` overriding), leaving
    out names of in-tree or playground plugins: what a run stores with itself when it starts."""

    base = plugins.registry()
    by_name = {s.name: s for s in specs_for(user)}
    by_name.update((s.name, s) for s in extra)
    return [s for s in by_name.values() if s.name not in base]


def registry_with(specs: Sequence[CustomPluginSpec], *, meter: Meter | None = None) -> Registry:
    """The in-tree plugins, the playground's own and exactly these custom plugins."""

    return plugins.registry().merged(registry_of(list(specs), meter))
