"""A run's tape: everything that reached the engine from outside while the run went, in order.

The engine is deterministic on its simulated clock, but a run also takes inputs it cannot
compute: the custom plugins' definitions as they were when it started, a user's answers to
pods waiting at Permit and changes to the cluster made mid-run, the real time that passed
while pods waited (the clock is moved forward by it), and the answers of HTTP extenders. An
execution writes each down as it happens (``TapeRecorder``, stored with the flush that follows,
as ``RunInput`` rows); a replay of the run (``replay``) feeds the same inputs back at the same
points, so a cycle explained later is exactly the cycle the run had, and no extender is asked
again.

A point is the engine's event count (``Scheduler.seq``) when the input was applied, between two
steps of the loop; extender answers are consumed in the order they were given, per extender.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.extender import (
    ExtenderError,
    NodeInfoGetter,
)
from scheduler_core.framework.types import NodeInfo
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.plugins import names

from ... import plugins
from .script import ScriptPlayer, apply_step, parse_script

PLUGINS: Final = "plugins"  # the custom plugin definitions the run resolved, at its start
ADVANCE: Final = "advance"  # seconds the clock moved while pods waited at Permit
COMMAND: Final = "command"  # a user's allow, reject or change, with what it did
EXTENDER: Final = "extender"  # one extender call's answer, compacted
PERMIT_CAP: Final = "permit_cap"  # the longest Permit wait the playground allowed
REJECTED_BY_USER: Final = "rejected by a user"

Entry = tuple[int, str, Any]  # (point, kind, data)


class TapeMismatch(SchedulerCoreError):
    """A replay asked for an input the tape does not have where the run had it."""


# -- commands, one statement for the run and its replays ----------------------------------------


def apply_command(sched: Scheduler, kind: str, pod: str, plugin: str, message: str) -> str:
    """Carry out a user's command on the engine; returns what it did ("allowed", ...)."""
    if kind == "change":
        try:
            [step] = parse_script([json.loads(message)])
            apply_step(sched, step)
        except (ValueError, SchedulerCoreError) as err:
            return f"refused: {err}"
        return "applied"
    waiting = next((wp for wp in sched.waiting_pods() if wp.pod.key == pod), None)
    if waiting is None:
        return "not waiting at Permit"
    if kind == "allow":
        sched.allow_waiting_pod(pod, plugin or None)
        return "allowed"
    chosen = plugin or min(waiting.pending, default=plugins.APPROVAL_GATE)
    sched.reject_waiting_pod(pod, chosen, message or REJECTED_BY_USER)
    return "rejected"


def waits_for_a_user(sched: Scheduler) -> bool:
    """Whether a pod waits at Permit for someone other than the scheduler: a plugin other than
    GangScheduling, whose members are allowed by their gang, never by a user. Then the run's
    time is real (a user may answer); otherwise the simulated clock jumps to the next timeout
    as the loop's does. The execution and its replay ask the same."""
    return any(
        name != names.GANG_SCHEDULING
        for waiting in sched.waiting_pods()
        for name in waiting.pending
    )


def cap_permit_waits(sched: Scheduler, cap: float) -> None:
    """No pod waits at Permit longer than ``cap`` seconds: its deadline comes forward."""
    for waiting in sched.waiting_pods():
        for name, deadline in waiting.pending.items():
            timeout = float(waiting.timeouts.get(name, 0.0))
            if timeout > cap:
                waiting.pending[name] = deadline - timeout + cap
                waiting.timeouts[name] = cap


# -- extenders -----------------------------------------------------------------------------------


def _node_items(result: Sequence[NodeInfo], given: Sequence[NodeInfo]) -> list[dict[str, Any]]:
    """A filter answer's nodes: the input NodeInfo itself, a copy of the input node (a reply
    that carried whole Node objects back unchanged), or a node of the reply's own."""
    by_name = {ni.node.name: ni for ni in given}
    out: list[dict[str, Any]] = []
    for ni in result:
        name = ni.node.name
        mine = by_name.get(name)
        if mine is not None and ni is mine:
            out.append({"n": name, "k": "input"})
        elif mine is not None and ni.node.raw == mine.node.raw:
            out.append({"n": name, "k": "copy"})
        else:
            out.append({"n": name, "k": "raw", "raw": ni.node.raw})
    return out


def _nodes_back(items: Sequence[Mapping[str, Any]], given: Sequence[NodeInfo]) -> list[NodeInfo]:
    by_name = {ni.node.name: ni for ni in given}
    out: list[NodeInfo] = []
    for item in items:
        if item["k"] == "input":
            out.append(by_name[item["n"]])
        elif item["k"] == "copy":
            out.append(NodeInfo(Node(by_name[item["n"]].node.raw)))
        else:
            out.append(NodeInfo(Node(item["raw"])))
    return out


