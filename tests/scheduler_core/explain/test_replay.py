"""A Scheduler replayed to one of its cycles gives explanations that match that cycle."""

from __future__ import annotations

import pytest

from scheduler_core.explain import CycleContext, ExplainError, explain_preemption
from scheduler_core.explain.check import CheckResult, check_cycle
from scheduler_core.explain.replay import at_scheduler_cycle
from scheduler_core.loop.scheduler import Scheduler
from tests.builders import make_node, make_pod


def _scheduler() -> Scheduler:
    return Scheduler(
        None,
        [
            make_node("n1", cpu="2"),
            make_node("n2", cpu="2"),
            make_pod("low", cpu="1500m", node_name="n1", priority=1),
            make_pod("low2", cpu="1500m", node_name="n2", priority=2),
            make_pod("a", cpu="300m"),
            make_pod("big", cpu="2", priority=10),
        ],
    )


@pytest.mark.parametrize("cycle", [1, 2], ids=["preemption", "after-the-preemption"])
def test_every_explanation_of_a_replayed_cycle_matches_it(cycle: int) -> None:
    def check(ctx: CycleContext) -> CheckResult:
        out = CheckResult()
        check_cycle(ctx, out)
        return out

    out = at_scheduler_cycle(_scheduler(), cycle, check)
    assert out.differ == []
    assert out.reproduced > 0


def test_a_preemption_is_explained_before_its_victims_go() -> None:
    ex = at_scheduler_cycle(_scheduler(), 1, explain_preemption)
    assert ex["pod"] == "default/big"
    assert ex["value"] == {"nominatedNode": "n1", "victims": ["default/low"]}
    assert [c["node"] for c in ex["inputs"]["candidates"]] == ["n1", "n2"]


def test_a_cycle_past_the_end_is_refused() -> None:
    with pytest.raises(ExplainError, match="no cycle 40"):
        at_scheduler_cycle(_scheduler(), 40, explain_preemption)
