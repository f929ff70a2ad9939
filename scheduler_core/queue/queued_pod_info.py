"""QueuedPodInfo: a pending pod plus what the scheduling queue knows about its attempts.

Mirrors framework.QueuedPodInfo (pkg/scheduler/framework/types.go) of kube-scheduler v1.35.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from scheduler_core.framework.events import ClusterEvent
from scheduler_core.objects.api import Pod

# Where a pending pod waits: the names the queue's records and views use.
ACTIVE: Final = "active"
BACKOFF: Final = "backoff"
UNSCHEDULABLE: Final = "unschedulable"
GATED: Final = "gated"


def pod_key(pod: Pod) -> str:
    """The queue's key for a pod: ``namespace/name`` (podInfoKeyFunc, GetPodFullName)."""
    return f"{pod.namespace}/{pod.name}"


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue; mutable, owned by the queue while queued.

    ``timestamp`` is when the pod was (re-)added to the queue, in clock seconds;
    ``unschedulable_count`` counts attempts rejected by plugins and ``consecutive_errors``
    attempts that ended in an Error in a row; together they drive the backoff.
    ``backoff_expiration`` caches the computed end of the backoff (None: not computed yet).
    """

    pod: Pod
    timestamp: float
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_plugin_events: tuple[ClusterEvent, ...] = ()
    unschedulable_count: int = 0
    consecutive_errors: int = 0
    backoff_expiration: float | None = None

    @property
    def gated(self) -> bool:
        """True while a PreEnqueue plugin keeps the pod out of activeQ."""
        return self.gating_plugin != ""

    @property
    def key(self) -> str:
        return pod_key(self.pod)

    @property
    def uid(self) -> str:
        return self.pod.uid

    def rejector_plugins(self) -> set[str]:
        """Plugins that rejected the pod: unschedulable plus pending."""
        return self.unschedulable_plugins | self.pending_plugins

    def __repr__(self) -> str:
        return (
            f"QueuedPodInfo({self.key}, ts={self.timestamp}, attempts={self.attempts}, "
            f"unschedulable={sorted(self.unschedulable_plugins)}, gating={self.gating_plugin!r})"
        )
