"""The resource-allocation scorer shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors plugins/noderesources/resource_allocation.go in kube-scheduler v1.35, plus the pieces
of component-helpers/resource (PodRequests with its options) the two plugins call.

A scorer turns, for each configured resource, the node's allocatable amount and the amount
requested on it (pods already there plus the incoming pod) into one score. Everything that
depends only on the pod is worked out once per cycle (``ResourceAllocationScorer.pod_request_list``
and ``ResourceAllocationScorer.entries``); the per-node work is a few attribute reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.config.types import ResourceSpec
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects import quantity as q
from scheduler_core.objects.api import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    HUGEPAGES_PREFIX,
    MEMORY,
    Pod,
    is_scalar_resource,
)

# How a resource's amounts are read off a NodeInfo.
KIND_CPU: Final = 0
KIND_MEMORY: Final = 1
KIND_EPHEMERAL_STORAGE: Final = 2
KIND_SCALAR: Final = 3

# schedutil.DefaultMilliCPURequest and DefaultMemoryRequest, as nano-unit quantities: what
# scoring assumes for a container that sets no cpu or memory request.
NON_ZERO_DEFAULTS: Final[Mapping[str, int]] = {
    CPU: DEFAULT_MILLI_CPU_REQUEST * 10**6,
    MEMORY: DEFAULT_MEMORY_REQUEST * q.NANO,
}

# An entry: (kind, resource name, the pod's request, weight).
Entry = tuple[int, str, int, int]

# A scorer (a scoring strategy's rule) maps, over many nodes at once, each resource's amount
# requested with the pod and allocatable (int64 arrays aligned with the nodes) and the
# resources' weights to the nodes' scores (an int64 array). A resource a node has none of
# (allocatable 0) does not count on that node. The arrays may be the snapshot's columns:
# read them, never write them.
Scorer = Callable[[Sequence[Any], Sequence[Any], Sequence[int]], Any]


def go_quo(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on int64."""
    quo = a // b
    if quo < 0 and quo * b != a:
        quo += 1
    return quo


def go_quo_array(a: Any, b: Any, *, nonneg: bool = False, positive: bool = False) -> Any:
    """go_quo over int64 arrays (``b`` may be an int); 0 where ``b`` is 0. ``nonneg``: the
    caller knows ``a`` has no negative value; ``positive``: that ``b`` has none below 1."""
    if not len(a):
        return a.copy()
    if isinstance(b, int):
        if b > 0 and (nonneg or int(np.minimum.reduce(a)) >= 0):
            return a // b
        b = np.full(len(a), b, dtype=np.int64)
    elif (positive or int(np.minimum.reduce(b)) > 0) and (nonneg or int(np.minimum.reduce(a)) >= 0):
        return a // b  # non-negative by positive: floor division is truncation
    zero = b == 0
    safe = np.where(zero, 1, b)
    quo = a // safe
    quo += (quo < 0) & (quo * safe != a)
    quo[zero] = 0
    return quo


def counted(allocatable: Any) -> Any:
    """Where a resource counts: the nodes with some of it allocatable (a bool array), or None
    when every node has a positive amount (the common case, checked in one pass)."""
    if not len(allocatable) or int(np.minimum.reduce(allocatable)) > 0:
        return None
    return allocatable != 0


class WeightedMean:
    """Per-resource scores added up with their weights, over the nodes where each resource
    counts (allocatable not 0): the integer weighted mean the allocation strategies take."""

    __slots__ = ("total", "n", "weights")

    def __init__(self, n: int) -> None:
        self.total: Any = None  # the first resource's weighted scores start it
        self.n = n
        self.weights: Any = 0  # an int while every resource counted on every node

    def add(self, score: Any, counts: Any, weight: int) -> None:
        """Add a resource's scores (an array this object may keep and change) where it
        ``counts`` (see counted)."""
        if counts is None:
            if weight != 1:
                score *= weight
            if self.total is None:
                self.total = score
            else:
                self.total += score
            self.weights = self.weights + weight
        else:
            weighted = np.where(counts, score * weight, 0)
            self.total = weighted if self.total is None else self.total + weighted
            self.weights = self.weights + counts * weight

    def result(self, *, nonneg: bool = False) -> Any:
        """The total over the weight sum (Go's truncation), 0 where nothing counted.
        ``nonneg``: the caller knows no total is negative."""
        if self.total is None:
            return np.zeros(self.n, dtype=np.int64)
        return go_quo_array(self.total, self.weights, nonneg=nonneg)


