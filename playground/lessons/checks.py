"""What the engine does with a lesson, and whether a question's answer agrees with it.

``run_lesson`` drives the engine over a lesson's inputs exactly as a run's task does (same
registry, same simulated clock), plus the lesson's script of cluster events; ``engine_answer``
reads a question's answer out of the recorded events, so a lesson cannot drift from the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.clock import SimulatedClock
from scheduler_core.scheduler import Scheduler

from .. import engine, plugins
from ..runs import charts
from ..runs.script import ScriptStep, play
from ..runs.services import EventCycles
from .loader import Lesson, Question, RunPointer

NONE = "none"


@dataclass(slots=True)
class LessonRun:
    """The events of one engine run of a lesson, grouped by cycle as a run page groups them."""

    events: list[dict[str, Any]]
    placements: dict[str, str | None]
    cycles: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        of = EventCycles()
        for ev in self.events:
            cycle = of.see(ev["type"], ev["pod"], ev["cycle"])
            if cycle is not None:
                self.cycles.setdefault(cycle, []).append(ev)

    def cycle(self, k: int) -> list[dict[str, Any]]:
        if k not in self.cycles:
            raise KeyError(f"the run has no cycle {k} (it has {len(self.cycles)})")
        return self.cycles[k]


def run_lesson(
    snapshot: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
    script: Iterable[ScriptStep] = (),
    *,
    extenders: Sequence[Any] | None = None,
) -> LessonRun:
    """Run the engine to the end over ``snapshot``, applying each script step after its cycle
    (``runs.script.play``, as a run's execution does)."""
    events: list[dict[str, Any]] = []
    sched = Scheduler(
        config,
        snapshot,
        clock=SimulatedClock(),
        on_event=lambda ev: events.append(ev.to_dict()),
        registry=plugins.registry(),
        plugin_events=plugins.EVENTS_TO_REGISTER,
        extenders=extenders,
        extender_policy=engine.extender_policy(),
    )
    play(sched, script)
    return LessonRun(events=events, placements=sched.placements())


# -- reading answers out of a run ----------------------------------------------------------------


def _pod_key(name: str) -> str:
    return name if "/" in name else f"default/{name}"


def _short(name: str) -> str:
    return name.removeprefix("default/")


def _first(evs: list[dict[str, Any]], type_: str, plugin: str | None = None) -> dict[str, Any]:
    for ev in evs:
        if ev["type"] == type_ and (plugin is None or ev.get("plugin") == plugin):
            return ev
    return {}


def _node_index(evs: list[dict[str, Any]], node: str) -> int:
    nodes = list(_first(evs, "CycleStart").get("nodes") or [])
    if node not in nodes:
        raise KeyError(f"node {node!r} is not in the cycle's snapshot")
    return nodes.index(node)


def _verdict(evs: list[dict[str, Any]]) -> dict[str, Any]:
    return next((e for e in evs if e["type"] == "Filter" and not e.get("plugin")), {})


def _rejector(evs: list[dict[str, Any]], node: str) -> str:
    merged = next((e for e in evs if e["type"] == "PreFilter" and e.get("merged")), {})
    if merged.get("code") not in (None, "Success", "Skip"):
        return str(merged.get("plugin") or NONE)
    idx = _node_index(evs, node)
    names = merged.get("node_names")
    if names is not None and node not in names:
        return "PreFilter"
    rejector = _verdict(evs).get("rejector") or []
    return str(rejector[idx]) if idx < len(rejector) and rejector[idx] else NONE


def _evaluated(evs: list[dict[str, Any]]) -> list[bool]:
    return [c is not None for c in _verdict(evs).get("codes") or []]


def _first_evaluated(evs: list[dict[str, Any]]) -> str:
    """The node where Filter's walk began: evaluated, right after one that was not (cyclically)."""
    seen = _evaluated(evs)
    nodes = list(_first(evs, "CycleStart").get("nodes") or [])
    if not any(seen):
        return NONE
    if all(seen):
        return str(nodes[0])
    start = next(i for i in range(len(seen)) if seen[i] and not seen[i - 1])
    return str(nodes[start])


def _score(evs: list[dict[str, Any]], params: dict[str, Any]) -> int:
    ev = _first(evs, "Score", str(params["plugin"]))
    if not ev:
        raise KeyError(f"no Score of {params['plugin']} in this cycle")
    nodes = list(ev["nodes"])
    if params["node"] not in nodes:
        raise KeyError(f"node {params['node']!r} was not scored")
    return int(ev[params.get("value", "normalized")][nodes.index(params["node"])])


def _code(evs: list[dict[str, Any]], params: dict[str, Any]) -> str:
    ev = _first(evs, str(params["point"]), params.get("plugin"))
    if not ev:
        return NONE
    if "node" in params and "codes" in ev:
        code = ev["codes"][_node_index(evs, str(params["node"]))]
        return str(code) if code else NONE
    return str(ev.get("code") or NONE)


def _requeue(evs: list[dict[str, Any]]) -> str:
    """The queue a cluster event moved the cycle's pod to from the unschedulable pods."""
    for ev in evs:
        if (
            ev["type"] in ("Backoff", "MoveToActive")
            and (ev.get("details") or {}).get("from") == "unschedulable"
        ):
            return "backoffQ" if ev["type"] == "Backoff" else "activeQ"
    return NONE


def engine_answer(run: LessonRun, question: Question) -> Any:
    """The answer the engine's run gives to ``question`` (a name, a count or a set of names)."""
    p = question.params
    kind = question.kind
    if kind == "pending":
        return sum(1 for node in run.placements.values() if not node)
    if kind == "placement":
        return run.placements.get(_pod_key(str(p["pod"]))) or NONE
    evs = run.cycle(int(p["cycle"]))
    post = _first(evs, "PostFilter")
    if kind == "winner":
        return _first(evs, "CycleEnd").get("node") or NONE
    if kind == "rejector":
        return _rejector(evs, str(p["node"]))
    if kind == "victims":
        return sorted(_short(v) for v in post.get("victims") or [])
    if kind == "nominated":
        return post.get("nominated_node") or NONE
    if kind == "score":
        return _score(evs, p)
    if kind == "total":
        combine = _first(evs, "Combine")
        return int(combine["totals"][list(combine["nodes"]).index(p["node"])])
    if kind == "evaluated":
        return sum(_evaluated(evs))
    if kind == "first_evaluated":
        return _first_evaluated(evs)
    if kind == "feasible":
        return len(_first(evs, "CycleEnd").get("feasible") or [])
    if kind == "pod":
        return _short(str(_first(evs, "CycleStart")["pod"]))
    if kind == "code":
        return _code(evs, p)
    if kind == "profile":
        return _first(evs, "CycleStart").get("profile") or NONE
    if kind == "requeue":
        return _requeue(evs)
    raise ValueError(f"unknown question kind {kind!r}")


# -- comparing answers ---------------------------------------------------------------------------


def normalize(value: Any, answer_type: str) -> Any:
    """An answer as compared: names are trimmed, lower-cased, without the default namespace."""
    if answer_type == "count":
        try:
            return int(str(value).strip())
        except ValueError:
            return None
    if answer_type == "names":
        items = value if isinstance(value, list | tuple) else str(value).split(",")
        return sorted({_short(str(v).strip().lower()) for v in items if str(v).strip()})
    return _short(str(value).strip().lower())


def matches(given: Any, expected: Any, answer_type: str) -> bool:
    got = normalize(given, answer_type)
    return got is not None and got == normalize(expected, answer_type)


def shown(value: Any) -> str:
    """An engine answer as a learner reads it."""
    if isinstance(value, list):
        return ", ".join(value) if value else NONE
    return str(value)


def run_step(run: LessonRun, pointer: RunPointer) -> int | None:
    """The index of the run page's step for ``pointer`` (its ``#cycle=K&step=N``), if any."""
    if pointer.cycle not in run.cycles:
        return None
    for step in charts.steps(run.cycles[pointer.cycle]):
        if step["point"] == pointer.point and (
            pointer.plugin is None or step["plugin"] == pointer.plugin
        ):
            return int(step["index"])
    return None


@dataclass(frozen=True, slots=True)
class Failure:
    lesson: str
    question: str
    message: str

    def __str__(self) -> str:
        return f"{self.lesson} {self.question}: {self.message}"


def check_lesson(lesson: Lesson, runs: Mapping[str, LessonRun]) -> list[Failure]:
    """Every disagreement between the lesson's expected answers and the engine's runs."""
    failures = []
    for n, step in enumerate(lesson.steps, start=1):
        if step.show is not None and run_step(runs["default"], step.show) is None:
            failures.append(
                Failure(
                    f"{lesson.number:02d}-{lesson.slug}",
                    f"step {n}",
                    f"show: no {step.show.point} step in cycle {step.show.cycle}",
                )
            )
    for q in lesson.questions:
        where = f"{lesson.number:02d}-{lesson.slug}"
        run = runs[q.profile]
        try:
            got = engine_answer(run, q)
        except (KeyError, IndexError, ValueError) as err:
            failures.append(Failure(where, q.id, f"cannot be answered from the run: {err}"))
            continue
        if not matches(q.answer, got, q.answer_type):
            failures.append(
                Failure(where, q.id, f"expects {q.answer!r}, the engine gives {shown(got)!r}")
            )
        if q.choices and not any(matches(c, got, q.answer_type) for c in q.choices):
            failures.append(Failure(where, q.id, f"no choice matches the engine's {shown(got)!r}"))
        if q.show is not None and run_step(run, q.show) is None:
            failures.append(
                Failure(where, q.id, f"show: no {q.show.point} step in cycle {q.show.cycle}")
            )
    return failures


def summary(run: LessonRun) -> list[str]:
    """Each cycle in a few lines (pod, verdicts, scores, result): what a lesson author reads."""
    lines = []
    for k, evs in sorted(run.cycles.items()):
        start, end = _first(evs, "CycleStart"), _first(evs, "CycleEnd")
        nodes = list(start.get("nodes") or [])
        lines.append(
            f"cycle {k}: {start.get('pod')} [{start.get('profile')}] -> "
            f"{end.get('result')} {end.get('node') or ''} {end.get('message') or ''}".rstrip()
        )
        verdict = _verdict(evs)
        rejected = [
            f"{nodes[i]}={r}"
            for i, r in enumerate(verdict.get("rejector") or [])
            if r and i < len(nodes)
        ]
        if verdict:
            lines.append(f"  evaluated {sum(_evaluated(evs))}, rejected: {', '.join(rejected)}")
        for ev in evs:
            if ev["type"] == "Score":
                cells = ", ".join(
                    f"{n}={r}/{s}"
                    for n, r, s in zip(ev["nodes"], ev["raw"], ev["normalized"], strict=True)
                )
                lines.append(f"  {ev['plugin']} x{ev['weight']}: {cells}")
            elif ev["type"] == "Combine" and ev.get("totals"):
                cells = ", ".join(
                    f"{n}={t}" for n, t in zip(ev["nodes"], ev["totals"], strict=True)
                )
                lines.append(f"  totals: {cells}")
            elif ev["type"] == "PostFilter":
                lines.append(
                    f"  PostFilter {ev.get('code')}: nominated {ev.get('nominated_node')}, "
                    f"victims {ev.get('victims')}"
                )
            elif ev["type"] in ("Permit", "Unreserve", "Bind", "Reserve") and ev.get("code"):
                lines.append(f"  {ev['type']} {ev.get('plugin')}: {ev.get('code')}")
            elif ev["type"] in ("Backoff", "Unschedulable", "MoveToActive"):
                lines.append(f"  queue {ev['type']}: {ev.get('details')}")
    lines.append(f"placements: {run.placements}")
    return lines
