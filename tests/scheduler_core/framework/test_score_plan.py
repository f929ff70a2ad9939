"""Framework.run_score_plugins looks its Score plugins' methods up once, for the list in force:
a profile whose Score list changes gets the new plugins' scores, never the old ones'."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SUCCESS, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.tools.case import CaseRun
from tests.builders import make_node, make_pod


class Constant:
    """A Score plugin giving every node the same score."""

    def __init__(self, name: str, value: int) -> None:
        self.name = name
        self.value = value

    def score(self, state: CycleState, pod: Pod, node: NodeInfo) -> tuple[int, Status]:
        return self.value, SUCCESS

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        return [self.value] * len(nodes), SUCCESS


def scores(run: CaseRun, pod: Pod) -> dict[str, Any]:
    fwk = run.runners["default-scheduler"].fwk
    snapshot = run.cluster.snapshot()
    fwk.set_snapshot(snapshot)
    state = CycleState()
    assert fwk.run_pre_filter_plugins(state, pod, snapshot.node_info_list).status.is_success()
    assert fwk.run_pre_score_plugins(state, pod, snapshot.node_info_list).is_success()
    out, status = fwk.run_score_plugins(state, pod, snapshot.node_info_list)
    assert status.is_success(), status
    return {ps.name: ps.normalized for ps in out}


def test_score_plugins_changed_after_a_cycle_are_the_ones_that_score() -> None:
    run = CaseRun({"nodes": [make_node("n1"), make_node("n2", cpu="8")]})
    pod = Pod(make_pod("p"))
    first = scores(run, pod)
    assert "NodeResourcesFit" in first and len(first["NodeResourcesFit"]) == 2
    fwk = run.runners["default-scheduler"].fwk
    fwk.score_weights.update({"A": 1, "B": 1})
    fwk.score_plugins[:] = [Constant("A", 7)]  # the same list, changed in place
    assert scores(run, pod) == {"A": [7, 7]}
    fwk.score_plugins = [Constant("B", 3), Constant("A", 9)]  # a new list
    assert scores(run, pod) == {"B": [3, 3], "A": [9, 9]}
