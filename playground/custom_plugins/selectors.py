"""Reads: the custom plugins a user may see, and their export documents."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet
from django.http import Http404

from ..selectors import visible
from .models import CustomPlugin

User = AbstractBaseUser | AnonymousUser
EXPORT_API_VERSION: Final = "playground.k8s.io/v1alpha1"
EXPORT_KIND: Final = "CustomPlugin"


def custom_plugins_for_user(user: User) -> QuerySet[CustomPlugin]:
    """The user's own plugins and the demo ones."""
    return CustomPlugin.objects.filter(visible(user)).order_by("-is_demo", "name", "id")


def custom_plugin_for_user(user: User, pk: int) -> CustomPlugin:
    try:
        return CustomPlugin.objects.get(visible(user), pk=pk)
    except CustomPlugin.DoesNotExist:
        raise Http404("No such custom plugin") from None


def custom_plugin_by_share_token(token: uuid.UUID) -> CustomPlugin:
    try:
        return CustomPlugin.objects.get(share_token=token)
    except CustomPlugin.DoesNotExist:
        raise Http404("No such shared custom plugin") from None


def used_plugin_names(config: dict[str, Any]) -> dict[str, list[str]]:
    """Plugin name -> the extension points whose enabled list names it, in order."""
    usage: dict[str, list[str]] = {}
    for profile in config.get("profiles") or []:
        for point, pset in ((profile or {}).get("plugins") or {}).items():
            for entry in (pset or {}).get("enabled") or []:
                name = (entry or {}).get("name")
                if name and name != "*" and point not in usage.setdefault(name, []):
                    usage[name].append(point)
    return usage


def export_documents(owner: Any, names: Iterable[str]) -> list[dict[str, Any]]:
    """Definitions of the custom plugins among ``names`` that ``owner``'s profiles resolve
    (theirs over the demo ones), as documents that go after the configuration in an export."""
    wanted = set(names)
    by_name: dict[str, CustomPlugin] = {}
    query = Q(is_demo=True, owner=None)
    if owner is not None:
        query |= Q(owner=owner)
    for plugin in CustomPlugin.objects.filter(query, name__in=wanted).order_by("is_demo"):
        by_name.setdefault(plugin.name, plugin)
    return [
        {
            "apiVersion": EXPORT_API_VERSION,
            "kind": EXPORT_KIND,
            "metadata": {"name": name},
            "spec": {k: v for k, v in by_name[name].as_definition().items() if k != "name"},
        }
        for name in sorted(by_name)
    ]


def definition_from_document(doc: dict[str, Any]) -> dict[str, Any]:
    """An exported CustomPlugin document back as a definition."""
    spec = doc.get("spec") or {}
    return {"name": (doc.get("metadata") or {}).get("name", ""), **spec}
