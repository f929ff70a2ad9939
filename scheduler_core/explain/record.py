"""The shape of an explanation: a plain JSON-ready dict with its inputs, formula, value and text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scheduler_core.explain.context import CycleContext
from scheduler_core.framework.status import Status

Explanation = dict[str, Any]


def explanation(
    ctx: CycleContext,
    point: str,
    plugin: str | None,
    node: str | None,
    *,
    inputs: Mapping[str, Any],
    formula: str,
    value: Any,
    text: str,
    **extra: Any,
) -> Explanation:
    """One explanation: where it is (cycle, pod, extension point, plugin, node) and its parts.

    ``formula`` states the arithmetic with the numbers filled in; ``value`` is what the plugin's
    own code gives for those inputs; ``text`` is one paragraph for a human reader.
    """
    out: Explanation = {
        "cycle": ctx.cycle,
        "pod": ctx.pod.key,
        "point": point,
        "plugin": plugin,
        "node": node,
        "inputs": dict(inputs),
        "formula": formula,
        "value": value,
        "text": text,
    }
    out.update(extra)
    return out


def verdict(status: Status) -> dict[str, Any]:
    """A Filter verdict as the trace writes it: the code's upstream name and the reasons."""
    return {"code": status.code.upstream, "reasons": list(status.reasons)}
