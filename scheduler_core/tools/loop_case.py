"""Run a loop case (conformance/FORMAT.md, "Loop cases") through the engine's own Scheduler.

The case's running pods, nodes and other objects exist before the scheduler starts; its queue
pods are then created in order, all of them queued before the first pop. The loop runs until it
is settled (nothing to pop, terminating victims removed one at a time, the loop running again
after each removal); then each step moves the queue's virtual clock on by its
``advanceSeconds``, makes its change, and the loop settles again. After the start and after each
step, the outcome records what became of every pending pod.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.features import Features
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod
from scheduler_core.queue.queued_pod_info import GATED
from scheduler_core.tools.case import case_objects

FORMAT: Final = 1
# Each reading of the oracle's clock moves it on by 1 µs, so timestamps keep the order of events.
_TICK: Final = 1e-6
_DEFAULT_ADVANCE: Final = 2
# Upper bound on the cycles one settling may run: a loop that does not settle is a bug.
_CYCLES_PER_POD: Final = 200


class TickingClock(SimulatedClock):
    """A simulated clock that moves on by one microsecond at each reading."""

    __slots__ = ()

    def now(self) -> float:
        t = super().now()
        self.advance(_TICK)
        return t


class LoopCaseRun:
    """The engine set up for one loop case; ``outcomes()`` runs it."""

    def __init__(self, case: Mapping[str, Any]) -> None:
        self.case = case
        self.features = Features.from_gates(case.get("featureGates"))
        config = load_config(case.get("config"), features=self.features)
        self.clock = TickingClock()
        running = list(case.get("nodes") or ()) + list(case.get("pods") or ())
        self.scheduler = Scheduler(
            config,
            running,
            clock=self.clock,
            objects=case_objects(case),
            features=self.features,
            evaluate_all_nodes=True,
            # The five-minute flush of the unschedulable pool is out of the cases' reach.
            unschedulable_timeout_seconds=float("inf"),
        )
        self.reported: dict[str, None] = {}  # pending pods to report, in creation order

    def outcomes(self) -> Iterator[dict[str, Any]]:
        for raw in self.case.get("queue") or ():
            self._add_pod(raw)
        self.settle()
        yield self.outcome("start")
        steps = self.case.get("steps") or ()
        if not isinstance(steps, list | tuple):
            raise SchedulerCoreError("steps: must be a list")
        for n, step in enumerate(steps, start=1):
            if not isinstance(step, Mapping):
                raise SchedulerCoreError(f"steps[{n - 1}]: must be an object")
            self.step(step, f"steps[{n - 1}]")
            self.settle()
            yield self.outcome(f"step {n}")

    def _add_pod(self, raw: Mapping[str, Any], *, record: bool = False) -> None:
        """Create a pod; a pending one is reported from then on, a running one is not."""
        pod = self.scheduler.add_pod(raw, record=record)
        if not pod.node_name:
            self.reported[pod.key] = None

    # -- steps -------------------------------------------------------------------------------

    def step(self, step: Mapping[str, Any], where: str) -> None:
        advance = step.get("advanceSeconds", _DEFAULT_ADVANCE)
        if isinstance(advance, bool) or not isinstance(advance, int) or not 0 <= advance <= 60:
            raise SchedulerCoreError(f"{where}.advanceSeconds: an integer from 0 to 60")
        actions = [k for k in ("add", "update", "delete") if k in step]
        if len(actions) != 1:
            raise SchedulerCoreError(f"{where}: exactly one of add, update or delete")
        self.clock.advance(advance)
        action = actions[0]
        obj = step[action]
        if not isinstance(obj, Mapping):
            raise SchedulerCoreError(f"{where}.{action}: an object")
        try:
            self._apply(action, obj)
        except SchedulerCoreError as err:
            raise SchedulerCoreError(f"{where}.{action}: {err}") from err

    def _apply(self, action: str, obj: Mapping[str, Any]) -> None:
        kind = obj.get("kind")
        sched = self.scheduler
        if action == "add" and kind == "Pod":
            self._add_pod(obj, record=True)
        elif action == "add" and kind == "Node":
            sched.add_node(obj)
        elif action == "add" and kind == "Workload":
            sched.add_workload(obj)
        elif action == "update" and kind == "Node":
            sched.update_node(_keep_node_status(obj, sched))
        elif action == "update" and kind == "Pod":
            sched.update_pod(obj)
        elif action == "delete" and kind in ("Pod", "Node", "Workload"):
            self._delete(obj)
        else:
            raise SchedulerCoreError(f"kind: cannot {action} a {kind!r}")

    def _delete(self, ref: Mapping[str, Any]) -> None:
        name = ref.get("name")
        if not isinstance(name, str) or not name:
            raise SchedulerCoreError("name: required")
        namespace = ref.get("namespace") or "default"
        kind = ref["kind"]
        if kind == "Node":
            self.scheduler.remove_node(name)
        elif kind == "Workload":
            self.scheduler.delete_workload(f"{namespace}/{name}")
        else:
            key = f"{namespace}/{name}"
            self.scheduler.delete_pod(key, record=True)
            self.reported.pop(key, None)

    # -- running -----------------------------------------------------------------------------

    def settle(self) -> None:
        """Run the loop until it is quiet and every victim the scheduler deleted is gone."""
        limit = _CYCLES_PER_POD * (len(self.scheduler.outcomes) + 10)
        sched = self.scheduler
        while True:
            while sched.schedule_one():
                limit -= 1
                if limit < 0:
                    raise SchedulerCoreError("the loop did not settle")
            if not sched.finish_next_termination():
                return

    # -- outcome -----------------------------------------------------------------------------

    def outcome(self, after: str) -> dict[str, Any]:
        pods = {key: self._pod_state(key) for key in self.reported}
        preempted = sorted(self.scheduler.preempted_running)
        return {"after": after, "pods": pods, "preempted": preempted}

    def _pod_state(self, key: str) -> dict[str, Any]:
        sched = self.scheduler
        out: dict[str, Any]
        if key in sched.preempted:
            return {"state": "deleted"}
        waiting = sched.waiting_by_key(key)
        if waiting is not None:
            out = {"state": "waitingOnPermit", "node": waiting.node}
            # NominatedNodeNameForExpectation: the binding cycle tells the API where the pod
            # waits; without it the pod keeps whatever nomination it had.
            nominated = (
                waiting.node
                if self.features.nominated_node_name_for_expectation
                else waiting.qpi.pod.nominated_node_name
            )
            if nominated:
                out["nominatedNodeName"] = nominated
            return out
        outcome = sched.outcomes.get(key)
        pending = sched.pending.get(key)
        if outcome is not None and outcome.node and pending is None:
            return {"state": "bound", "node": outcome.node}
        queued = sched.queue.get(pending) if pending is not None else None
        if queued is not None and sched.queue.location(queued.pod) == GATED:
            out = {"state": "gated", "plugin": queued.gating_plugin}
        elif outcome is None or outcome.message is None:
            out = {"state": "pending"}
        else:
            out = {
                "state": "unschedulable",
                "reason": outcome.reason,
                "message": outcome.message,
            }
        nominated = _nominated(queued.pod if queued is not None else pending)
        if nominated:
            out["nominatedNodeName"] = nominated
        return out


def _nominated(pod: Pod | None) -> str:
    return pod.nominated_node_name if pod is not None else ""


def _keep_node_status(manifest: Mapping[str, Any], sched: Scheduler) -> Mapping[str, Any]:
    """A node update without a status keeps the status the node has."""
    if manifest.get("status"):
        return manifest
    name = (manifest.get("metadata") or {}).get("name")
    known = sched.cluster.by_name.get(name) if isinstance(name, str) else None
    if known is None:
        return manifest
    return {**manifest, "status": known.node.raw.get("status") or {}}


def loop_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """The outcomes of a loop case (FORMAT.md's shape), or ``{"error": ...}`` for a case the
    real scheduler would refuse."""
    name = case.get("name", "")
    try:
        run = LoopCaseRun(case)
        outcomes = list(run.outcomes())
    except SchedulerCoreError as err:
        return {"format": FORMAT, "case": name, "error": str(err)}
    return {"format": FORMAT, "case": name, "outcomes": outcomes}


__all__ = ["LoopCaseRun", "TickingClock", "loop_case"]
