"""DynamicResources: allocate the ResourceClaims a pod references (DRA).

Mirrors plugins/dynamicresources/dynamicresources.go in kube-scheduler v1.35 with the default
feature gates (FORMAT.md): PreEnqueue and PreFilter resolve the pod's claims through the DRA
manager, Filter runs the structured allocator per node, Score prefers nodes where earlier
``firstAvailable`` subrequests fit, Reserve keeps the chosen node's allocation, PreBind writes
allocation and reservation, PostFilter deallocates a claim that cannot be used where it is.
A pod without claims passes untouched (PreFilter Skip, Score 0), without touching the manager.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.dra.allocator import AllocationError, Allocator, FailedOnNode
from scheduler_core.dra.explain import explain_node
from scheduler_core.dra.manager import DraManager
from scheduler_core.dra.types import FIRST_AVAILABLE_MAX_SIZE, Allocation, ResourceClaim
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import (
    DEVICE_CLASS,
    NODE,
    POD,
    RESOURCE_CLAIM,
    RESOURCE_SLICE,
    ClusterEvent,
    ClusterEventWithHint,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, PostFilterResult
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Code,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.objects.labels import (
    NodeSelector,
    node_selector,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.dynamic_resources import explain
from scheduler_core.plugins.shared.helpers import (
    FrozenState,
    ScoreValues,
    normalize_node_scores,
    normalize_values,
)
from scheduler_core.plugins.shared.volumes import quote

NAME: Final = names.DYNAMIC_RESOURCES
MSG_NO_NEW_CLAIMS: Final = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE: Final = "still not schedulable"
MSG_DEALLOCATED: Final = "deallocation of ResourceClaim completed"
ERR_REASON_CANNOT_ALLOCATE: Final = "cannot allocate all claims"
ERR_REASON_NOT_AVAILABLE: Final = "resourceclaim not available on the node"
ERR_REASON_IN_USE: Final = "resourceclaim in use"
_STATE_KEY: Final = NAME
# framework.ErrNotFound: what reading a key PreFilter never wrote reports.
_ERR_NOT_FOUND: Final = "not found"


class _NoClaims(FrozenState):
    """The state of a pod without claims."""

    __slots__ = ()


_NO_CLAIMS: Final = _NoClaims()


class _State(FrozenState):
    """stateData: the pod's claims as PreFilter saw them and what Filter and Reserve found.

    Shared, not copied, by clone (as upstream): preemption's dry runs add to it too.
    """

    __slots__ = ("allocations", "allocator", "available_on", "claims", "node_allocations",
                 "unavailable", "verdicts")  # fmt: skip

    def __init__(self, claims: list[ResourceClaim]) -> None:
        self.claims = claims
        self.available_on: list[NodeSelector | None] = [None] * len(claims)
        self.allocator: Allocator | None = None
        self.unavailable: set[int] = set()
        self.node_allocations: dict[str, list[Allocation]] = {}
        self.allocations: list[Allocation | None] = [None] * len(claims)
        self.verdicts: dict[str, str] = {}  # node -> Filter's reason ("" = passed), for explain


def _claim_name(pod: Pod, pod_claim: Mapping[str, Any]) -> tuple[str | None, bool]:
    """resourceclaim.Name: the claim's name (None: deliberately none) and whether to check owner.

    Raises ValueError with upstream's text when the claim cannot be named yet.
    """
    if pod_claim.get("resourceClaimName") is not None:
        return str(pod_claim["resourceClaimName"]), False
    if pod_claim.get("resourceClaimTemplateName") is not None:
        status = pod.raw.get("status") or {}
        for st in status.get("resourceClaimStatuses") or ():
            if st.get("name") == pod_claim.get("name"):
                generated = st.get("resourceClaimName")
                return (str(generated) if generated is not None else None), True
        raise ValueError(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
    raise ValueError(
        f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim '
        f"{quote(str(pod_claim.get('name') or ''))}: none of the supported fields are set"
    )


def _is_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    owners = (claim.raw.get("metadata") or {}).get("ownerReferences") or ()
    return claim.namespace == pod.namespace and any(
        o.get("controller") and o.get("uid") == pod.uid for o in owners
    )


def pod_claims(manager: DraManager, pod: Pod) -> list[ResourceClaim]:
    """foreachPodResourceClaim: the pod's claims in spec order; ValueError on the first problem."""
    out = []
    for pod_claim in (pod.raw.get("spec") or {}).get("resourceClaims") or ():
        name, check_owner = _claim_name(pod, pod_claim)
        if name is None:
            continue
        claim = manager.claim(pod.namespace, name)
        if claim is None:
            raise ValueError(f"resourceclaim.resource.k8s.io {quote(name)} not found")
        if claim.deleting:
            raise ValueError(f"resourceclaim {quote(claim.name)} is being deleted")
        if check_owner and not _is_for_pod(pod, claim):
            raise ValueError(
                f"ResourceClaim {claim.key} was not created for pod {pod.namespace}/{pod.name} "
                "(pod is not owner)"
            )
        out.append(claim)
    return out


