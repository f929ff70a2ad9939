"""activeQ and the in-flight bookkeeping: pods ready to be tried, pods being tried, and the
cluster events that arrived while they were.

Mirrors backend/queue/active_queue.go of kube-scheduler v1.35 (SchedulerQueueingHints is GA, so
in-flight tracking is always on). Upstream keeps one list holding pod markers and events in
arrival order; here every marker and event gets a rising sequence number instead, and the events
an in-flight pod must consider are those numbered after its marker. Locks, the condition
variable and the blocking pop are left out: the engine is single-threaded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scheduler_core.framework.events import ClusterEvent
from scheduler_core.queue.heap import Heap
from scheduler_core.queue.queued_pod_info import QueuedPodInfo


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    """An event seen while pods were in flight; ``target_uid`` restricts it to one pod
    (an update of that pod, or its forced activation)."""

    seq: int
    event: ClusterEvent
    target_uid: str | None = None
    old: Any = None  # the object before the change (None for an Add), for the queueing hints
    new: Any = None  # and after it (None for a Delete)


def _key(qpi: QueuedPodInfo) -> str:
    return qpi.key


class ActiveQueue:
    """The activeQ heap, the scheduling cycle counter, in-flight pods and in-flight events."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> None:
        self.heap: Heap[QueuedPodInfo] = Heap(_key, less)
        self.scheduling_cycle = 0
        self._in_flight: dict[str, int] = {}
        self._events: list[InFlightEvent] = []
        self._seq = 0

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def is_in_flight(self, uid: str) -> bool:
        return uid in self._in_flight

    def in_flight_uids(self) -> list[str]:
        """In pop order."""
        return sorted(self._in_flight, key=self._in_flight.__getitem__)

    def start(self, uid: str) -> None:
        """Record a popped pod as in flight and count the cycle."""
        self._in_flight[uid] = self._next_seq()
        self.scheduling_cycle += 1

    def done(self, uid: str) -> None:
        """Forget an in-flight pod and every event no remaining in-flight pod needs."""
        if self._in_flight.pop(uid, None) is None:
            return
        if not self._in_flight:
            self._events.clear()
            return
        oldest = min(self._in_flight.values())
        self._events = [e for e in self._events if e.seq > oldest]

    def add_event_if_any_in_flight(
        self,
        event: ClusterEvent,
        target_uid: str | None = None,
        old: Any = None,
        new: Any = None,
    ) -> bool:
        if not self._in_flight:
            return False
        self._events.append(InFlightEvent(self._next_seq(), event, target_uid, old, new))
        return True

    def add_events_if_pod_in_flight(
        self, uid: str, events: Sequence[ClusterEvent], old: Any = None, new: Any = None
    ) -> bool:
        """Record events about one in-flight pod; False when that pod is not in flight."""
        if uid not in self._in_flight:
            return False
        for event in events:
            self._events.append(InFlightEvent(self._next_seq(), event, uid, old, new))
        return True

    def events_for(self, uid: str) -> list[InFlightEvent] | None:
        """clusterEventsForPod: the events since the pod was popped; None if not in flight."""
        marker = self._in_flight.get(uid)
        if marker is None:
            return None
        return [e for e in self._events if e.seq > marker]

    def in_flight_event_count(self) -> int:
        return len(self._events)
