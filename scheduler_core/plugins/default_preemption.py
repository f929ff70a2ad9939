"""DefaultPreemption: the PostFilter plugin that evicts lower-priority pods to make room.

Mirrors plugins/defaultpreemption in kube-scheduler v1.35. The search is the framework's
preemption evaluator (scheduler_core.framework.preemption, as upstream's framework/preemption);
carrying it out (deleting victims, nominating the node) goes through the ``preemption_sink``
callable the scheduler registers in the framework's extras.
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import POD, ClusterEvent, ClusterEventWithHint
from scheduler_core.framework.interfaces import Handle, PostFilterResult
from scheduler_core.framework.preemption import Evaluator
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeToStatus
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names

NAME: Final = names.DEFAULT_PREEMPTION


class DefaultPreemption:
    name = NAME

    def __init__(self, handle: Handle, min_pct: int, min_abs: int) -> None:
        self.handle = handle
        self.min_pct = min_pct
        self.min_abs = min_abs

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # A deleted pod may be a victim going, or free room: no hint, always requeue.
        return [ClusterEventWithHint(ClusterEvent(POD, "Delete"))]

    def post_filter(
        self, state: CycleState, pod: Pod, node_to_status: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        fwk = self.handle.framework
        ev = Evaluator(
            fwk,
            min_candidate_nodes_percentage=self.min_pct,
            min_candidate_nodes_absolute=self.min_abs,
        )
        candidate, status = ev.preempt(state, pod, node_to_status)
        result: PostFilterResult | None = None
        if status.is_success() and candidate is not None:
            sink = fwk.extras.get("preemption_sink")
            if sink is not None:
                err = sink(pod, candidate.name, candidate.victims)
                if err:
                    return None, Status(Code.ERROR, (err,))
            considered = tuple(
                (c.name, tuple(sorted(p.key for p in c.victims))) for c in ev.last_candidates
            )
            result = PostFilterResult(
                candidate.name, tuple(p.key for p in candidate.victims), considered
            )
        elif candidate is not None:
            result = PostFilterResult(None)
        msg = status.message()
        if msg:
            return result, Status(status.code, (f"preemption: {msg}",))
        return result, status


def new(args: Any, handle: Handle) -> DefaultPreemption:
    pct = getattr(args, "min_candidate_nodes_percentage", 10)
    absolute = getattr(args, "min_candidate_nodes_absolute", 100)
    return DefaultPreemption(handle, pct, absolute)
