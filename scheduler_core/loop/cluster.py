"""The cluster the engine schedules into: nodes, their NodeInfos, running pods and other objects.

A small stand-in for the scheduler cache (backend/cache in kube-scheduler v1.35): pods are added
to their node's NodeInfo as they are bound or assumed, and each cycle gets a Snapshot listing the
NodeInfos in node-tree (zone-interleaved) order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scheduler_core.framework.types import NodeInfo, Snapshot, zone_interleaved
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)


def apply_api_defaults(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Return a pod manifest with what the API server fills in on create.

    Requests default from limits where only limits are set, namespace ``default``,
    ``schedulerName: default-scheduler``, a UID, and the priority and preemption policy defaults.
    ``raw`` is left as it was: the parts this changes are copies, the rest is shared (nothing
    writes into a pod's manifest once it is parsed).
    """
    pod: dict[str, Any] = dict(raw)
    meta = pod["metadata"] = dict(pod.get("metadata") or {})
    if not meta.get("namespace"):
        meta["namespace"] = "default"
    meta.setdefault("uid", f"uid-{meta['namespace']}-{meta.get('name', '')}")
    spec = pod["spec"] = dict(pod.get("spec") or {})
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if containers:
            spec[key] = [_requests_from_limits(c) for c in containers]
    return pod


def _requests_from_limits(container: Mapping[str, Any]) -> Mapping[str, Any]:
    """The container with each limit that has no request as that request (a copy if changed)."""
    res = container.get("resources")
    if not res or not res.get("limits"):
        return container
    reqs = res.get("requests") or {}
    missing = {name: amount for name, amount in res["limits"].items() if name not in reqs}
    if not missing and res.get("requests") is not None:
        return container
    return {**container, "resources": {**res, "requests": {**reqs, **missing}}}


FIRST_SNAPSHOT = "every node"  # the change that opens Cluster.changes: nothing copied yet


class Cluster:
    """Nodes and the pods bound to them, kept as NodeInfos."""

    def __init__(
        self,
        nodes: Sequence[Node],
        pods: Iterable[Pod] = (),
        objects: ClusterObjects | None = None,
    ) -> None:
        self.objects = objects or ClusterObjects()
        self.by_name: dict[str, NodeInfo] = {n.name: NodeInfo(n) for n in nodes}
        self.node_infos: list[NodeInfo] = []
        self.pods: dict[str, Pod] = {}
        self.assumed: set[str] = set()
        # What changed in the cache since the last snapshot was taken, in order: (node, change,
        # pod key or ""). Upstream's UpdateSnapshot copies exactly the nodes these touched (their
        # NodeInfo generation is newer than the snapshot's); ``take_changes`` reads and clears it.
        self.changes: list[tuple[str, str, str]] = []
        self._rebuild()
        for pod in pods:
            self.add_pod(pod)
        self._snapshot_taken = False  # until then, the next snapshot copies every node

    def _rebuild(self) -> None:
        """Recompute the node-tree order and image summaries after nodes changed."""
        nodes = [ni.node for ni in self.by_name.values()]
        self.node_infos = [self.by_name[n.name] for n in zone_interleaved(nodes)]
        self._snapshot = Snapshot(self.node_infos, self.objects)
        self._snapshot.refresh_image_states(list(self.by_name.values()))

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def take_changes(self) -> list[tuple[str, str, str]]:
        """The cache's changes since the last call (see ``changes``); a pod removed and added
        again on the same node reads as one "pod updated" (or as what the update did, as "pod
        terminating" for a preemption's victim). The first call: every node."""
        if not self._snapshot_taken:
            self._snapshot_taken = True
            self.changes = []
            return [("", FIRST_SNAPSHOT, "")]
        out: list[tuple[str, str, str]] = []
        for node, change, pod in self.changes:
            if change.startswith("pod ") and out and out[-1] == (node, "pod removed", pod):
                # Removed and added again in one update: what the update made of it.
                out[-1] = (node, "pod updated" if change == "pod added" else change, pod)
            else:
                out.append((node, change, pod))
        self.changes = []
        return out

    def add_node(self, node: Node) -> None:
        """Add a node, or replace the one of the same name keeping its pods."""
        old = self.by_name.get(node.name)
        self.changes.append((node.name, "node updated" if old is not None else "node added", ""))
        ni = NodeInfo(node)
        self.by_name[node.name] = ni
        for pod in self.pods.values():
            if pod.node_name == node.name:
                ni.add_pod(pod)
        del old
        self._rebuild()

    def remove_node(self, name: str) -> None:
        """Remove a node; its pods stay known (as in the cache) until they are deleted."""
        if self.by_name.pop(name, None) is not None:
            self.changes.append((name, "node removed", ""))
            self._rebuild()

    def assume(self, pod: Pod, node_name: str) -> Pod:
        """Place a pod on a node before binding finishes (Cache.AssumePod)."""
        bound = self.bind(pod, node_name, change="pod assumed")
        self.assumed.add(bound.uid)
        return bound

    def finish_binding(self, pod: Pod) -> None:
        """The bound pod confirmed by the informer (Cache.AddPod of an assumed pod): upstream
        updates it on its node, so the next snapshot copies that node again."""
        if pod.uid in self.assumed and pod.node_name in self.by_name:
            self.changes.append((pod.node_name, "pod confirmed", pod.key))
        self.assumed.discard(pod.uid)

    def forget(self, pod: Pod) -> None:
        """Undo an assume (Cache.ForgetPod)."""
        self.assumed.discard(pod.uid)
        self.remove_pod(pod, change="pod forgotten")

    def add_pod(self, pod: Pod, *, change: str = "pod added") -> None:
        """Add a pod bound to (or assumed on) pod.node_name; unknown nodes only record the pod."""
        self.pods[pod.uid] = pod
        ni = self.by_name.get(pod.node_name)
        if ni is not None:
            ni.add_pod(pod)
            self.changes.append((ni.node.name, change, pod.key))

    def remove_pod(self, pod: Pod, *, change: str = "pod removed") -> None:
        old = self.pods.pop(pod.uid, None)
        if old is None:
            return
        ni = self.by_name.get(old.node_name)
        if ni is not None:
            ni.remove_pod(old)
            self.changes.append((ni.node.name, change, old.key))

    def bind(self, pod: Pod, node_name: str, *, change: str = "pod added") -> Pod:
        """Return the pod as bound to node_name and add it to that node."""
        bound = bound_to(pod, node_name)
        self.remove_pod(pod)
        self.add_pod(bound, change=change)
        return bound


