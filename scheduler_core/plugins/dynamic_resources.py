"""DynamicResources: allocate the ResourceClaims a pod references (DRA).

Mirrors plugins/dynamicresources/dynamicresources.go in kube-scheduler v1.35 for what a cluster
without DRA objects shows: the engine keeps no ResourceClaims, DeviceClasses or ResourceSlices,
so a pod without claims passes untouched (PreFilter Skip, Score 0 on every node, PostFilter
"no new claims to deallocate") and a pod with claims waits for claims that do not exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.api import Pod
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle, PostFilterResult
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import (
    FrozenState,
    default_normalize_score,
    normalize_values,
)
from scheduler_core.plugins.volume_binding import quote

NAME: Final = names.DYNAMIC_RESOURCES
MSG_NO_NEW_CLAIMS: Final = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE: Final = "still not schedulable"
_STATE_KEY: Final = NAME
# framework.ErrNotFound: what reading a key PreFilter never wrote reports.
_ERR_NOT_FOUND: Final = "not found"


class _State(FrozenState):
    """stateData reduced to what a claim-less cluster can hold: the pod's claim count."""

    __slots__ = ("num_claims",)

    def __init__(self, num_claims: int) -> None:
        self.num_claims = num_claims


_NO_CLAIMS: Final = _State(0)


def _claim_error(pod: Pod, pod_claim: Mapping[str, Any]) -> str:
    """Why a pod.spec.resourceClaims entry cannot be resolved when no claim objects exist."""
    prefix = f'pod "{pod.namespace}/{pod.name}"'
    if pod_claim.get("resourceClaimName") is not None:
        name = str(pod_claim["resourceClaimName"])
        return f"resourceclaim.resource.k8s.io {quote(name)} not found"
    if pod_claim.get("resourceClaimTemplateName") is not None:
        status = pod.raw.get("status") or {}
        for st in status.get("resourceClaimStatuses") or ():
            if st.get("name") == pod_claim.get("name"):
                generated = st.get("resourceClaimName")
                if generated is None:
                    return ""  # no claim was generated: nothing to check
                return f"resourceclaim.resource.k8s.io {quote(str(generated))} not found"
        return f"{prefix}: ResourceClaim not created yet"
    return (
        f"{prefix}, spec.resourceClaim {quote(str(pod_claim.get('name') or ''))}: API unsupported"
    )


def _pod_claims_error(pod: Pod) -> str:
    """foreachPodResourceClaim's first error, or "" when every claim resolves (or none exist)."""
    spec = pod.raw.get("spec") or {}
    for pod_claim in spec.get("resourceClaims") or ():
        msg = _claim_error(pod, pod_claim)
        if msg:
            return msg
    return ""


class DynamicResources:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def pre_enqueue(self, pod: Pod) -> Status:
        msg = _pod_claims_error(pod)
        return unresolvable(msg) if msg else SUCCESS

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        state.write(_STATE_KEY, _NO_CLAIMS)
        if not (pod.raw.get("spec") or {}).get("resourceClaims"):
            return None, SKIP
        msg = _pod_claims_error(pod)
        if msg:
            return None, unresolvable(msg)
        # Every claim was left ungenerated on purpose: nothing to allocate.
        return None, SKIP

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return error(_ERR_NOT_FOUND)
        return SUCCESS

    def post_filter(
        self, state: CycleState, pod: Pod, node_to_status: Mapping[str, Status]
    ) -> tuple[PostFilterResult | None, Status]:
        s = state.get(_STATE_KEY)
        if not isinstance(s, _State):
            return None, error(_ERR_NOT_FOUND)
        if s.num_claims == 0:
            return None, unschedulable(MSG_NO_NEW_CLAIMS)
        return None, unschedulable(MSG_STILL_NOT_SCHEDULABLE)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        if not isinstance(state.get(_STATE_KEY), _State):
            return 0, error(_ERR_NOT_FOUND)
        return 0, SUCCESS

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score for every node at once: without claims each node scores 0."""
        if not isinstance(state.get(_STATE_KEY), _State):
            return [], error(_ERR_NOT_FOUND)
        return [0] * len(nodes), SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: list[int]) -> list[int]:
        return normalize_values(MAX_NODE_SCORE, False, raw)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        default_normalize_score(MAX_NODE_SCORE, False, scores)
        return SUCCESS

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        if not isinstance(state.get(_STATE_KEY), _State):
            return error(_ERR_NOT_FOUND)
        return SUCCESS

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        if not isinstance(state.get(_STATE_KEY), _State):
            return error(_ERR_NOT_FOUND)
        return SUCCESS


def new(args: Any, handle: Handle) -> DynamicResources:
    return DynamicResources(handle)
