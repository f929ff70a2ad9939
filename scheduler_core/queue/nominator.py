"""The nominator: which pending pods are expected to land on which node after preemption.

Mirrors backend/queue/nominator.go of kube-scheduler v1.35. A pod is listed under at most one
node; re-nominating a pod moves it to the end of its node's list. Instead of asking the pod
lister whether the pod still exists and is unbound, the pod given is trusted: a bound pod
(``node_name`` set) is not nominated.
"""

from __future__ import annotations

from scheduler_core.objects.api import Pod


class Nominator:
    """Nominated node of each pod, and the pods nominated to each node in nomination order."""

    __slots__ = ("_by_node", "_node_of", "_pods")

    def __init__(self) -> None:
        self._by_node: dict[str, list[str]] = {}
        self._node_of: dict[str, str] = {}
        self._pods: dict[str, Pod] = {}

    def add(self, pod: Pod, node_name: str | None) -> None:
        """addNominatedPod. ``node_name`` None is the Noop mode: use the pod's own
        ``status.nominatedNodeName`` (nothing when empty); a string overrides it, even "".
        """
        self.delete(pod.uid)
        if node_name is None:
            if not pod.nominated_node_name:
                return
            node_name = pod.nominated_node_name
        if pod.node_name:
            return
        self._node_of[pod.uid] = node_name
        self._pods[pod.uid] = pod
        uids = self._by_node.setdefault(node_name, [])
        if pod.uid not in uids:
            uids.append(pod.uid)

    def update(self, old: Pod, new: Pod) -> None:
        """UpdateNominatedPod: keep a nomination the scheduler made when neither version of the
        pod carries one in its status; otherwise follow the new pod's status.
        """
        node: str | None = None
        if not old.nominated_node_name and not new.nominated_node_name:
            node = self._node_of.get(old.uid)
        self.delete(old.uid)
        self.add(new, node)

    def delete(self, uid: str) -> bool:
        """Forget the pod's nomination; False when it had none."""
        node = self._node_of.pop(uid, None)
        if node is None:
            return False
        self._pods.pop(uid, None)
        uids = self._by_node[node]
        uids.remove(uid)
        if not uids:
            del self._by_node[node]
        return True

    def node_of(self, uid: str) -> str | None:
        return self._node_of.get(uid)

    def node_names(self) -> frozenset[str]:
        """The nodes that have at least one nominated pod."""
        return frozenset(n for n, uids in self._by_node.items() if uids)

    def pods_for_node(self, node_name: str) -> list[Pod]:
        """The pods nominated to ``node_name``, in nomination order, as last given."""
        return [self._pods[uid] for uid in self._by_node.get(node_name, ())]
