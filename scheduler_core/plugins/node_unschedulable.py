"""NodeUnschedulable: keep pods off cordoned nodes unless they tolerate the unschedulable taint.

Mirrors plugins/nodeunschedulable in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import FilterByBatch, Handle
from scheduler_core.framework.rejections import NO_REJECTIONS, RowRejections
from scheduler_core.framework.status import Status, unresolvable
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import (
    Node,
    Pod,
    Taint,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import tolerations_tolerate_taint
from scheduler_core.words import _

NAME: Final = names.NODE_UNSCHEDULABLE
ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
_UNSCHEDULABLE_TAINT: Final = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")


class NodeUnschedulable(FilterByBatch):
    name = NAME

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """A cordoned node rejects a pod that does not tolerate the unschedulable taint."""
        cols = columns_of(nodes)
        if cols is not None:
            if not cols[0].any_unschedulable:
                return NO_REJECTIONS
            cordoned: Any = np.flatnonzero(cols[0].unschedulable[cols[1]])
        else:  # preemption's copies, one at a time
            cordoned = [i for i, ni in enumerate(nodes) if ni.node.unschedulable]
        if not len(cordoned) or tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT):
            return NO_REJECTIONS
        return RowRejections.of(cordoned, _REJECTED)

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
        """Queue when a node is added schedulable, or updated from unschedulable to not."""
        if (old is None or old.unschedulable) and not new.unschedulable:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old: Pod | None, new: Pod
    ) -> QueueingHint:
        """Queue when the pod itself now tolerates the unschedulable taint."""
        if pod.uid == new.uid and tolerations_tolerate_taint(new.tolerations, _UNSCHEDULABLE_TAINT):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        cordoned = bool(view.node_info.node.unschedulable)
        inputs = {"spec.unschedulable": cordoned}
        text = (
            _(
                "The node is cordoned (spec.unschedulable); only a pod tolerating "
                "node.kubernetes.io/unschedulable:NoSchedule may go there."
            )
            if cordoned
            else _("The node is not cordoned.")
        )
        return inputs, _("not unschedulable, or the unschedulable taint is tolerated"), text


_REJECTED: Final = unresolvable(ERR_REASON_UNSCHEDULABLE)


def new(args: Any, handle: Handle) -> NodeUnschedulable:
    return NodeUnschedulable()
