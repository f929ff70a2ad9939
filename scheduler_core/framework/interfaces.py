"""Plugin protocols, one per extension point, and the Handle plugins receive.

Mirrors the interfaces of k8s.io/kube-scheduler/framework (interface.go) in v1.35. Plugins are
plain classes; the runtime sorts each into the extension points whose protocol it satisfies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Status
from scheduler_core.framework.types import (
    NodeInfo,
    NodeScore,
    NodeToStatus,
    PreFilterResult,
    Snapshot,
)
from scheduler_core.objects.api import Pod

if TYPE_CHECKING:
    from scheduler_core.framework.runtime import Framework

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1


@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: Pod) -> Status: ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: Any, b: Any) -> bool: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]: ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """The add/remove-pod hooks preemption and nominated pods use to update PreFilter state."""

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status: ...

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """What PostFilter decided: the nominated node, its victims, and every candidate considered
    (node, victims), which the decision record keeps for display."""

    nominated_node_name: str | None = None
    victims: tuple[str, ...] = ()
    candidates: tuple[tuple[str, tuple[str, ...]], ...] = ()


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(
        self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class Handle(Protocol):
    """What a plugin may reach of the scheduler: the snapshot, listers, nominated pods."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def framework(self) -> Framework: ...

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]: ...
