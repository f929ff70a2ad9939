"""Opportunistic batching: a pod like the previous one takes the next node of its ranking.

Mirrors framework/runtime/batch.go (OpportunisticBatch) and the SignPod methods of the Filter and
Score plugins in kube-scheduler v1.35 (framework.go's SignPod joins them). A scored cycle keeps
its ranking of the feasible nodes; when the very next cycle's pod has the same signature, the
previous cycle succeeded and the node it chose now rejects the new pod, the new pod is offered
the next node of that ranking (the hint). The signers are kept here by plugin name, beside the
one place that reads them: a plugin this table does not know (a custom or out-of-tree one)
cannot sign, so its profile never batches, as upstream disables signatures for such a profile.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.types import Snapshot
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.plugins.image_locality import normalized_image_name

Signature = str
# A plugin's fragments of a pod's signature, or None when it cannot sign the pod.
_Signer = Callable[[Any, Pod], Mapping[str, Any] | None]


def _resources(_: Any, pod: Pod) -> Mapping[str, Any]:
    return {"resources": sorted(pod.requests.items())}


def _volumes(_: Any, pod: Pod) -> Mapping[str, Any]:
    return {"volumes": list(pod.volumes)}


def _node_affinity(_: Any, pod: Pod) -> Mapping[str, Any]:
    spec = pod.raw.get("spec") or {}
    affinity = (spec.get("affinity") or {}).get("nodeAffinity")
    return {"nodeAffinity": affinity, "nodeSelector": spec.get("nodeSelector")}


def _tolerations(_: Any, pod: Pod) -> Mapping[str, Any]:
    return {"tolerations": (pod.raw.get("spec") or {}).get("tolerations")}


def _host_ports(_: Any, pod: Pod) -> Mapping[str, Any]:
    ports = [
        (p.get("hostIP", ""), p.get("protocol", "TCP"), p.get("hostPort"))
        for c in (pod.raw.get("spec") or {}).get("containers") or ()
        for p in c.get("ports") or ()
        if p.get("hostPort")
    ]
    return {"hostPorts": sorted(ports, key=str)}


def _images(_: Any, pod: Pod) -> Mapping[str, Any]:
    return {"imageNames": sorted({normalized_image_name(i) for i in pod.images()})}


def _node_name(_: Any, pod: Pod) -> Mapping[str, Any]:
    return {"nodeName": pod.node_name}


def _inter_pod_affinity(plugin: Any, pod: Pod) -> Mapping[str, Any] | None:
    affinity = (pod.raw.get("spec") or {}).get("affinity") or {}
    if affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
        return None
    if getattr(plugin, "ignore_preferred_terms_of_existing_pods", False):
        return {}
    return {"labels": dict(pod.labels)}


def _topology_spread(plugin: Any, pod: Pod) -> Mapping[str, Any] | None:
    if pod.topology_spread_constraints or getattr(plugin, "default_constraints", ()):
        return None
    return {}


def _claims(_: Any, pod: Pod) -> Mapping[str, Any] | None:
    return None if (pod.raw.get("spec") or {}).get("resourceClaims") else {}


_SIGNERS: Final[Mapping[str, _Signer]] = {
    names.NODE_RESOURCES_FIT: _resources,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: _resources,
    names.NODE_AFFINITY: _node_affinity,
    names.TAINT_TOLERATION: _tolerations,
    names.NODE_UNSCHEDULABLE: _tolerations,
    names.NODE_PORTS: _host_ports,
    names.IMAGE_LOCALITY: _images,
    names.NODE_NAME: _node_name,
    names.INTER_POD_AFFINITY: _inter_pod_affinity,
    names.POD_TOPOLOGY_SPREAD: _topology_spread,
    names.DYNAMIC_RESOURCES: _claims,
    names.VOLUME_BINDING: _volumes,
    names.VOLUME_RESTRICTIONS: _volumes,
    names.NODE_VOLUME_LIMITS: _volumes,
    names.VOLUME_ZONE: _volumes,
}


def sign_pod(fwk: Framework, pod: Pod) -> Signature | None:
    """The pod's signature under the profile's Filter and Score plugins; None when one of them
    cannot sign it (two pods with one signature get the same verdicts and scores)."""
    fragments: dict[str, Any] = {"schedulerName": pod.scheduler_name}
    seen: set[str] = set()
    for plugin in [*fwk.filter_plugins, *fwk.score_plugins]:
        if plugin.name in seen:
            continue
        seen.add(plugin.name)
        signer = _SIGNERS.get(plugin.name)
        if signer is None:
            return None
        part = signer(plugin, pod)
        if part is None:
            return None
        fragments.update(part)
    return json.dumps(fragments, sort_keys=True, default=str)


@dataclass(slots=True)
class _Batch:
    signature: Signature
    totals: Mapping[str, int]  # the scored nodes' totals
    chosen: str
    # The rest of the ranking, best first: sorted when first asked (most batches never are).
    ranking: list[str] | None = None

    def next_node(self) -> str:
        if self.ranking is None:
            self.ranking = ranking_after(self.totals, self.chosen)
        return self.ranking.pop(0) if self.ranking else ""


class OpportunisticBatch:
    """One profile's batch state: the last ranking and the cycle that chose from it."""

    def __init__(self, fwk: Framework, current_cycle: Callable[[], int]) -> None:
        """``current_cycle`` reads the scheduler's count of scheduling cycles (upstream's
        CurrentCycle), which tells whether the previous cycle was this profile's."""
        self.fwk = fwk
        self._current_cycle = current_cycle
        self._batch: _Batch | None = None
        self._last_cycle = -1
        self._last_chosen = ""
        self.batched_pods = 0  # pods placed on a hint (informative)

    def expire(self) -> None:
        """The loop went quiet: the state is older than upstream's maxBatchAge (500 ms)."""
        self._batch = None

    def node_hint(
        self, state: CycleState, pod: Pod, snapshot: Snapshot
    ) -> tuple[str, Signature | None]:
        """GetNodeHint, after PreFilter: the next node of the ranking (taken off it) when the
        state fits this pod, else ""; and the pod's signature."""
        signature = sign_pod(self.fwk, pod)
        batch = self._batch
        if batch is None or batch.ranking == [] or self._current_cycle() != self._last_cycle + 1:
            return "", signature
        if signature is None or signature != batch.signature:
            return "", signature
        chosen = snapshot.get(self._last_chosen)
        if chosen is None:
            return "", signature
        # Only when the last chosen node is full for this pod is the next one the best.
        if not self.fwk.run_filter_plugins(state, pod, chosen).is_rejected():
            return "", signature
        return batch.next_node(), signature

    def store(
        self,
        signature: Signature | None,
        hint: str,
        chosen: str,
        totals: Mapping[str, int] | None,
    ) -> None:
        """StoreScheduleResults: the cycle succeeded on ``chosen``; ``totals`` are the scored
        nodes' totals (None when there was no scoring), ranked after ``chosen`` when used."""
        self._last_cycle = self._current_cycle()
        self._last_chosen = chosen
        if hint and hint == chosen:
            self.batched_pods += 1
            return
        if signature is not None and totals is not None and len(totals) > 1:
            self._batch = _Batch(signature, totals, chosen)
        else:
            self._batch = None


def ranking_after(totals: Mapping[str, int], selected: str) -> list[str]:
    """The scored nodes best first, without the selected one (upstream's sorted node scores
    after their first Pop)."""
    ordered = sorted(totals, key=lambda n: (-totals[n], n))
    return [n for n in ordered if n != selected]
