"""The shape an older KubeSchedulerConfiguration must have before it is brought forward.

The conversions in ``migrate`` walk profiles, plugin sets and args; a value of the wrong type
there (``profiles: 5``, a plugin set that is a list) is reported here as a ConfigError naming the
field, in the words of the strict decoder, rather than surfacing later as a TypeError. Lists are
bounded too: a configuration with thousands of plugins is not one anybody wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from scheduler_core.config.types import ConfigError, FieldError

MAX_ITEMS: Final = 500  # plugins of one set, pluginConfig entries, extenders
MAX_PROFILES: Final = 50  # each becomes a framework; real files have a handful

_KINDS: Final = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    for cls, name in _KINDS.items():
        if isinstance(value, cls):
            return name
    return "number" if isinstance(value, float) else type(value).__name__


class ShapeChecker:
    """Collects a FieldError per misplaced value; ``raise_if_any`` raises them together."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def expect(self, value: Any, path: str, want: type | tuple[type, ...], name: str) -> bool:
        """True when ``value`` is None or of type ``want``; else record an error naming path."""
        if value is None:
            return False
        wants = want if isinstance(want, tuple) else (want,)
        ok = isinstance(value, wants) and not (isinstance(value, bool) and bool not in wants)
        if not ok:
            self.errors.append(FieldError(path, f"must be {name}, got {_kind(value)}"))
        return ok

    def mappings(self, value: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
        """The (path, item) pairs of a list of objects; wrong items are recorded and skipped."""
        if not self.expect(value, path, list, "a list"):
            return []
        if len(value) > MAX_ITEMS:
            self.errors.append(FieldError(path, f"more than {MAX_ITEMS} items"))
            return []
        out = []
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if self.expect(item, where, dict, "an object"):
                out.append((where, item))
            elif item is None:
                self.errors.append(FieldError(where, "must be an object, got null"))
        return out

    def raise_if_any(self) -> None:
        if self.errors:
            raise ConfigError(self.errors)


def check_configuration(doc: Mapping[str, Any]) -> None:
    """ConfigError listing every field of an older configuration that has the wrong type."""
    c = ShapeChecker()
    holders: list[tuple[str, Mapping[str, Any]]] = [("", doc)]  # v1alpha1 keeps plugins on top
    profiles = doc.get("profiles")
    if isinstance(profiles, list) and len(profiles) > MAX_PROFILES:
        c.errors.append(FieldError("profiles", f"more than {MAX_PROFILES} profiles"))
    else:
        holders += c.mappings(profiles, "profiles")
    for path, holder in holders:
        prefix = f"{path}." if path else ""
        c.expect(holder.get("schedulerName"), f"{prefix}schedulerName", str, "a string")
        _plugins(c, holder.get("plugins"), f"{prefix}plugins")
        for where, entry in c.mappings(holder.get("pluginConfig"), f"{prefix}pluginConfig"):
            c.expect(entry.get("name"), f"{where}.name", str, "a string")
            c.expect(entry.get("args"), f"{where}.args", dict, "an object")
    for key in ("algorithmSource", "leaderElection", "clientConnection"):
        c.expect(doc.get(key), key, dict, "an object")
    for key in ("hardPodAffinitySymmetricWeight", "bindTimeoutSeconds", "percentageOfNodesToScore"):
        c.expect(doc.get(key), key, int, "an integer")
    c.expect(doc.get("disablePreemption"), "disablePreemption", bool, "a boolean")
    c.mappings(doc.get("extenders"), "extenders")
    c.raise_if_any()


def _plugins(c: ShapeChecker, plugins: Any, path: str) -> None:
    if not c.expect(plugins, path, dict, "an object"):
        return
    for point, pset in plugins.items():
        where = f"{path}.{point}"
        if not c.expect(pset, where, dict, "an object"):
            continue
        for part in ("enabled", "disabled"):
            for entry_path, entry in c.mappings(pset.get(part), f"{where}.{part}"):
                c.expect(entry.get("name"), f"{entry_path}.name", str, "a string")
                c.expect(entry.get("weight"), f"{entry_path}.weight", int, "an integer")
