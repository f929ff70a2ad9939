"""Run a case (conformance/FORMAT.md): a cluster, a configuration and a queue of pods.

Both the conformance trace and the bench command drive the engine through CaseRun, so they take
the same decisions, under the trace conventions' feature gates (``TRACE_FEATURES``, with any the
case's ``featureGates`` set): every queued pod gets one cycle in queue order with its profile,
every node is evaluated (unless the case sets ``sampling``: then percentageOfNodesToScore
applies), a tie goes to the first node by name, and a preemption is carried out at once (victims
deleted, the preemptor nominated) before the next cycle.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from scheduler_core.config import KubeSchedulerConfiguration, load_config
from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import Snapshot
from scheduler_core.loop.cluster import (
    Cluster,
    apply_api_defaults,
)
from scheduler_core.loop.cycle import (
    CycleRecord,
    CycleRunner,
    no_profile_note,
)
from scheduler_core.loop.sampling import StartIndex
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins import in_tree_registry
from scheduler_core.plugins.dynamic_resources.plugin import claim_summary, pod_claims
from scheduler_core.tools.gcpause import fewer_collections, with_collector_paused


def case_objects(case: Mapping[str, Any]) -> ClusterObjects:
    """The lister objects of a case (PVCs, PVs, classes, PDBs, owners, namespaces)."""
    return ClusterObjects.from_lists(
        pvcs=case.get("pvcs") or (),
        pvs=case.get("pvs") or (),
        storage_classes=case.get("storageClasses") or (),
        pdbs=case.get("pdbs") or (),
        services=case.get("services") or (),
        replica_sets=case.get("replicaSets") or (),
        stateful_sets=case.get("statefulSets") or (),
        replication_controllers=case.get("replicationControllers") or (),
        namespaces=case.get("namespaces") or (),
        csi_nodes=case.get("csiNodes") or (),
        resource_claims=case.get("resourceClaims") or (),
        resource_slices=case.get("resourceSlices") or (),
        device_classes=case.get("deviceClasses") or (),
        workloads=case.get("workloads") or (),
    )


class CycleObserver(Protocol):
    """What ``CaseRun.cycles`` calls after each scheduling cycle that ran a profile: the fields of
    an explanation's CycleContext, in its order (``explain.context.observing`` builds one)."""

    def __call__(
        self,
        cycle: int,
        pod: Pod,
        fwk: Framework,
        snapshot: Snapshot,
        state: CycleState,
        record: CycleRecord,
        nominated: Mapping[str, tuple[Pod, ...]],
        /,
    ) -> None: ...


