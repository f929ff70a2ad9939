"""Plugin protocols, one per extension point, and the Handle plugins receive.

Mirrors the interfaces of k8s.io/kube-scheduler/framework (interface.go) in v1.35. Plugins are
plain classes; the runtime sorts each into the extension points whose protocol it satisfies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SUCCESS, Status
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


# -- The batch surface: optional, one protocol per method. The runtime prefers a batch method to
# the per-node one, and a plugin states its rule once, in the batch method: its per-node method is
# derived, the batch of one (the FilterByBatch, ScoreByColumns and ScoreByBatch bases below).

# Score values of a batch: a list of ints, or an int64 array (numpy) from score_columns.
ScoreValues = Any


@runtime_checkable
class BatchFilter(Protocol):
    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """Filter over ``nodes`` at once: the index of each node not passed, with its status."""
        ...


@runtime_checkable
class BatchScore(Protocol):
    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]: ...


@runtime_checkable
class ColumnScore(Protocol):
    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[ScoreValues, Status]:
        """score_batch as an int64 array over ``nodes``."""
        ...


@runtime_checkable
class BatchNormalize(Protocol):
    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        """NormalizeScore over the raw column, without NodeScores."""
        ...


def filter_one(pl: BatchFilter, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
    """Filter on one node through the plugin's ``filter_batch``."""
    return pl.filter_batch(state, pod, (node_info,)).get(0, SUCCESS)


BatchScorer = Callable[[CycleState, Pod, Sequence[NodeInfo]], tuple[ScoreValues, Status]]


def score_one(
    batch: BatchScorer, state: CycleState, pod: Pod, node_info: NodeInfo
) -> tuple[int, Status]:
    """Score on one node through a plugin's ``score_columns`` or ``score_batch`` (0 when the
    batch gave no score, as a failed one may)."""
    scores, status = batch(state, pod, (node_info,))
    return (int(scores[0]) if len(scores) else 0), status


class FilterByBatch:
    """Base of a plugin whose Filter rule is its ``filter_batch``: the per-node Filter (what
    preemption's dry runs and the explanations call) is derived, the batch of one."""

    def filter(self: BatchFilter, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        return filter_one(self, state, pod, node_info)


class ScoreByColumns:
    """Base of a plugin whose Score rule is its ``score_columns``: the per-node Score is derived."""

    def score(
        self: ColumnScore, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status]:
        return score_one(self.score_columns, state, pod, node_info)


class ScoreByBatch:
    """Base of a plugin whose Score rule is its ``score_batch``: the per-node Score is derived."""

    def score(
        self: BatchScore, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status]:
        return score_one(self.score_batch, state, pod, node_info)


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
