"""PodTopologySpread's queueing hints: which cluster events may help a pod it rejected.

Mirrors EventsToRegister, isSchedulableAfterPodChange and isSchedulableAfterNodeChange of
plugins/podtopologyspread/plugin.go in kube-scheduler v1.35 (kept apart from the plugin module,
which is long enough).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from scheduler_core.framework.events import (
    NODE,
    POD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins.pod_topology_spread.constraints import Constraint

# The pod's DoNotSchedule constraints (its own, or the defaults); may raise on a bad selector,
# which the queue counts as Queue.
ConstraintsOf = Callable[[Pod], Sequence[Constraint]]


class PodTopologySpreadHints:
    """The hint functions of one PodTopologySpread instance (its defaults decide constraints)."""

    def __init__(self, constraints_of: ConstraintsOf) -> None:
        self.constraints_of = constraints_of

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # UpdatePodToleration: a new toleration matters under nodeTaintsPolicy: Honor.
            ClusterEventWithHint(
                ClusterEvent(POD, "Add|UpdatePodLabel|UpdatePodToleration|Delete"),
                self.is_schedulable_after_pod_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(NODE, "Add|Delete|UpdateNodeLabel|UpdateNodeTaint"),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(
        self, pod: Pod, old: Pod | None, new: Pod | None
    ) -> QueueingHint:
        """Queue when an assigned pod of the namespace that a constraint selects comes or goes,
        or its labels change whether it is selected; or the pod itself got a new toleration
        while a constraint honours taints."""
        if (new is not None and not _involved(new, pod)) or (
            old is not None and not _involved(old, pod)
        ):
            return QueueingHint.QUEUE_SKIP
        constraints = self.constraints_of(pod)
        if new is not None and old is not None:
            if (
                pod.uid == new.uid
                and new.tolerations != old.tolerations
                and any(c.honor_node_taints for c in constraints)
            ):
                return QueueingHint.QUEUE
            if new.labels == old.labels:
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(old.labels) != c.selector.matches(new.labels):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        changed = new if new is not None else old
        assert changed is not None
        if any(c.selector.matches(changed.labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old: Node | None, new: Node | None
    ) -> QueueingHint:
        """Queue when a node with every topology key comes or goes, gains or loses one, or
        changes a topology value or its taints while it has them all."""
        constraints = self.constraints_of(pod)
        old_matching = old is not None and _has_keys(old.labels, constraints)
        new_matching = new is not None and _has_keys(new.labels, constraints)
        if old is not None and new is not None:
            if old_matching != new_matching:
                return QueueingHint.QUEUE
            if new_matching and (
                any(
                    old.labels.get(c.topology_key) != new.labels.get(c.topology_key)
                    for c in constraints
                )
                or old.taints != new.taints
            ):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if new_matching else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if old_matching else QueueingHint.QUEUE_SKIP


def _involved(changed: Pod, pod: Pod) -> bool:
    """involvedInTopologySpreading: the pod itself, or an assigned pod of its namespace."""
    return changed.uid == pod.uid or (
        bool(changed.node_name) and changed.namespace == pod.namespace
    )


def _has_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints."""
    return all(c.topology_key in labels for c in constraints)
