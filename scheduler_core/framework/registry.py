"""Registry: plugin name -> factory.

Mirrors framework/runtime/registry.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.interfaces import Handle

PluginFactory = Callable[[Any, Handle], Any]


class Registry(dict[str, PluginFactory]):
    """A dict of factories that refuses to register a name twice."""

    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self:
            raise SchedulerCoreError(f"a plugin named {name} already exists")
        self[name] = factory

    def merged(self, other: Registry) -> Registry:
        out = Registry(self)
        for name, factory in other.items():
            out.register(name, factory)
        return out
