"""Node changes between cycles: adding, updating, relabelling, tainting and removing a node.

Each change feeds the scheduling queue the cluster events upstream's event handlers send, with
the nodes before and after, so the plugins' queueing hints decide which pending pods move
(MoveToActive/Backoff records name the plugin and the event); each is recorded as a
ClusterChange event. Apart from the Scheduler (scheduler.py), which these extend.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.events import (
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    ClusterEvent,
    node_scheduling_properties_change,
)
from scheduler_core.loop.cluster import Cluster
from scheduler_core.objects.api import Node
from scheduler_core.queue import SchedulingQueue
from scheduler_core.record.events import ClusterChange


class NodeChanges:
    """The Scheduler's node changes (it provides the cluster, the queue and event making)."""

    cluster: Cluster
    queue: SchedulingQueue
    _make: Callable[..., None]

    def add_node(self, manifest: Mapping[str, Any]) -> None:
        """Add a node (NodeAdd); a node of a known name is an update instead."""
        node = Node(manifest)
        if node.name in self.cluster.by_name:
            self.update_node(manifest)
            return
        self.cluster.add_node(node)
        self._cluster_change(node.name, "add", [EVENT_NODE_ADD])
        self.queue.move_all_to_active_or_backoff(EVENT_NODE_ADD, new=node)

    def update_node(self, manifest: Mapping[str, Any]) -> None:
        """Replace a node by name: one event per kind of change (labels, taints, allocatable,
        ...), as NodeSchedulingPropertiesChange finds them."""
        new = Node(manifest)
        known = self.cluster.by_name.get(new.name)
        if known is None:
            raise SchedulerCoreError(f"node {new.name!r} not found")
        old = known.node
        self.cluster.add_node(new)
        events = node_scheduling_properties_change(new, old)
        self._cluster_change(new.name, "update", events)
        for event in events:
            self.queue.move_all_to_active_or_backoff(event, old=old, new=new)

    def set_node_labels(self, name: str, labels: Mapping[str, str]) -> None:
        """Give a node exactly these labels (an update event when they changed)."""
        self.update_node(
            _with_node_field(self._node_manifest(name), ("metadata", "labels"), labels)
        )

    def set_node_taints(self, name: str, taints: Sequence[Mapping[str, Any]]) -> None:
        """Give a node exactly these taints (``spec.taints``)."""
        self.update_node(_with_node_field(self._node_manifest(name), ("spec", "taints"), taints))

    def _node_manifest(self, name: str) -> Mapping[str, Any]:
        known = self.cluster.by_name.get(name)
        if known is None:
            raise SchedulerCoreError(f"node {name!r} not found")
        return known.node.raw

    def remove_node(self, name: str) -> None:
        """Remove a node (NodeDelete)."""
        known = self.cluster.by_name.get(name)
        if known is None:
            raise SchedulerCoreError(f"node {name!r} not found")
        self.cluster.remove_node(name)
        self._cluster_change(name, "remove", [EVENT_NODE_DELETE])
        self.queue.move_all_to_active_or_backoff(EVENT_NODE_DELETE, old=known.node)

    def _cluster_change(self, node: str, action: str, events: Sequence[ClusterEvent]) -> None:
        details = {"node": node, "action": action, "events": [str(e) for e in events]}
        self._make(ClusterChange, "", details=details)


def _with_node_field(
    manifest: Mapping[str, Any], path: tuple[str, str], value: Any
) -> dict[str, Any]:
    """A copy of a node manifest with ``manifest[path[0]][path[1]] = value``."""
    out = dict(manifest)
    section = dict(out.get(path[0]) or {})
    section[path[1]] = copy.deepcopy(value)
    out[path[0]] = section
    return out
