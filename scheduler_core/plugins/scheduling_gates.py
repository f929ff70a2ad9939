"""SchedulingGates: keep pods with scheduling gates out of the active queue.

Mirrors plugins/schedulinggates in kube-scheduler v1.35.
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.framework.events import POD, ClusterEvent, ClusterEventWithHint, QueueingHint
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SUCCESS, Status, unresolvable
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names

NAME: Final = names.SCHEDULING_GATES


class SchedulingGates:
    name = NAME

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return SUCCESS
        return unresolvable(f"waiting for scheduling gates: [{' '.join(pod.scheduling_gates)}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, "UpdatePodSchedulingGatesEliminated"),
                self.is_schedulable_after_scheduling_gates_eliminated,
            )
        ]

    def is_schedulable_after_scheduling_gates_eliminated(
        self, pod: Pod, old: Pod | None, new: Pod
    ) -> QueueingHint:
        """Only the pod's own gates matter."""
        return QueueingHint.QUEUE if new.uid == pod.uid else QueueingHint.QUEUE_SKIP


def new(args: Any, handle: Handle) -> SchedulingGates:
    return SchedulingGates()