def weighted_mean_scorer(
    per_resource: Callable[[Any, Any, Any], Any], *, nonneg: bool = False
) -> Scorer:
    """The scorer of LeastAllocated and MostAllocated: ``per_resource(requested, capacity,
    counts)`` scores each resource on every node (counts: see counted), and the node's score is
    the WeightedMean of those over the resources it has. ``nonneg``: ``per_resource`` never
    gives a negative score (then, with no negative weight, no total is negative either)."""

    def scorer(requested: Sequence[Any], allocatable: Sequence[Any], weights: Sequence[int]) -> Any:
        mean = WeightedMean(len(requested[0]) if requested else 0)
        for req, cap, weight in zip(requested, allocatable, weights, strict=True):
            counts = counted(cap)
            mean.add(per_resource(req, cap, counts), counts, weight)
        return mean.result(nonneg=nonneg and all(w >= 0 for w in weights))

    return scorer


# -- pod requests (component-helpers/resource.PodRequests) -----------------------------------


def _add(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        cur = into.get(k)
        if cur is None or v > cur:
            into[k] = v


def _is_supported_pod_level(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def _parse_list(raw: Any) -> dict[str, int]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): q.parse_quantity(str(v), str(k)) for k, v in raw.items()}


def _status_requests(pod: Pod) -> dict[str, dict[str, int]]:
    """Effective requests of the containers whose status reports resources (in-place resize).

    determineEffectiveRequests: the largest of spec, actuated and allocated requests, or of
    actuated and allocated only when the pod's resize is Infeasible.
    """
    status = pod.raw.get("status") or {}
    statuses = list(status.get("containerStatuses") or ()) + list(
        status.get("initContainerStatuses") or ()
    )
    if not statuses:
        return {}
    infeasible = False
    for cond in status.get("conditions") or ():
        if cond.get("type") == "PodResizePending":
            infeasible = cond.get("reason") == "Infeasible"
            break
    specs = {c.name: c.requests for c in pod.containers + pod.init_containers}
    by_name: dict[str, Mapping[str, Any]] = {}
    for cs in statuses:
        by_name[str(cs.get("name", ""))] = cs
    out: dict[str, dict[str, int]] = {}
    for name, cs in by_name.items():
        if cs.get("resources") is None:
            continue
        actuated = _parse_list((cs.get("resources") or {}).get("requests"))
        allocated = _parse_list(cs.get("allocatedResources"))
        if infeasible:
            eff = dict(actuated)
        else:
            eff = dict(specs.get(name, {}))
            _max(eff, actuated)
        _max(eff, allocated)
        out[name] = eff
    return out


def pod_requests(
    pod: Pod,
    *,
    skip_pod_level: bool = False,
    non_missing: Mapping[str, int] | None = None,
    use_status: bool = False,
) -> dict[str, int]:
    """resource.PodRequests: the pod's requests in nano-units under the given options.

    Containers add up; each init container counts with the restartable (sidecar) init
    containers before it, and the pod needs the largest of those; sidecars also add to the
    containers' sum. ``non_missing`` fills requests a container leaves out (an explicit zero
    stays zero). Pod-level requests of cpu, memory and hugepages replace the aggregate unless
    ``skip_pod_level``; overhead is added last.
    """
    effective = _status_requests(pod) if use_status else {}
    if (
        not effective
        and (not skip_pod_level or not pod.pod_level_requests_set)
        and not (non_missing and _some_missing(pod, non_missing))
    ):
        # The pod's own requests: what the parsed pod already summed the same way.
        return dict(pod.requests)
    reqs: dict[str, int] = {}
    for c in pod.containers:
        cr: Mapping[str, int] = c.requests
        if effective and c.name in effective:
            cr = effective[c.name]
        if non_missing:
            cr = _with_non_missing(cr, non_missing)
        _add(reqs, cr)
    restartable: dict[str, int] = {}
    init_reqs: dict[str, int] = {}
    for c in pod.init_containers:
        cr = c.requests
        if effective and c.restart_always and c.name in effective:
            cr = effective[c.name]
        if non_missing:
            cr = _with_non_missing(cr, non_missing)
        if c.restart_always:
            _add(reqs, cr)
            _add(restartable, cr)
            _max(init_reqs, restartable)
        else:
            tmp = dict(cr)
            _add(tmp, restartable)
            _max(init_reqs, tmp)
    _max(reqs, init_reqs)
    if not skip_pod_level and any(_is_supported_pod_level(n) for n in pod.pod_requests_raw):
        for name, nanos in pod.pod_requests_raw.items():
            if _is_supported_pod_level(name):
                reqs[name] = nanos
    _add(reqs, pod.overhead)
    return reqs