class RecordingExtender:
    """An extender that writes each answer (or failure) on the tape; otherwise the extender."""

    def __init__(self, inner: Any, note: Callable[[str, Any], None]) -> None:
        self._inner = inner
        self._note = note

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _call(self, verb: str, fn: Callable[[], Any], compact: Callable[[Any], Any]) -> Any:
        try:
            result = fn()
        except ExtenderError as err:
            self._note(EXTENDER, {"e": self._inner.name, "v": verb, "error": str(err)})
            raise
        self._note(EXTENDER, {"e": self._inner.name, "v": verb, "r": compact(result)})
        return result

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return self._call(
            "filter",
            lambda: self._inner.filter(pod, nodes),
            lambda r: {"nodes": _node_items(r[0], nodes), "failed": r[1], "unresolvable": r[2]},
        )

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return self._call(
            "prioritize",
            lambda: self._inner.prioritize(pod, nodes),
            lambda r: {"scores": [list(x) for x in r[0]], "weight": r[1]},
        )

    def process_preemption(
        self,
        pod: Pod,
        victims: Mapping[str, list[Pod]],
        num_pdb_violations: Mapping[str, int],
        snapshot: NodeInfoGetter,
    ) -> Any:
        return self._call(
            "preempt",
            lambda: self._inner.process_preemption(pod, victims, num_pdb_violations, snapshot),
            lambda r: {"victims": {n: [p.key for p in ps] for n, ps in r[0].items()}, "pdb": r[1]},
        )

    def bind(self, pod: Pod, node_name: str) -> Any:
        return self._call("bind", lambda: self._inner.bind(pod, node_name), lambda r: None)


class ReplayingExtender:
    """An extender that answers from the tape, in the order the run was answered."""

    def __init__(self, inner: Any, answers: deque[dict[str, Any]]) -> None:
        self._inner = inner
        self._answers = answers

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _next(self, verb: str) -> Any:
        if not self._answers:
            raise TapeMismatch(f"the run recorded no further {verb} answer of {self._inner.name}")
        entry = self._answers.popleft()
        if entry["v"] != verb:
            raise TapeMismatch(
                f"the run's next answer of {self._inner.name} was to {entry['v']}, not {verb}"
            )
        if "error" in entry:
            raise ExtenderError(entry["error"])
        return entry["r"]

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        r = self._next("filter")
        return _nodes_back(r["nodes"], nodes), dict(r["failed"]), dict(r["unresolvable"])

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        r = self._next("prioritize")
        return [(h, s) for h, s in r["scores"]], r["weight"]

    def process_preemption(
        self,
        pod: Pod,
        victims: Mapping[str, list[Pod]],
        num_pdb_violations: Mapping[str, int],
        snapshot: NodeInfoGetter,
    ) -> Any:
        r = self._next("preempt")
        out: dict[str, list[Pod]] = {}
        for node, keys in r["victims"].items():
            info = snapshot.get(node)
            on_node = {p.key: p for p in (info.pods if info is not None else ())}
            out[node] = [on_node[k] for k in keys if k in on_node]
        return out, dict(r["pdb"])

    def bind(self, pod: Pod, node_name: str) -> Any:
        return self._next("bind")


# -- recording -------------------------------------------------------------------------------------


class TapeRecorder:
    """The inputs of one execution, noted as they happen and taken by each flush."""

    def __init__(self) -> None:
        self.sched: Scheduler | None = None
        self.pending: list[Entry] = []

    def point(self) -> int:
        return self.sched.seq if self.sched is not None else -1

    def note(self, kind: str, data: Any) -> None:
        self.pending.append((self.point(), kind, data))

    def advance(self, seconds: float) -> None:
        """The clock moved: consecutive moves at one point add up (nothing happened between)."""
        if self.pending and self.pending[-1][:2] == (self.point(), ADVANCE):
            point, kind, total = self.pending[-1]
            self.pending[-1] = (point, kind, total + seconds)
        else:
            self.note(ADVANCE, seconds)

    def extenders(self, built: Sequence[Any]) -> list[Any]:
        return [RecordingExtender(e, self.note) for e in built]

    def take(self) -> list[Entry]:
        out, self.pending = self.pending, []
        return out


# -- replaying -------------------------------------------------------------------------------------


class TapePlayer:
    """Feeds a stored tape back: extender answers on demand, the rest at their points."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.at: dict[int, list[tuple[str, Any]]] = defaultdict(list)
        self.answers: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self.plugins: list[dict[str, Any]] | None = None
        self.permit_cap: float | None = None
        for point, kind, data in entries:
            if kind == EXTENDER:
                self.answers[data["e"]].append(data)
            elif kind == PLUGINS:
                self.plugins = list(data)
            elif kind == PERMIT_CAP:
                self.permit_cap = float(data)
            else:
                self.at[point].append((kind, data))

    def extenders(self, built: Sequence[Any]) -> list[Any]:
        return [ReplayingExtender(e, self.answers[e.name]) for e in built]

    def drive(self, sched: Scheduler, script: ScriptPlayer, done: Callable[[], bool]) -> None:
        """Run ``sched`` as the execution's loop ran it, until ``done()`` or the run's end:
        at each point the inputs the run took there (the Permit cap first, then the clock's
        moves and the users' commands, in order), the script's due changes, one cycle."""
        while not done():
            if sched.waiting and self.permit_cap is not None:
                cap_permit_waits(sched, self.permit_cap)
            applied = self.at.pop(sched.seq, [])
            for kind, data in applied:
                if kind == ADVANCE:
                    sched.clock.advance(float(data))  # type: ignore[attr-defined]
                elif kind == COMMAND:
                    apply_command(sched, data["kind"], data["pod"], data["plugin"], data["message"])
            script.apply_due(sched)
            if waits_for_a_user(sched):
                if not sched.run_until_idle(max_cycles=1, until=sched.clock.now()) and not applied:
                    return  # the run waited here with nothing more on its tape
            elif not sched.run_until_idle(max_cycles=1) and not script.apply_due(sched, idle=True):
                return