def bound_to(pod: Pod, node_name: str) -> Pod:
    """The pod as the API returns it once bound: ``spec.nodeName`` set, no nomination.

    A copy of the parsed pod with only those fields (and the manifest's path to them) new:
    nothing else about a pod changes on binding, so nothing else is parsed again.
    """
    raw = dict(pod.raw)
    raw["spec"] = {**(raw.get("spec") or {}), "nodeName": node_name}
    status = raw.get("status")
    if isinstance(status, dict) and "nominatedNodeName" in status:
        raw["status"] = {k: v for k, v in status.items() if k != "nominatedNodeName"}
    bound = object.__new__(type(pod))  # copy.copy, without its generic protocol's cost
    bound.__dict__.update(pod.__dict__)
    bound.raw = raw
    bound.node_name = node_name
    bound.nominated_node_name = ""
    return bound


KIND_LISTS: dict[str, str] = {
    "PersistentVolumeClaim": "pvcs",
    "PersistentVolume": "pvs",
    "StorageClass": "storage_classes",
    "PodDisruptionBudget": "pdbs",
    "Service": "services",
    "ReplicaSet": "replica_sets",
    "StatefulSet": "stateful_sets",
    "ReplicationController": "replication_controllers",
    "Namespace": "namespaces",
    "CSINode": "csi_nodes",
    "ResourceClaim": "resource_claims",
    "ResourceSlice": "resource_slices",
    "DeviceClass": "device_classes",
    "Workload": "workloads",
}


def split_manifests(
    objects: Iterable[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]], dict[str, list[Mapping[str, Any]]]]:
    """Split manifests (``List`` items flattened) into nodes, pods and the other kinds."""
    nodes: list[Mapping[str, Any]] = []
    pods: list[Mapping[str, Any]] = []
    other: dict[str, list[Mapping[str, Any]]] = {}
    stack = list(objects)
    stack.reverse()
    while stack:
        obj = stack.pop()
        kind = obj.get("kind", "")
        if kind == "List" or kind.endswith("List") and "items" in obj:
            stack.extend(reversed(list(obj.get("items") or ())))
        elif kind == "Node":
            nodes.append(obj)
        elif kind == "Pod":
            pods.append(obj)
        elif kind in KIND_LISTS:
            other.setdefault(KIND_LISTS[kind], []).append(obj)
    return nodes, pods, other
