"""NodeName: a pod that names its node fits only there.

Mirrors plugins/nodename in kube-scheduler v1.35.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import NODE, ClusterEvent, ClusterEventWithHint
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView
from scheduler_core.framework.interfaces import FilterByBatch, Handle
from scheduler_core.framework.status import Status, unresolvable
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.words import _

NAME: Final = names.NODE_NAME
ERR_REASON: Final = "node(s) didn't match the requested node name"


class NodeName(FilterByBatch):
    name = NAME

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """A pod that names a node rejects every other node."""
        if not pod.node_name:
            return {}
        want = pod.node_name
        return {i: _REJECTED for i, ni in enumerate(nodes) if ni.node.name != want}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # No hint: every added node is worth a retry (upstream's choice).
        return [ClusterEventWithHint(ClusterEvent(NODE, "Add"))]

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        want = ctx.pod.node_name
        name = view.node_info.node.name
        inputs = {"spec.nodeName": want, "node": name}
        return (
            inputs,
            _("%(want)s is empty or == %(node)s") % {"want": repr(want), "node": repr(name)},
            (
                _("The pod names no node.")
                if not want
                else _("The pod asks for node %(node)s.") % {"node": repr(want)}
            ),
        )


_REJECTED: Final = unresolvable(ERR_REASON)


def new(args: Any, handle: Handle) -> NodeName:
    return NodeName()
