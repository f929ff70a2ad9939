"""NodePorts: a pod's host ports must be free on the node.

Mirrors plugins/nodeports in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    NODE,
    POD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import FilterByBatch, Handle
from scheduler_core.framework.status import SKIP, SUCCESS, Status, error, unschedulable
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.objects.api import (
    HostPort,
    Node,
    Pod,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import FrozenState
from scheduler_core.words import _, listed

NAME: Final = names.NODE_PORTS
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"


class _PreFilterState(FrozenState):
    __slots__ = ("ports",)

    def __init__(self, ports: tuple[HostPort, ...]) -> None:
        self.ports = ports


def fits_ports(ports: Sequence[HostPort], node_info: NodeInfo) -> bool:
    return not any(node_info.port_conflict(p.ip, p.protocol, p.port) for p in ports)


class NodePorts(FilterByBatch):
    name = NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not pod.host_ports:
            return None, SKIP
        state.write(_PRE_FILTER_KEY, _PreFilterState(pod.host_ports))
        return None, SUCCESS

    def add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node_info: NodeInfo) -> Status:
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        return SUCCESS

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """Filter for many nodes: only nodes with a port in use can conflict. Without the
        PreFilter state (PreFilter not enabled) every node gets upstream's Error."""
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return dict.fromkeys(range(len(nodes)), _NO_PRE_FILTER_STATE)
        ports = s.ports
        return {
            i: _REJECTED
            for i, ni in enumerate(nodes)
            if ni.used_ports and not fits_ports(ports, ni)
        }

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Host ports are immutable, so pod updates are ignored; any added node may have room.
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, "Delete"), self.is_schedulable_after_pod_deleted
            ),
            ClusterEventWithHint(ClusterEvent(NODE, "Add")),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Pod, new: None) -> QueueingHint:
        """Queue when a scheduled (or nominated) pod holding one of the pod's host ports went."""
        if not old.node_name and not old.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        if not old.host_ports:
            return QueueingHint.QUEUE_SKIP
        holder = NodeInfo(Node({"metadata": {"name": old.node_name}}))
        holder.add_pod(old)
        if fits_ports(pod.host_ports, holder):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        ni = view.node_info
        wanted = [
            f"{p.protocol}/{p.port}" + (f"@{p.ip}" if p.ip else "") for p in ctx.pod.host_ports
        ]
        taken = [
            f"{p.protocol}/{p.port}"
            for p in ctx.pod.host_ports
            if ni.port_conflict(p.ip, p.protocol, p.port)
        ]
        inputs = {
            "hostPorts": wanted,
            "inUse": sorted(f"{k[0]}/{k[1]}" for k in ni.used_ports),
            "conflicting": taken,
        }
        text = (
            _("Host port(s) %(ports)s already used on the node.") % {"ports": listed(taken)}
            if taken
            else _("None of the pod's host ports is in use on the node.")
        )
        return inputs, _("no requested host port is in use"), text


_REJECTED: Final = unschedulable(ERR_REASON)
_NO_PRE_FILTER_STATE: Final = error(f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')


def new(args: Any, handle: Handle) -> NodePorts:
    return NodePorts()
