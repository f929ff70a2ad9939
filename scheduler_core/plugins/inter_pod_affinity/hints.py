"""InterPodAffinity's queueing hints: which cluster events may help a pod it rejected.

Mirrors EventsToRegister, isSchedulableAfterPodChange and isSchedulableAfterNodeChange of
plugins/interpodaffinity/plugin.go in kube-scheduler v1.35 (kept apart from the plugin module,
which is long enough).
"""

from __future__ import annotations

from collections.abc import Sequence

from scheduler_core.framework.events import (
    NODE,
    POD,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
)
from scheduler_core.objects.api import (
    AffinityTerm,
    Node,
    Pod,
)


def events_to_register() -> list[ClusterEventWithHint]:
    return [
        # Add: an assigned pod may satisfy the affinity; UpdatePodLabel: labels may now match
        # (or no longer hit an anti-affinity); Delete: a pod the anti-affinity hated went.
        ClusterEventWithHint(
            ClusterEvent(POD, "Add|UpdatePodLabel|Delete"), is_schedulable_after_pod_change
        ),
        ClusterEventWithHint(
            ClusterEvent(NODE, "Add|UpdateNodeLabel"), is_schedulable_after_node_change
        ),
    ]


def _matches_all(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms, without namespace labels (as upstream's hint passes nil)."""
    return bool(terms) and all(t.matches(pod, None) for t in terms)


def is_schedulable_after_pod_change(pod: Pod, old: Pod | None, new: Pod | None) -> QueueingHint:
    """Queue when an assigned pod now matches every affinity term, or an assigned pod that
    matched every anti-affinity term no longer does (updated or deleted)."""
    if (new is not None and not new.node_name) or (old is not None and not old.node_name):
        return QueueingHint.QUEUE_SKIP
    terms = pod.required_affinity_terms
    anti_terms = pod.required_anti_affinity_terms
    if new is not None and old is not None:
        if not _matches_all(terms, old) and _matches_all(terms, new):
            return QueueingHint.QUEUE
        if _matches_all(anti_terms, old) and not _matches_all(anti_terms, new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP
    if new is not None:
        return QueueingHint.QUEUE if _matches_all(terms, new) else QueueingHint.QUEUE_SKIP
    assert old is not None
    return QueueingHint.QUEUE if _matches_all(anti_terms, old) else QueueingHint.QUEUE_SKIP


def is_schedulable_after_node_change(pod: Pod, old: Node | None, new: Node) -> QueueingHint:
    """Queue when a node gains an affinity topology key (added with it, label added or moved to
    another domain), or any node is added while the pod has anti-affinity, or a node loses or
    changes an anti-affinity topology key."""
    for term in pod.required_affinity_terms:
        key = term.topology_key
        if old is None:
            if key in new.labels:
                return QueueingHint.QUEUE
            continue
        if key in new.labels and (key not in old.labels or old.labels[key] != new.labels[key]):
            return QueueingHint.QUEUE
    for term in pod.required_anti_affinity_terms:
        key = term.topology_key
        if old is None:
            # A node without the key always takes the pod; one with it might.
            return QueueingHint.QUEUE
        if key in old.labels and (key not in new.labels or old.labels[key] != new.labels[key]):
            return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP
