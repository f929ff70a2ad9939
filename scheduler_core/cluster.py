"""The cluster the engine schedules into: nodes, their NodeInfos, running pods and other objects.

A small stand-in for the scheduler cache (backend/cache in kube-scheduler v1.35): pods are added
to their node's NodeInfo as they are bound or assumed, and each cycle gets a Snapshot listing the
NodeInfos in node-tree (zone-interleaved) order.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scheduler_core.api import ClusterObjects, Node, Pod
from scheduler_core.framework.types import NodeInfo, Snapshot, zone_interleaved


def apply_api_defaults(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Return a pod manifest with what the API server fills in on create.

    Requests default from limits where only limits are set, namespace ``default``,
    ``schedulerName: default-scheduler``, a UID, and the priority and preemption policy defaults.
    """
    pod: dict[str, Any] = copy.deepcopy(dict(raw))
    meta = pod.setdefault("metadata", {})
    meta.setdefault("namespace", "default")
    if not meta.get("namespace"):
        meta["namespace"] = "default"
    meta.setdefault("uid", f"uid-{meta['namespace']}-{meta.get('name', '')}")
    spec = pod.setdefault("spec", {})
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            res = c.get("resources")
            if not res or not res.get("limits"):
                continue
            reqs = res.setdefault("requests", {})
            if reqs is None:
                reqs = res["requests"] = {}
            for name, amount in res["limits"].items():
                reqs.setdefault(name, amount)
    return pod


class Cluster:
    """Nodes and the pods bound to them, kept as NodeInfos."""

    def __init__(
        self,
        nodes: Sequence[Node],
        pods: Iterable[Pod] = (),
        objects: ClusterObjects | None = None,
    ) -> None:
        self.objects = objects or ClusterObjects()
        infos = {n.name: NodeInfo(n) for n in nodes}
        self.node_infos: list[NodeInfo] = [infos[n.name] for n in zone_interleaved(nodes)]
        self.by_name: dict[str, NodeInfo] = infos
        self.pods: dict[str, Pod] = {}
        for pod in pods:
            self.add_pod(pod)
        self._snapshot = Snapshot(self.node_infos, self.objects)
        self._snapshot.refresh_image_states(list(infos.values()))

    def snapshot(self) -> Snapshot:
        return self._snapshot

    def add_pod(self, pod: Pod) -> None:
        """Add a pod bound to (or assumed on) pod.node_name; unknown nodes only record the pod."""
        self.pods[pod.uid] = pod
        ni = self.by_name.get(pod.node_name)
        if ni is not None:
            ni.add_pod(pod)

    def remove_pod(self, pod: Pod) -> None:
        old = self.pods.pop(pod.uid, None)
        if old is None:
            return
        ni = self.by_name.get(old.node_name)
        if ni is not None:
            ni.remove_pod(old)

    def bind(self, pod: Pod, node_name: str) -> Pod:
        """Return the pod as bound to node_name and add it to that node."""
        raw = copy.deepcopy(dict(pod.raw))
        raw.setdefault("spec", {})["nodeName"] = node_name
        status = raw.get("status")
        if isinstance(status, dict):
            status.pop("nominatedNodeName", None)
        bound = Pod(raw)
        self.remove_pod(pod)
        self.add_pod(bound)
        return bound
