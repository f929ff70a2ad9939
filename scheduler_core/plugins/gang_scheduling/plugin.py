"""GangScheduling: PreEnqueue until the gang can form, Permit until it has, then all bind.

Mirrors plugins/gangscheduling/gangscheduling.go in kube-scheduler v1.35. The gang's pods are
what the scheduler's workload manager (backend/workloadmanager) tracks; here the scheduler
answers through the ``pod_groups`` service its frameworks carry (``PodGroups``): the pods of a
group it knows, which of them are assumed or bound, and activating or allowing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Protocol

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    POD,
    WORKLOAD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SUCCESS, Code, Status, unresolvable
from scheduler_core.objects.api import KubeObject, Pod
from scheduler_core.plugins import names
from scheduler_core.plugins.gang_scheduling.workload import (
    GroupKey,
    gang_min_count,
    group_key,
    workload_ref,
)

NAME: Final = names.GANG_SCHEDULING
WAITING_FOR_PODS: Final = "waiting for minCount pods from a gang to appear in scheduling queue"
WAITING_ON_PERMIT: Final = "waiting for minCount pods from a gang to be waiting on permit"


class PodGroups(Protocol):
    """What the plugin asks the scheduler (upstream: the handle's WorkloadManager, Activate and
    GetWaitingPod)."""

    def workload(self, namespace: str, name: str) -> KubeObject | None: ...

    def group_pods(self, key: GroupKey) -> Sequence[Pod]: ...

    def is_assumed_or_bound(self, pod: Pod) -> bool: ...

    def activate_pods(self, pods: Sequence[Pod]) -> None: ...

    def allow_waiting_pod(self, key: str, plugin: str | None = None) -> bool: ...

    def scheduling_timeout(self, key: GroupKey) -> float: ...


class GangScheduling:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _groups(self) -> PodGroups:
        groups: Any = self.handle.framework.extras.get("pod_groups")
        if groups is None:
            raise RuntimeError("GangScheduling needs a scheduler that tracks pod groups")
        return groups  # type: ignore[no-any-return]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(POD, "Add"), self.is_schedulable_after_pod_added),
            ClusterEventWithHint(
                ClusterEvent(WORKLOAD, "Add"), self.is_schedulable_after_workload_added
            ),
        ]

    @staticmethod
    def is_schedulable_after_pod_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Only a pod of the same workload reference can complete the gang."""
        ref = workload_ref(pod)
        if ref is None or not isinstance(new, Pod) or new.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if workload_ref(new) == ref else QueueingHint.QUEUE_SKIP

    @staticmethod
    def is_schedulable_after_workload_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
        ref = workload_ref(pod)
        if ref is None or not isinstance(new, KubeObject):
            return QueueingHint.QUEUE_SKIP
        same = (new.namespace or "default") == pod.namespace and new.name == ref.name
        return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP

    def pre_enqueue(self, pod: Pod) -> Status:
        key = group_key(pod)
        if key is None:
            return SUCCESS
        groups = self._groups()
        workload = groups.workload(pod.namespace, key.ref.name)
        if workload is None:
            return unresolvable(
                f'waiting for pods\'s workload "{key.ref.name}" to appear in scheduling queue'
            )
        found, min_count = gang_min_count(workload, key.ref.pod_group)
        if not found:
            return unresolvable(
                f'pod group "{key.ref.pod_group}" doesn\'t exist for a workload "{key.ref.name}"'
            )
        if min_count is None:
            return SUCCESS
        if len(groups.group_pods(key)) < min_count:
            return unresolvable(WAITING_FOR_PODS)
        return SUCCESS

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        # The scheduler counts an assumed pod as it assumes it (podGroupInfo.AssumePod).
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        # Forgetting the assumed pod is the scheduler's part too (podGroupInfo.ForgetPod).
        return None

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        key = group_key(pod)
        if key is None:
            return SUCCESS, 0.0
        groups = self._groups()
        workload = groups.workload(pod.namespace, key.ref.name)
        if workload is None:
            msg = f"failed to get workload {pod.namespace}/{key.ref.name}: not found"
            return Status(Code.ERROR, (msg,)), 0.0
        found, min_count = gang_min_count(workload, key.ref.pod_group)
        if not found:
            msg = f'pod group "{key.ref.pod_group}" doesn\'t exist for a workload "{key.ref.name}"'
            return Status(Code.ERROR, (msg,)), 0.0
        if min_count is None:
            return SUCCESS, 0.0
        members = groups.group_pods(key)
        placed = [p for p in members if groups.is_assumed_or_bound(p)]
        if len(placed) < min_count:
            groups.activate_pods([p for p in members if not groups.is_assumed_or_bound(p)])
            return Status(Code.WAIT, (WAITING_ON_PERMIT,)), groups.scheduling_timeout(key)
        for other in placed:
            if other.uid != pod.uid:
                groups.allow_waiting_pod(other.key, NAME)
        return SUCCESS, 0.0


def new(args: Any, handle: Handle) -> GangScheduling:
    return GangScheduling(handle)
