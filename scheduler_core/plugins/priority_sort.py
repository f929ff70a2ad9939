"""PrioritySort: order the active queue by priority, then by the time a pod was queued.

Mirrors plugins/queuesort in kube-scheduler v1.35.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from scheduler_core.framework.interfaces import Handle
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names

NAME: Final = names.PRIORITY_SORT


class QueuedPod(Protocol):
    pod: Pod
    timestamp: float


class PrioritySort:
    name = NAME

    def less(self, a: QueuedPod, b: QueuedPod) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)


def new(args: Any, handle: Handle) -> PrioritySort:
    return PrioritySort()
