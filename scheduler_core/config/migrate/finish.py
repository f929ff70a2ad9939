"""The last step of bringing a configuration forward: what kube-scheduler v1.35 needs and refuses.

Three passes over the v1 wire data the version steps produced:

- ``complete_points``: a plugin enabled at Filter (or Score, Reserve, PreBind) whose v1.35
  implementation reads what its PreFilter (or PreScore) wrote is enabled there too. Older
  releases did not need it (VolumeRestrictions had no PreFilter before v1.25, so the Policy's
  NoDiskConflict named Filter alone); v1.35 returns an Error status on every node without it.
- ``drop_refused``: fields the strict v1 decoder refuses are dropped, one comment each.
- ``check_accepted``: what v1.35 would still refuse is a ConfigError naming the field.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Final

from scheduler_core.config.io import decode_config, load_config
from scheduler_core.config.types import ConfigError, FieldError
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.runtime import Framework
from scheduler_core.plugins import in_tree_registry, names

# plugin -> ((needed point, points whose v1.35 code fails without it), ...), read from each
# plugin's getPreFilterState / getPreScoreState callers that return an error (no fallback).
NEEDS: Final[dict[str, tuple[tuple[str, tuple[str, ...]], ...]]] = {
    names.NODE_PORTS: (("preFilter", ("filter",)),),
    names.NODE_RESOURCES_FIT: (("preFilter", ("filter",)),),
    names.VOLUME_RESTRICTIONS: (("preFilter", ("filter",)),),
    names.POD_TOPOLOGY_SPREAD: (("preFilter", ("filter",)), ("preScore", ("score",))),
    names.INTER_POD_AFFINITY: (("preFilter", ("filter",)), ("preScore", ("score",))),
    names.VOLUME_BINDING: (("preFilter", ("filter", "preScore", "score", "reserve", "preBind")),),
    names.DYNAMIC_RESOURCES: (
        ("preFilter", ("filter", "postFilter", "score", "reserve", "preBind")),
    ),
    names.TAINT_TOLERATION: (("preScore", ("score",)),),
}
POINT_ATTRS: Final = {
    "preFilter": "pre_filter_plugins",
    "filter": "filter_plugins",
    "postFilter": "post_filter_plugins",
    "preScore": "pre_score_plugins",
    "score": "score_plugins",
    "reserve": "reserve_plugins",
    "preBind": "pre_bind_plugins",
}
# Why a field the v1 decoder refuses is gone, when the history says more than "no such field".
_GONE: Final = {
    "healthzBindAddress": "removed in v1beta3 (the secure port serves /healthz)",
    "metricsBindAddress": "removed in v1beta3 (the secure port serves /metrics)",
    "hardPodAffinitySymmetricWeight": "InterPodAffinity args.hardPodAffinityWeight since v1beta1",
    "bindTimeoutSeconds": "VolumeBinding args.bindTimeoutSeconds since v1beta1",
}
MAX_DROPS: Final = 200


def _profiles(doc: dict[str, Any]) -> list[dict[str, Any]]:
    profiles = doc.get("profiles")
    return [p for p in profiles if isinstance(p, dict)] if isinstance(profiles, list) else []


def _where(profile: dict[str, Any], index: int) -> str:
    return f"profiles[{index}] ({profile.get('schedulerName') or 'default-scheduler'})"


def _effective_points(doc: dict[str, Any], index: int, in_tree: frozenset[str]) -> Any:
    """The Framework v1.35 builds for profile ``index`` (plugins not in-tree left out), or None
    when the profile cannot be built yet (the last pass then reports why)."""
    profile = copy.deepcopy(_profiles(doc)[index])
    for pset in (profile.get("plugins") or {}).values():
        if isinstance(pset, dict):
            for part in ("enabled", "disabled"):
                items = pset.get(part)
                if isinstance(items, list):
                    pset[part] = [
                        e
                        for e in items
                        if isinstance(e, dict)
                        and (e.get("name") in in_tree or e.get("name") == "*")
                    ]
    configs = profile.get("pluginConfig")
    if isinstance(configs, list):
        profile["pluginConfig"] = [
            e for e in configs if isinstance(e, dict) and e.get("name") in in_tree
        ]
    try:
        cfg = load_config({"profiles": [profile]})
        return Framework(cfg.profiles[0], in_tree_registry())
    except (SchedulerCoreError, ValueError, TypeError, KeyError):
        return None


def complete_points(doc: dict[str, Any], changes: list[str], in_tree: frozenset[str]) -> None:
    """Enable each in-tree plugin at the earlier points its enabled points need in v1.35."""
    seen: dict[str, dict[str, set[str]] | None] = {}  # profiles alike but for their name
    for i, profile in enumerate(_profiles(doc)):
        shape = json.dumps(
            {k: v for k, v in profile.items() if k != "schedulerName"}, sort_keys=True, default=str
        )
        if shape not in seen:
            framework = _effective_points(doc, i, in_tree)
            seen[shape] = (
                None
                if framework is None
                else {
                    point: {p.name for p in getattr(framework, a)}
                    for point, a in POINT_ATTRS.items()
                }
            )
        found = seen[shape]
        if found is None:
            continue
        enabled = {point: set(names_) for point, names_ in found.items()}
        plugins = profile.setdefault("plugins", {})
        for plugin, needs in NEEDS.items():
            for needed, users in needs:
                using = [p for p in users if plugin in enabled[p]]
                if not using or plugin in enabled[needed]:
                    continue
                pset = plugins.setdefault(needed, {})
                disabled = {e.get("name") for e in pset.get("disabled") or []}
                if plugin in disabled:
                    continue  # disabled there by name: the file asks for it
                pset.setdefault("enabled", []).append({"name": plugin})
                enabled[needed].add(plugin)
                changes.append(
                    f"{_where(profile, i)}: {plugin} enabled at {needed} too: in v1.35 its "
                    f"{', '.join(using)} reads what {needed} computes (without it, an Error "
                    "on every node)"
                )


def _split(path: str) -> list[str | int]:
    return [
        int(piece[1:-1]) if piece.startswith("[") else piece
        for piece in re.findall(r"[^.\[\]]+|\[\d+\]", path)
    ]


def _delete(doc: Any, path: str) -> bool:
    parts = _split(path)
    node = doc
    for part in parts[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(node, dict) and parts and parts[-1] in node:
        del node[parts[-1]]
        return True
    return False


def drop_refused(doc: dict[str, Any], changes: list[str]) -> None:
    """Drop every field the strict v1 decoder calls unknown, with one change line each."""
    for _ in range(MAX_DROPS):
        try:
            decode_config(doc)
            return
        except ConfigError as err:
            unknown = [e.path for e in err.errors if e.message == "unknown field"]
        dropped = [path for path in unknown if _delete(doc, path)]
        if not dropped:
            return
        for path in dropped:
            reason = _GONE.get(path.rpartition(".")[2], "kube-scheduler v1.35 has no such field")
            changes.append(f"{path} dropped: {reason}")


def check_accepted(doc: dict[str, Any]) -> None:
    """ConfigError naming each field kube-scheduler v1.35 would still refuse."""
    try:
        load_config(doc)
    except ConfigError as err:
        raise ConfigError(
            [
                FieldError(e.path, f"kube-scheduler v1.35 refuses the result: {e.message}")
                for e in err.errors
            ]
        ) from err
