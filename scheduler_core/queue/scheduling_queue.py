"""SchedulingQueue: activeQ, backoffQ, the unschedulable pod pool and the nominator.

Mirrors PriorityQueue of backend/queue/scheduling_queue.go in kube-scheduler v1.35 with its
default feature gates: SchedulerQueueingHints (GA) and SchedulerPopFromBackoffQ (beta, on; the
``pop_from_backoff`` switch). A cluster event requeues an unschedulable pod when the hint function
of a plugin that rejected it, registered for a matching event, answers Queue (isPodWorthRequeuing;
a hint that raises counts as Queue, an event registered without one always queues); the record
of the move names that plugin, and every rejecting plugin's answer. Kept as upstream, because
they change where a pod goes:

- a pod rejected by plugins goes to the unschedulable pool, one that failed with an error (no
  rejecting plugin) to backoffQ; an event that arrived while the pod was in flight and matches
  one of its rejecting plugins sends it to backoffQ/activeQ instead (to activeQ directly when
  the matching plugin returned Pending);
- a moved pod still backing off goes to backoffQ, else to activeQ; PreEnqueue runs on the way
  into activeQ (and into backoffQ with pop_from_backoff), and a pod it rejects is kept "gated"
  in the unschedulable pool, moved only by events its gating plugin registered or by an update;
- with pop_from_backoff, pop() takes the head of backoffQ when activeQ is empty;
- pods stay in the unschedulable pool at most ``pod_max_in_unschedulable_pods_seconds``; the
  leftover flush runs every ``unschedulable_flush_interval_seconds`` (upstream: 30 s from start).

Simplified where nothing observable changes, or where a hint function would have decided:

- the hint map of the pod's profile (``profile_events``), else the one given for all profiles;
- an update of a pod during its own cycle is remembered for that pod only (upstream shares it
  with every in-flight pod, and the plugins' hint functions then ignore other pods' updates);
- AssignedPodAdd goes to every unschedulable pod (the queueing-hints path of upstream's event
  handler), not through the affinity pre-filter of the old AssignedPodAdded;
- the PreEnqueue callable runs the profile's plugins in order; upstream first re-runs the plugin
  that gated the pod last, which only changes which plugin is named when several reject it.

Time only moves through the injected clock. Upstream's background flushes (backoffQ every
second, aligned to the ordering window; leftovers every 30 s) are replaced by ``flush()``, which
pop() also calls: flushing at time t has the effect of every tick up to t having run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.clock import Clock
from scheduler_core.framework.events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_UPDATE,
    FORCE_ACTIVATE,
    POP_FROM_BACKOFF_Q,
    SCHEDULE_ATTEMPT_FAILURE,
    UNROLLED_WILDCARD,
    ClusterEvent,
    ClusterEventWithHint,
    match_any_cluster_event,
    match_cluster_events,
    pod_scheduling_properties_change,
)
from scheduler_core.framework.status import Status
from scheduler_core.objects.api import Pod
from scheduler_core.queue.active_queue import ActiveQueue
from scheduler_core.queue.backoff_queue import BackoffQueue
from scheduler_core.queue.hint_map import Registered, build_event_map, with_hint
from scheduler_core.queue.nominations import Nominations
from scheduler_core.queue.nominator import Nominator
from scheduler_core.queue.queue_time import QueueTime
from scheduler_core.queue.queued_pod_info import (
    ACTIVE,
    BACKOFF,
    GATED,
    UNSCHEDULABLE,
    QueuedPodInfo,
    pod_key,
)
from scheduler_core.queue.requeuing import Strategy, Verdict, worth_requeuing

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
PreEnqueueFunc = Callable[[Pod], Status]
OnEvent = Callable[[str, Pod, dict[str, Any]], None]


DEFAULT_POD_INITIAL_BACKOFF_SECONDS: Final = 1.0
DEFAULT_POD_MAX_BACKOFF_SECONDS: Final = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_SECONDS: Final = 300.0
DEFAULT_UNSCHEDULABLE_FLUSH_INTERVAL_SECONDS: Final = 30.0

# Stands for the gating plugin when a PreEnqueue rejection does not name one.
_UNNAMED_PRE_ENQUEUE: Final = "PreEnqueue"
_UNSCHEDULED_POD_ADD: Final = str(EVENT_UNSCHEDULED_POD_ADD)
_UNSCHEDULED_POD_UPDATE: Final = str(EVENT_UNSCHEDULED_POD_UPDATE)


class SchedulingQueue(QueueTime, Nominations):
    """The scheduling queue of one scheduler: every pending pod is in exactly one of activeQ,
    backoffQ or the unschedulable pool (gated pods included), or in flight.

    ``on_event(kind, pod, details)`` is told of every move, as it happens:

    - ``Enqueue`` {"queue": "active"|"unschedulable"|"gated", "event"} (+ "plugin" when gated):
      the pod entered that queue from nowhere (new, updated unknown pod, back from a cycle;
      back from a cycle to activeQ because of an event during it: + "plugin", "hints" and
      "in_flight_event", as below);
    - ``MoveToActive`` {"event", "from": "backoff"|"unschedulable"|"gated"} (+ "plugin", the
      plugin whose queueing hint moved it, and "hints", each rejecting plugin's answer:
      {"NodeAffinity": "QueueSkip", "NodeResourcesFit": "Queue"}, when hints were asked);
    - ``Backoff`` {"until", "event", "from"} (+ "plugin", "hints" likewise): entered backoffQ;
      ``until`` is when a flush releases it (see next_wakeup); ``from`` is None when back from
      a cycle;
    - ``Pop`` {"queue": "active"|"backoff", "attempts", "cycle"};
    - ``Unschedulable`` {"plugins", "pending_plugins", "error", "cycle"}: an attempt failed
      (followed by the event for where the pod went);
    - ``StayUnschedulable`` {"event", "from", "plugin": None, "hints"}: a cluster event left
      the pod where it was, every asked hint having said QueueSkip (only when hints were asked);
    - ``Nominate`` {"node": name or None}: the pod's nominated node changed;
    - ``Delete`` {"from": queue or "in-flight"}.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        less: LessFunc,
        pre_enqueue: PreEnqueueFunc,
        events_of_interest: Mapping[str, Sequence[Registered]] | None = None,
        profile_events: Mapping[str, Mapping[str, Sequence[Registered]]] | None = None,
        pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
        pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
        pod_max_in_unschedulable_pods_seconds: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_SECONDS,
        on_event: OnEvent | None = None,
        pop_from_backoff: bool = True,
        unschedulable_flush_interval_seconds: float = DEFAULT_UNSCHEDULABLE_FLUSH_INTERVAL_SECONDS,
    ) -> None:
        self._clock = clock
        self._pre_enqueue = pre_enqueue
        self._event_map = build_event_map(events_of_interest or {})
        # schedulerName -> that profile's map (upstream's QueueingHintMap per profile).
        self._profile_maps = {
            name: build_event_map(events) for name, events in (profile_events or {}).items()
        }
        # ClusterEvent -> whether some registration matches it (_is_event_of_interest).
        self._interest: dict[ClusterEvent, bool] = {}
        self._max_unschedulable = pod_max_in_unschedulable_pods_seconds
        self._flush_interval = unschedulable_flush_interval_seconds
        self._on_event = on_event
        self._pop_from_backoff = pop_from_backoff
        self._start = clock.now()
        self._active = ActiveQueue(less)
        self._backoff = BackoffQueue(
            clock=clock,
            initial_seconds=pod_initial_backoff_seconds,
            max_seconds=pod_max_backoff_seconds,
            active_less=less,
            pop_from_backoff=pop_from_backoff,
        )
        self._unschedulable: dict[str, QueuedPodInfo] = {}
        self._nominator = Nominator()
        # The newest version of in-flight pods updated mid-cycle, and in-flight pods deleted
        # mid-cycle: what handleSchedulingFailure reads from the informer cache.
        self._in_flight_latest: dict[str, Pod] = {}
        self._in_flight_deleted: set[str] = set()

    # -- public state ----------------------------------------------------------------------

    @property
    def scheduling_cycle(self) -> int:
        """SchedulingCycle: the number of pods popped so far."""
        return self._active.scheduling_cycle

    def __len__(self) -> int:
        return len(self._active.heap) + len(self._backoff) + len(self._unschedulable)

    def location(self, pod: Pod) -> str | None:
        """Where the pod is: "active", "backoff", "unschedulable", "gated", "in-flight" or None."""
        key = pod_key(pod)
        if key in self._active.heap:
            return ACTIVE
        if key in self._backoff:
            return BACKOFF
        qpi = self._unschedulable.get(key)
        if qpi is not None:
            return GATED if qpi.gated else UNSCHEDULABLE
        if self._active.is_in_flight(pod.uid):
            return "in-flight"
        return None

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        """GetPod: the queued info of a pod waiting in any queue (not in flight)."""
        key = pod_key(pod)
        return self._active.heap.get(key) or self._backoff.get(key) or self._unschedulable.get(key)

    def in_flight_uids(self) -> list[str]:
        return self._active.in_flight_uids()

    # -- events ----------------------------------------------------------------------------

    def _emit(self, kind: str, pod: Pod, **details: Any) -> None:
        if self._on_event is not None:
            self._on_event(kind, pod, details)

    def _events_for_plugin(
        self, plugin: str, pod: Pod | None = None
    ) -> tuple[ClusterEventWithHint, ...]:
        """What ``plugin`` registered in ``pod``'s profile (else in the map for all profiles).

        A plugin that registered nothing known is subscribed to everything, as upstream does
        for plugins without EnqueueExtensions.
        """
        if pod is not None:
            found = self._profile_maps.get(pod.scheduler_name, {}).get(plugin)
            if found is not None:
                return found
        events = self._event_map.get(plugin)
        if events is None:
            events = self._event_map[plugin] = tuple(with_hint(e) for e in UNROLLED_WILDCARD)
            self._interest.clear()  # the registrations grew
        return events

    def _is_event_of_interest(self, event: ClusterEvent) -> bool:
        if event.is_wildcard():
            return True
        found = self._interest.get(event)
        if found is None:
            found = self._interest[event] = any(
                match_cluster_events(registered.event, event)
                for event_map in (self._event_map, *self._profile_maps.values())
                for events in event_map.values()
                for registered in events
            )
        return found

    def _worth_requeuing(
        self,
        qpi: QueuedPodInfo,
        event: ClusterEvent,
        target_uid: str | None,
        old: Any = None,
        new: Any = None,
    ) -> Verdict:
        return worth_requeuing(qpi, event, target_uid, old, new, self._events_for_plugin)

    # -- moving pods -----------------------------------------------------------------------

    def _run_pre_enqueue(self, qpi: QueuedPodInfo) -> None:
        """runPreEnqueuePlugins: gate the pod on the first PreEnqueue rejection, else ungate."""
        status = self._pre_enqueue(qpi.pod)
        if status.is_success():
            qpi.gating_plugin = ""
            return
        plugin = status.plugin or _UNNAMED_PRE_ENQUEUE
        qpi.unschedulable_plugins.add(plugin)
        qpi.gating_plugin = plugin
        qpi.gating_plugin_events = tuple(r.event for r in self._events_for_plugin(plugin, qpi.pod))

    def _add_gated(self, qpi: QueuedPodInfo, event: str, origin: str | None) -> None:
        self._unschedulable[qpi.key] = qpi
        if origin != GATED:
            self._emit("Enqueue", qpi.pod, queue=GATED, event=event, plugin=qpi.gating_plugin)

    def _move_to_active(
        self,
        qpi: QueuedPodInfo,
        event: str,
        from_backoff: bool,
        origin: str | None,
        why: Mapping[str, Any] | None = None,
    ) -> bool:
        """moveToActiveQ; False when PreEnqueue gates the pod (then it waits gated)."""
        if not (self._pop_from_backoff and from_backoff):
            self._run_pre_enqueue(qpi)
        key = qpi.key
        if qpi.gated:
            if key in self._active.heap or key in self._backoff or key in self._unschedulable:
                return False
            self._add_gated(qpi, event, origin)
            return False
        if qpi.initial_attempt_timestamp is None:
            qpi.initial_attempt_timestamp = self._clock.now()
        self._unschedulable.pop(key, None)
        self._backoff.delete(key)
        self._active.heap.add_or_update(qpi)
        if origin is None:
            self._emit("Enqueue", qpi.pod, queue=ACTIVE, event=event, **(why or {}))
        else:
            self._emit("MoveToActive", qpi.pod, event=event, **{"from": origin}, **(why or {}))
        if event in (_UNSCHEDULED_POD_ADD, _UNSCHEDULED_POD_UPDATE):
            self._nominate(qpi.pod, None)
        return True

    def _move_to_backoff(
        self,
        qpi: QueuedPodInfo,
        event: str,
        origin: str | None,
        why: Mapping[str, Any] | None = None,
    ) -> bool:
        """moveToBackoffQ; with pop_from_backoff PreEnqueue runs here and may gate the pod."""
        if self._pop_from_backoff:
            self._run_pre_enqueue(qpi)
            if qpi.gated:
                if qpi.key not in self._unschedulable:
                    self._add_gated(qpi, event, origin)
                return False
        self._unschedulable.pop(qpi.key, None)
        self._backoff.add(qpi)
        self._emit(
            "Backoff",
            qpi.pod,
            until=self._until(qpi),
            event=event,
            **{"from": origin},
            **(why or {}),
        )
        return True

    def _until(self, qpi: QueuedPodInfo) -> float:
        """When a flush releases a pod from backoffQ, never before now (records stay JSON)."""
        return max(self._backoff.completion_time(qpi), self._clock.now())

    def _requeue(
        self,
        qpi: QueuedPodInfo,
        verdict: Verdict,
        event: str,
        origin: str | None,
    ) -> str:
        """requeuePodWithQueueingStrategy: returns the queue the pod ended in."""
        strategy, why = verdict.strategy, verdict.details()
        if strategy is Strategy.SKIP:
            self._unschedulable[qpi.key] = qpi
            if origin is None:
                self._emit("Enqueue", qpi.pod, queue=UNSCHEDULABLE, event=event)
            return UNSCHEDULABLE
        if strategy is Strategy.AFTER_BACKOFF and self._backoff.is_backing_off(qpi):
            return BACKOFF if self._move_to_backoff(qpi, event, origin, why) else UNSCHEDULABLE
        return ACTIVE if self._move_to_active(qpi, event, False, origin, why) else UNSCHEDULABLE

    def _move_pods(
        self,
        pods: Sequence[QueuedPodInfo],
        event: ClusterEvent,
        target_uid: str | None = None,
        old: Any = None,
        new: Any = None,
    ) -> None:
        """movePodsToActiveOrBackoffQueue, then remember the event for in-flight pods."""
        if not self._is_event_of_interest(event):
            return
        label = str(event)
        for qpi in pods:
            if qpi.gated and not match_any_cluster_event(event, qpi.gating_plugin_events):
                continue
            verdict = self._worth_requeuing(qpi, event, target_uid, old, new)
            origin = GATED if qpi.gated else UNSCHEDULABLE
            if verdict.strategy is Strategy.SKIP:
                if verdict.hints:  # the hints that kept it, for the record
                    why = verdict.details()
                    self._emit("StayUnschedulable", qpi.pod, event=label, **{"from": origin}, **why)
                continue
            self._unschedulable.pop(qpi.key, None)
            self._requeue(qpi, verdict, label, origin)
        self._active.add_event_if_any_in_flight(event, target_uid, old, new)

    # -- the SchedulingQueue interface -----------------------------------------------------

    def add(self, pod: Pod) -> None:
        """Add a new pending pod: to activeQ, or gated when a PreEnqueue plugin rejects it."""
        qpi = QueuedPodInfo(pod=pod, timestamp=self._clock.now())
        self._move_to_active(qpi, _UNSCHEDULED_POD_ADD, False, None)

    def pop(self) -> QueuedPodInfo | None:
        """Pop the next pod to schedule, without blocking; None when nothing is ready.

        Flushes first. Takes the head of activeQ or, when activeQ is empty and
        pop_from_backoff is on, the head of backoffQ's rejected heap (backoff not over yet);
        counts the attempt, starts a scheduling cycle and marks the pod in flight.
        """
        self.flush()
        while True:
            source = ACTIVE
            qpi = self._active.heap.pop()
            if qpi is None and self._pop_from_backoff:
                qpi = self._backoff.pop_rejected()
                source = BACKOFF
            if qpi is None:
                return None
            qpi.attempts += 1
            if self._active.is_in_flight(qpi.uid):
                continue  # tracked twice: upstream drops this copy and pops again
            self._active.start(qpi.uid)
            qpi.unschedulable_plugins.clear()
            qpi.pending_plugins.clear()
            qpi.gating_plugin = ""
            qpi.gating_plugin_events = ()
            self._emit(
                "Pop",
                qpi.pod,
                queue=source,
                attempts=qpi.attempts,
                cycle=self.scheduling_cycle,
                **({"event": POP_FROM_BACKOFF_Q} if source == BACKOFF else {}),
            )
            return qpi

    def done(self, uid: str) -> None:
        """Done: the pod's scheduling (and binding) attempt is over."""
        self._active.done(uid)
        self._in_flight_latest.pop(uid, None)
        self._in_flight_deleted.discard(uid)

    def add_unschedulable_if_not_present(self, qpi: QueuedPodInfo, scheduling_cycle: int) -> None:
        """AddUnschedulableIfNotPresent: put back a pod whose attempt failed, then Done.

        Set ``qpi.unschedulable_plugins``/``pending_plugins`` first (from the Diagnosis); none
        means the attempt ended in an error. Folds in what handleSchedulingFailure reads from the
        informer: a pod deleted during its cycle is dropped, one bound meanwhile is dropped, one
        updated meanwhile continues with its newest version. ``scheduling_cycle`` is only used
        in the record (upstream needs it only with queueing hints disabled). A pod already queued
        is left alone.
        """
        uid = qpi.uid
        try:
            if uid in self._in_flight_deleted:
                return
            latest = self._in_flight_latest.get(uid)
            if latest is not None:
                if latest.node_name:
                    return
                qpi.pod = latest
            key = qpi.key
            if key in self._unschedulable or key in self._active.heap or key in self._backoff:
                return
            error = not qpi.unschedulable_plugins and not qpi.pending_plugins
            if error:
                qpi.consecutive_errors += 1
            else:
                qpi.unschedulable_count += 1
                qpi.consecutive_errors = 0
            qpi.timestamp = self._clock.now()
            qpi.backoff_expiration = None
            self._emit(
                "Unschedulable",
                qpi.pod,
                plugins=sorted(qpi.unschedulable_plugins),
                pending_plugins=sorted(qpi.pending_plugins),
                error=error,
                cycle=scheduling_cycle,
            )
            verdict = self._strategy_for_in_flight_pod(qpi)
            self._requeue(qpi, verdict, SCHEDULE_ATTEMPT_FAILURE, None)
        finally:
            self.done(uid)

    def _strategy_for_in_flight_pod(self, qpi: QueuedPodInfo) -> Verdict:
        """determineSchedulingHintForInFlightPod: did anything during the cycle help?"""
        if not qpi.rejector_plugins():
            return Verdict(Strategy.AFTER_BACKOFF)
        events = self._active.events_for(qpi.uid)
        if events is None:
            return Verdict(Strategy.AFTER_BACKOFF)
        verdict = Verdict(Strategy.SKIP)
        for e in events:
            found = self._worth_requeuing(qpi, e.event, e.target_uid, e.old, e.new)
            found.in_flight_event = str(e.event)
            if found.strategy is Strategy.IMMEDIATELY:
                return found
            if found.strategy is Strategy.AFTER_BACKOFF:
                verdict = found
                if not qpi.pending_plugins:
                    return verdict
        return verdict

    def move_all_to_active_or_backoff(
        self,
        event: ClusterEvent,
        pre_check: Callable[[Pod], bool] | None = None,
        old: Any = None,
        new: Any = None,
    ) -> None:
        """MoveAllToActiveOrBackoffQueue: requeue the unschedulable pods ``event`` may help.

        ``old`` and ``new`` are the changed object before and after (None for an Add or a
        Delete), handed to the queueing hints. ``pre_check`` narrows the candidates (upstream
        passes a lower-or-equal-priority check when a nominated pod goes away). Candidates are
        visited in the order they entered the unschedulable pool.
        """
        if not self._is_event_of_interest(event):
            return
        pods = [
            qpi for qpi in self._unschedulable.values() if pre_check is None or pre_check(qpi.pod)
        ]
        self._move_pods(pods, event, None, old, new)

    def assigned_pod_added(self, pod: Pod) -> None:
        """A bound pod appeared: the AssignedPodAdd event (with queueing hints GA, upstream
        sends it to every unschedulable pod, not only those with matching affinity terms)."""
        self.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_ADD, new=pod)

    def assigned_pod_updated(self, old: Pod, new: Pod) -> None:
        """A bound pod changed: one event per specific change (labels, scale-down, ...)."""
        for event in pod_scheduling_properties_change(new, old):
            self.move_all_to_active_or_backoff(event, old=old, new=new)

    def assigned_pod_deleted(self, pod: Pod) -> None:
        """A bound pod went away: the AssignedPodDelete event."""
        self.move_all_to_active_or_backoff(EVENT_ASSIGNED_POD_DELETE, old=pod)

    def update(self, old: Pod, new: Pod) -> None:
        """Update a pending pod.

        In flight: remember the update for the end of its cycle. In activeQ/backoffQ: replace
        it there. In the unschedulable pool: requeue it if one of its specific update events
        interests a plugin that rejected or gated it. Unknown: add it to activeQ.
        """
        events = pod_scheduling_properties_change(new, old)
        if self._active.add_events_if_pod_in_flight(new.uid, events, old, new):
            self._in_flight_latest[new.uid] = new
            return
        old_key = pod_key(old)
        qpi = self._active.heap.get(old_key)
        if qpi is not None:
            qpi.pod = new
            self._active.heap.add_or_update(qpi)
            self._update_nomination(old, new)
            return
        qpi = self._backoff.get(old_key)
        if qpi is not None:
            qpi.pod = new
            self._backoff.update(qpi)
            self._update_nomination(old, new)
            return
        qpi = self._unschedulable.get(pod_key(new))
        if qpi is not None:
            qpi.pod = new
            self._update_nomination(old, new)
            for event in events:
                origin = GATED if qpi.gated else UNSCHEDULABLE
                verdict = self._worth_requeuing(qpi, event, None, old, new)
                queue = self._requeue(qpi, verdict, str(event), origin)
                if queue == ACTIVE or (self._pop_from_backoff and queue == BACKOFF):
                    break
            return
        qpi = QueuedPodInfo(pod=new, timestamp=self._clock.now())
        self._move_to_active(qpi, _UNSCHEDULED_POD_UPDATE, False, None)

    def delete(self, pod: Pod) -> None:
        """Delete a pending pod from whichever queue holds it, and its nomination.

        An in-flight pod is remembered as deleted so that a failed attempt does not requeue it.
        (Requeueing lower-priority pods when a nominated pod goes away is the caller's part,
        as in upstream's event handlers: move_all_to_active_or_backoff with a pre_check.)
        """
        self.delete_nominated_pod_if_exists(pod)
        key = pod_key(pod)
        where = self.location(pod)
        if self._active.heap.delete(key) or self._backoff.delete(key):
            pass
        elif key in self._unschedulable:
            del self._unschedulable[key]
        elif self._active.is_in_flight(pod.uid):
            self._in_flight_deleted.add(pod.uid)
        else:
            return
        self._emit("Delete", pod, **{"from": where})

    def activate(self, pods: Sequence[Pod]) -> None:
        """Activate: move the given pods from backoffQ or the unschedulable pool to activeQ; an
        in-flight pod is requeued at the end of its cycle (ForceActivate). Others are ignored."""
        for pod in pods:
            if not self._activate(pod):
                self._active.add_events_if_pod_in_flight(pod.uid, (EVENT_FORCE_ACTIVATE,))

    def _activate(self, pod: Pod) -> bool:
        key = pod_key(pod)
        qpi = self._unschedulable.get(key)
        from_backoff = False
        if qpi is not None:
            origin = GATED if qpi.gated else UNSCHEDULABLE
        else:
            qpi = self._backoff.get(key)
            if qpi is None:
                return False
            self._backoff.delete(key)
            from_backoff, origin = True, BACKOFF
        return self._move_to_active(qpi, FORCE_ACTIVATE, from_backoff, origin)
