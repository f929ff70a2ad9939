"""The scheduling queue: activeQ, backoffQ, unschedulable pods and the nominator.

Mirrors pkg/scheduler/backend/queue and backend/heap of kube-scheduler v1.35.

Modules:

- ``scheduling_queue``: SchedulingQueue, built from ``active_queue`` (activeQ and in-flight
  pods), ``backoff_queue`` (backoffQ), ``queue_time`` (the flushes), ``nominations`` (the
  nominator's changes, recorded) and ``requeuing`` (isPodWorthRequeuing);
- ``heap``: the keyed binary heap the queues use; ``queued_pod_info``: a pending pod and its
  attempts; ``nominator``: which pods are expected on which node;
- ``hint_map``: the queueing hint map built from what each plugin registers.

The cluster events and queueing hints themselves are the framework's (``framework.events``).
"""

from __future__ import annotations

from scheduler_core.framework.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_ASSIGNED_POD_UPDATE,
    EVENT_FORCE_ACTIVATE,
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_UPDATE,
    ClusterEvent,
    match_cluster_events,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from scheduler_core.queue.heap import Heap
from scheduler_core.queue.hint_map import build_event_map
from scheduler_core.queue.nominator import Nominator
from scheduler_core.queue.queued_pod_info import QueuedPodInfo, pod_key
from scheduler_core.queue.scheduling_queue import SchedulingQueue

__all__ = [
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_NODE_ADD",
    "EVENT_NODE_DELETE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "ClusterEvent",
    "Heap",
    "Nominator",
    "QueuedPodInfo",
    "SchedulingQueue",
    "build_event_map",
    "match_cluster_events",
    "node_scheduling_properties_change",
    "pod_key",
    "pod_scheduling_properties_change",
]
