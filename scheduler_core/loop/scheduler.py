"""Scheduler: the scheduling loop of kube-scheduler v1.35, observable event by event.

Mirrors pkg/scheduler/schedule_one.go (ScheduleOne, schedulingCycle, bindingCycle,
handleSchedulingFailure, handleBindingCycleError) and the event handlers that feed the queue.
Everything runs on one thread and one clock: with a SimulatedClock runs are instant and
deterministic (backoffs and Permit timeouts advance virtual time); with a RealClock the loop
can be driven interactively.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scheduler_core.clock import Clock, SimulatedClock, go_duration
from scheduler_core.config import KubeSchedulerConfiguration, NodeResourcesFitArgs, load_config
from scheduler_core.extenders.extender import (
    EXTENDER_NAME,
    ExtenderError,
    bind_with_extenders,
    extenders_from_config,
    ignored_extended_resources,
)
from scheduler_core.extenders.policy import ExtenderPolicy
from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.framework.binding_points import Steps
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.loop.batching import OpportunisticBatch
from scheduler_core.loop.cluster import (
    Cluster,
    split_manifests,
)
from scheduler_core.loop.cycle import (
    CycleRecord,
    CycleRunner,
    no_profile_note,
)
from scheduler_core.loop.node_changes import NodeChanges
from scheduler_core.loop.pod_changes import Outcome, PodChanges, with_nomination
from scheduler_core.loop.pod_groups import PodGroups
from scheduler_core.loop.sampling import StartIndex
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins import in_tree_registry
from scheduler_core.plugins.dynamic_resources.plugin import (
    claim_summary,
    device_matches,
    has_claims,
    pod_claims,
)
from scheduler_core.queue import (
    EVENT_ASSIGNED_POD_DELETE,
    ClusterEvent,
    QueuedPodInfo,
    SchedulingQueue,
)
from scheduler_core.record.cycle_events import (
    cycle_event_count,
    cycle_events,
)
from scheduler_core.record.events import (
    Backoff,
    Bind,
    Delete,
    DeviceAllocation,
    Enqueue,
    Event,
    MoveToActive,
    Nominate,
    Permit,
    Pop,
    PostBind,
    PreBind,
    QueueEvent,
    Reserve,
    StayUnschedulable,
    Unreserve,
    Unschedulable,
)
from scheduler_core.tools.gcpause import fewer_collections, with_collector_paused

__all__ = ["Outcome", "Scheduler", "WaitingPod"]

_QUEUE_EVENTS: dict[str, type[QueueEvent]] = {
    "Enqueue": Enqueue,
    "Pop": Pop,
    "Backoff": Backoff,
    "Unschedulable": Unschedulable,
    "MoveToActive": MoveToActive,
    "StayUnschedulable": StayUnschedulable,
    "Nominate": Nominate,
    "Delete": Delete,
}


@dataclass(slots=True)
class WaitingPod:
    """A pod whose binding cycle waits at Permit for the plugins in ``pending``."""

    qpi: QueuedPodInfo
    pod: Pod  # as assumed on the node
    node: str
    fwk: Framework
    state: CycleState
    cycle: int
    pending: dict[str, float]  # plugin -> deadline on the run's clock
    timeouts: dict[str, float]
    rejected: Status | None = None

    @property
    def deadline(self) -> float:
        return min(self.pending.values()) if self.pending else float("inf")


class Scheduler(NodeChanges, PodChanges, PodGroups):
    """The scheduling loop over a cluster: queue, cache, frameworks and binding cycle.

    ``cluster`` is a sequence of Kubernetes manifests (Nodes, Pods — pending ones are queued —,
    and the other kinds the plugins read). ``on_event`` receives every event as it happens;
    with ``on_cycle``, a scheduling cycle's events are not built: ``on_cycle(record, cycle,
    time, seq)`` gets the cycle's record instead (``seq``: its first event's number, the cycle
    taking ``cycle_event_count(record)`` of them; ``cycle_events`` would give its events), and
    ``on_event`` gets the other events.
    ``extender_policy`` says which hosts the configured extenders may reach (public ones only
    by default). ``features`` are the feature gates: ``Features()`` is v1.35's defaults; the
    default here, ``TRACE_FEATURES``, keeps preemption synchronous and batching off, as the
    playground's runs and lessons still assume.
    """

    @with_collector_paused  # the set-up builds much and frees nothing
    def __init__(
        self,
        config: KubeSchedulerConfiguration | Mapping[str, Any] | str | None = None,
        cluster: Iterable[Mapping[str, Any]] = (),
        *,
        clock: Clock | None = None,
        on_event: Callable[[Event], None] | None = None,
        on_cycle: Callable[[CycleRecord, int, float, int], None] | None = None,
        registry: Registry | None = None,
        extenders: Sequence[Any] | None = None,
        extender_policy: ExtenderPolicy | None = None,
        evaluate_all_nodes: bool = False,
        plugin_events: Mapping[str, Sequence[ClusterEvent]] | None = None,
        filter_rows: bool = True,
        objects: ClusterObjects | None = None,
        features: Features = TRACE_FEATURES,
        unschedulable_timeout_seconds: float | None = None,
    ) -> None:
        self.config = (
            config if isinstance(config, KubeSchedulerConfiguration) else load_config(config)
        )
        self.clock: Clock = clock if clock is not None else SimulatedClock()
        self.on_event = on_event
        self.on_cycle = on_cycle
        self.filter_rows = filter_rows
        self.registry = registry or in_tree_registry()
        self.extenders = (
            list(extenders)
            if extenders is not None
            else extenders_from_config(self.config, extender_policy)
        )
        self.config = _with_extender_ignored_resources(self.config)
        self.seq = 0
        self.cycle = 0
        self.profile_cycles = 0  # cycles that ran a profile (upstream's SchedulingCycle count)
        self.outcomes: dict[str, Outcome] = {}
        self.waiting: dict[str, WaitingPod] = {}
        self.events: list[Event] | None = None
        self.pending: dict[str, Pod] = {}  # namespace/name -> pod not bound yet
        self._init_pod_changes()
        self._group_deadlines = {}
        self.features = features
        node_raws, pod_raws, other = split_manifests(cluster)
        if objects is None:
            objects = ClusterObjects.from_lists(**other)
        self.cluster = Cluster([Node(n) for n in node_raws], (), objects)
        extras = {"cluster": self.cluster, "preemption_sink": self._preempt}
        self.frameworks: dict[str, Framework] = {}
        self.runners: dict[str, CycleRunner] = {}
        self.start_index = StartIndex()  # upstream's nextStartNodeIndex, shared by the profiles
        for profile in self.config.profiles:
            fwk = Framework(
                profile,
                self.registry,
                nominator=self._nominated_for,
                nominated_nodes=self._nominated_nodes,
                extras=dict(extras),
            )
            # The handle's waiting-pod access (upstream GetWaitingPod/RejectWaitingPod): plugins
            # reach waiting_pods(), allow_waiting_pod() and reject_waiting_pod() through it.
            fwk.extras["waiting_pods"] = self
            fwk.extras["pod_groups"] = self  # GangScheduling's workload manager
            self.frameworks[profile.scheduler_name] = fwk
            fwk.extras["extenders"] = self.extenders
            self.runners[profile.scheduler_name] = CycleRunner(
                fwk,
                percentage_of_nodes_to_score=self.config.percentage_of_nodes_to_score,
                evaluate_all_nodes=evaluate_all_nodes,
                start_index=self.start_index,
                extenders=self.extenders,
            )
            if features.opportunistic_batching:
                runner = self.runners[profile.scheduler_name]
                runner.batch = OpportunisticBatch(fwk, lambda: self.profile_cycles)
        extra_events = dict(plugin_events or {})
        profile_hints = {name: fwk.queueing_hints() for name, fwk in self.frameworks.items()}
        # For a pod of no profile, a plugin's events as the first profile that has it states them.
        all_profiles: dict[str, tuple[Any, ...]] = {}
        for hints in profile_hints.values():
            for plugin, registered in hints.items():
                all_profiles.setdefault(plugin, registered)
        first = next(iter(self.frameworks.values()))
        sort_plugin = first.queue_sort_plugins[0]
        self.queue = SchedulingQueue(
            clock=self.clock,
            less=sort_plugin.less,
            pre_enqueue=self._pre_enqueue,
            pod_initial_backoff_seconds=float(self.config.pod_initial_backoff_seconds),
            pod_max_backoff_seconds=float(self.config.pod_max_backoff_seconds),
            # Out-of-tree plugins declare the cluster events that can make their rejections
            # schedulable (upstream's EventsToRegister); unknown plugins requeue on any event.
            events_of_interest={**all_profiles, **extra_events},
            # Each profile's plugins bring their queueing hints (EventsToRegister).
            profile_events={
                name: {**hints, **extra_events} for name, hints in profile_hints.items()
            },
            on_event=self._queue_event,
            pop_from_backoff=features.scheduler_pop_from_backoff_q,
            **(
                {"pod_max_in_unschedulable_pods_seconds": unschedulable_timeout_seconds}
                if unschedulable_timeout_seconds is not None
                else {}
            ),
        )
        for raw in pod_raws:
            self.add_pod(raw)

    # -- events ---------------------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        self.seq = event.seq + 1
        if self.events is not None:
            self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def _make(self, cls: type[Event], pod: str, **kw: Any) -> None:
        self._emit(cls(seq=self.seq, cycle=self.cycle, pod=pod, time=self.clock.now(), **kw))

    def _queue_event(self, kind: str, pod: Pod, details: dict[str, Any]) -> None:
        cls = _QUEUE_EVENTS.get(kind)
        if cls is not None:
            self._make(cls, pod.key, details=dict(details))

    # -- helpers for plugins --------------------------------------------------------------------

    def _pre_enqueue(self, pod: Pod) -> Status:
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:
            return Status()
        return fwk.run_pre_enqueue_plugins(pod)

    def _nominated_nodes(self) -> frozenset[str]:
        return self.queue.nominated_node_names()

    def _nominated_for(self, node_name: str) -> list[Pod]:
        return self.queue.nominated_pods_for_node(node_name)

    # -- the loop -------------------------------------------------------------------------------

    def schedule_one(self) -> bool:
        """Pop one pod and run its scheduling cycle (and binding cycle unless it waits).

        Returns False when the active queue is empty.
        """
        self.queue.flush()
        qpi = self.queue.pop()
        if qpi is None:
            self._expire_batches()
            return False
        self.cycle += 1
        pod = qpi.pod
        outcome = self.outcomes.setdefault(pod.key, Outcome())
        outcome.attempts += 1
        runner = self.runners.get(pod.scheduler_name)
        if runner is None:
            rec = CycleRecord(pod=pod.key, profile=None)
            rec.note = no_profile_note(pod.scheduler_name)
            self._emit_cycle(rec)
            self.queue.done(pod.uid)
            return True
        # Upstream never queues a pod no profile is responsible for: its cycles are not counted.
        self.profile_cycles += 1
        fwk = runner.fwk
        state = CycleState()
        changes = self.cluster.take_changes()  # what UpdateSnapshot copies for this cycle
        rec = runner.schedule(self.cluster.snapshot(), pod, state)
        rec.snapshot_changes = changes
        if has_claims(pod):
            rec.device_matches = device_matches(state, self.cluster.snapshot().node_info_list)
        self._emit_cycle(rec)
        if rec.selected is None:
            self._handle_scheduling_failure(qpi, rec)
            return True
        node = rec.selected
        assumed = self.cluster.assume(pod, node)
        steps: Steps = []
        status = fwk.run_reserve_plugins_reserve(state, assumed, node, steps)
        self._emit_steps(Reserve, pod.key, node, steps)
        if not status.is_success():
            self._unreserve_and_forget(fwk, state, assumed, node)
            self._fail(qpi, status, node)
            return True
        steps = []
        status, waits = fwk.run_permit_plugins(state, assumed, node, steps)
        self._emit_steps(Permit, pod.key, node, steps)
        if status.code == Code.WAIT:
            now = self.clock.now()
            self.waiting[pod.uid] = WaitingPod(
                qpi,
                assumed,
                node,
                fwk,
                state,
                self.cycle,
                {name: now + t for name, t in waits.items()},
                dict(waits),
            )
            return True
        if not status.is_success():
            self._unreserve_and_forget(fwk, state, assumed, node)
            self._fail(qpi, status, node)
            return True
        self._binding_cycle(qpi, fwk, state, assumed, node)
        return True

    def _expire_batches(self) -> None:
        """The loop is quiet: every batch's ranking is too old to reuse."""
        for runner in self.runners.values():
            if runner.batch is not None:
                runner.batch.expire()

    def _emit_cycle(self, rec: CycleRecord) -> None:
        if self.on_cycle is not None:
            # The listener takes the record itself: its events are numbered, not built.
            self.on_cycle(rec, self.cycle, self.clock.now(), self.seq)
            self.seq += cycle_event_count(rec)
            return
        if self.on_event is None and self.events is None:
            self.seq += cycle_event_count(rec)  # nobody listens: number the events, build none
            return
        events = cycle_events(
            rec,
            cycle=self.cycle,
            time=self.clock.now(),
            seq=self.seq,
            filter_rows=self.filter_rows,
        )
        for ev in events:
            self._emit(ev)

    def _emit_steps(self, cls: type[Event], pod: str, node: str, steps: Steps) -> None:
        for name, st, timeout in steps:
            kw: dict[str, Any] = {
                "plugin": name,
                "node": node,
                "code": st.code.upstream,
                "reasons": st.reasons,
            }
            if cls is Permit:
                kw["timeout"] = timeout
            self._make(cls, pod, **kw)

    def _binding_cycle(
        self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState, pod: Pod, node: str
    ) -> None:
        steps: Steps = []
        status = fwk.run_pre_bind_plugins(state, pod, node, steps)
        self._emit_steps(PreBind, pod.key, node, steps)
        if status.is_success():
            steps = []
            status = self._bind(fwk, state, pod, node, steps)
            self._emit_steps(Bind, pod.key, node, steps)
        if not status.is_success():
            self._unreserve_and_forget(fwk, state, pod, node)
            # Pods that were waiting for room this one took may fit again.
            self.queue.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, old=pod)
            self._fail(qpi, status, node)
            return
        self.cluster.finish_binding(pod)
        if has_claims(pod):
            self._emit_allocation(pod)
        self.queue.delete_nominated_pod_if_exists(pod)
        steps = []
        fwk.run_post_bind_plugins(state, pod, node, steps)
        self._emit_steps(PostBind, pod.key, node, steps)
        outcome = self.outcomes.setdefault(pod.key, Outcome())
        outcome.node = node
        outcome.message = None
        outcome.nominated_node = None
        self.pending.pop(pod.key, None)
        self.queue.done(pod.uid)
        self.queue.assigned_pod_added(pod)

    def _emit_allocation(self, pod: Pod) -> None:
        """DRA: the pod's claims as PreBind left them (allocation and reservation)."""
        try:
            claims = pod_claims(self.cluster.objects.dra, pod)
        except ValueError:
            return
        self._make(DeviceAllocation, pod.key, claims={c.key: claim_summary(c) for c in claims})

    def _bind(self, fwk: Framework, state: CycleState, pod: Pod, node: str, steps: Steps) -> Status:
        """An interested binder extender binds the pod; otherwise the Bind plugins do."""
        try:
            if bind_with_extenders(self.extenders, pod, node):
                steps.append((EXTENDER_NAME, Status(), None))
                return Status()
        except ExtenderError as err:
            status = Status(Code.ERROR, (str(err),), EXTENDER_NAME)
            steps.append((EXTENDER_NAME, status, None))
            return status
        return fwk.run_bind_plugins(state, pod, node, steps)

    def _unreserve_and_forget(self, fwk: Framework, state: CycleState, pod: Pod, node: str) -> None:
        steps: Steps = []
        fwk.run_reserve_plugins_unreserve(state, pod, node, steps)
        self._emit_steps(Unreserve, pod.key, node, steps)
        self.cluster.forget(pod)

    def _fail(self, qpi: QueuedPodInfo, status: Status, node: str) -> None:
        """A rejection or error after a node was chosen: requeue as upstream's FailureHandler."""
        outcome = self.outcomes.setdefault(qpi.pod.key, Outcome())
        if status.is_rejected():
            outcome.message = f"0/1 nodes are available: 1 {status.message()}."
            outcome.reason = "Unschedulable"
            qpi.unschedulable_plugins = {status.plugin} if status.plugin else set()
        else:
            outcome.message = status.message()
            outcome.reason = "SchedulerError"
            qpi.unschedulable_plugins = set()
        self._clear_nomination(qpi)
        self.queue.add_unschedulable_if_not_present(qpi, self.cycle)

    def _handle_scheduling_failure(self, qpi: QueuedPodInfo, rec: CycleRecord) -> None:
        outcome = self.outcomes.setdefault(qpi.pod.key, Outcome())
        outcome.message = rec.message
        outcome.reason = "SchedulerError" if rec.error else "Unschedulable"
        diagnosis = rec.diagnosis
        if rec.error or diagnosis is None:
            qpi.unschedulable_plugins = set()
        else:
            qpi.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
            qpi.pending_plugins = set(diagnosis.pending_plugins)
        nominated: str | None = None
        if rec.post_filter is not None:
            nominated = rec.post_filter.nominated_node_name or None
        if nominated:
            qpi.pod = with_nomination(qpi.pod, nominated)
            self.queue.add_nominated_pod(qpi.pod, nominated)
            outcome.nominated_node = nominated
        elif rec.post_filter is not None or rec.post_filter_status is None or rec.error:
            # Only a PostFilter that ran and gave no result leaves the nomination as it was.
            self._clear_nomination(qpi)
        self.queue.add_unschedulable_if_not_present(qpi, self.cycle)

    # -- Permit: waiting pods -------------------------------------------------------------------

    def waiting_pods(self) -> list[WaitingPod]:
        return list(self.waiting.values())

    def waiting_by_key(self, key: str) -> WaitingPod | None:
        return next((wp for wp in self.waiting.values() if wp.pod.key == key), None)

    def allow_waiting_pod(self, key: str, plugin: str | None = None) -> bool:
        """Allow a pod waiting at Permit (one plugin, or every pending plugin)."""
        wp = self.waiting_by_key(key)
        if wp is None:
            return False
        for name in [plugin] if plugin else list(wp.pending):
            if name in wp.pending:
                del wp.pending[name]
                self._make(
                    Permit, key, plugin=name, node=wp.node, code="Success", reasons=("allowed",)
                )
        self._resume_waiting()
        return True

    def reject_waiting_pod(self, key: str, plugin: str, message: str) -> bool:
        wp = self.waiting_by_key(key)
        if wp is None:
            return False
        wp.rejected = Status(Code.UNSCHEDULABLE, (message,), plugin)
        self._make(
            Permit, key, plugin=plugin, node=wp.node, code="Unschedulable", reasons=(message,)
        )
        self._resume_waiting()
        return True

    def _expire_waiting(self) -> None:
        now = self.clock.now()
        for wp in list(self.waiting.values()):
            if wp.rejected is None and wp.pending and wp.deadline <= now:
                plugin = min(wp.pending, key=lambda n: (wp.pending[n], n))
                wait = go_duration(wp.timeouts[plugin])
                self.reject_waiting_pod(
                    wp.pod.key,
                    plugin,
                    f"rejected due to timeout after waiting {wait} at plugin {plugin}",
                )

    def _resume_waiting(self) -> None:
        for uid, wp in list(self.waiting.items()):
            if wp.rejected is not None:
                del self.waiting[uid]
                self._unreserve_and_forget(wp.fwk, wp.state, wp.pod, wp.node)
                self.queue.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, old=wp.pod)
                self._fail(wp.qpi, wp.rejected, wp.node)
            elif not wp.pending:
                del self.waiting[uid]
                self._binding_cycle(wp.qpi, wp.fwk, wp.state, wp.pod, wp.node)

    # -- driving --------------------------------------------------------------------------------

    def next_wakeup(self) -> float | None:
        times = [wp.deadline for wp in self.waiting.values() if wp.pending]
        q = self.queue.next_wakeup()
        if q is not None:
            times.append(q)
        return min(times) if times else None

    def run_until_idle(self, *, max_cycles: int | None = None, until: float | None = None) -> int:
        """Schedule until nothing can happen without outside input; returns cycles run.

        Whenever the loop is quiet, the first victim still terminating is removed. With a
        simulated clock, time jumps to the next backoff expiry or Permit timeout. Pods
        left unschedulable are retried only when the cluster changes (or by the 5-minute
        leftover flush when ``until`` allows that much time to pass).
        """
        with fewer_collections():
            return self._run(max_cycles, until)

    def _run(self, max_cycles: int | None, until: float | None) -> int:
        limit = max_cycles if max_cycles is not None else 50 * (len(self.outcomes) + 10)
        ran = 0
        while ran < limit:
            self._expire_waiting()
            if self.schedule_one():
                ran += 1
                continue
            if self.finish_next_termination():
                # Quiet: a victim's kubelet is done with it (graceful deletion).
                continue
            wake = self.next_wakeup()
            if wake is None or not isinstance(self.clock, SimulatedClock):
                break
            only_leftovers = not self.waiting and not self.queue.pending_pods().get("backoff")
            if only_leftovers and (until is None or wake > until):
                break
            if until is not None and wake > until:
                break
            if wake > self.clock.now():
                self.clock.set(wake)
        return ran

    # -- results --------------------------------------------------------------------------------

    def placements(self) -> dict[str, str | None]:
        return {key: o.node for key, o in self.outcomes.items()}


def _with_extender_ignored_resources(
    cfg: KubeSchedulerConfiguration,
) -> KubeSchedulerConfiguration:
    """Extended resources that extenders manage with ignoredByScheduler are NodeResourcesFit's
    ignoredResources in every profile, as upstream's scheduler setup arranges."""
    ignored = ignored_extended_resources(cfg)
    if not ignored:
        return cfg
    profiles = []
    for profile in cfg.profiles:
        configs = []
        for pc in profile.plugin_config:
            if isinstance(pc.args, NodeResourcesFitArgs):
                pc = dataclasses.replace(
                    pc, args=dataclasses.replace(pc.args, ignored_resources=tuple(ignored))
                )
            configs.append(pc)
        profiles.append(dataclasses.replace(profile, plugin_config=tuple(configs)))
    return dataclasses.replace(cfg, profiles=tuple(profiles))
