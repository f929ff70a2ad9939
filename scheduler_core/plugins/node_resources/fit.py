"""NodeResourcesFit: keep pods off nodes without room for their requests; score nodes by how
allocated they would be (LeastAllocated, MostAllocated or RequestedToCapacityRatio).

Mirrors plugins/noderesources/fit.go in kube-scheduler v1.35, with the v1.35 default feature
gates: SidecarContainers, PodLevelResources and InPlacePodVerticalScaling on. No DeviceClass
maps an extended resource to DRA here, so no request is left to DynamicResources.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

import numpy as np

from scheduler_core.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
)
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.columns import Array, columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    NODE,
    POD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import Handle, ScoreByColumns, filter_one
from scheduler_core.framework.rejections import RowRejections
from scheduler_core.framework.status import SUCCESS, Code, Status, error
from scheduler_core.framework.types import NodeInfo, PreFilterResult
from scheduler_core.objects import quantity as q
from scheduler_core.objects.api import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    Node,
    Pod,
    is_extended_resource,
    is_scalar_resource,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.node_resources import explain
from scheduler_core.plugins.node_resources.least_allocated import least_allocated_scorer
from scheduler_core.plugins.node_resources.most_allocated import most_allocated_scorer
from scheduler_core.plugins.node_resources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
)
from scheduler_core.plugins.node_resources.resource_allocation import (
    Entry,
    ResourceAllocationScorer,
    Scorer,
    pod_requests,
)
from scheduler_core.plugins.shared.helpers import FrozenState

NAME: Final = names.NODE_RESOURCES_FIT
ERR_REASON_TOO_MANY_PODS: Final = "Too many pods"
ERR_REASON_INSUFFICIENT_CPU: Final = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY: Final = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE: Final = "Insufficient ephemeral-storage"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"


_NO_PRE_FILTER_STATE: Final = error(f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found')


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


class _Check(NamedTuple):
    """One resource Filter checks, over a list of nodes: the pod's request, each node's
    capacity and what its pods use, and where the request does not fit in what is left."""

    name: str
    reason: str
    want: int
    used: Array
    capacity: Array
    short: Array
    can_exceed: bool  # whether the request can exceed the whole capacity (pods: never)


# What a node's pods use of each base resource and its capacity (pods, cpu, memory,
# ephemeral-storage), read node by node where there are no columns.
_BASE_AMOUNTS: Final[tuple[tuple[Callable[[NodeInfo], int], Callable[[NodeInfo], int]], ...]] = (
    (lambda ni: len(ni.pods), lambda ni: ni.allocatable.allowed_pod_number),
    (lambda ni: ni.requested.milli_cpu, lambda ni: ni.allocatable.milli_cpu),
    (lambda ni: ni.requested.memory, lambda ni: ni.allocatable.memory),
    (lambda ni: ni.requested.ephemeral_storage, lambda ni: ni.allocatable.ephemeral_storage),
)


def _checks(request: _PreFilterState, nodes: Sequence[NodeInfo]) -> list[_Check]:
    """fitsRequest's checks in upstream order: pods, then cpu, memory and ephemeral-storage
    (when requested) and the scalar resources. A request does not fit where it exceeds what
    is left (capacity minus used). The amounts come from the snapshot's columns when the
    nodes are column-backed (what is left kept there too), else from each node."""
    found = columns_of(nodes)
    amounts: list[tuple[Array, Array, Array]] = []  # (used, capacity, left) per base resource
    if found is not None:
        c, idx = found
        whole = c.covers_all(idx)  # read the columns as they are
        for columns in (
            (c.num_pods, c.alloc_pods, c.free_pods),
            (c.req_cpu, c.alloc_cpu, c.free_cpu),
            (c.req_mem, c.alloc_mem, c.free_mem),
            (c.req_eph, c.alloc_eph, c.free_eph),
        ):
            amounts.append(
                columns if whole else (columns[0][idx], columns[1][idx], columns[2][idx])
            )
    else:  # one node without columns (a preemption copy) reads Python ints: no arrays
        for read_used, read_capacity in _BASE_AMOUNTS:
            used, capacity = _each(nodes, read_used), _each(nodes, read_capacity)
            amounts.append((used, capacity, capacity - used))
    wanted = [
        ("pods", ERR_REASON_TOO_MANY_PODS, 1),
        (CPU, ERR_REASON_INSUFFICIENT_CPU, request.milli_cpu),
        (MEMORY, ERR_REASON_INSUFFICIENT_MEMORY, request.memory),
        (EPHEMERAL_STORAGE, ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE, request.ephemeral_storage),
    ]
    for name, want, reason in request.scalars:
        used = _each(nodes, lambda ni: int(ni.requested.scalars.get(name, 0)))  # noqa: B023
        capacity = _each(nodes, lambda ni: int(ni.allocatable.scalars.get(name, 0)))  # noqa: B023
        wanted.append((name, reason, want))
        amounts.append((used, capacity, capacity - used))
    out = []
    for k, ((name, reason, want), (used, capacity, left)) in enumerate(
        zip(wanted, amounts, strict=True)
    ):
        if want <= 0 and k < 4:
            continue  # cpu, memory and ephemeral-storage are checked only when requested
        out.append(_Check(name, reason, want, used, capacity, want > left, k > 0))
    return out


def _each(nodes: Sequence[NodeInfo], read: Callable[[NodeInfo], int]) -> Any:
    """``read`` over the nodes as an int64 array, or as an int for a single node without
    columns (the checks' expressions read both the same way)."""
    if len(nodes) == 1 and nodes[0].columns is None:
        return read(nodes[0])
    return np.fromiter(map(read, nodes), dtype=np.int64, count=len(nodes))


def _first(value: Any) -> Any:
    """The first node's value of a check's field (an array over the nodes, or one value)."""
    return value[0] if isinstance(value, np.ndarray) else value


def fits_request(request: _PreFilterState, node_info: NodeInfo) -> list[InsufficientResource]:
    """fitsRequest: every resource the node lacks, in upstream order (the checks of Filter,
    on one node)."""
    return [
        InsufficientResource(
            c.name,
            c.reason,
            c.want,
            int(_first(c.used)),
            int(_first(c.capacity)),
            c.can_exceed and c.want > int(_first(c.capacity)),
        )
        for c in _checks(request, (node_info,))
        if _first(c.short)
    ]


def pre_filter_request(state: CycleState) -> _PreFilterState | None:
    """The pod's request PreFilter wrote, or None when PreFilter did not run."""
    s = state.get(_PRE_FILTER_KEY)
    return s if isinstance(s, _PreFilterState) else None


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """Fits: whether the node has room for the pod, with no resources ignored."""
    return fits_request(compute_pod_resource_request(pod), node_info)


def _build_scorer(args: NodeResourcesFitArgs) -> Scorer:
    strategy = args.scoring_strategy
    if strategy.type == LEAST_ALLOCATED:
        return least_allocated_scorer
    if strategy.type == MOST_ALLOCATED:
        return most_allocated_scorer
    if strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        shape = strategy.requested_to_capacity_ratio
        if shape is None or not shape.shape:
            raise FitPluginError("requestedToCapacityRatio shape not specified")
        return requested_to_capacity_ratio_scorer(shape.shape)
    raise FitPluginError(f"scoring strategy {strategy.type} is not supported")


class Fit(ScoreByColumns):
    name = NAME

    def __init__(self, args: NodeResourcesFitArgs) -> None:
        self.args = args
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        # Upstream's Fit hands its scorer none of its feature flags: scoring reads container
        # requests only (pod-level requests are skipped), with the non-zero defaults.
        self.scorer = ResourceAllocationScorer(
            args.scoring_strategy.type,
            args.scoring_strategy.resources,
            _build_scorer(args),
            use_requested=False,
            pod_level=False,
            use_status=False,
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
        if node_info.columns is not None:
            return filter_one(self, state, pod, node_info)
        # A node without columns (preemption's copies, filtered again at every reprieve): the
        # checks of _checks on Python ints, in the same order, without building them.
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return _NO_PRE_FILTER_STATE
        alloc, used = node_info.allocatable, node_info.requested
        reasons: list[str] = []
        beyond = False  # a request above the whole capacity (never the pod count's)
        if alloc.allowed_pod_number - len(node_info.pods) < 1:
            reasons.append(ERR_REASON_TOO_MANY_PODS)
        for want, capacity, in_use, reason in (
            (s.milli_cpu, alloc.milli_cpu, used.milli_cpu, ERR_REASON_INSUFFICIENT_CPU),
            (s.memory, alloc.memory, used.memory, ERR_REASON_INSUFFICIENT_MEMORY),
            (
                s.ephemeral_storage,
                alloc.ephemeral_storage,
                used.ephemeral_storage,
                ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
            ),
        ):
            if want > 0 and want > capacity - in_use:  # checked only when requested
                reasons.append(reason)
                beyond = beyond or want > capacity
        for name, want, reason in s.scalars:
            capacity = int(alloc.scalars.get(name, 0))
            if want > capacity - int(used.scalars.get(name, 0)):
                reasons.append(reason)
                beyond = beyond or want > capacity
        if not reasons:
            return SUCCESS
        return self._status(beyond, tuple(reasons))

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """Filter for many nodes: each node's failed checks as bits (one per check, and one for
        "more than the node has", which makes the rejection unresolvable); each distinct
        answer is one Status. Without the PreFilter state, upstream's Error."""
        if len(nodes) == 1 and nodes[0].columns is None:  # the checks on ints: see filter
            status = self.filter(state, pod, nodes[0])
            return {0: status} if status.code else {}
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return dict.fromkeys(range(len(nodes)), _NO_PRE_FILTER_STATE)
        checks = _checks(s, nodes)
        failed = checks[0].short
        for check in checks[1:]:
            failed = failed | check.short
        if not np.count_nonzero(failed):
            return {}
        rejected = failed.nonzero()[0]
        bits = np.zeros(rejected.size, dtype=np.int64)
        beyond = np.zeros(rejected.size, dtype=bool)
        for k, check in enumerate(checks):
            short = check.short[rejected]
            bits += short * (1 << k)
            if check.can_exceed:
                beyond |= short & (check.want > check.capacity[rejected])
        bits += beyond * (1 << len(checks))
        out = RowRejections()
        low, high = int(np.minimum.reduce(bits)), int(np.maximum.reduce(bits))
        if low == high:  # one answer for every rejected node, the usual case
            out.add_rows(rejected, self._status_of_bits(checks, low))
            return out
        # The distinct answers in order of appearance (np.unique sorts, and its first call
        # imports numpy.ma: tens of milliseconds).
        for b in dict.fromkeys(bits.tolist()):
            out.add_rows(rejected[bits == b], self._status_of_bits(checks, b))
        return out

    def _status_of_bits(self, checks: Sequence[_Check], bits: int) -> Status:
        """The status for the failed checks ``bits`` (see filter_batch)."""
        reasons = tuple(c.reason for k, c in enumerate(checks) if bits & (1 << k))
        return self._status(bool(bits & (1 << len(checks))), reasons)

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

    # -- Explained (not upstream) ------------------------------------------------------------

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """The pod's request against what the node has free, and the shortages Filter found."""
        request = pre_filter_request(view.state)
        if request is None:
            return {}, "", ""
        short = fits_request(request, view.node_info)
        return explain.fit_filter(request, view.node_info, short)

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        """Each resource's score under the strategy, and their weighted mean."""
        entries = self.score_entries(ctx.state, ctx.pod)
        return explain.allocation_score(self.scorer, entries, ni, explain.rtcr_shape(self.args))


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
