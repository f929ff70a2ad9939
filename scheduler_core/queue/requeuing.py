"""isPodWorthRequeuing: does a cluster event help a pod that plugins rejected, and how much.

Mirrors queueingStrategy and isPodWorthRequeuing of backend/queue/scheduling_queue.go in
kube-scheduler v1.35: the hint functions of the rejecting plugins registered for a matching
event decide, in plugin name order (upstream walks a map; the order only changes which plugin
the record names when several would queue the pod).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from scheduler_core.framework.events import (
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    match_cluster_events,
)
from scheduler_core.objects.api import Pod
from scheduler_core.queue.queued_pod_info import QueuedPodInfo

# (plugin, pod) -> what the plugin registered in the pod's profile
RegisteredFor = Callable[[str, Pod], tuple[ClusterEventWithHint, ...]]


class Strategy(Enum):
    """queueingStrategy: where a pod that an event may help should go."""

    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


@dataclass(slots=True)
class Verdict:
    """The strategy, the plugin whose hint decided it ("" when no hint was asked), and each
    asked plugin's hint ("Queue"/"QueueSkip")."""

    strategy: Strategy
    plugin: str = ""
    hints: dict[str, str] = field(default_factory=dict)
    in_flight_event: str = ""  # the event seen during the pod's own cycle that decided it

    def details(self) -> dict[str, Any]:
        """What the queue's records add about the decision (nothing when no hint was asked)."""
        if not self.hints:
            return {}
        out: dict[str, Any] = {"plugin": self.plugin or None, "hints": dict(self.hints)}
        if self.in_flight_event:
            out["in_flight_event"] = self.in_flight_event
        return out


def worth_requeuing(
    qpi: QueuedPodInfo,
    event: ClusterEvent,
    target_uid: str | None,
    old: Any,
    new: Any,
    registered_for: RegisteredFor,
) -> Verdict:
    """Ask the hint of each rejecting plugin registered for a matching event about the change
    from ``old`` to ``new``; Queue from a Pending plugin means activeQ at once."""
    rejectors = qpi.rejector_plugins()
    if not rejectors:
        return Verdict(Strategy.AFTER_BACKOFF)
    if target_uid is not None and target_uid != qpi.uid:
        return Verdict(Strategy.SKIP)
    if event.is_wildcard():
        return Verdict(Strategy.AFTER_BACKOFF)
    verdict = Verdict(Strategy.SKIP)
    for plugin in sorted(rejectors):
        for registered in matching(registered_for(plugin, qpi.pod), event):
            hint = ask(registered, qpi.pod, old, new)
            verdict.hints[plugin] = hint.upstream
            if hint is QueueingHint.QUEUE_SKIP:
                continue
            if plugin in qpi.pending_plugins:
                verdict.strategy, verdict.plugin = Strategy.IMMEDIATELY, plugin
                return verdict
            if verdict.strategy is Strategy.SKIP:
                verdict.strategy, verdict.plugin = Strategy.AFTER_BACKOFF, plugin
            if not qpi.pending_plugins:
                return verdict
            break
    return verdict


def matching(
    registered: tuple[ClusterEventWithHint, ...], event: ClusterEvent
) -> tuple[ClusterEventWithHint, ...]:
    """The registrations among ``registered`` that ``event`` matches (match_cluster_events),
    in order. A plugin's registrations are a fixed tuple and events repeat (every bind is an
    AssignedPodAdd for every waiting pod): each pair is matched once."""
    key = (id(registered), event)
    found = _MATCHING.get(key)
    if found is not None and found[0] is registered:
        return found[1]
    out = tuple(r for r in registered if match_cluster_events(r.event, event))
    if len(_MATCHING) >= 4096:
        _MATCHING.clear()
    _MATCHING[key] = (registered, out)  # the tuple kept, so its id stays its own
    return out


_MATCHING: dict[
    tuple[int, ClusterEvent],
    tuple[tuple[ClusterEventWithHint, ...], tuple[ClusterEventWithHint, ...]],
] = {}


def ask(registered: ClusterEventWithHint, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Run one hint; none, or one that raises, means Queue (a pod must not get stuck)."""
    if registered.hint is None:
        return QueueingHint.QUEUE
    try:
        return registered.hint(pod, old, new)
    except Exception:
        return QueueingHint.QUEUE
