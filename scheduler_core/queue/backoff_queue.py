"""backoffQ: pods waiting out their backoff before they may return to activeQ.

Mirrors backend/queue/backoff_queue.go of kube-scheduler v1.35 with SchedulerPopFromBackoffQ
(beta, on by default) as the ``pop_from_backoff`` switch. Two heaps: one for pods that plugins
rejected, one for pods whose attempt ended in an error; both ordered by backoff expiration.

The backoff of a pod is ``initial * 2**(count - 1)``, capped at ``max``, where ``count`` is the
pod's consecutive error count when non-zero, else its unschedulable count (not ``attempts``:
an attempt that ends in an error does not grow the unschedulable backoff). Durations are
computed in integer nanoseconds with the same shift-and-compare as upstream, so an initial
backoff of 0 gives no backoff and a max of 0 disables backoff altogether.

With pop_from_backoff the expiration is truncated to the 1-second ordering window and a pod is
still backing off while ``expiration >= floor(now)``: a pod whose backoff ends at 3.0 leaves the
queue at the flush of 4.0. Pods in one window are then ordered by the activeQ less function.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from scheduler_core.clock import Clock
from scheduler_core.queue.heap import Heap
from scheduler_core.queue.queued_pod_info import QueuedPodInfo

ORDERING_WINDOW_SECONDS: Final = 1.0
_NANOS: Final = 1_000_000_000

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


def _key(qpi: QueuedPodInfo) -> str:
    return qpi.key


class BackoffQueue:
    """Both backoff heaps, the backoff arithmetic and the ordering window."""

    def __init__(
        self,
        *,
        clock: Clock,
        initial_seconds: float,
        max_seconds: float,
        active_less: LessFunc,
        pop_from_backoff: bool,
    ) -> None:
        self._clock = clock
        self._initial = round(initial_seconds * _NANOS)
        self._max = round(max_seconds * _NANOS)
        self._aligned = pop_from_backoff
        self._active_less = active_less
        less = self._less_with_priority if pop_from_backoff else self._less_by_expiration
        self._rejected: Heap[QueuedPodInfo] = Heap(_key, less)
        self._errored: Heap[QueuedPodInfo] = Heap(_key, self._less_by_expiration)

    # -- backoff arithmetic ------------------------------------------------------------------

    def backoff_duration(self, count: int) -> float:
        """calculateBackoffDuration, in seconds: initial doubled count-1 times, capped at max."""
        if count == 0:
            return 0.0
        shift = count - 1
        if self._initial > self._max >> shift:
            return self._max / _NANOS
        return (self._initial << shift) / _NANOS

    def backoff_time(self, qpi: QueuedPodInfo) -> float | None:
        """getBackoffTime: when the pod's backoff ends; None (the zero time) when it has none.

        Cached in ``qpi.backoff_expiration``; the queue clears the cache when the counts or the
        timestamp change.
        """
        if self._max == 0:
            return None
        count = qpi.consecutive_errors if qpi.consecutive_errors > 0 else qpi.unschedulable_count
        if count == 0:
            return None
        if qpi.backoff_expiration is None:
            qpi.backoff_expiration = self._align(qpi.timestamp + self.backoff_duration(count))
        return qpi.backoff_expiration

    def _align(self, t: float) -> float:
        return (
            math.floor(t / ORDERING_WINDOW_SECONDS) * ORDERING_WINDOW_SECONDS
            if self._aligned
            else t
        )

    def is_backing_off(self, qpi: QueuedPodInfo) -> bool:
        """isPodBackingoff at the clock's current time."""
        expiration = self.backoff_time(qpi)
        return expiration is not None and expiration >= self._align(self._clock.now())

    def completion_time(self, qpi: QueuedPodInfo) -> float:
        """The earliest time at which is_backing_off turns false (a past time when it is)."""
        expiration = self.backoff_time(qpi)
        if expiration is None:
            return -math.inf
        if self._aligned:
            return expiration + ORDERING_WINDOW_SECONDS
        return math.nextafter(expiration, math.inf)

    # -- ordering ----------------------------------------------------------------------------

    def _expiration_or_zero(self, qpi: QueuedPodInfo) -> float:
        t = self.backoff_time(qpi)
        return -math.inf if t is None else t

    def _less_by_expiration(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self._expiration_or_zero(a) < self._expiration_or_zero(b)

    def _less_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        ea, eb = self._expiration_or_zero(a), self._expiration_or_zero(b)
        if ea != eb:
            return ea < eb
        return self._active_less(a, b)

    # -- the heaps ---------------------------------------------------------------------------

    def add(self, qpi: QueuedPodInfo) -> None:
        """Into the error heap when no plugin rejected the pod, else into the rejected heap."""
        if qpi.unschedulable_plugins or qpi.pending_plugins:
            self._errored.delete(qpi.key)
            self._rejected.add_or_update(qpi)
        else:
            self._rejected.delete(qpi.key)
            self._errored.add_or_update(qpi)

    def update(self, qpi: QueuedPodInfo) -> bool:
        """Re-sort a pod already queued (after its pod object changed); False if absent."""
        for heap in (self._rejected, self._errored):
            if qpi.key in heap:
                heap.add_or_update(qpi)
                return True
        return False

    def delete(self, key: str) -> bool:
        return self._rejected.delete(key) or self._errored.delete(key)

    def get(self, key: str) -> QueuedPodInfo | None:
        found = self._rejected.get(key)
        return found if found is not None else self._errored.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self._rejected or key in self._errored

    def __len__(self) -> int:
        return len(self._rejected) + len(self._errored)

    def pop_rejected(self) -> QueuedPodInfo | None:
        """popBackoff: the head of the rejected heap, backoff completed or not."""
        return self._rejected.pop()

    def pop_all_completed(self) -> list[QueuedPodInfo]:
        """popAllBackoffCompleted: rejected heap first, then the error heap, each in order."""
        out: list[QueuedPodInfo] = []
        for heap in (self._rejected, self._errored):
            while (head := heap.peek()) is not None and not self.is_backing_off(head):
                heap.pop()
                out.append(head)
        return out

    def heads(self) -> list[QueuedPodInfo]:
        """The first pod of each non-empty heap (the earliest to complete in each)."""
        return [h for h in (self._rejected.peek(), self._errored.peek()) if h is not None]

    def ordered(self) -> list[QueuedPodInfo]:
        """Every pod: the rejected heap in order, then the error heap in order."""
        return self._rejected.ordered() + self._errored.ordered()
