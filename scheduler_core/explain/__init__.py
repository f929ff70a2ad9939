"""Explanations of scheduling decisions: each number with its inputs and its formula.

Computed on demand from a CycleContext (the cycle as the engine left it), never stored.
"""

from __future__ import annotations

# Imported for their explainers, which they register.
from scheduler_core.explain import topology as _topology  # noqa: F401
from scheduler_core.explain import volumes as _volumes  # noqa: F401
from scheduler_core.explain.api import at_cycle, explain_node
from scheduler_core.explain.context import CycleContext, ExplainError, FilterView
from scheduler_core.explain.filters import explain_filter
from scheduler_core.explain.framework_steps import (
    explain_normalize,
    explain_selection,
    explain_total,
    explain_weight,
)
from scheduler_core.explain.preemption import explain_preemption
from scheduler_core.explain.record import Explanation
from scheduler_core.explain.replay import at_scheduler_cycle
from scheduler_core.explain.scores import explain_score

__all__ = [
    "CycleContext",
    "ExplainError",
    "Explanation",
    "FilterView",
    "at_cycle",
    "at_scheduler_cycle",
    "explain_filter",
    "explain_node",
    "explain_normalize",
    "explain_preemption",
    "explain_score",
    "explain_selection",
    "explain_total",
    "explain_weight",
]