class CaseRun:
    """The engine set up for one case; iterate ``cycles()`` to schedule its queue."""

    @with_collector_paused  # the set-up builds much and frees nothing, as Scheduler's
    def __init__(self, case: Mapping[str, Any], registry: Registry | None = None) -> None:
        self.case = case
        # The trace conventions' gates (synchronous preemption, no batching), with any the
        # case names set over them.
        self.features = Features.from_gates(case.get("featureGates"), TRACE_FEATURES)
        self.config: KubeSchedulerConfiguration = load_config(
            case.get("config"), features=self.features
        )
        self.registry = registry or in_tree_registry()
        nodes = [Node(raw) for raw in case.get("nodes") or ()]
        running = [Pod(apply_api_defaults(raw)) for raw in case.get("pods") or ()]
        self.cluster = Cluster(nodes, running, case_objects(case))
        self.nominated: dict[str, list[Pod]] = {}
        # Preemptions chosen in the current cycle, carried out once the cycle is over.
        self._preemptions: list[tuple[Pod, str, list[Pod]]] = []
        self.cpu_seconds = 0.0  # set by the bench command
        extras = {"cluster": self.cluster, "preemption_sink": self._preempt}
        self.runners: dict[str, CycleRunner] = {}
        sampling = bool(case.get("sampling"))
        start_index = StartIndex()  # one for every profile, as upstream's scheduler keeps
        for profile in self.config.profiles:
            fwk = Framework(
                profile,
                self.registry,
                nominator=self._nominated_for,
                nominated_nodes=self._nominated_nodes,
                extras=extras,
            )
            self.runners[profile.scheduler_name] = CycleRunner(
                fwk,
                percentage_of_nodes_to_score=self.config.percentage_of_nodes_to_score,
                evaluate_all_nodes=not sampling,
                start_index=start_index,
            )

    def _nominate(self, pod: Pod, node_name: str | None) -> None:
        """Record (or, with None, clear) the pod's nomination, as the queue's nominator does."""
        for pods in self.nominated.values():
            pods[:] = [p for p in pods if p.uid != pod.uid]
        if node_name:
            raw = dict(pod.raw)
            raw["status"] = {**(raw.get("status") or {}), "nominatedNodeName": node_name}
            self.nominated.setdefault(node_name, []).append(Pod(raw))

    def _nominated_nodes(self) -> frozenset[str]:
        return frozenset(name for name, pods in self.nominated.items() if pods)

    def _nominated_for(self, node_name: str) -> list[Pod]:
        return self.nominated.get(node_name, [])

    def _preempt(self, pod: Pod, node_name: str, victims: list[Pod]) -> str | None:
        """Note a preemption; cycles() carries it out as soon as the cycle ends.

        Nothing in the rest of the cycle reads the cluster, so this is the same as deleting
        the victims at once, and an observer of the cycle still sees what the cycle saw.
        """
        self._preemptions.append((pod, node_name, victims))
        return None

    def _carry_out_preemptions(self) -> None:
        """Victims go, the preemptor is nominated."""
        done, self._preemptions = self._preemptions, []
        for pod, node_name, victims in done:
            self._carry_out(pod, node_name, victims)

    def _carry_out(self, pod: Pod, node_name: str, victims: list[Pod]) -> None:
        gone = {v.uid for v in victims}
        for victim in victims:
            self.cluster.remove_pod(victim)
        for name, pods in self.nominated.items():
            keep = [p for p in pods if p.uid not in gone and p.uid != pod.uid]
            if name == node_name:
                # Lower-priority pods nominated to the same node lose their nomination.
                keep = [p for p in keep if p.priority >= pod.priority]
            pods[:] = keep
        self._nominate(pod, node_name)

    def _bind(self, pod: Pod, node_name: str) -> None:
        for pods in self.nominated.values():
            pods[:] = [p for p in pods if p.uid != pod.uid]
        self.cluster.bind(pod, node_name)

    @staticmethod
    def _reserve_and_pre_bind(fwk: Framework, state: CycleState, pod: Pod, node: str) -> Status:
        """Reserve, as the scheduling cycle does, then PreBind; Reserve's failure (after
        Unreserve) leaves the pod unplaced.

        Reserve is where VolumeBinding assumes its PV bindings, so later cycles see them.
        PreBind runs for what it writes (DynamicResources' allocations), but the traces keep
        an assumed pod placed whatever it answers: their scheduler runs no binding cycle.
        """
        status = fwk.run_reserve_plugins_reserve(state, pod, node)
        if status.is_success():
            fwk.run_pre_bind_plugins(state, pod, node)
            return status
        fwk.run_reserve_plugins_unreserve(state, pod, node)
        return status

    def _claims_after(self, pod: Pod, *, placed: bool) -> dict[str, Any]:
        """The trace's ``claims``: each claim of a placed pod as the API holds it now."""
        if not placed:
            return {}
        try:
            claims = pod_claims(self.cluster.objects.dra, pod)
        except ValueError:
            return {}
        return {c.key: claim_summary(c) for c in claims}

    def cycles(self, observe: CycleObserver | None = None) -> Iterator[tuple[Pod, CycleRecord]]:
        """Schedule each queued pod once, in order, yielding its cycle record.

        ``observe`` sees each cycle that ran a profile right after its scheduling cycle, before
        anything changes the cluster (preemption, Reserve, binding): the explanations' hook.
        """
        with fewer_collections():  # the collector held back while the cycles run (gcpause)
            yield from self._cycles(observe)

    def _cycles(self, observe: CycleObserver | None) -> Iterator[tuple[Pod, CycleRecord]]:
        queue = [Pod(apply_api_defaults(raw)) for raw in self.case.get("queue") or ()]
        # Pending pods that already carry a nomination are known to the nominator from the
        # moment they are queued: lower-or-equal priority pods see them on their node.
        for pod in queue:
            if pod.nominated_node_name:
                self._nominate(pod, pod.nominated_node_name)
        for number, pod in enumerate(queue, start=1):
            runner = self.runners.get(pod.scheduler_name)
            if runner is None:
                rec = CycleRecord(pod=pod.key, profile=None)
                rec.note = no_profile_note(pod.scheduler_name)
                yield pod, rec
                continue
            state = CycleState()
            nominated = {name: tuple(pods) for name, pods in self.nominated.items() if pods}
            snapshot = self.cluster.snapshot()
            rec = runner.schedule(snapshot, pod, state)
            if observe is not None:
                observe(number, pod, runner.fwk, snapshot, state, rec, nominated)
            self._carry_out_preemptions()
            if rec.selected is not None:
                reserved = self._reserve_and_pre_bind(runner.fwk, state, pod, rec.selected)
                if reserved.is_success():
                    self._bind(pod, rec.selected)
                else:  # the scheduling cycle fails with Reserve's error: nothing is placed
                    rec.selected, rec.error, rec.message = None, True, reserved.message()
                    self._nominate(pod, None)
            elif rec.selected is None and (rec.post_filter_status is None or rec.error):
                self._nominate(pod, None)  # no PostFilter ran: the nomination is cleared
            elif rec.post_filter is not None and not rec.post_filter.nominated_node_name:
                self._nominate(pod, None)
            if not self.cluster.objects.dra.empty():
                rec.claims = self._claims_after(pod, placed=rec.selected is not None)
            yield pod, rec
