"""Building a Framework: a profile's plugins made from the registry and sorted into the
extension points, with multiPoint expanded and the checks upstream's NewFramework makes (one
QueueSort, at least one Bind, every Score plugin weighted, no weight overflow).

Apart from the code that runs the points (runtime.py, binding_points.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scheduler_core.errors import SchedulerCoreError, UnknownPluginError
from scheduler_core.framework import interfaces as fi
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.score_weights import ERR_OVERFLOW, WeightOverflow, first_overflow

if TYPE_CHECKING:
    from scheduler_core.framework.runtime import Framework

# (attribute on config.Plugins, protocol, attribute on Framework), in upstream's order.
EXTENSION_POINTS: tuple[tuple[str, type, str], ...] = (
    ("pre_filter", fi.PreFilterPlugin, "pre_filter_plugins"),
    ("filter", fi.FilterPlugin, "filter_plugins"),
    ("post_filter", fi.PostFilterPlugin, "post_filter_plugins"),
    ("reserve", fi.ReservePlugin, "reserve_plugins"),
    ("pre_score", fi.PreScorePlugin, "pre_score_plugins"),
    ("score", fi.ScorePlugin, "score_plugins"),
    ("pre_bind", fi.PreBindPlugin, "pre_bind_plugins"),
    ("bind", fi.BindPlugin, "bind_plugins"),
    ("post_bind", fi.PostBindPlugin, "post_bind_plugins"),
    ("permit", fi.PermitPlugin, "permit_plugins"),
    ("pre_enqueue", fi.PreEnqueuePlugin, "pre_enqueue_plugins"),
    ("queue_sort", fi.QueueSortPlugin, "queue_sort_plugins"),
)

# The names upstream's messages give the protocols: PreFilterPlugin, FilterPlugin, ...
_PROTOCOL_NAMES: dict[type, str] = {proto: proto.__name__ for _, proto, _ in EXTENSION_POINTS}


class FrameworkError(SchedulerCoreError):
    """A profile that upstream's NewFramework refuses (no bind plugin, bad weights, ...)."""


class ScoreWeightOverflowError(FrameworkError):
    """The score-weight check refused the profile; ``overflow`` says where and why."""

    def __init__(self, overflow: WeightOverflow) -> None:
        super().__init__(ERR_OVERFLOW)
        self.overflow = overflow


def _implements(plugin: object, protocol: type) -> bool:
    """isinstance(plugin, protocol), answering False at once when the plugin lacks one of the
    protocol's own methods (a runtime Protocol check costs tens of microseconds, and most
    plugins implement few extension points)."""
    for method in _OWN_METHODS.get(protocol, ()):
        if getattr(plugin, method, None) is None:
            return False
    return isinstance(plugin, protocol)


# Each extension point protocol's own methods (pre_filter, filter, ...).
_OWN_METHODS: dict[type, tuple[str, ...]] = {
    proto: tuple(n for n, v in vars(proto).items() if callable(v) and not n.startswith("_"))
    for _, proto, _ in EXTENSION_POINTS
}


def build_points(fw: Framework, profile: Any, registry: Registry) -> None:
    """Make the profile's plugins and sort them into ``fw``'s extension points, refusing
    what upstream's NewFramework refuses."""
    plugins = profile.plugins
    needed: list[str] = []
    for point, _, _ in EXTENSION_POINTS:
        for p in getattr(plugins, point).enabled:
            if p.name not in needed:
                needed.append(p.name)
    for p in plugins.multi_point.enabled:
        if p.name not in needed:
            needed.append(p.name)
    for name in needed:
        factory = registry.get(name)
        if factory is None:
            raise UnknownPluginError(f"plugin {name!r} does not exist")
        fw.plugins[name] = factory(profile.args_for(name), fw)

    for point, proto, attr in EXTENSION_POINTS:
        lst: list[Any] = getattr(fw, attr)
        seen: set[str] = set()
        for p in getattr(plugins, point).enabled:
            pg = fw.plugins[p.name]
            if not _implements(pg, proto):
                raise FrameworkError(
                    f"plugin {p.name!r} does not extend {_PROTOCOL_NAMES[proto]} plugin"
                )
            if p.name in seen:
                raise FrameworkError(
                    f"plugin {p.name!r} already registered as {_PROTOCOL_NAMES[proto]!r}"
                )
            seen.add(p.name)
            lst.append(pg)

    if plugins.multi_point.enabled:
        _expand_multi_point(fw, plugins)

    if len(fw.queue_sort_plugins) != 1:
        raise FrameworkError(
            "only one queue sort plugin required for profile with scheduler name "
            f'"{fw.profile_name}", but got {len(fw.queue_sort_plugins)}'
        )
    if not fw.bind_plugins:
        raise FrameworkError(
            "at least one bind plugin is needed for profile with scheduler name "
            f'"{fw.profile_name}"'
        )
    for p in list(plugins.score.enabled) + list(plugins.multi_point.enabled):
        pg = fw.plugins[p.name]
        if _implements(pg, fi.ScorePlugin) and p.name not in fw.score_weights:
            fw.score_weights[p.name] = p.weight or 1
    overflow = first_overflow(list(fw.score_weights.items()))
    if overflow is not None:
        raise ScoreWeightOverflowError(overflow)
    for pg in fw.score_plugins:
        if not fw.score_weights.get(pg.name):
            raise FrameworkError(f'score plugin "{pg.name}" is not configured with weight')


def _expand_multi_point(fw: Framework, plugins: Any) -> None:
    for point, proto, attr in EXTENSION_POINTS:
        pset = getattr(plugins, point)
        enabled = [p.name for p in pset.enabled]
        disabled = {p.name for p in pset.disabled}
        if "*" in disabled:
            continue
        multi: list[str] = []
        overrides: set[str] = set()
        for p in plugins.multi_point.enabled:
            pg = fw.plugins[p.name]
            if not _implements(pg, proto) or p.name in disabled:
                continue
            if p.name in enabled:
                overrides.add(p.name)
                continue
            if p.name in multi:
                raise FrameworkError(
                    f"plugin {p.name!r} already registered as {_PROTOCOL_NAMES[proto]!r}"
                )
            multi.append(p.name)
        # Explicitly configured plugins that multiPoint also names keep their own position
        # first, then the multiPoint ones, then the rest of the explicit list.
        first = [n for n in enabled if n in overrides]
        rest = [n for n in enabled if n not in overrides]
        setattr(fw, attr, [fw.plugins[n] for n in first + multi + rest])
