"""The scheduling queue and time: the flushes that move pods whose backoff ended or that stayed
too long in the unschedulable pool, and when the next such move is due.

Upstream runs these flushes in the background (backoffQ every second, leftovers every 30 s);
here ``flush()`` at time t has the effect of every tick up to t having run. Apart from the
SchedulingQueue (scheduling_queue.py), which these extend.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scheduler_core.clock import Clock
from scheduler_core.framework.events import BACKOFF_COMPLETE, EVENT_UNSCHEDULABLE_TIMEOUT
from scheduler_core.queue.backoff_queue import BackoffQueue
from scheduler_core.queue.queued_pod_info import BACKOFF, QueuedPodInfo


class QueueTime:
    """The SchedulingQueue's flushes and wake-up time (it provides the queues and the moves)."""

    _clock: Clock
    _backoff: BackoffQueue
    _unschedulable: dict[str, QueuedPodInfo]
    _start: float
    _flush_interval: float
    _max_unschedulable: float
    _move_to_active: Callable[..., bool]
    _move_pods: Callable[..., None]

    def flush(self) -> None:
        """flushBackoffQCompleted, then flushUnschedulablePodsLeftover, at the clock's time."""
        for qpi in self._backoff.pop_all_completed():
            self._move_to_active(qpi, BACKOFF_COMPLETE, True, BACKOFF)
        tick = self._last_leftover_tick()
        leftovers = [
            qpi
            for qpi in self._unschedulable.values()
            if tick - qpi.timestamp > self._max_unschedulable
        ]
        if leftovers:
            self._move_pods(leftovers, EVENT_UNSCHEDULABLE_TIMEOUT)

    def _last_leftover_tick(self) -> float:
        now = self._clock.now()
        if self._flush_interval <= 0:
            return now
        return self._start + math.floor((now - self._start) / self._flush_interval) * (
            self._flush_interval
        )

    def _leftover_due(self, timestamp: float) -> float:
        """The first flush time at which a pod queued at ``timestamp`` counts as a leftover."""
        deadline = timestamp + self._max_unschedulable
        if self._flush_interval <= 0:
            t = math.nextafter(deadline, math.inf)
        else:
            k = math.floor((deadline - self._start) / self._flush_interval) + 1
            t = self._start + k * self._flush_interval
        while not t - timestamp > self._max_unschedulable:
            t = (
                math.nextafter(t, math.inf)
                if self._flush_interval <= 0
                else t + self._flush_interval
            )
        return t

    def next_wakeup(self) -> float | None:
        """The earliest time at which flush() would move a pod (never before now); None when
        no waiting pod would ever move by time alone.

        Gated pods never count: only an update or an event ungates them.
        """
        times = [self._backoff.completion_time(h) for h in self._backoff.heads()]
        waiting = [qpi.timestamp for qpi in self._unschedulable.values() if not qpi.gated]
        if waiting:
            times.append(self._leftover_due(min(waiting)))
        if not times:
            return None
        return max(min(times), self._clock.now())
