"""Writes of scheduler profiles: each stored configuration passes upstream validation first.

Services raise ``ProfileInvalid`` with every problem found and store nothing in that case. Editing
a demo profile edits a private copy, which the service returns.
"""

from __future__ import annotations

import copy
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from .. import engine
from ..custom_plugins.services import registry_for
from ..models import Profile


class ProfileInvalid(ValueError):
    """A profile that upstream validation refuses; nothing was stored."""

    def __init__(self, problems: tuple[engine.FieldProblem, ...]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))
        self.problems = problems


def _normalized_config(config: dict[str, Any]) -> dict[str, Any]:
    config = copy.deepcopy(config)
    config["apiVersion"] = config.get("apiVersion") or "kubescheduler.config.k8s.io/v1"
    config["kind"] = config.get("kind") or "KubeSchedulerConfiguration"
    return {"apiVersion": config.pop("apiVersion"), "kind": config.pop("kind"), **config}


def _validated(config: dict[str, Any], owner: Any) -> dict[str, Any]:

    config = _normalized_config(config)
    result = engine.evaluate_config(config, registry=registry_for(owner))
    if not result.ok:
        raise ProfileInvalid(result.problems)
    return config


def profile_create(
    *, owner: AbstractBaseUser, name: str, config: dict[str, Any], description: str = ""
) -> Profile:
    """A new profile; raises ProfileInvalid (and stores nothing) if upstream would refuse it."""
    config = _validated(config, owner)
    return Profile.objects.create(owner=owner, name=name, description=description, config=config)


def profile_update(
    *,
    profile: Profile,
    user: AbstractBaseUser,
    name: str,
    config: dict[str, Any],
    description: str = "",
) -> Profile:
    """Save an edit; a demo profile is copied first and the copy returned."""
    config = _validated(config, user)
    with transaction.atomic():
        if profile.is_demo and profile.owner_id != user.pk:
            return Profile.objects.create(
                owner=user, name=name, description=description, config=config, copied_from=profile
            )
        if profile.owner_id != user.pk:
            raise PermissionError("not the owner")
        profile.name, profile.description, profile.config = name, description, config
        profile.save()
    return profile


def profile_delete(*, profile: Profile, user: AbstractBaseUser) -> None:
    if profile.is_demo or profile.owner_id != user.pk:
        raise PermissionError("only the owner can delete a profile")
    profile.delete()


def demo_profile_put(*, name: str, description: str, config: dict[str, Any]) -> Profile:
    """Create or replace the demo profile ``name``; raises ProfileInvalid if upstream refuses it."""
    profile, _ = Profile.objects.update_or_create(
        is_demo=True,
        owner=None,
        name=name,
        defaults={"description": description, "config": _validated(config, None)},
    )
    return profile
