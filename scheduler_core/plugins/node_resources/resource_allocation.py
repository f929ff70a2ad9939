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

from scheduler_core import quantity as q
from scheduler_core.api import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    HUGEPAGES_PREFIX,
    MEMORY,
    Pod,
    is_scalar_resource,
)
from scheduler_core.config.types import ResourceSpec
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.types import NodeInfo

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

# A scorer maps the per-resource requested and allocatable amounts and weights to a score.
Scorer = Callable[[Sequence[int], Sequence[int], Sequence[int]], int]

# The same scorer specialised to exactly cpu then memory, over many nodes at once:
# (nodes, use_requested, cpu request, cpu weight, memory request, memory weight) -> scores.
# It must give what Scorer gives on the amounts score_nodes would gather.
# Returns the scores as an int64 array (over node columns) or a list.
CpuMemoryBatch = Callable[[Sequence[NodeInfo], bool, int, int, int, int], Sequence[int]]


def go_quo(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's ``/`` on int64."""
    quo = a // b
    if quo < 0 and quo * b != a:
        quo += 1
    return quo


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
        "cpu_memory_batch",
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
        cpu_memory_batch: CpuMemoryBatch | None = None,
    ) -> None:
        self.name = name
        self.resources = tuple(resources)
        self.scorer = scorer
        self.cpu_memory_batch = cpu_memory_batch
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
        """The score of each node, in order, as an int64 array."""
        use_requested = self.use_requested
        batch = self.cpu_memory_batch
        if (
            batch is not None
            and len(entries) == 2
            and entries[0][0] == KIND_CPU
            and entries[1][0] == KIND_MEMORY
        ):
            (_, _, cpu_req, cpu_weight), (_, _, mem_req, mem_weight) = entries
            scores = batch(nodes, use_requested, cpu_req, cpu_weight, mem_req, mem_weight)
            return np.asarray(scores, dtype=np.int64)
        scorer = self.scorer
        out: list[int] = []
        for ni in nodes:
            amounts = self.node_amounts(entries, ni)
            out.append(
                scorer([a[1] for a in amounts], [a[2] for a in amounts], [a[3] for a in amounts])
            )
        return np.asarray(out, dtype=np.int64)

    def node_amounts(
        self, entries: Sequence[Entry], ni: NodeInfo
    ) -> list[tuple[str, int, int, int]]:
        """(resource, requested with the pod, allocatable, weight) of each resource that counts
        on the node: the scorer's inputs. A resource the node has none of does not count."""
        alloc = ni.allocatable
        requested = ni.requested
        counted = requested if self.use_requested else ni.non_zero_requested
        out: list[tuple[str, int, int, int]] = []
        for kind, name, pod_req, weight in entries:
            if kind == KIND_CPU:
                a = alloc.milli_cpu
                r = counted.milli_cpu + pod_req
            elif kind == KIND_MEMORY:
                a = alloc.memory
                r = counted.memory + pod_req
            elif kind == KIND_EPHEMERAL_STORAGE:
                a = alloc.ephemeral_storage
                r = requested.ephemeral_storage + pod_req
            else:
                got = alloc.scalars.get(name)
                if got is None:
                    continue
                a = got
                r = requested.scalars.get(name, 0) + pod_req
            if a != 0:
                out.append((name, r, a, weight))
        return out


def cpu_memory_columns(
    nodes: Sequence[NodeInfo], use_requested: bool, cpu_req: int, mem_req: int
) -> tuple[Any, Any, Any, Any, bool] | None:
    """Allocatable and requested-after-placing-the-pod cpu and memory as arrays over ``nodes``
    (requested or non-zero requested), and whether every node's cpu and memory allocatable is
    above zero; None when the nodes have no columns. The requested arrays are the caller's;
    the allocatable ones may be the columns themselves: read them, never write them."""
    cols = columns_of(nodes)
    if cols is None:
        return None
    c, idx = cols
    used_cpu, used_mem = (c.req_cpu, c.req_mem) if use_requested else (c.nz_cpu, c.nz_mem)
    if c.covers_all(idx):  # the columns as they are (the allocatable ones read, never written)
        positive = c.cpu_memory_positive()
        return c.alloc_cpu, c.alloc_mem, used_cpu + cpu_req, used_mem + mem_req, positive
    used_cpu = used_cpu[idx]
    used_cpu += cpu_req
    used_mem = used_mem[idx]
    used_mem += mem_req
    return c.alloc_cpu[idx], c.alloc_mem[idx], used_cpu, used_mem, c.cpu_memory_positive()
