"""A Scheduler driven to one of its cycles, which an explanation then reads.

The playground's runs go through Scheduler (queue, simulated clock, binding cycle) rather than
CaseRun; being deterministic, a run replayed from its start reaches each cycle in the state the
original run had. Right after that cycle's scheduling cycle, before anything changes the cluster
(a preemption's deletions are held back until the explanation is done), the context is handed
to the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.types import Snapshot
from scheduler_core.loop.cycle import (
    CycleRecord,
    CycleRunner,
)
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod

T = TypeVar("T")


def at_scheduler_cycle(
    sched: Scheduler,
    cycle: int,
    fn: Callable[[CycleContext], T],
    *,
    max_cycles: int = 100_000,
    drive: Callable[[Callable[[], bool]], None] | None = None,
) -> T:
    """Run a fresh ``sched`` until its cycle number ``cycle`` and return fn(that cycle).

    ``drive(done)``, when given, runs the scheduler the way the original run did (cluster
    changes between cycles, users' answers at Permit, the clock's moves) until ``done()``;
    by default the scheduler runs one cycle after another until it is idle.
    """
    found: list[T] = []
    for runner in sched.runners.values():
        _observe(sched, runner, cycle, fn, found)
    if drive is not None:
        drive(lambda: bool(found) or sched.cycle >= cycle)
    ran = 0
    while drive is None and not found and ran < max_cycles and sched.cycle < cycle:
        if not sched.run_until_idle(max_cycles=1):
            break
        ran += 1
    if not found:
        raise ExplainError(f"the run has no cycle {cycle} that ran a profile")
    return found[0]


def _observe(
    sched: Scheduler,
    runner: CycleRunner,
    cycle: int,
    fn: Callable[[CycleContext], T],
    found: list[T],
) -> None:
    schedule = runner.schedule
    fwk = runner.fwk

    def observed(snapshot: Snapshot, pod: Pod, state: CycleState | None = None) -> CycleRecord:
        if sched.cycle != cycle:
            return schedule(snapshot, pod, state)
        state = state if state is not None else CycleState()
        queue = sched.queue
        nominated = {
            name: tuple(queue.nominated_pods_for_node(name))
            for name in sorted(queue.nominated_node_names())
        }
        sink = fwk.extras.get("preemption_sink")
        held: list[tuple[Any, ...]] = []

        def hold(*args: Any) -> None:
            held.append(args)

        fwk.extras["preemption_sink"] = hold
        try:
            rec = schedule(snapshot, pod, state)
        finally:
            fwk.extras["preemption_sink"] = sink
        found.append(fn(CycleContext(cycle, pod, fwk, snapshot, state, rec, nominated)))
        for args in held:
            if sink is not None:
                sink(*args)
        return rec

    setattr(runner, "schedule", observed)  # noqa: B010  (an instance attribute, on purpose)
