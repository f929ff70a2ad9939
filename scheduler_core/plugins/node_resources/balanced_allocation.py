"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly.

Mirrors plugins/noderesources/balanced_allocation.go in kube-scheduler v1.35, with the v1.35
default feature gates (PodLevelResources and InPlacePodVerticalScaling on).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.config.types import NodeResourcesBalancedAllocationArgs
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.explaining import ExplainInputs, ScoreParts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, ScoreByColumns
from scheduler_core.framework.status import SKIP, SUCCESS, Status, error
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.plugins.node_resources import explain
from scheduler_core.plugins.node_resources.resource_allocation import (
    Entry,
    ResourceAllocationScorer,
    counted,
)
from scheduler_core.plugins.shared.helpers import FrozenState

NAME: Final = names.NODE_RESOURCES_BALANCED_ALLOCATION
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"


class _PreScoreState(FrozenState):
    __slots__ = ("pod_requests", "entries")

    def __init__(self, pod_requests: tuple[int, ...], entries: tuple[Entry, ...]) -> None:
        self.pod_requests = pod_requests
        self.entries = entries


def balanced_resource_scorer(
    requested: Sequence[int], allocatable: Sequence[int]
) -> tuple[int, list[float]]:
    """balanced_scores on one node's amounts (the resources it has): the score, and the
    fractions it took the deviation of (what the explanation prints)."""
    one = [np.array((v,), dtype=np.int64) for v in requested]
    taken: list[tuple[Any, Any]] = []
    score = balanced_scores(one, [np.array((v,), dtype=np.int64) for v in allocatable], (), taken)
    return int(score[0]), [float(fraction[0]) for _, fraction in taken]


def balanced_scores(
    requested: Sequence[Any],
    allocatable: Sequence[Any],
    weights: Sequence[int] = (),
    fractions: list[tuple[Any, Any]] | None = None,
) -> Any:
    """(1 - std) * MAX_NODE_SCORE, truncated, over each node's requested/allocatable fractions
    of the resources it has (allocatable not 0), each capped at 1. With two fractions the
    deviation is half their difference; with more it is the population standard deviation;
    with one or none it is 0. Weights are not used. The floating-point operations are Go's,
    in its order, so every node scores exactly what upstream computes.

    ``count`` (fractions so far) stays an int while every resource counts on every node, and
    the masks are then skipped. ``fractions``, if given, receives each resource's (counts,
    fractions).
    """
    n = len(requested[0]) if requested else 0
    count: Any = 0
    first: Any = 0.0  # each node's first and second fractions
    second: Any = 0.0
    fractions = [] if fractions is None else fractions
    for req, cap in zip(requested, allocatable, strict=True):
        counts = counted(cap)
        if counts is None:
            fraction = req / cap  # float64(a) / float64(b), as Go
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                fraction = req / cap
            fraction[~counts] = 0.0  # adding 0.0 where it does not count changes nothing
        np.minimum(fraction, 1.0, out=fraction)
        fractions.append((counts, fraction))
        first = _pick(counts, count == 0, fraction, first)
        second = _pick(counts, count == 1, fraction, second)
        count = count + (1 if counts is None else counts)
    std: Any = 0.0
    if isinstance(count, int):
        if count == 2:
            std = first - second
            std /= 2
            np.abs(std, out=std)
    else:
        std = np.where(count == 2, np.abs((first - second) / 2), 0.0)
    many = count > 2
    if many if isinstance(many, bool) else many.any():
        total: Any = 0.0
        for _, fraction in fractions:  # in resource order, as Go adds them
            total = total + fraction
        mean = total / np.maximum(count, 1)
        acc: Any = 0.0
        for counts, fraction in fractions:
            deviation = fraction - mean
            acc = acc + (deviation * deviation if counts is None else counts * deviation**2)
        std = np.where(many, np.sqrt(acc / np.maximum(count, 1)), std)
    if isinstance(std, float):  # no node has two resources or more
        return np.full(n, int((1 - std) * float(MAX_NODE_SCORE)), dtype=np.int64)
    np.subtract(1.0, std, out=std)  # (1 - std) * MAX_NODE_SCORE, in this function's array
    std *= float(MAX_NODE_SCORE)
    return std.astype(np.int64)


def _pick(counts: Any, at: Any, fraction: Any, before: Any) -> Any:
    """``fraction`` where the resource counts and the node has ``at`` fractions so far, else
    ``before``."""
    if counts is None and isinstance(at, bool):
        return fraction if at else before
    return np.where(at if counts is None else counts & at, fraction, before)


def _is_best_effort(pod_requests: Sequence[int]) -> bool:
    return all(r == 0 for r in pod_requests)


class BalancedAllocation(ScoreByColumns):
    name = NAME

    def __init__(self, args: NodeResourcesBalancedAllocationArgs) -> None:
        self.scorer = ResourceAllocationScorer(
            NAME,
            args.resources,
            balanced_scores,
            use_requested=True,
            pod_level=True,
            use_status=True,
        )

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """Skip for a pod requesting none of the resources (best effort): scoring it would
        pile such pods onto the same node (kubernetes/kubernetes#129138)."""
        requests = self.scorer.pod_request_list(pod)
        if _is_best_effort(requests):
            return SKIP
        state.write(_PRE_SCORE_KEY, _PreScoreState(requests, self.scorer.entries(requests)))
        return SUCCESS

    def score_entries(self, state: CycleState, pod: Pod) -> tuple[Entry, ...] | None:
        """The resources Score counts (pod request, weight), or None for a best-effort pod."""
        s = state.get(_PRE_SCORE_KEY)
        if isinstance(s, _PreScoreState):
            return s.entries
        requests = self.scorer.pod_request_list(pod)
        return None if _is_best_effort(requests) else self.scorer.entries(requests)

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """score_batch as an int64 array."""
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            # Score without PreScore: upstream computes the requests on the spot and gives
            # a best-effort pod 0 everywhere.
            requests = self.scorer.pod_request_list(pod)
            if _is_best_effort(requests):
                return np.zeros(len(nodes), dtype=np.int64), SUCCESS
            s = _PreScoreState(requests, self.scorer.entries(requests))
        if not self.scorer.resources:
            return np.zeros(0, dtype=np.int64), error("resources not found")
        return self.scorer.score_nodes(s.entries, nodes), SUCCESS

    # -- Explained (not upstream) ------------------------------------------------------------

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        """The share of each resource requested with the pod, and their spread."""
        entries = self.score_entries(ctx.state, ctx.pod)
        return explain.balanced_score(self.scorer, entries, ni, balanced_resource_scorer)


def new(args: NodeResourcesBalancedAllocationArgs | None, handle: Handle) -> BalancedAllocation:
    return BalancedAllocation(args if args is not None else NodeResourcesBalancedAllocationArgs())