def _some_missing(pod: Pod, non_missing: Mapping[str, int]) -> bool:
    """Whether some container leaves out a request that ``non_missing`` would fill."""
    return any(
        name not in c.requests for c in pod.containers + pod.init_containers for name in non_missing
    )


def _with_non_missing(reqs: Mapping[str, int], non_missing: Mapping[str, int]) -> dict[str, int]:
    out = dict(reqs)
    for k, v in non_missing.items():
        if k not in reqs:
            out[k] = v
    return out


def request_amount(reqs: Mapping[str, int], name: str) -> int:
    """One resource of a request list in its scheduler unit: millicores for cpu, else Value()."""
    nanos = reqs.get(name, 0)
    return q.milli_value(nanos) if name == CPU else q.value(nanos)


# -- the scorer --------------------------------------------------------------------------------


class ResourceAllocationScorer:
    """resourceAllocationScorer: which resources count, how pod requests are taken, the scorer.

    ``use_requested`` reads the node's plain requested amounts for cpu and memory; otherwise
    the non-zero ones (each pod without a cpu or memory request counted at the defaults), and
    the incoming pod's requests get the same defaults.
    """

    __slots__ = (
        "name",
        "resources",
        "scorer",
        "use_requested",
        "pod_level",
        "use_status",
        "_entries",
    )

    def __init__(
        self,
        name: str,
        resources: Sequence[ResourceSpec],
        scorer: Scorer,
        *,
        use_requested: bool,
        pod_level: bool,
        use_status: bool,
    ) -> None:
        self.name = name
        self.resources = tuple(resources)
        self.scorer = scorer
        self.use_requested = use_requested
        self.pod_level = pod_level
        self.use_status = use_status
        self._entries: dict[tuple[int, ...], tuple[Entry, ...]] = {}

    def pod_request_list(self, pod: Pod) -> tuple[int, ...]:
        """calculatePodResourceRequestList: the pod's request of each configured resource."""
        reqs = pod_requests(
            pod,
            skip_pod_level=not self.pod_level,
            non_missing=None if self.use_requested else NON_ZERO_DEFAULTS,
            use_status=self.use_status,
        )
        return tuple(request_amount(reqs, r.name) for r in self.resources)

    def entries(self, pod_requests_list: Sequence[int]) -> tuple[Entry, ...]:
        """The resources that can count on some node, with how to read them.

        An extended (scalar) resource the pod does not request, or a name that is neither
        cpu, memory, ephemeral-storage nor a scalar resource, gives (0, 0) on every node and
        so never counts; it is left out here once instead of being skipped per node. Pods
        mostly repeat a few request lists: the answer is remembered for each.
        """
        key = tuple(pod_requests_list)
        found = self._entries.get(key)
        if found is None:
            found = self._new_entries(key)
            if len(self._entries) >= 256:
                self._entries.clear()
            self._entries[key] = found
        return found

    def _new_entries(self, pod_requests_list: Sequence[int]) -> tuple[Entry, ...]:
        out: list[Entry] = []
        for spec, req in zip(self.resources, pod_requests_list, strict=True):
            name = spec.name
            if req == 0 and is_scalar_resource(name):
                continue
            if name == CPU:
                kind = KIND_CPU
            elif name == MEMORY:
                kind = KIND_MEMORY
            elif name == EPHEMERAL_STORAGE:
                kind = KIND_EPHEMERAL_STORAGE
            elif is_scalar_resource(name):
                kind = KIND_SCALAR
            else:
                continue
            out.append((kind, name, req, spec.weight))
        return tuple(out)

    def score_nodes(self, entries: Sequence[Entry], nodes: Sequence[NodeInfo]) -> Any:
        """The score of each node, in order, as an int64 array: the strategy over the
        amounts of every resource that counts."""
        amounts = self.amounts(entries, nodes)
        if not amounts:  # nothing counts on any node: as a resource no node has
            none = np.zeros(len(nodes), dtype=np.int64)
            amounts = [("", none, none, 0)]
        return self.scorer(
            [a[1] for a in amounts], [a[2] for a in amounts], [a[3] for a in amounts]
        )

    def score_amounts(
        self, requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]
    ) -> int:
        """The strategy on one node's amounts (explanations show its inputs)."""
        if not requested:  # nothing counts: as a resource the node does not have
            requested, allocatable, weights = [0], [0], [0]
        return int(
            self.scorer(
                [np.array((v,), dtype=np.int64) for v in requested],
                [np.array((v,), dtype=np.int64) for v in allocatable],
                weights,
            )[0]
        )

    def amounts(self, entries: Sequence[Entry], nodes: Sequence[NodeInfo]) -> list[Amounts]:
        """(resource, requested with the pod, allocatable, weight) of each entry over the
        nodes: the scorer's inputs. cpu and memory count the requested or the non-zero
        requested amounts (``use_requested``), the others what is requested. Read from the
        snapshot's columns when the nodes are column-backed (allocatable arrays may be the
        columns themselves), else from each node."""
        found = columns_of(nodes)
        out: list[Amounts] = []
        for kind, name, pod_req, weight in entries:
            if kind == KIND_SCALAR or found is None:
                read = _READERS[kind](self.use_requested, name)
                used = _each(nodes, lambda ni: read(ni)[0])  # noqa: B023
                allocatable = _each(nodes, lambda ni: read(ni)[1])  # noqa: B023
            else:
                c, idx = found
                used, allocatable = (
                    (c.req_cpu if self.use_requested else c.nz_cpu, c.alloc_cpu)
                    if kind == KIND_CPU
                    else (c.req_mem if self.use_requested else c.nz_mem, c.alloc_mem)
                    if kind == KIND_MEMORY
                    else (c.req_eph, c.alloc_eph)
                )
                if not c.covers_all(idx):
                    used, allocatable = used[idx], allocatable[idx]
            out.append((name, used + pod_req, allocatable, weight))
        return out

    def node_amounts(
        self, entries: Sequence[Entry], ni: NodeInfo
    ) -> list[tuple[str, int, int, int]]:
        """The amounts of each resource that counts on one node (allocatable not 0), as ints."""
        return [
            (name, int(requested[0]), int(allocatable[0]), weight)
            for name, requested, allocatable, weight in self.amounts(entries, (ni,))
            if allocatable[0] != 0
        ]


