"""Pod groups: the Workloads the scheduler knows and the gangs their pods form.

Mirrors backend/workloadmanager in kube-scheduler v1.35 (with the GenericWorkload and
GangScheduling gates): which pods belong to a group (every pod with the same workload reference,
pending, assumed or bound), which of them are assumed or bound, and the Workload events. The
GangScheduling plugin asks through the ``pod_groups`` entry of its framework's extras. Apart from
the Scheduler (scheduler.py), which these extend.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.clock import Clock
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.events import WORKLOAD, ClusterEvent
from scheduler_core.loop.cluster import Cluster
from scheduler_core.objects.api import KubeObject, Pod
from scheduler_core.plugins.gang_scheduling.workload import GroupKey, group_key
from scheduler_core.queue import SchedulingQueue
from scheduler_core.record.events import ClusterChange

# workloadmanager.DefaultSchedulingTimeoutDuration: how long a gang may take to form.
DEFAULT_SCHEDULING_TIMEOUT_SECONDS: Final = 300.0
EVENT_WORKLOAD_ADD: Final = ClusterEvent(WORKLOAD, "Add")
EVENT_WORKLOAD_DELETE: Final = ClusterEvent(WORKLOAD, "Delete")


class PodGroups:
    """The Scheduler's pod groups (it provides the cluster, the queue and the pending pods)."""

    cluster: Cluster
    queue: SchedulingQueue
    pending: dict[str, Pod]
    clock: Clock
    _make: Callable[..., None]
    # Each gang's scheduling deadline, set when its first member waits at Permit.
    _group_deadlines: dict[GroupKey, float]

    def scheduling_timeout(self, key: GroupKey) -> float:
        """SchedulingTimeout: the time left before the group's deadline, which the first call
        (or the first after it passed) sets five minutes ahead; every member shares it."""
        deadlines = self._group_deadlines
        now = self.clock.now()
        deadline = deadlines.get(key)
        # At the deadline itself it has passed: a simulated clock does not move on by itself.
        if deadline is None or deadline <= now:
            deadline = deadlines[key] = now + DEFAULT_SCHEDULING_TIMEOUT_SECONDS
        return float(deadline - now)

    def workload(self, namespace: str, name: str) -> KubeObject | None:
        return self.cluster.objects.workloads.get(f"{namespace}/{name}")

    def group_pods(self, key: GroupKey) -> Sequence[Pod]:
        """Every pod of the group the scheduler knows: pending, assumed or bound."""
        found: dict[str, Pod] = {}
        for pod in (*self.pending.values(), *self.cluster.pods.values()):
            if pod.uid not in found and group_key(pod) == key:
                found[pod.uid] = pod
        return list(found.values())

    def is_assumed_or_bound(self, pod: Pod) -> bool:
        return pod.uid in self.cluster.pods

    def activate_pods(self, pods: Sequence[Pod]) -> None:
        """Activate: the given pending pods go to activeQ (in-flight ones after their cycle)."""
        queued = [self.queue.get(p) for p in pods]
        self.queue.activate(
            [q.pod if q is not None else p for q, p in zip(queued, pods, strict=True)]
        )

    def add_workload(self, manifest: Mapping[str, Any]) -> KubeObject:
        """Add (or replace) a Workload: the Workload/Add event."""
        workload = KubeObject(manifest)
        if not workload.name:
            raise SchedulerCoreError("metadata.name: required")
        key = f"{workload.namespace or 'default'}/{workload.name}"
        self.cluster.objects.workloads[key] = workload
        details = {"workload": key, "action": "add", "events": [str(EVENT_WORKLOAD_ADD)]}
        self._make(ClusterChange, "", details=details)
        self.queue.move_all_to_active_or_backoff(EVENT_WORKLOAD_ADD, new=workload)
        return workload

    def delete_workload(self, key: str) -> None:
        """Delete a Workload by ``namespace/name`` (no plugin registers the event)."""
        old = self.cluster.objects.workloads.pop(key, None)
        if old is None:
            raise SchedulerCoreError(f"no Workload {key!r}")
        details = {"workload": key, "action": "delete", "events": [str(EVENT_WORKLOAD_DELETE)]}
        self._make(ClusterChange, "", details=details)
        self.queue.move_all_to_active_or_backoff(EVENT_WORKLOAD_DELETE, old=old)
