"""TaintToleration: keep pods off nodes whose taints they do not tolerate; prefer fewer
untolerated PreferNoSchedule taints.

Mirrors plugins/tainttoleration in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.api import Node, Pod, Taint, Toleration
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.status import SUCCESS, Status, unresolvable
from scheduler_core.framework.types import NodeInfo, NodeScore
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import (
    FrozenState,
    ScoreValues,
    default_normalize_score,
    do_not_schedule_taint,
    find_untolerated_taint,
    normalize_values,
    read_state,
    tolerations_tolerate_taint,
)
from scheduler_core.queue.events import NODE, POD, ClusterEvent, ClusterEventWithHint, QueueingHint

NAME: Final = names.TAINT_TOLERATION
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"
_UNTOLERATED: Final = unresolvable(ERR_REASON_UNTOLERATED)


class _PreScoreState(FrozenState):
    __slots__ = ("tolerations",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations = tolerations


class TaintToleration:
    name = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        taint = find_untolerated_taint(
            node_info.node.taints, pod.tolerations, do_not_schedule_taint
        )
        if taint is None:
            return SUCCESS
        return unresolvable(ERR_REASON_UNTOLERATED)

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """Filter for many nodes; only tainted nodes are looked at, one taint set at a time."""
        cols = columns_of(nodes)
        tolerations = pod.tolerations
        if cols is not None:
            ids, sets = cols[0].taint_sets()
            if not sets:  # no node has a taint
                return {}
            table = np.zeros(len(sets) + 1, dtype=bool)
            for j, taints in enumerate(sets):
                table[j + 1] = (
                    find_untolerated_taint(taints, tolerations, do_not_schedule_taint) is not None
                )
            return dict.fromkeys(np.flatnonzero(table[ids[cols[1]] + 1]).tolist(), _UNTOLERATED)
        tainted = [i for i, ni in enumerate(nodes) if ni.node.taints]
        out: dict[int, Status] = {}
        verdicts: dict[tuple[Taint, ...], bool] = {}
        for i in tainted:
            taints = nodes[i].node.taints
            bad = verdicts.get(taints)
            if bad is None:
                bad = verdicts[taints] = (
                    find_untolerated_taint(taints, tolerations, do_not_schedule_taint) is not None
                )
            if bad:
                out[i] = _UNTOLERATED
        return out

    def pre_score(self, state: CycleState, pod: Pod, nodes: Any) -> Status:
        prefer = tuple(t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule"))
        state.write(_PRE_SCORE_KEY, _PreScoreState(prefer))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        s = read_state(state, _PRE_SCORE_KEY, _PreScoreState)
        count = 0
        for taint in node_info.node.taints:
            if taint.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(
                s.tolerations, taint
            ):
                count += 1
        return count, SUCCESS

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        scores, status = self.score_columns(state, pod, nodes)
        return scores.tolist(), status

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score of every node as an int64 array: untolerated PreferNoSchedule taints."""
        s = read_state(state, _PRE_SCORE_KEY, _PreScoreState)
        counts: dict[tuple[Taint, ...], int] = {(): 0}
        cols = columns_of(nodes)
        if cols is not None:
            ids, sets = cols[0].taint_sets()
            if not sets:  # no node has a taint
                return np.zeros(len(cols[1]), dtype=np.int64), SUCCESS
            table = np.zeros(len(sets) + 1, dtype=np.int64)
            for j, taints in enumerate(sets):
                table[j + 1] = sum(
                    1
                    for t in taints
                    if t.effect == "PreferNoSchedule"
                    and not tolerations_tolerate_taint(s.tolerations, t)
                )
            return table[ids[cols[1]] + 1], SUCCESS
        tainted = list(range(len(nodes)))
        out = [0] * len(nodes)
        for i in tainted:
            taints = nodes[i].node.taints
            c = counts.get(taints)
            if c is None:
                c = counts[taints] = sum(
                    1
                    for t in taints
                    if t.effect == "PreferNoSchedule"
                    and not tolerations_tolerate_taint(s.tolerations, t)
                )
            out[i] = c
        return np.asarray(out, dtype=np.int64), SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        return normalize_values(MAX_NODE_SCORE, True, raw)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return SUCCESS

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(NODE, "Add|UpdateNodeTaint"), self.is_schedulable_after_node_change
            ),
            ClusterEventWithHint(
                ClusterEvent(POD, "UpdatePodToleration"),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old: Node | None, new: Node
    ) -> QueueingHint:
        """Queue when the node had an untolerated NoSchedule/NoExecute taint (or is new) and
        now has none."""
        was_untolerated = old is None or (
            find_untolerated_taint(old.taints, pod.tolerations, do_not_schedule_taint) is not None
        )
        is_untolerated = (
            find_untolerated_taint(new.taints, pod.tolerations, do_not_schedule_taint) is not None
        )
        if was_untolerated and not is_untolerated:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: Pod | None, new: Pod
    ) -> QueueingHint:
        """Queue when the pod itself got a new toleration."""
        return QueueingHint.QUEUE if new.uid == pod.uid else QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Handle) -> TaintToleration:
    return TaintToleration()