def claim_summary(claim: ResourceClaim) -> dict[str, Any]:
    """A claim's allocation as the trace's ``claims`` key shows it (FORMAT.md)."""
    if claim.allocation is None:
        return {"allocated": False, "devices": []}
    return {"allocated": True, "devices": [d.to_dict() for d in claim.allocation.devices]}


def has_claims(pod: Pod) -> bool:
    """Whether the pod lists any spec.resourceClaims (the fast path skips DRA otherwise)."""
    return bool((pod.raw.get("spec") or {}).get("resourceClaims"))


class DynamicResources:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def _manager(self) -> DraManager:
        # The cluster's objects outlive snapshots: PreEnqueue runs before any cycle has one.
        cluster = getattr(self.handle, "extras", {}).get("cluster")
        objects = cluster.objects if cluster is not None else self.handle.snapshot.objects
        manager: DraManager = objects.dra
        return manager

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Upstream's events with DRAExtendedResource off; no hint functions are modelled, so
        # each event requeues the pods this plugin rejected.
        return [
            ClusterEventWithHint(ClusterEvent(NODE, "Add|UpdateNodeLabel|UpdateNodeAllocatable")),
            ClusterEventWithHint(ClusterEvent(RESOURCE_CLAIM, "Add|Update")),
            ClusterEventWithHint(ClusterEvent(POD, "UpdatePodGeneratedResourceClaim")),
            ClusterEventWithHint(ClusterEvent(DEVICE_CLASS, "Add|Update")),
            ClusterEventWithHint(ClusterEvent(RESOURCE_SLICE, "Add|Update")),
        ]

    def pre_enqueue(self, pod: Pod) -> Status:
        if not has_claims(pod):
            return SUCCESS
        try:
            pod_claims(self._manager(), pod)
        except ValueError as err:
            return unresolvable(str(err))
        return SUCCESS

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if not has_claims(pod):
            state.write(_STATE_KEY, _NO_CLAIMS)
            return None, SKIP
        manager = self._manager()
        s = _State([])
        state.write(_STATE_KEY, s)
        try:
            claims = pod_claims(manager, pod)
        except ValueError as err:
            return None, unresolvable(str(err))
        if not claims:
            return None, SKIP
        # Upstream stores the claims in the state only once PreFilter succeeds: a rejection
        # below leaves PostFilter with "no new claims to deallocate".
        s = _State(claims)
        to_allocate = 0
        for i, claim in enumerate(claims):
            if claim.allocation is not None:
                if claim.allocation.node_selector_raw is not None:
                    s.available_on[i] = node_selector(claim.allocation.node_selector_raw)
                continue
            to_allocate += 1
            for req in claim.requests:
                if req.exactly is not None:
                    st = self._validate_class(manager, req.exactly.device_class, req.name)
                    if st is not None:
                        return None, st
                elif req.first_available:
                    for sub in req.first_available:
                        st = self._validate_class(manager, sub.device_class, sub.full_name)
                        if st is not None:
                            return None, st
                else:
                    msg = f"resource claim {claim.key}, request {req.name}: unknown request type"
                    return None, unresolvable(msg)
        if to_allocate:
            s.allocator = Allocator(
                manager.allocated_devices(),
                manager.classes,
                manager.slices,
                manager.cel_cache,
                manager.match_cache,
            )
        state.write(_STATE_KEY, s)
        return None, SUCCESS

    @staticmethod
    def _validate_class(manager: DraManager, class_name: str, request: str) -> Status | None:
        if not class_name:
            return error(f"request {request}: unsupported request type")
        if class_name not in manager.classes:
            return unresolvable(f"request {request}: device class {class_name} does not exist")
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return SUCCESS
        if not isinstance(s, _State):
            return error(_ERR_NOT_FOUND)
        if not s.claims:
            return SUCCESS
        status = self._filter(s, node_info.node)
        s.verdicts[node_info.node.name] = status.message()
        return status

    @staticmethod
    def _filter(s: _State, node: Node) -> Status:
        unavailable = [
            i
            for i, sel in enumerate(s.available_on)
            if sel is not None and not sel.matches(node.labels, node.name)
        ]
        allocations: list[Allocation] | None = None
        if s.allocator is not None:
            pending = [c for c in s.claims if c.allocation is None]
            try:
                allocations = s.allocator.allocate(node, pending)
            except FailedOnNode as err:
                return unresolvable(str(err))
            except AllocationError as err:
                return error(str(err))
            if allocations is None or len(allocations) != len(pending):
                return unresolvable(ERR_REASON_CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable.update(unavailable)
            return unresolvable(ERR_REASON_NOT_AVAILABLE)
        if allocations is not None:
            s.node_allocations[node.name] = allocations
        return SUCCESS

    def post_filter(
        self, state: CycleState, pod: Pod, node_to_status: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return None, unschedulable(MSG_NO_NEW_CLAIMS)
        if not isinstance(s, _State):
            return None, error(_ERR_NOT_FOUND)
        if not s.claims:
            return None, unschedulable(MSG_NO_NEW_CLAIMS)
        # Upstream walks a Go set (random order); the lowest index comes first here.
        for i in sorted(s.unavailable):
            claim = s.claims[i]
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                self._manager().deallocate(claim)
                return None, unschedulable(MSG_DEALLOCATED)
        return None, unschedulable(MSG_STILL_NOT_SCHEDULABLE)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return 0, SUCCESS
        if not isinstance(s, _State):
            return 0, error(_ERR_NOT_FOUND)
        allocations = s.node_allocations.get(node_info.node.name)
        if not s.claims or allocations is None:
            return 0, SUCCESS
        return _compute_score(s.claims, allocations)

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score for every node at once (an int64 array): without claims each node scores 0."""
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return np.zeros(len(nodes), dtype=np.int64), SUCCESS
        out = []
        for ni in nodes:
            value, st = self.score(state, pod, ni)
            if not st.is_success():
                return np.zeros(0, dtype=np.int64), st
            out.append(value)
        return np.asarray(out, dtype=np.int64), SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        return normalize_values(MAX_NODE_SCORE, False, raw)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        return normalize_node_scores(self.normalize_batch, state, pod, scores)

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return SUCCESS
        if not isinstance(s, _State):
            return error(_ERR_NOT_FOUND)
        pending = [i for i, c in enumerate(s.claims) if c.allocation is None]
        if not pending or s.allocator is None:
            return SUCCESS
        allocations = s.node_allocations.get(node_name)
        if not allocations:
            return error("claim allocation not found for node")
        if len(allocations) != len(pending):
            return error(
                f"internal error, have {len(allocations)} allocations, {len(pending)} claims "
                f"to allocate, want {len(pending)} claims"
            )
        for index, allocation in zip(pending, allocations, strict=True):
            s.allocations[index] = allocation
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return
        manager = self._manager()
        for claim in s.claims:
            current = manager.claims.get(claim.key, claim)
            if current.allocation is not None and current.reserved_for_pod(pod.uid):
                manager.unreserve(current, pod.uid)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        s = state.get(_STATE_KEY)
        if isinstance(s, _NoClaims):
            return SUCCESS
        if not isinstance(s, _State):
            return error(_ERR_NOT_FOUND)
        manager = self._manager()
        for index, claim in enumerate(s.claims):
            if claim.reserved_for_pod(pod.uid):
                continue
            allocation = s.allocations[index]
            current = manager.claims.get(claim.key, claim)
            if allocation is not None and current.allocation is not None:
                return error(f"claim {claim.key} got allocated elsewhere in the meantime")
            s.claims[index] = manager.reserve(claim, allocation, pod.name, pod.uid)
        return SUCCESS

    # -- Explained (not upstream) ------------------------------------------------------------

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        return explain.filter_parts(ctx, view)

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        return explain.score_parts(self, ctx, ni)


def device_matches(state: CycleState, nodes: Sequence[NodeInfo]) -> dict[str, Any] | None:
    """Per node, which devices matched which request and why not (dra.explain), or None.

    Only for a pod whose PreFilter found claims; reads what the cycle's Filter stored.
    """
    s = state.get(_STATE_KEY)
    if not isinstance(s, _State) or not s.claims or s.allocator is None:
        return None
    out = {}
    for ni in nodes:
        allocations = s.node_allocations.get(ni.node.name)
        explanation = explain_node(s.allocator, s.claims, ni.node, allocations)
        verdict = s.verdicts.get(ni.node.name)
        if verdict is not None:
            explanation["filter"] = verdict  # absent: an earlier Filter plugin rejected the node
        out[ni.node.name] = explanation
    return out


def _compute_score(
    claims: list[ResourceClaim], allocations: list[Allocation]
) -> tuple[int, Status]:
    """computeScore: each allocated subrequest at index i of its list adds 8 - i.

    Claims and allocation results are paired by position over all the pod's claims, as upstream
    does, so an allocated claim before a pending one makes the pairing run short.
    """
    score = 0
    for i, claim in enumerate(claims):
        if i >= len(allocations):
            msg = f"number of allocations {len(allocations)} is smaller than number of claims"
            return 0, Status(Code.ERROR, (msg,))
        chosen = {d.request for d in allocations[i].devices if "/" in d.request}
        for req in claim.requests:
            for j, sub in enumerate(req.first_available):
                if sub.full_name in chosen:
                    score += FIRST_AVAILABLE_MAX_SIZE - j
    return score, SUCCESS


def new(args: Any, handle: Handle) -> DynamicResources:
    return DynamicResources(handle)
