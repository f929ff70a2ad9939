"""NodeInfo, the Snapshot handed to a cycle, and the small result types of the framework.

Mirrors framework/types.go, backend/cache/snapshot.go and backend/cache/node_tree.go in
kube-scheduler v1.35.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import compress

from scheduler_core.framework.columns import NodeColumns
from scheduler_core.framework.rejections import Rejections
from scheduler_core.framework.status import Code, Status
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
    Resource,
)


@dataclass(slots=True)
class ImageStateSummary:
    """An image's size and on how many nodes of the snapshot it is present."""

    size: int
    num_nodes: int


class NodeInfo:
    """A node with the aggregated state of the pods running (or assumed) on it."""

    __slots__ = (
        "node",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "used_ports",
        "requested",
        "non_zero_requested",
        "allocatable",
        "image_states",
        "pvc_ref_counts",
        "generation",
        "columns",
        "index",
    )

    def __init__(self, node: Node) -> None:
        self.node = node
        self.pods: list[Pod] = []
        self.pods_with_affinity: list[Pod] = []
        self.pods_with_required_anti_affinity: list[Pod] = []
        self.used_ports: dict[tuple[str, int], set[str]] = {}  # (protocol, port) -> host IPs
        self.requested = Resource()
        self.non_zero_requested = Resource()
        self.allocatable = node.allocatable
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = 0
        self.columns: NodeColumns | None = None  # set while this NodeInfo backs a snapshot
        self.index = -1

    @property
    def name(self) -> str:
        return self.node.name

    def __repr__(self) -> str:
        return f"NodeInfo({self.node.name}, pods={[p.name for p in self.pods]})"

    def add_pod(self, pod: Pod) -> None:
        self.pods.append(pod)
        if pod.has_affinity:
            self.pods_with_affinity.append(pod)
        if pod.has_required_anti_affinity:
            self.pods_with_required_anti_affinity.append(pod)
        self._update(pod, 1)

    def remove_pod(self, pod: Pod) -> bool:
        """Remove the pod with pod's UID; False when it is not on this node."""
        for lst in (self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, p in enumerate(lst):
                if p.uid == pod.uid:
                    # Upstream swaps the last element in: the order is observable.
                    lst[i] = lst[-1]
                    lst.pop()
                    break
        for i, p in enumerate(self.pods):
            if p.uid == pod.uid:
                self.pods[i] = self.pods[-1]
                self.pods.pop()
                self._update(p, -1)
                return True
        return False

    def _update(self, pod: Pod, sign: int) -> None:
        r = pod.resource
        req = self.requested
        req.milli_cpu += sign * r.milli_cpu
        req.memory += sign * r.memory
        req.ephemeral_storage += sign * r.ephemeral_storage
        for name, amount in r.scalars.items():
            req.scalars[name] = req.scalars.get(name, 0) + sign * amount
        self.non_zero_requested.milli_cpu += sign * pod.non0_cpu
        self.non_zero_requested.memory += sign * pod.non0_mem
        for hp in pod.host_ports:
            key = (hp.protocol, hp.port)
            if sign > 0:
                self.used_ports.setdefault(key, set()).add(hp.ip)
            else:
                ips = self.used_ports.get(key)
                if ips is not None:
                    ips.discard(hp.ip)
                    if not ips:
                        del self.used_ports[key]
        for claim in pod.pvc_names():
            k = f"{pod.namespace}/{claim}"
            if sign > 0:
                self.pvc_ref_counts[k] = self.pvc_ref_counts.get(k, 0) + 1
            else:
                n = self.pvc_ref_counts.get(k, 0) - 1
                if n <= 0:
                    self.pvc_ref_counts.pop(k, None)
                else:
                    self.pvc_ref_counts[k] = n
        self.generation += 1
        if self.columns is not None:
            self.columns.refresh(self.index, self)

    def clone(self) -> NodeInfo:
        """An independent copy (NodeInfo.Snapshot), used by preemption's dry runs."""
        c = NodeInfo(self.node)
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = {k: set(v) for k, v in self.used_ports.items()}
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.image_states = self.image_states
        c.pvc_ref_counts = dict(self.pvc_ref_counts)
        c.generation = self.generation
        return c

    def port_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """HostPortInfo.CheckConflict: 0.0.0.0 conflicts with every IP on the same port."""
        ips = self.used_ports.get((protocol, port))
        if not ips:
            return False
        if ip == "0.0.0.0":
            return True
        return ip in ips or "0.0.0.0" in ips


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey: region and zone, beta labels first."""
    labels = node.labels
    zone = labels.get("failure-domain.beta.kubernetes.io/zone")
    if zone is None:
        zone = labels.get("topology.kubernetes.io/zone", "")
    region = labels.get("failure-domain.beta.kubernetes.io/region")
    if region is None:
        region = labels.get("topology.kubernetes.io/region", "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def zone_interleaved(nodes: Sequence[Node]) -> list[Node]:
    """The node tree's listing order: one node from each zone in turn, zones in first-seen order."""
    zones: dict[str, list[Node]] = {}
    for n in nodes:
        zones.setdefault(zone_key(n), []).append(n)
    out: list[Node] = []
    lists = list(zones.values())
    depth = max((len(v) for v in lists), default=0)
    for i in range(depth):
        for v in lists:
            if i < len(v):
                out.append(v[i])
    return out


class Snapshot:
    """The cluster state one cycle sees: NodeInfos in node-tree order and the listers' objects."""

    def __init__(self, node_infos: Sequence[NodeInfo], objects: ClusterObjects) -> None:
        self.node_info_list: list[NodeInfo] = list(node_infos)
        self.by_name: dict[str, NodeInfo] = {ni.node.name: ni for ni in self.node_info_list}
        self.objects = objects
        self.node_names: list[str] = [ni.node.name for ni in self.node_info_list]
        self.columns = NodeColumns(self.node_info_list)

    def get(self, name: str) -> NodeInfo | None:
        return self.by_name.get(name)

    def num_nodes(self) -> int:
        return len(self.node_info_list)

    def _live_columns(self) -> NodeColumns | None:
        """The columns, unless a newer snapshot of the same NodeInfos took them over."""
        infos = self.node_info_list
        return self.columns if infos and infos[0].columns is self.columns else None

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        infos = self.node_info_list
        cols = self._live_columns()
        if cols is None:
            return [ni for ni in infos if ni.pods_with_affinity]
        if not cols.affinity_pods:
            return []
        return [infos[i] for i in cols.num_affinity.nonzero()[0].tolist()]

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        infos = self.node_info_list
        cols = self._live_columns()
        if cols is None:
            return [ni for ni in infos if ni.pods_with_required_anti_affinity]
        if not cols.anti_affinity_pods:
            return []
        return [infos[i] for i in cols.num_anti_affinity.nonzero()[0].tolist()]

    def is_pvc_used_by_pods(self, key: str) -> bool:
        return any(key in ni.pvc_ref_counts for ni in self.node_info_list)

    def refresh_image_states(self, add_order: Sequence[NodeInfo] | None = None) -> None:
        """Recompute every node's image summaries (size, and on how many nodes it is).

        As in the scheduler cache, an image's size is the one reported by the first node
        (in the order nodes were added) that has it.
        """
        counts: dict[str, int] = {}
        sizes: dict[str, int] = {}
        for ni in add_order if add_order is not None else self.node_info_list:
            for img in ni.node.images:
                for name in img.names:
                    sizes.setdefault(name, img.size_bytes)
        for ni in self.node_info_list:
            seen: set[str] = set()
            for img in ni.node.images:
                for name in img.names:
                    if name not in seen:
                        seen.add(name)
                        counts[name] = counts.get(name, 0) + 1
        for ni in self.node_info_list:
            states: dict[str, ImageStateSummary] = {}
            for img in ni.node.images:
                for name in img.names:
                    states[name] = ImageStateSummary(sizes[name], counts[name])
            ni.image_states = states
        self.columns.has_images[:] = [bool(ni.image_states) for ni in self.node_info_list]
        self.columns.any_images = bool(self.columns.has_images.any())
        self.columns.caches.clear()  # values derived from the old image states


@dataclass(slots=True)
class NodeScore:
    name: str
    score: int


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """The node names PreFilter narrowed the cycle to; None means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


class NodeToStatus:
    """Per-node Filter statuses plus the status of every node not listed (upstream NodeToStatus)."""

    __slots__ = ("statuses", "absent")

    def __init__(self, statuses: Mapping[str, Status], absent: Status) -> None:
        self.statuses = statuses
        self.absent = absent

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def nodes_for_status_code(self, snapshot: Snapshot, code: int) -> list[NodeInfo]:
        """The nodes whose status has ``code``, in snapshot order."""
        found = (
            self.statuses
            if isinstance(self.statuses, Rejections)
            else Rejections(self.statuses)  # a dict (a PostFilter called directly)
        )
        infos = snapshot.node_info_list
        if self.absent.code == code:
            others = set(found.names_where(lambda st: st.code != code))
            if not others:
                return list(infos)
            return list(
                compress(infos, map(operator.not_, map(others.__contains__, snapshot.node_names)))
            )
        wanted = set(found.names_where(lambda st: st.code == code))
        if not wanted:
            return []
        return list(compress(infos, map(wanted.__contains__, snapshot.node_names)))


@dataclass(slots=True)
class Diagnosis:
    """Why a pod did not fit: per-node statuses, the plugins that rejected it, messages."""

    # Rejections (runs of names sharing a status, as Filter found them) or a plain dict.
    node_to_status: MutableMapping[str, Status] = field(default_factory=Rejections)
    absent_nodes_status: Status | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def statuses(self) -> NodeToStatus:
        """The per-node statuses PostFilter receives; a node not listed is unresolvable."""
        absent = self.absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        return NodeToStatus(self.node_to_status, absent)

    def add_plugin_status(self, status: Status) -> None:
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code == 6:  # Pending
            self.pending_plugins.add(status.plugin)


def fit_error_message(num_all_nodes: int, diagnosis: Diagnosis) -> str:
    """FitError.Error(): the reasons histogram, sorted, then PostFilter's message."""
    msg = f"0/{num_all_nodes} nodes are available:"
    if diagnosis.pre_filter_msg:
        msg += f" {diagnosis.pre_filter_msg}."
    else:
        reasons: dict[str, int] = {}
        # Nodes share a few Status values: count each value's nodes, then add its reasons once.
        statuses = diagnosis.node_to_status
        found = statuses if isinstance(statuses, Rejections) else Rejections(statuses)
        for status, nodes in found.counts():
            for reason in status.reasons:
                reasons[reason] = reasons.get(reason, 0) + nodes
        absent = num_all_nodes - len(diagnosis.node_to_status)
        if absent > 0 and diagnosis.absent_nodes_status is not None:
            for reason in diagnosis.absent_nodes_status.reasons:
                reasons[reason] = reasons.get(reason, 0) + absent
        histogram = sorted(f"{count} {reason}" for reason, count in reasons.items())
        if histogram:
            msg += " " + ", ".join(histogram) + "."
    if diagnosis.post_filter_msg:
        msg += f" {diagnosis.post_filter_msg}"
    return msg
