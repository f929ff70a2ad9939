"""What a plugin's explanation of its own decision reads and returns (not an upstream module).

An explanation says why a plugin's Filter let a node pass or rejected it, or how its Score came
to a number, with the inputs and the arithmetic. Each plugin writes its own beside its rule,
as a method that reads the same CycleState the cycle left and calls the plugin's own functions,
so the explained value is the plugin's value:

- ``ExplainsFilter.explain_filter(ctx, view)`` -> ``FilterParts`` (inputs, formula, text);
- ``ExplainsScore.explain_score(ctx, node_info)`` -> ``ScoreParts`` (inputs, formula, value,
  text).

``explain`` (above the loop) finds the plugin, picks the Filter pass that decided, runs the
verdict and wraps the parts in a record; a plugin without the method gets the verdict alone.
``ExplainInputs`` is the part of the cycle a plugin's explanation may read: the pod, the state
PreFilter and PreScore wrote, the snapshot, and a cache for one cycle's repeated work.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.types import NodeInfo, Snapshot
from scheduler_core.objects.api import Pod

__all__ = [
    "ExplainInputs",
    "ExplainsFilter",
    "ExplainsScore",
    "FilterParts",
    "FilterView",
    "ScoreParts",
    "quantity_text",
]

# (inputs, formula, text): what the verdict rested on, the rule with its numbers, a sentence.
FilterParts = tuple[dict[str, Any], str, str]
# (inputs, formula, value, text): as FilterParts, with the raw score the plugin gave.
ScoreParts = tuple[dict[str, Any], str, int, str]


@dataclass(frozen=True, slots=True)
class FilterView:
    """One pass of Filter over a node: its NodeInfo and CycleState, and what makes it special.

    A node with nominated pods of equal or higher priority is filtered twice, first with those
    pods added, then (only if that passes) as it is: upstream's RunFilterPluginsWithNominatedPods.
    """

    label: str
    state: CycleState
    node_info: NodeInfo
    added: tuple[str, ...] = ()


class ExplainInputs(Protocol):
    """The cycle as a plugin's explanation sees it, right after the cycle."""

    @property
    def pod(self) -> Pod: ...

    @property
    def state(self) -> CycleState: ...

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def cache(self) -> MutableMapping[Any, Any]: ...

    def node_info(self, name: str) -> NodeInfo: ...


@runtime_checkable
class ExplainsFilter(Protocol):
    """A Filter plugin that explains its verdict on a node."""

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts: ...


@runtime_checkable
class ExplainsScore(Protocol):
    """A Score plugin that explains its raw score for a node (before NormalizeScore)."""

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts: ...


def quantity_text(resource: str, amount: int) -> str:
    """An amount in the unit NodeInfo keeps it: millicores for cpu, bytes or a count otherwise."""
    if resource == "cpu":
        return f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return _bytes(amount)
    return str(amount)


def _bytes(amount: int) -> str:
    for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if amount and amount % size == 0:
            return f"{amount // size}{unit}"
    return str(amount)
