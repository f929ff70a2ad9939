""" "Try a change": re-run a finished run with one profile change, to compare the two.

The change (a Score plugin's weight, NodeResourcesFit's scoring strategy, a plugin enabled or
disabled) is made to a copy of the run's configuration, in every profile of it; the copy is
saved as a new profile of the user's and runs over the same snapshot and script as the run.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from .. import engine
from ..custom_plugins.services import registry_for
from ..models import Profile, Run
from .execution import limits
from .services import RunRefused, run_submit

KINDS: Final = {
    "weight": gettext_lazy("set a Score plugin's weight"),
    "strategy": gettext_lazy("set NodeResourcesFit's scoring strategy"),
    "enable": gettext_lazy("enable a plugin"),
    "disable": gettext_lazy("disable a plugin"),
}
STRATEGIES: Final = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
FIT: Final = "NodeResourcesFit"
# A shape for RequestedToCapacityRatio when the configuration has none: favour full nodes.
DEFAULT_SHAPE: Final = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


class ChangeInvalid(ValueError):
    """A change the engine's validation refuses; ``field`` names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class ProfileChange:
    kind: str  # a key of KINDS
    plugin: str = ""
    weight: int | None = None
    strategy: str = ""

    def describe(self) -> str:
        if self.kind == "weight":
            return gettext("%(plugin)s weight %(weight)s") % {
                "plugin": self.plugin,
                "weight": self.weight,
            }
        if self.kind == "strategy":
            return f"{FIT} {self.strategy}"
        if self.kind == "enable":
            return gettext("%(plugin)s enabled") % {"plugin": self.plugin}
        return gettext("%(plugin)s disabled") % {"plugin": self.plugin}


def score_plugins(config: dict[str, Any]) -> dict[str, int]:
    """The Score plugins of the configuration's first profile, with their effective weights."""
    result = engine.evaluate_config(config)
    if result.effective is None:
        return {}
    plugins = (result.effective.get("profiles") or [{}])[0].get("plugins") or {}
    weights: dict[str, int] = {}
    for point in ("multiPoint", "score"):
        for entry in (plugins.get(point) or {}).get("enabled") or []:
            if entry.get("weight") is not None:
                weights[entry["name"]] = int(entry["weight"])
    return weights


def _plugin_sets(profile: dict[str, Any]) -> dict[str, Any]:
    return profile.setdefault("plugins", {})


def _without(entries: list[dict[str, Any]] | None, name: str) -> list[dict[str, Any]]:
    return [e for e in entries or [] if e.get("name") != name]


def _apply(profile: dict[str, Any], change: ProfileChange) -> None:
    plugins = _plugin_sets(profile)
    if change.kind == "weight":
        score = plugins.setdefault("score", {})
        score["enabled"] = [*_without(score.get("enabled"), change.plugin)]
        score["enabled"].append({"name": change.plugin, "weight": change.weight})
    elif change.kind == "strategy":
        entries = profile.setdefault("pluginConfig", [])
        entry = next((e for e in entries if e.get("name") == FIT), None)
        if entry is None:
            entry = {"name": FIT, "args": {}}
            entries.append(entry)
        args = entry.setdefault("args", {})
        strategy = dict(args.get("scoringStrategy") or {})
        strategy["type"] = change.strategy
        if change.strategy == "RequestedToCapacityRatio":
            strategy.setdefault("requestedToCapacityRatio", {"shape": DEFAULT_SHAPE})
        args["scoringStrategy"] = strategy
    elif change.kind == "enable":
        for point in plugins.values():
            if isinstance(point, dict):
                point["disabled"] = _without(point.get("disabled"), change.plugin)
        multi = plugins.setdefault("multiPoint", {})
        multi["enabled"] = [*_without(multi.get("enabled"), change.plugin), {"name": change.plugin}]
    else:
        for point in plugins.values():
            if isinstance(point, dict):
                point["enabled"] = _without(point.get("enabled"), change.plugin)
        multi = plugins.setdefault("multiPoint", {})
        multi["disabled"] = [
            *_without(multi.get("disabled"), change.plugin),
            {"name": change.plugin},
        ]


def changed_config(config: dict[str, Any], change: ProfileChange) -> dict[str, Any]:
    """A copy of ``config`` with the change made in every profile."""
    out = copy.deepcopy(config) or {}
    out.setdefault("apiVersion", "kubescheduler.config.k8s.io/v1")
    out.setdefault("kind", "KubeSchedulerConfiguration")
    profiles = out.setdefault("profiles", [{"schedulerName": "default-scheduler"}]) or [
        {"schedulerName": "default-scheduler"}
    ]
    out["profiles"] = profiles
    for profile in profiles:
        _apply(profile, change)
    return out


def _field(path: str) -> str:
    if "scoringStrategy" in path:
        return "strategy"
    if ".weight" in path or "weight" in path.rsplit(".", 1)[-1]:
        return "weight"
    return "plugin"


def run_try_change(*, user: AbstractBaseUser, run: Run, change: ProfileChange) -> Run:
    """Save the changed profile as the user's and start its run over the same snapshot and
    script; the new run's ``compare_with`` is ``run``. Raises ChangeInvalid, storing nothing."""

    if not user.is_authenticated:
        raise ChangeInvalid("kind", gettext("sign up or log in to try a change"))
    if not run.is_terminal:
        raise ChangeInvalid("kind", gettext("the run has not finished yet"))
    if not (run.profile.is_demo or run.profile.owner_id == user.pk):
        raise ChangeInvalid(
            "kind", gettext("this run's profile is private: try a change on your own run")
        )
    if change.kind == "weight" and change.plugin not in score_plugins(run.config):
        raise ChangeInvalid(
            "plugin",
            gettext("%(plugin)s is not a Score plugin of this profile") % {"plugin": change.plugin},
        )
    config = changed_config(run.config, change)
    result = engine.evaluate_config(config, registry=registry_for(run.profile.owner))
    if not result.ok:
        problem = result.problems[0]
        raise ChangeInvalid(
            _field(problem.path), engine.explained_problem(f"{problem.path}: {problem.message}")
        )
    original = Run.objects.only("pod_keys", "script", "feature_gates").get(pk=run.pk)
    try:
        return _start(user=user, run=run, original=original, change=change, config=config)
    except RunRefused as err:
        raise ChangeInvalid("kind", str(err)) from err


def _start(
    *, user: AbstractBaseUser, run: Run, original: Run, change: ProfileChange, config: Any
) -> Run:
    with transaction.atomic():
        profile = Profile.objects.create(
            owner=user,
            name=f"{run.profile.name} · {change.describe()}"[:200],
            description=gettext("Run %(run)s's profile with one change: %(change)s.")
            % {"run": run.pk, "change": change.describe()},
            config=config,
            copied_from=run.profile,
        )
        new = Run.objects.create(
            cluster=run.cluster,
            profile=profile,
            started_by=user,
            label=f"try: {change.describe()}"[:200],
            pod_keys=original.pod_keys,
            snapshot=original.snapshot,
            config=config,
            script=original.script,
            feature_gates=dict(original.feature_gates),  # the same gates: only the profile changes
            compare_with=run,
            summary=_fresh_summary(run),
        )
        run_submit(runs=[new], owner=limits.owner_key(user=user))
    return new


def _fresh_summary(run: Run) -> dict[str, Any]:
    return {"total": (run.summary or {}).get("total", 0), "scheduled": 0, "unschedulable": 0}
