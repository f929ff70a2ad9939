"""NodeResourcesFit: keep pods off nodes without room for their requests; score nodes by how
allocated they would be (LeastAllocated, MostAllocated or RequestedToCapacityRatio).

Mirrors plugins/noderesources/fit.go in kube-scheduler v1.35, with the v1.35 default feature
gates: SidecarContainers, PodLevelResources and InPlacePodVerticalScaling on. No DeviceClass
maps an extended resource to DRA here, so no request is left to DynamicResources.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from scheduler_core import quantity as q
from scheduler_core.api import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    Node,
    Pod,
    is_extended_resource,
    is_scalar_resource,
)
from scheduler_core.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
)
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SUCCESS, Code, Status, error
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import FrozenState
from scheduler_core.plugins.node_resources.least_allocated import (
    least_allocated_cpu_memory,
    least_allocated_scorer,
)
from scheduler_core.plugins.node_resources.most_allocated import (
    most_allocated_cpu_memory,
    most_allocated_scorer,
)
from scheduler_core.plugins.node_resources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
)
from scheduler_core.plugins.node_resources.resource_allocation import (
    CpuMemoryBatch,
    Entry,
    ResourceAllocationScorer,
    Scorer,
    pod_requests,
)
from scheduler_core.queue.events import NODE, POD, ClusterEvent, ClusterEventWithHint, QueueingHint

NAME: Final = names.NODE_RESOURCES_FIT
ERR_REASON_TOO_MANY_PODS: Final = "Too many pods"
ERR_REASON_INSUFFICIENT_CPU: Final = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY: Final = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE: Final = "Insufficient ephemeral-storage"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"


class FitPluginError(SchedulerCoreError):
    """NodeResourcesFit was given args it cannot work with."""


@dataclass(frozen=True, slots=True)
class InsufficientResource:
    """A resource the node lacks for the pod; ``unresolvable`` when even an empty node would."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


