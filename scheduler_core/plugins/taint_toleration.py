"""TaintToleration: keep pods off nodes whose taints they do not tolerate; prefer fewer
untolerated PreferNoSchedule taints.

Mirrors plugins/tainttoleration in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    NODE,
    POD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import (
    MAX_NODE_SCORE,
    FilterByBatch,
    Handle,
    ScoreByColumns,
    filter_one,
)
from scheduler_core.framework.rejections import NO_REJECTIONS, RowRejections
from scheduler_core.framework.status import SUCCESS, Status, error, unresolvable
from scheduler_core.framework.types import NodeInfo, NodeScore
from scheduler_core.objects.api import (
    Node,
    Pod,
    Taint,
    Toleration,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import (
    FrozenState,
    ScoreValues,
    do_not_schedule_taint,
    find_untolerated_taint,
    normalize_node_scores,
    normalize_values,
    tolerations_tolerate_taint,
)
from scheduler_core.words import _, listed

NAME: Final = names.TAINT_TOLERATION
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"
_UNTOLERATED: Final = unresolvable(ERR_REASON_UNTOLERATED)
_NO_PRE_SCORE_STATE: Final = error(f'failed to read "{_PRE_SCORE_KEY}" from cycleState: not found')


class _PreScoreState(FrozenState):
    __slots__ = ("tolerations",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations = tolerations


class TaintToleration(FilterByBatch, ScoreByColumns):
    name = NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        if node_info.columns is not None:
            return filter_one(self, state, pod, node_info)
        # A node without columns (preemption's copies): filter_batch's rule on its taints.
        untolerated = find_untolerated_taint(
            node_info.node.taints, pod.tolerations, do_not_schedule_taint
        )
        return SUCCESS if untolerated is None else _UNTOLERATED

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """Filter for many nodes: one verdict per distinct taint list, mapped onto the nodes."""
        tolerations = pod.tolerations
        found = columns_of(nodes)
        if found is not None and not found[0].taint_sets()[1]:
            return NO_REJECTIONS  # no node has a taint, and no taint is not tolerated
        untolerated = _per_taint_set(
            nodes,
            lambda taints: (
                find_untolerated_taint(taints, tolerations, do_not_schedule_taint) is not None
            ),
            bool,
        )
        return RowRejections.of(np.flatnonzero(untolerated), _UNTOLERATED)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Any) -> Status:
        state.write(_PRE_SCORE_KEY, _PreScoreState(_prefer_tolerations(pod)))
        return SUCCESS

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score of every node as an int64 array: its untolerated PreferNoSchedule taints,
        counted once per distinct taint list. Without the PreScore state, upstream's Error."""
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            return np.zeros(len(nodes), dtype=np.int64), _NO_PRE_SCORE_STATE
        prefer = s.tolerations
        counts = _per_taint_set(
            nodes, lambda taints: len(intolerable_prefer_no_schedule(taints, prefer)), np.int64
        )
        return counts, SUCCESS

    @staticmethod
    def intolerable_taints(state: CycleState, pod: Pod, node_info: NodeInfo) -> list[Taint]:
        """The node's taints Score counts, by Score's rule: with PreScore's tolerations, or the
        pod's own PreferNoSchedule ones when PreScore did not run."""
        s = state.get(_PRE_SCORE_KEY)
        prefer = s.tolerations if isinstance(s, _PreScoreState) else _prefer_tolerations(pod)
        return intolerable_prefer_no_schedule(node_info.node.taints, prefer)

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        return normalize_values(MAX_NODE_SCORE, True, raw)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        return normalize_node_scores(self.normalize_batch, state, pod, scores)

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

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        node = view.node_info.node
        bad = find_untolerated_taint(node.taints, ctx.pod.tolerations, do_not_schedule_taint)
        inputs = {
            "taints": [f"{t.key}={t.value}:{t.effect}" for t in node.taints],
            "tolerations": [
                f"{t.key or '*'} {t.operator or 'Equal'} {t.value}:{t.effect or '*'}"
                for t in ctx.pod.tolerations
            ],
            "untolerated": f"{bad.key}={bad.value}:{bad.effect}" if bad else None,
        }
        if bad is None:
            text = _("Every NoSchedule/NoExecute taint of the node is tolerated by the pod.")
        else:
            text = _("The taint %(taint)s is not tolerated by any toleration of the pod.") % {
                "taint": inputs["untolerated"]
            }
        return inputs, _("first NoSchedule/NoExecute taint no toleration tolerates"), text

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        """How Score came to its raw score for ``ni``: the inputs, the arithmetic."""
        value, _status = self.score(ctx.state, ctx.pod, ni)
        prefer = [t for t in ni.node.taints if t.effect == "PreferNoSchedule"]
        counted = self.intolerable_taints(ctx.state, ctx.pod, ni)  # what Score counted
        untolerated = [f"{t.key}={t.value}:{t.effect}" for t in counted]
        inputs = {
            "preferNoScheduleTaints": [f"{t.key}={t.value}:{t.effect}" for t in prefer],
            "intolerable": untolerated,
        }
        if untolerated:
            text = _(
                "TaintToleration counts the PreferNoSchedule taints of %(node)s that the pod does "
                "not tolerate: %(value)s (%(taints)s). NormalizeScore reverses the count, so fewer "
                "such taints score higher."
            )
        else:
            text = _(
                "TaintToleration counts the PreferNoSchedule taints of %(node)s that the pod does "
                "not tolerate: %(value)s. NormalizeScore reverses the count, so fewer such taints "
                "score higher."
            )
        text %= {"node": ni.node.name, "value": value, "taints": listed(untolerated)}
        formula = _("count of intolerable PreferNoSchedule taints = %(value)s") % {"value": value}
        return inputs, formula, value, text


def _prefer_tolerations(pod: Pod) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: the pod's tolerations with no effect or
    PreferNoSchedule."""
    return tuple(t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule"))


def intolerable_prefer_no_schedule(
    taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> list[Taint]:
    """Score's rule on one taint list: its PreferNoSchedule taints that none of
    ``tolerations`` tolerates (Score counts them)."""
    return [
        t
        for t in taints
        if t.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(tolerations, t)
    ]


def _per_taint_set(
    nodes: Sequence[NodeInfo], rule: Callable[[tuple[Taint, ...]], Any], dtype: Any
) -> Any:
    """``rule`` over each node's taint list as an array aligned with ``nodes``, evaluated once
    per distinct list (an untainted node gets the rule of no taints)."""
    found = columns_of(nodes)
    if found is not None:
        cols, idx = found
        ids, sets = cols.taint_sets()
        if not sets:  # no node has a taint
            return np.full(len(idx), rule(()), dtype=dtype)
        table = np.empty(len(sets) + 1, dtype=dtype)
        table[0] = rule(())
        for j, taints in enumerate(sets):
            table[j + 1] = rule(taints)
        return table[ids[idx] + 1]
    per_set: dict[tuple[Taint, ...], Any] = {}
    out = np.empty(len(nodes), dtype=dtype)
    for i, ni in enumerate(nodes):
        taints = ni.node.taints
        value = per_set.get(taints)
        if value is None:
            value = per_set[taints] = rule(taints)
        out[i] = value
    return out


def new(args: Any, handle: Handle) -> TaintToleration:
    return TaintToleration()
