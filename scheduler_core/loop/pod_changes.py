"""Pod changes: pods added, updated and deleted, and the victims a preemption deletes.

Mirrors the pod event handlers of pkg/scheduler/eventhandlers.go in kube-scheduler v1.35 and the
victim deletion of framework/preemption (PreemptPod, prepareCandidate and prepareCandidateAsync).
With SchedulerAsyncPreemption a victim is deleted gracefully, as a kubelet runs it: it gets a
``deletionTimestamp`` and the DisruptionTarget condition and keeps its node until
``finish_next_termination`` removes it (its kubelet is done). Apart from the Scheduler
(scheduler.py), which these extend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.features import Features
from scheduler_core.framework.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_ADD,
)
from scheduler_core.loop.cluster import Cluster, apply_api_defaults
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.queue import QueuedPodInfo, SchedulingQueue
from scheduler_core.record.events import ClusterChange, Delete

# The time a victim's deletion starts, as the scheduler's API calls stamp it; nothing reads it
# but "is it set".
_DELETION_STAMP: Final = "2026-01-01T00:00:00Z"
PREEMPTED_MESSAGE: Final = "preempted"


@dataclass(slots=True)
class Outcome:
    """What became of one pod so far."""

    node: str | None = None
    message: str | None = None
    attempts: int = 0
    nominated_node: str | None = None
    # The PodScheduled=False condition's reason: Unschedulable, or SchedulerError for an error.
    reason: str = "Unschedulable"


class PodChanges:
    """The Scheduler's pod changes (it provides the cluster, the queue and the waiting pods)."""

    cluster: Cluster
    queue: SchedulingQueue
    features: Features
    outcomes: dict[str, Outcome]
    pending: dict[str, Pod]
    _make: Callable[..., None]
    waiting_by_key: Callable[[str], Any]
    reject_waiting_pod: Callable[[str, str, str], bool]
    # Victims whose deletion has started (namespace/name -> the terminating pod).
    terminating: dict[str, Pod]
    # Pods the scheduler deleted and that are gone (namespace/name), and every running pod
    # (one this scheduler did not place) it ever deleted.
    preempted: set[str]
    preempted_running: set[str]
    _running_keys: set[str]

    def _init_pod_changes(self) -> None:
        self.terminating = {}
        self.preempted = set()
        self.preempted_running = set()
        self._running_keys = set()

    def add_pod(self, manifest: Mapping[str, Any], *, record: bool = False) -> Pod:
        """Add a pod: bound pods join their node, pending ones the queue. ``record`` emits a
        ClusterChange first (a change between cycles, not the initial pods)."""
        pod = Pod(apply_api_defaults(manifest))
        if record:
            event = EVENT_ASSIGNED_POD_ADD if pod.node_name else EVENT_UNSCHEDULED_POD_ADD
            self._make(
                ClusterChange, "", details={"pod": pod.key, "action": "add", "events": [str(event)]}
            )
        outcome = self.outcomes.setdefault(pod.key, Outcome())
        self.preempted.discard(pod.key)  # a pod made again under a victim's name is new
        if pod.node_name:
            self._running_keys.add(pod.key)
            self.cluster.add_pod(pod)
            outcome.node = pod.node_name
            self.queue.assigned_pod_added(pod)
        else:
            self.pending[pod.key] = pod
            self.queue.add(pod)
            if self.features.gang_scheduling:
                # A new pod may complete a gang its siblings wait for (addPodToSchedulingQueue).
                self.queue.move_all_to_active_or_backoff(EVENT_UNSCHEDULED_POD_ADD, new=pod)
        return pod

    def update_pod(self, manifest: Mapping[str, Any]) -> Pod:
        """Replace a pod's metadata and spec; its ``spec.nodeName`` and status stay what the API
        server holds. A pending pod is updated in the queue, a bound one on its node."""
        new_raw = apply_api_defaults(manifest)
        key = f"{new_raw['metadata']['namespace']}/{new_raw['metadata'].get('name', '')}"
        pending = self.pending.get(key)
        # A pod assumed while it waits on Permit is updated as the pending pod it still is: the
        # cache ignores an assumed pod's updates.
        waiting = self.waiting_by_key(key) is not None
        bound = None if waiting else self._bound_by_key(key)
        old = bound if bound is not None else pending
        if old is None:
            raise SchedulerCoreError(f"metadata.name: no pod {key!r}")
        queued = self.queue.get(old) if bound is None and not waiting else None
        if queued is not None:
            old = queued.pod
        raw = dict(new_raw)
        raw["metadata"] = {**raw["metadata"], "uid": old.uid}
        raw["spec"] = {k: v for k, v in raw["spec"].items() if k != "nodeName"}
        if old.node_name:
            raw["spec"]["nodeName"] = old.node_name
        raw["status"] = old.raw.get("status") or {}
        new = Pod(raw)
        if waiting:
            self.pending[key] = new
        elif bound is not None:
            self.cluster.remove_pod(bound)
            self.cluster.add_pod(new)
            self.queue.assigned_pod_updated(bound, new)
        else:
            self.pending[key] = new
            self.queue.update(old, new)
        return new

    def delete_pod(self, key: str, *, record: bool = False) -> None:
        """Delete a pod by ``namespace/name``, bound, waiting or pending; ``record`` emits a
        ClusterChange first."""
        if record:
            bound_now = self._bound_by_key(key) is not None
            events = [str(EVENT_ASSIGNED_POD_DELETE)] if bound_now else []
            self._make(
                ClusterChange, "", details={"pod": key, "action": "delete", "events": events}
            )
        self.terminating.pop(key, None)
        if self.waiting_by_key(key) is not None:
            # Rejecting unreserves and requeues it; the pending-pod branch below removes it.
            self.reject_waiting_pod(key, "", "pod deleted while waiting on permit")
        bound = self._bound_by_key(key)
        if bound is not None:
            self.cluster.remove_pod(bound)
            self.queue.assigned_pod_deleted(bound)
            self._make(Delete, key, details={"node": bound.node_name})
            self.outcomes.pop(key, None)
            return
        pending = self.pending.pop(key, None)
        if pending is not None:
            queued = self.queue.get(pending)
            pod = queued.pod if queued is not None else pending
            self.queue.delete(pending)
            self.queue.delete_nominated_pod_if_exists(pending)
            if pod.nominated_node_name:
                # Lower-or-equal priority pods counted it on its node as if it were assigned.
                self.queue.move_all_to_active_or_backoff(
                    EVENT_ASSIGNED_POD_DELETE,
                    pre_check=lambda other: other.priority <= pod.priority,
                    old=pod,
                )
        self.outcomes.pop(key, None)

    def _bound_by_key(self, key: str) -> Pod | None:
        return next((p for p in self.cluster.pods.values() if p.key == key), None)

    # -- preemption --------------------------------------------------------------------------

    def _preempt(self, pod: Pod, node_name: str, victims: list[Pod]) -> str | None:
        """PostFilter chose a node: evict the victims, clear lower nominations there.

        A victim waiting on Permit is rejected instead. Without SchedulerAsyncPreemption the
        others are deleted at once; with it their deletion starts (they terminate gracefully).
        """
        if not self.features.scheduler_async_preemption:
            # prepareCandidate: the victims go, then lower nominations on the node.
            for victim in victims:
                self._evict(victim, pod)
            self._clear_lower_nominations(pod, node_name)
            return None
        # prepareCandidateAsync: lower nominations first, then each victim's deletion starts.
        self._clear_lower_nominations(pod, node_name)
        for victim in victims:
            if not victim.deleting:
                self._evict(victim, pod)
        return None

    def _clear_lower_nominations(self, pod: Pod, node_name: str) -> None:
        """clearNominatedNodeName: each lower-priority pod nominated to the node has its status
        patched; the update reaches the queue like any pod update (its hints decide)."""
        for other in list(self.queue.nominated_pods_for_node(node_name)):
            if other.priority >= pod.priority:
                continue
            queued = self.queue.get(other)
            if queued is not None:
                self.queue.update(queued.pod, with_nomination(queued.pod, None))
            self.queue.delete_nominated_pod_if_exists(other)
            outcome = self.outcomes.get(other.key)
            if outcome is not None:
                outcome.nominated_node = None

    def _clear_nomination(self, qpi: QueuedPodInfo) -> None:
        """The pod's status.nominatedNodeName is cleared (ModeOverride with no node)."""
        qpi.pod = with_nomination(qpi.pod, None)
        self.queue.delete_nominated_pod_if_exists(qpi.pod)
        outcome = self.outcomes.get(qpi.pod.key)
        if outcome is not None:
            outcome.nominated_node = None

    def _evict(self, victim: Pod, preemptor: Pod) -> None:
        """PreemptPod: reject a victim waiting on Permit, else delete it (gracefully with
        SchedulerAsyncPreemption)."""
        if self.waiting_by_key(victim.key) is not None:
            self.reject_waiting_pod(victim.key, names.DEFAULT_PREEMPTION, PREEMPTED_MESSAGE)
        elif self.features.scheduler_async_preemption:
            self._start_termination(victim, preemptor)
        else:
            self._delete_victim(victim.key)

    def _start_termination(self, victim: Pod, preemptor: Pod) -> None:
        """The victim gets a deletionTimestamp and the DisruptionTarget condition."""
        old = self._bound_by_key(victim.key)
        if old is None:
            return
        raw = dict(old.raw)
        raw["metadata"] = {**(raw.get("metadata") or {}), "deletionTimestamp": _DELETION_STAMP}
        status = dict(raw.get("status") or {})
        conditions = [
            c for c in status.get("conditions") or () if c.get("type") != "DisruptionTarget"
        ]
        conditions.append(
            {
                "type": "DisruptionTarget",
                "status": "True",
                "reason": "PreemptionByScheduler",
                "message": f"{preemptor.scheduler_name}: preempting to accommodate a higher "
                "priority pod",
            }
        )
        status["conditions"] = conditions
        raw["status"] = status
        new = Pod(raw)
        self.cluster.remove_pod(old)
        self.cluster.add_pod(new, change="pod terminating")
        self.terminating[new.key] = new
        self.queue.assigned_pod_updated(old, new)

    def finish_next_termination(self) -> bool:
        """Remove the first terminating victim by namespace/name; False when there is none."""
        if not self.terminating:
            return False
        self._delete_victim(min(self.terminating))
        return True

    def _delete_victim(self, key: str) -> None:
        running = key in self._running_keys
        self.delete_pod(key)
        self.preempted.add(key)
        if running:
            self.preempted_running.add(key)


def with_nomination(pod: Pod, node_name: str | None) -> Pod:
    """The pod with ``status.nominatedNodeName`` set to ``node_name`` (removed for None); the
    pod itself when that is what it has."""
    if (pod.nominated_node_name or None) == node_name:
        return pod
    raw = dict(pod.raw)
    status = {k: v for k, v in (raw.get("status") or {}).items() if k != "nominatedNodeName"}
    if node_name:
        status["nominatedNodeName"] = node_name
    raw["status"] = status
    return Pod(raw)
