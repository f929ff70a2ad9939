"""ExtenderBudget: a run's extender calls share one wall-clock budget."""

from __future__ import annotations

import pytest

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.policy import (
    ExtenderBudget,
    ExtenderBudgetExceeded,
)


def test_calls_within_the_budget_pass_and_the_one_past_it_names_the_silent_extender():
    budget = ExtenderBudget(25)
    for _ in range(2):
        budget.charge("http://x.example/filter", 10.0, timeout=10.0)
    with pytest.raises(ExtenderBudgetExceeded) as exceeded:
        budget.charge("http://x.example/filter", 10.0, timeout=10.0)
    assert str(exceeded.value) == (
        "the extender at http://x.example/filter did not answer within 10 s in 3 calls "
        "(30.0 s in all, more than a run's extender budget of 25 s)"
    )


def test_slow_answers_count_too_and_the_message_says_they_answered():
    budget = ExtenderBudget(1)
    budget.charge("http://x.example/filter", 0.6, timeout=None)
    with pytest.raises(ExtenderBudgetExceeded) as exceeded:
        budget.charge("http://x.example/prioritize", 0.6, timeout=None)
    assert str(exceeded.value) == (
        "the extenders took 1.2 s in all, more than a run's extender budget of 1 s (2 calls; "
        "the last to http://x.example/prioritize)"
    )


def test_running_out_is_not_an_error_the_scheduler_would_take_for_one_cycles():
    """The scheduler turns SchedulerCoreErrors of extenders into a cycle's Error and goes on."""
    assert not issubclass(ExtenderBudgetExceeded, SchedulerCoreError)
