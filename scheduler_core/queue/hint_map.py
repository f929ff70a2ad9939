"""The queueing hint map: the events (with hints) each plugin is subscribed to in the queue.

Mirrors buildQueueingHintMap of pkg/scheduler/scheduler.go in kube-scheduler v1.35. Each plugin
states its own events once, in its ``events_to_register()`` method (EnqueueExtensions); the
scheduler collects them per profile (``Framework.queueing_hints()``) and the queue turns them into
this map. A plugin that registers nothing known is subscribed to every resource
(``UNROLLED_WILDCARD``), as upstream does for plugins without EnqueueExtensions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from scheduler_core.framework.events import (
    NODE,
    ClusterEvent,
    ClusterEventWithHint,
    action_bits,
)

_NODE_UPDATE_TAINT: Final = ClusterEvent(NODE, "UpdateNodeTaint")


Registered = ClusterEvent | ClusterEventWithHint


def with_hint(registered: Registered) -> ClusterEventWithHint:
    """An event as registered with its hint (none for a bare ClusterEvent: always Queue)."""
    return (
        registered
        if isinstance(registered, ClusterEventWithHint)
        else ClusterEventWithHint(registered)
    )


def build_event_map(
    events_of_interest: Mapping[str, Sequence[Registered]],
) -> dict[str, tuple[ClusterEventWithHint, ...]]:
    """The events (with their hints) each plugin is subscribed to in the scheduler's queue.

    As buildQueueingHintMap does, a plugin that registers Node/Add but no Node event covering
    UpdateNodeTaint also gets Node/UpdateNodeTaint with no hint (kubernetes issue 109437): so a
    pod that NodeResourcesFit rejected is retried when a node's taints change.
    """
    add, taint = action_bits("Add"), action_bits("UpdateNodeTaint")
    out: dict[str, tuple[ClusterEventWithHint, ...]] = {}
    for plugin, events in events_of_interest.items():
        registered = tuple(with_hint(e) for e in events)
        node_bits = [r.event.bits for r in registered if r.event.resource == NODE]
        if any(b & add for b in node_bits) and not any(b & taint for b in node_bits):
            registered += (ClusterEventWithHint(_NODE_UPDATE_TAINT),)
        out[plugin] = registered
    return out
