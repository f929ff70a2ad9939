"""NodePorts: a pod's host ports must be free on the node.

Mirrors plugins/nodeports in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from scheduler_core.api import HostPort, Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SKIP, SUCCESS, Status, unschedulable
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import FrozenState

NAME: Final = names.NODE_PORTS
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"


class _PreFilterState(FrozenState):
    __slots__ = ("ports",)

    def __init__(self, ports: tuple[HostPort, ...]) -> None:
        self.ports = ports


def fits_ports(ports: Sequence[HostPort], node_info: NodeInfo) -> bool:
    return not any(node_info.port_conflict(p.ip, p.protocol, p.port) for p in ports)


class NodePorts:
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

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = state.get(_PRE_FILTER_KEY)
        ports = s.ports if isinstance(s, _PreFilterState) else pod.host_ports
        if fits_ports(ports, node_info):
            return SUCCESS
        return unschedulable(ERR_REASON)

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        s = state.get(_PRE_FILTER_KEY)
        ports = s.ports if isinstance(s, _PreFilterState) else pod.host_ports
        return {
            i: _REJECTED
            for i, ni in enumerate(nodes)
            if ni.used_ports and not fits_ports(ports, ni)
        }


_REJECTED: Final = unschedulable(ERR_REASON)


def new(args: Any, handle: Handle) -> NodePorts:
    return NodePorts()
