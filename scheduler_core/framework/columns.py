"""Node state kept as columns (arrays over a snapshot's nodes) for vectorised plugin passes.

Each NodeInfo of a snapshot writes its aggregates into these arrays as pods are added and removed,
so a plugin can evaluate thousands of nodes in a few numpy operations instead of a Python call per
node. The arrays are int64; every quantity the scheduler compares (millicores, bytes, pod counts)
fits. Plugins reach them through ``columns_of(nodes)``, which answers None when any node is not a
column-backed snapshot node (a clone made by preemption or for nominated pods): the plugin then
takes its per-node path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from scheduler_core.framework.types import NodeInfo

Array = Any  # numpy.ndarray; kept loose so the engine stays mypy-clean without numpy stubs


class NodeColumns:
    """Per-node aggregates of one snapshot, indexed by the node's position in it."""

    __slots__ = (
        "n",
        "alloc_cpu",
        "alloc_mem",
        "alloc_eph",
        "alloc_pods",
        "req_cpu",
        "req_mem",
        "req_eph",
        "nz_cpu",
        "nz_mem",
        "num_pods",
        "has_taints",
        "unschedulable",
        "has_images",
        "has_ports",
    )

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        n = len(node_infos)
        self.n = n

        def col(values: Any) -> Array:
            return np.fromiter(values, dtype=np.int64, count=n)

        self.alloc_cpu = col(ni.allocatable.milli_cpu for ni in node_infos)
        self.alloc_mem = col(ni.allocatable.memory for ni in node_infos)
        self.alloc_eph = col(ni.allocatable.ephemeral_storage for ni in node_infos)
        self.alloc_pods = col(ni.allocatable.allowed_pod_number for ni in node_infos)
        self.req_cpu = col(ni.requested.milli_cpu for ni in node_infos)
        self.req_mem = col(ni.requested.memory for ni in node_infos)
        self.req_eph = col(ni.requested.ephemeral_storage for ni in node_infos)
        self.nz_cpu = col(ni.non_zero_requested.milli_cpu for ni in node_infos)
        self.nz_mem = col(ni.non_zero_requested.memory for ni in node_infos)
        self.num_pods = col(len(ni.pods) for ni in node_infos)
        self.has_taints = np.fromiter(
            (bool(ni.node.taints) for ni in node_infos), dtype=bool, count=n
        )
        self.unschedulable = np.fromiter(
            (ni.node.unschedulable for ni in node_infos), dtype=bool, count=n
        )
        self.has_images = np.fromiter((bool(ni.image_states) for ni in node_infos), bool, n)
        self.has_ports = np.fromiter((bool(ni.used_ports) for ni in node_infos), bool, n)
        for i, ni in enumerate(node_infos):
            ni.columns = self
            ni.index = i

    def refresh(self, i: int, ni: NodeInfo) -> None:
        """Write node i's aggregates after a pod was added or removed."""
        self.req_cpu[i] = ni.requested.milli_cpu
        self.req_mem[i] = ni.requested.memory
        self.req_eph[i] = ni.requested.ephemeral_storage
        self.nz_cpu[i] = ni.non_zero_requested.milli_cpu
        self.nz_mem[i] = ni.non_zero_requested.memory
        self.num_pods[i] = len(ni.pods)
        self.has_ports[i] = bool(ni.used_ports)


class _IndexCache:
    """Remembers the index array of the last few node lists (the runtime reuses them)."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[tuple[Sequence[NodeInfo], NodeColumns, Array]] = []

    def get(self, nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Array] | None:
        for seq, seen_cols, seen_idx in self.entries:
            if seq is nodes:
                return seen_cols, seen_idx
        if not nodes:
            return None
        cols = nodes[0].columns
        if cols is None:
            return None
        idx = np.empty(len(nodes), dtype=np.intp)
        for i, ni in enumerate(nodes):
            if ni.columns is not cols:
                return None
            idx[i] = ni.index
        self.entries.append((nodes, cols, idx))
        if len(self.entries) > 4:
            self.entries.pop(0)
        return cols, idx

    def put(self, nodes: Sequence[NodeInfo], cols: NodeColumns, idx: Array) -> None:
        """Remember that ``nodes`` are the rows ``idx`` of ``cols`` (derived lists, cheaply)."""
        self.entries.append((nodes, cols, idx))
        if len(self.entries) > 4:
            self.entries.pop(0)


_CACHE = _IndexCache()


def remember_columns(nodes: Sequence[NodeInfo], cols: NodeColumns, idx: Array) -> None:
    """Tell columns_of that ``nodes`` are rows ``idx`` of ``cols`` (no per-node scan needed)."""
    _CACHE.put(nodes, cols, idx)


def columns_of(nodes: Sequence[NodeInfo]) -> tuple[NodeColumns, Array] | None:
    """The columns and index array behind ``nodes``, or None for nodes without columns."""
    return _CACHE.get(nodes)