# (resource, requested with the pod, allocatable, weight), the arrays aligned with the nodes.
Amounts = tuple[str, Any, Any, int]


def _each(nodes: Sequence[NodeInfo], read: Callable[[NodeInfo], int]) -> Any:
    return np.fromiter(map(read, nodes), dtype=np.int64, count=len(nodes))


def _read_cpu(use_requested: bool, name: str) -> Callable[[NodeInfo], tuple[int, int]]:
    if use_requested:
        return lambda ni: (ni.requested.milli_cpu, ni.allocatable.milli_cpu)
    return lambda ni: (ni.non_zero_requested.milli_cpu, ni.allocatable.milli_cpu)


def _read_memory(use_requested: bool, name: str) -> Callable[[NodeInfo], tuple[int, int]]:
    if use_requested:
        return lambda ni: (ni.requested.memory, ni.allocatable.memory)
    return lambda ni: (ni.non_zero_requested.memory, ni.allocatable.memory)


def _read_ephemeral(use_requested: bool, name: str) -> Callable[[NodeInfo], tuple[int, int]]:
    return lambda ni: (ni.requested.ephemeral_storage, ni.allocatable.ephemeral_storage)


def _read_scalar(use_requested: bool, name: str) -> Callable[[NodeInfo], tuple[int, int]]:
    # A node without the resource has none allocatable: it does not count there.
    return lambda ni: (ni.requested.scalars.get(name, 0), ni.allocatable.scalars.get(name, 0))


_READERS: Final = {
    KIND_CPU: _read_cpu,
    KIND_MEMORY: _read_memory,
    KIND_EPHEMERAL_STORAGE: _read_ephemeral,
    KIND_SCALAR: _read_scalar,
}
