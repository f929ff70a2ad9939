"""Reads of scheduler profiles: which ones a user may see, and their export."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from .. import engine
from ..custom_plugins import selectors as plugin_selectors
from ..custom_plugins.services import registry_for
from ..inputs import manifests
from ..models import Profile
from ..selectors import User, visible


def profiles_for_user(user: User) -> QuerySet[Profile]:
    return Profile.objects.filter(visible(user)).order_by("-is_demo", "name", "id")


def profile_for_user(user: User, pk: int) -> Profile:
    try:
        return Profile.objects.get(visible(user), pk=pk)
    except Profile.DoesNotExist:
        raise Http404("No such profile") from None


def profile_export_yaml(profile: Profile, *, effective: bool = False) -> str:
    """The profile as a KubeSchedulerConfiguration file (v1); optionally after defaulting.

    Custom plugins it uses follow as ``kind: CustomPlugin`` documents (import reads them back).
    """

    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        **{k: v for k, v in profile.config.items() if k not in ("apiVersion", "kind")},
    }

    if effective:
        result = engine.evaluate_config(config, registry=registry_for(profile.owner))
        if result.effective is not None:
            config = result.effective
    # The custom plugins the profile uses travel with it, as documents after the configuration.
    used = [n for n in plugin_selectors.used_plugin_names(config) if n not in engine.plugin_names()]
    documents = plugin_selectors.export_documents(profile.owner, used)
    if not documents:
        return manifests.dump_yaml(config)
    return manifests.dump_yaml_documents([config, *documents])
