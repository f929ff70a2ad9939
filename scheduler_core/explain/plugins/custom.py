"""Custom CEL plugins explained: the expression, the inputs it read and the value it gave.

Not an upstream plugin (the playground's own, scheduler_core/custom/plugin.py): an explanation
shows the definition's expression for the extension point, the bound inputs (``node.*``,
``pod.*``, ``args``, ``state``) cut to the fields the expression reads, and its value.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from scheduler_core.custom.plugin import CustomPlugin
from scheduler_core.explain.context import CycleContext
from scheduler_core.framework.types import NodeInfo
from scheduler_core.words import _


def is_custom(pl: object) -> TypeGuard[CustomPlugin]:
    """``pl`` is a custom CEL plugin (what the explanation may then read of it is typed)."""
    return isinstance(pl, CustomPlugin)


def _shown(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def custom_filter(
    ctx: CycleContext, pl: CustomPlugin, state: Any, ni: NodeInfo
) -> tuple[dict[str, Any], str, str]:
    """Filter: (inputs, formula, text) of the filter expression on ``ni``."""
    source, inputs, value = pl.reads("filter", state, ctx.pod, ni)
    text = _(
        "%(plugin)s's filter expression gave %(value)s on %(node)s: true (or no value) passes, "
        "false or a string rejects (the string is the reason)."
    ) % {"plugin": pl.name, "value": _shown(value), "node": ni.node.name}
    return (
        {"expression": source, "reads": inputs, "result": value},
        f"{source} = {_shown(value)}",
        text,
    )


def custom_score(
    ctx: CycleContext, pl: CustomPlugin, ni: NodeInfo
) -> tuple[dict[str, Any], str, Any, str]:
    """Score: (inputs, formula, value, text) of the score expression on ``ni``."""
    source, inputs, value = pl.reads("score", ctx.state, ctx.pod, ni)
    shown = int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    text = _("%(plugin)s's score expression gave %(value)s on %(node)s.") % {
        "plugin": pl.name,
        "value": _shown(shown),
        "node": ni.node.name,
    }
    return {"expression": source, "reads": inputs}, f"{source} = {_shown(shown)}", shown, text


def custom_normalize_note(pl: CustomPlugin) -> dict[str, Any]:
    """How a custom plugin normalizes: its mode, and its expression when it has one."""
    out: dict[str, Any] = {"mode": pl.spec.normalize}
    compiled = pl.compiled.get("normalizeScore")
    if compiled is not None:
        out["expression"] = compiled.source
    return out