class _PreFilterState(FrozenState):
    """The pod's request (framework.Resource), with the scalars to check already chosen.

    ``scalars`` holds (name, amount, reason) for each non-zero scalar request that is not an
    ignored extended resource, in the order the pod's request list has them.
    """

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "scalars")

    def __init__(
        self,
        milli_cpu: int,
        memory: int,
        ephemeral_storage: int,
        scalars: tuple[tuple[str, int, str], ...],
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.scalars = scalars


class _PreScoreState(FrozenState):
    __slots__ = ("pod_requests", "entries")

    def __init__(self, pod_requests: tuple[int, ...], entries: tuple[Entry, ...]) -> None:
        self.pod_requests = pod_requests
        self.entries = entries


def compute_pod_resource_request(
    pod: Pod,
    ignored_resources: frozenset[str] = frozenset(),
    ignored_resource_groups: frozenset[str] = frozenset(),
) -> _PreFilterState:
    """computePodResourceRequest: the largest need of each resource (never below zero)."""
    reqs = pod_requests(pod)
    milli_cpu = memory = ephemeral = 0
    scalars: dict[str, int] = {}
    for name, nanos in reqs.items():
        if name == MEMORY:
            memory = max(memory, q.value(nanos))
        elif name == CPU:
            milli_cpu = max(milli_cpu, q.milli_value(nanos))
        elif name == EPHEMERAL_STORAGE:
            ephemeral = max(ephemeral, q.value(nanos))
        elif is_scalar_resource(name):
            scalars[name] = max(scalars.get(name, 0), q.value(nanos))
    checked: list[tuple[str, int, str]] = []
    for name, amount in scalars.items():
        if amount == 0:
            continue
        if is_extended_resource(name) and (
            name in ignored_resources
            or (ignored_resource_groups and name.split("/")[0] in ignored_resource_groups)
        ):
            continue
        checked.append((name, amount, f"Insufficient {name}"))
    return _PreFilterState(milli_cpu, memory, ephemeral, tuple(checked))


def fits_request(request: _PreFilterState, node_info: NodeInfo) -> list[InsufficientResource]:
    """fitsRequest: every resource the node lacks, in upstream order.

    Pods first, then cpu, memory, ephemeral-storage and the scalar resources.
    """
    out: list[InsufficientResource] = []
    alloc = node_info.allocatable
    used = node_info.requested
    num_pods = len(node_info.pods)
    if num_pods + 1 > alloc.allowed_pod_number:
        out.append(
            InsufficientResource(
                "pods", ERR_REASON_TOO_MANY_PODS, 1, num_pods, alloc.allowed_pod_number
            )
        )
    for name, reason, want, have, taken in (
        (CPU, ERR_REASON_INSUFFICIENT_CPU, request.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        (MEMORY, ERR_REASON_INSUFFICIENT_MEMORY, request.memory, alloc.memory, used.memory),
        (
            EPHEMERAL_STORAGE,
            ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
            request.ephemeral_storage,
            alloc.ephemeral_storage,
            used.ephemeral_storage,
        ),
    ):
        if want > 0 and want > have - taken:
            out.append(InsufficientResource(name, reason, want, taken, have, want > have))
    for name, want, reason in request.scalars:
        have = alloc.scalars.get(name, 0)
        taken = used.scalars.get(name, 0)
        if want > have - taken:
            out.append(InsufficientResource(name, reason, want, taken, have, want > have))
    return out


def pre_filter_request(state: CycleState) -> _PreFilterState | None:
    """The pod's request PreFilter wrote, or None when PreFilter did not run."""
    s = state.get(_PRE_FILTER_KEY)
    return s if isinstance(s, _PreFilterState) else None


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """Fits: whether the node has room for the pod, with no resources ignored."""
    return fits_request(compute_pod_resource_request(pod), node_info)


def _build_scorer(args: NodeResourcesFitArgs) -> tuple[Scorer, CpuMemoryBatch | None]:
    strategy = args.scoring_strategy
    if strategy.type == LEAST_ALLOCATED:
        return least_allocated_scorer, least_allocated_cpu_memory
    if strategy.type == MOST_ALLOCATED:
        return most_allocated_scorer, most_allocated_cpu_memory
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        shape = strategy.requested_to_capacity_ratio
        if shape is None or not shape.shape:
            raise FitPluginError("requestedToCapacityRatio shape not specified")
        return requested_to_capacity_ratio_scorer(shape.shape), None
    raise FitPluginError(f"scoring strategy {strategy.type} is not supported")


class Fit:
    name = NAME

    def __init__(self, args: NodeResourcesFitArgs) -> None:
        self.args = args
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        # Upstream's Fit hands its scorer none of its feature flags: scoring reads container
        # requests only (pod-level requests are skipped), with the non-zero defaults.
        scorer, cpu_memory_batch = _build_scorer(args)
        self.scorer = ResourceAllocationScorer(
            args.scoring_strategy.type,
            args.scoring_strategy.resources,
            scorer,
            use_requested=False,
            pod_level=False,
            use_status=False,
            cpu_memory_batch=cpu_memory_batch,
        )
        self._statuses: dict[tuple[bool, tuple[str, ...]], Status] = {}

    # -- PreFilter and Filter ---------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        state.write(
            _PRE_FILTER_KEY,
            compute_pod_resource_request(pod, self.ignored_resources, self.ignored_resource_groups),
        )
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return error(f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        alloc = node_info.allocatable
        used = node_info.requested
        reasons: list[str] = []
        unresolvable = False
        if len(node_info.pods) + 1 > alloc.allowed_pod_number:
            reasons.append(ERR_REASON_TOO_MANY_PODS)
        want = s.milli_cpu
        if want > 0 and want > alloc.milli_cpu - used.milli_cpu:
            reasons.append(ERR_REASON_INSUFFICIENT_CPU)
            unresolvable = want > alloc.milli_cpu
        want = s.memory
        if want > 0 and want > alloc.memory - used.memory:
            reasons.append(ERR_REASON_INSUFFICIENT_MEMORY)
            unresolvable = unresolvable or want > alloc.memory
        want = s.ephemeral_storage
        if want > 0 and want > alloc.ephemeral_storage - used.ephemeral_storage:
            reasons.append(ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE)
            unresolvable = unresolvable or want > alloc.ephemeral_storage
        if s.scalars:
            have_all: Mapping[str, int] = alloc.scalars
            used_all: Mapping[str, int] = used.scalars
            for name, want, reason in s.scalars:
                have = have_all.get(name, 0)
                if want > have - used_all.get(name, 0):
                    reasons.append(reason)
                    unresolvable = unresolvable or want > have
        if not reasons:
            return SUCCESS
        return self._status(unresolvable, tuple(reasons))

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """Filter for many nodes: pods, cpu, memory and ephemeral storage checked as columns;
        the nodes that may not fit (or a request with extended resources) go through filter."""
        s = state.get(_PRE_FILTER_KEY)
        cols = columns_of(nodes)
        if not isinstance(s, _PreFilterState) or s.scalars or cols is None:
            candidates: list[int] = list(range(len(nodes)))
        else:
            # Each node's failed checks as bits (too many pods, cpu, memory, ephemeral storage,
            # and one for "more than the node has"); each distinct answer is one Status.
            c, idx = cols
            whole = c.covers_all(idx)  # read the columns as they are
            checks = [(1, (c.free_pods if whole else c.free_pods[idx]) <= 0, None, 0)]
            for bit, want, free, alloc in (
                (2, s.milli_cpu, c.free_cpu, c.alloc_cpu),
                (4, s.memory, c.free_mem, c.alloc_mem),
                (8, s.ephemeral_storage, c.free_eph, c.alloc_eph),
            ):
                if want > 0:
                    checks.append((bit, (free if whole else free[idx]) < want, alloc, want))
            failed = checks[0][1]
            for check in checks[1:]:
                failed = failed | check[1]
            if not np.count_nonzero(failed):
                return {}
            rejected = failed.nonzero()[0]
            bits = np.zeros(rejected.size, dtype=np.int64)
            beyond = np.zeros(rejected.size, dtype=bool)
            for bit, short_all, alloc, want in checks:
                short = short_all[rejected]
                bits += short * bit
                if alloc is not None:
                    beyond |= short & (want > alloc[idx[rejected]])
            bits += beyond * 16
            statuses = {b: self._status_of_bits(b) for b in np.unique(bits).tolist()}
            return {i: statuses[b] for i, b in zip(rejected.tolist(), bits.tolist(), strict=True)}
        out: dict[int, Status] = {}
        for i in candidates:
            st = self.filter(state, pod, nodes[i])
            if st.code:
                out[i] = st
        return out

    def _status_of_bits(self, bits: int) -> Status:
        """The status filter gives for the failed checks ``bits`` (see filter_batch)."""
        reasons = tuple(
            reason
            for bit, reason in (
                (1, ERR_REASON_TOO_MANY_PODS),
                (2, ERR_REASON_INSUFFICIENT_CPU),
                (4, ERR_REASON_INSUFFICIENT_MEMORY),
                (8, ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE),
            )
            if bits & bit
        )
        return self._status(bool(bits & 16), reasons)

    def _status(self, unresolvable: bool, reasons: tuple[str, ...]) -> Status:
        key = (unresolvable, reasons)
        status = self._statuses.get(key)
        if status is None:
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
            status = self._statuses[key] = Status(code, reasons)
        return status

    # -- PreScore and Score -----------------------------------------------------------------

    def _new_pre_score_state(self, pod: Pod) -> _PreScoreState:
        requests = self.scorer.pod_request_list(pod)
        return _PreScoreState(requests, self.scorer.entries(requests))

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        state.write(_PRE_SCORE_KEY, self._new_pre_score_state(pod))
        return SUCCESS

    def score_entries(self, state: CycleState, pod: Pod) -> tuple[Entry, ...]:
        """The resources Score counts, with the pod's request and weight of each."""
        return self._pre_score_state(state, pod).entries

    def _pre_score_state(self, state: CycleState, pod: Pod) -> _PreScoreState:
        s = state.get(_PRE_SCORE_KEY)
        if isinstance(s, _PreScoreState):
            return s
        # Score without PreScore: upstream computes the requests on the spot.
        return self._new_pre_score_state(pod)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        scores, status = self.score_batch(state, pod, (node_info,))
        return (scores[0] if scores else 0), status

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score every node at once (the per-node Score, without a call per node)."""
        scores, status = self.score_columns(state, pod, nodes)
        return scores.tolist(), status

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """score_batch as an int64 array."""
        if not self.scorer.resources:
            return np.zeros(0, dtype=np.int64), error("resources not found")
        s = self._pre_score_state(state, pod)
        return self.scorer.score_nodes(s.entries, nodes), SUCCESS

    # -- queueing hints -------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # InPlacePodVerticalScaling is on: a scaled-down pod frees room as a deleted one does.
        return [
            ClusterEventWithHint(
                ClusterEvent(POD, "Delete|UpdatePodScaleDown"), self.is_schedulable_after_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(NODE, "Add|UpdateNodeAllocatable"),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_event(self, pod: Pod, old: Pod, new: Pod | None) -> QueueingHint:
        """Queue when a scheduled (or nominated) pod went, or a pod scaled down a resource the
        pod requests (or the pod itself scaled down)."""
        if new is None:
            if not old.node_name and not old.nominated_node_name:
                return QueueingHint.QUEUE_SKIP
            return QueueingHint.QUEUE
        if new.uid == pod.uid:
            return QueueingHint.QUEUE
        if not new.node_name:
            return QueueingHint.QUEUE_SKIP
        before, after = compute_pod_resource_request(old), compute_pod_resource_request(new)
        before_scalars = {name: amount for name, amount, _ in before.scalars}
        after_scalars = {name: amount for name, amount, _ in after.scalars}
        for name, nanos in pod_requests(pod).items():
            if nanos == 0:
                continue
            if name == CPU:
                freed = before.milli_cpu > after.milli_cpu
            elif name == MEMORY:
                freed = before.memory > after.memory
            elif name == EPHEMERAL_STORAGE:
                freed = before.ephemeral_storage > after.ephemeral_storage
            else:
                freed = is_scalar_resource(name) and before_scalars.get(
                    name, 0
                ) > after_scalars.get(name, 0)
            if freed:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old: Node | None, new: Node
    ) -> QueueingHint:
        """Queue when the pod would fit the empty node and the node is new, or its allocatable
        grew in a resource the pod requests (or in pods)."""
        if fits(pod, NodeInfo(new)):  # the resources the empty node lacks
            return QueueingHint.QUEUE_SKIP
        if old is None or _grew(pod, old, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _grew(pod: Pod, old: Node, new: Node) -> bool:
    """haveAnyRequestedResourcesIncreased."""
    request = compute_pod_resource_request(pod)
    before, after = NodeInfo(old).allocatable, NodeInfo(new).allocatable
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    return (
        (request.milli_cpu > 0 and after.milli_cpu > before.milli_cpu)
        or (request.memory > 0 and after.memory > before.memory)
        or (request.ephemeral_storage > 0 and after.ephemeral_storage > before.ephemeral_storage)
        or any(
            after.scalars.get(name, 0) > before.scalars.get(name, 0)
            for name, _, _ in request.scalars
        )
    )


def new(args: NodeResourcesFitArgs | None, handle: Handle) -> Fit:
    return Fit(args if args is not None else NodeResourcesFitArgs())
