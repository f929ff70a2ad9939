"""Playground plugins: out-of-tree plugins that runs add to the in-tree registry.

``ApprovalGate`` is a Permit plugin for the interactive binding cycle: a pod annotated
``playground.k8s.io/require-approval: "true"`` waits at Permit until a user allows or rejects it
from the run page, or until its timeout passes (the teaching view of gang scheduling).
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import ClusterEvent
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import in_tree_registry

APPROVAL_GATE: Final = "ApprovalGate"
REQUIRE_APPROVAL: Final = "playground.k8s.io/require-approval"
APPROVAL_TIMEOUT: Final = "playground.k8s.io/approval-timeout-seconds"
DEFAULT_TIMEOUT_SECONDS: Final = 120.0
WAIT_REASON: Final = "waiting for a user to allow or reject the pod"


class ApprovalGate:
    """Wait at Permit for pods that ask for approval; let every other pod through."""

    name = APPROVAL_GATE

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        if pod.annotations.get(REQUIRE_APPROVAL, "").strip().lower() != "true":
            return SUCCESS, 0.0
        return Status(Code.WAIT, (WAIT_REASON,)), approval_timeout(pod.annotations)


def approval_timeout(annotations: dict[str, str]) -> float:
    """The pod's timeout annotation in seconds, or the default when missing or not positive;
    at most ``PLAYGROUND_PERMIT_MAX_WAIT_SECONDS`` (a pod must not hold a runner for long)."""
    from django.conf import settings

    cap = float(getattr(settings, "PLAYGROUND_PERMIT_MAX_WAIT_SECONDS", 300))
    try:
        seconds = float(annotations.get(APPROVAL_TIMEOUT, ""))
    except ValueError:
        return min(DEFAULT_TIMEOUT_SECONDS, cap)
    return min(seconds if 0 < seconds < float("inf") else DEFAULT_TIMEOUT_SECONDS, cap)


def new(args: Any, handle: Any) -> ApprovalGate:
    return ApprovalGate()


PLUGIN_NAMES: Final = (APPROVAL_GATE,)

# EventsToRegister of the playground's plugins. ApprovalGate registers nothing: a pod a user
# rejected (or that timed out) stays unschedulable instead of waiting again every time another
# pod's reservation is released.
EVENTS_TO_REGISTER: Final[dict[str, tuple[ClusterEvent, ...]]] = {APPROVAL_GATE: ()}


def registry() -> Registry:
    """The in-tree plugins plus the playground's own."""
    return in_tree_registry().merged(Registry({APPROVAL_GATE: new}))
