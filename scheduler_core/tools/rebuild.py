"""One scheduling cycle of a run, computed again from the run's start and the bindings before it.

A run whose only changes to the cluster, up to some cycle, are pods bound where their cycles
chose (no preemption, no nomination, no Permit wait, no failed binding, no volume or device
state, no change made by a script, no extender) reaches that cycle with the cluster it started
with plus those pods on their nodes. That state can be built directly: the starting manifests
with each pod bound before the cycle given its ``spec.nodeName`` (appended in binding order, so
every node lists its pods in the order the run added them), and the scheduler's start index as
it was. Running the cycle's pod through its profile on that state gives the same record as the
run did, so such a cycle's per-node detail need not be stored: ``rebuild_cycle`` computes it
when someone looks, at the cost of setting a scheduler up and one cycle, however late the cycle.

``PrefixWatch`` follows a run's events and cycles and says, cycle by cycle, whether the run so
far is such a prefix (``rebuildable``); once anything else has happened, it stays False.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.events import (
    Backoff,
    Bind,
    Enqueue,
    Event,
    MoveToActive,
    Permit,
    Pop,
    PostBind,
    PreBind,
    Reserve,
    StayUnschedulable,
    Unschedulable,
)

# Events that leave the cluster as "the start plus the pods bound so far": queue moves, and the
# binding cycle's steps when they succeed (a Permit that waits, any rejection or error, and every
# other event type, end the prefix).
_QUEUE_ONLY: Final = frozenset(
    cls.type for cls in (Enqueue, Pop, Backoff, Unschedulable, MoveToActive, StayUnschedulable)
)
_STEPS: Final = frozenset(cls.type for cls in (Reserve, Permit, PreBind, Bind, PostBind))
_STEP_CODES_KEPT: Final = frozenset({"Success", "Skip"})


class RebuildError(Exception):
    """The cycle could not be computed again as the run had it."""


def eligible(sched: Scheduler, in_tree: Iterable[str]) -> bool:
    """Whether a run of ``sched`` can start as a rebuildable prefix: no extender, only the
    plugins named in ``in_tree`` (a plugin defined elsewhere may change or keep state), and no
    volume or device claims (binding them changes objects besides pods)."""
    if sched.extenders:
        return False
    known = set(in_tree)
    if any(name not in known for fwk in sched.frameworks.values() for name in fwk.plugins):
        return False
    objects = sched.cluster.objects
    return not objects.pvcs and not objects.pvs and not objects.dra.claims


class PrefixWatch:
    """Follows a run (every event and cycle record, in seq order, replayed ones too): made
    before its Scheduler (whose set-up emits events), then ``attach``-ed to it."""

    def __init__(self) -> None:
        self.sched: Scheduler | None = None
        self.clean = True
        self.start = 0  # the start index before the next cycle

    def attach(self, sched: Scheduler, *, enabled: bool) -> None:
        self.sched = sched
        self.clean = self.clean and enabled
        self.start = sched.start_index.value

    def see_event(self, event: Event) -> None:
        if not self.clean or event.type in _QUEUE_ONLY:
            return
        if event.type in _STEPS and getattr(event, "code", "") in _STEP_CODES_KEPT:
            return
        self.clean = False

    def see_cycle(self, rec: CycleRecord) -> int | None:
        """The start index to rebuild this cycle with, or None when it cannot be rebuilt."""
        assert self.sched is not None, "attach the watch to its Scheduler first"
        start, self.start = self.start, self.sched.start_index.value
        rebuildable = self.clean and rec.profile is not None and not rec.error
        pf = rec.post_filter
        if pf is not None and (pf.nominated_node_name or pf.victims):
            self.clean = False
        if rec.claims is not None or rec.device_matches is not None:
            self.clean = rebuildable = False
        return start if rebuildable else None


def rebuilt_manifests(
    manifests: Sequence[Mapping[str, Any]], bound: Sequence[tuple[str, str]]
) -> list[Mapping[str, Any]]:
    """The starting manifests with the pods in ``bound`` (``namespace/name``, node; in binding
    order) bound to their nodes, after every other object."""
    where = dict(bound)
    if len(where) != len(bound):
        raise RebuildError("a pod was bound twice before the cycle")
    kept: list[Mapping[str, Any]] = []
    pods: dict[str, Mapping[str, Any]] = {}
    for m in manifests:
        if m.get("kind") == "Pod":
            key = _pod_key(m)
            if key in where:
                pods[key] = m
                continue
        kept.append(m)
    for key, node in bound:
        pod = pods.get(key)
        if pod is None:
            raise RebuildError(f"pod {key} was bound before the cycle but is not in the run")
        kept.append({**pod, "spec": {**(pod.get("spec") or {}), "nodeName": node}})
    return kept


def rebuild_cycle(
    config: Any,
    manifests: Sequence[Mapping[str, Any]],
    bound: Sequence[tuple[str, str]],
    pod: str,
    start_index: int,
    snapshot_changes: Sequence[Sequence[str]] | None = None,
    **scheduler_options: Any,
) -> CycleRecord:
    """The record of ``pod``'s scheduling cycle on the run's start plus ``bound``.
    ``snapshot_changes``: the cache's changes the run's cycle took in (the run noted them; a
    cycle set up alone cannot know them), kept in the record as they were."""
    sched = Scheduler(config, rebuilt_manifests(manifests, bound), **scheduler_options)
    found = sched.pending.get(pod)
    if found is None:
        raise RebuildError(f"pod {pod} is not pending at the start of the run")
    queued = sched.queue.get(found)
    target = queued.pod if queued is not None else found
    runner = sched.runners.get(target.scheduler_name)
    if runner is None:
        raise RebuildError(f"no profile for schedulerName {target.scheduler_name!r}")
    sched.start_index.value = start_index
    rec = runner.schedule(sched.cluster.snapshot(), target, CycleState())
    if snapshot_changes is not None:
        rec.snapshot_changes = [(str(n), str(c), str(p)) for n, c, p in snapshot_changes]
    return rec


def _pod_key(manifest: Mapping[str, Any]) -> str:
    meta = manifest.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
