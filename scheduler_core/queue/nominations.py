"""The scheduling queue's nominated pods (the nominator, with a Nominate record of each change)
and its display of the waiting pods.

Apart from the SchedulingQueue (scheduling_queue.py), which these extend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scheduler_core.objects.api import Pod
from scheduler_core.queue.active_queue import ActiveQueue
from scheduler_core.queue.backoff_queue import BackoffQueue
from scheduler_core.queue.nominator import Nominator
from scheduler_core.queue.queued_pod_info import (
    ACTIVE,
    BACKOFF,
    GATED,
    UNSCHEDULABLE,
    QueuedPodInfo,
)


class Nominations:
    """The SchedulingQueue's nominator and views (it provides the queues and the records)."""

    _nominator: Nominator
    _active: ActiveQueue
    _backoff: BackoffQueue
    _unschedulable: dict[str, QueuedPodInfo]
    _emit: Callable[..., None]
    get: Callable[[Pod], QueuedPodInfo | None]
    _until: Callable[[QueuedPodInfo], float]

    def _nominate(self, pod: Pod, node_name: str | None) -> None:
        before = self._nominator.node_of(pod.uid)
        self._nominator.add(pod, node_name)
        self._emit_nomination_change(pod, before)

    def _update_nomination(self, old: Pod, new: Pod) -> None:
        before = self._nominator.node_of(old.uid)
        self._nominator.update(old, new)
        self._emit_nomination_change(new, before)

    def _emit_nomination_change(self, pod: Pod, before: str | None) -> None:
        after = self._nominator.node_of(pod.uid)
        if (before or None) != (after or None):
            self._emit("Nominate", pod, node=after or None)

    def add_nominated_pod(self, pod: Pod, node_name: str | None) -> None:
        """AddNominatedPod: ``node_name`` overrides (ModeOverride); None keeps the pod's own
        ``status.nominatedNodeName`` (ModeNoop)."""
        self._nominate(pod, node_name)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        before = self._nominator.node_of(pod.uid)
        self._nominator.delete(pod.uid)
        self._emit_nomination_change(pod, before)

    def nominated_node_names(self) -> frozenset[str]:
        """The nodes that have nominated pods."""
        return self._nominator.node_names()

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        """NominatedPodsForNode, in nomination order; a pod still queued is given in its
        queued (newest) version."""
        out: list[Pod] = []
        for pod in self._nominator.pods_for_node(node_name):
            queued = self.get(pod)
            out.append(queued.pod if queued is not None else pod)
        return out

    def pending_pods(self) -> dict[str, list[dict[str, Any]]]:
        """The waiting pods for display: activeQ and backoffQ in pop order, the unschedulable
        pool and the gated pods in arrival order."""
        active = [
            {
                "pod": q.key,
                "priority": q.pod.priority,
                "timestamp": q.timestamp,
                "attempts": q.attempts,
            }
            for q in self._active.heap.ordered()
        ]
        backoff = [
            {"pod": q.key, "until": self._until(q), "attempts": q.attempts}
            for q in self._backoff.ordered()
        ]
        unschedulable: list[dict[str, Any]] = []
        gated: list[dict[str, Any]] = []
        for q in self._unschedulable.values():
            if q.gated:
                gated.append({"pod": q.key, "plugin": q.gating_plugin})
            else:
                unschedulable.append(
                    {
                        "pod": q.key,
                        "plugins": sorted(q.rejector_plugins()),
                        "since": q.timestamp,
                        "attempts": q.attempts,
                    }
                )
        return {ACTIVE: active, BACKOFF: backoff, UNSCHEDULABLE: unschedulable, GATED: gated}
