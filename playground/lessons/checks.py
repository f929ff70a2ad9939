"""What the engine does with a lesson, and whether a question's answer agrees with it.

``run_lesson`` drives the engine over a lesson's inputs exactly as a run's task does (same
registry, same simulated clock), plus the lesson's script of cluster events; ``engine_answer``
reads a question's answer out of the recorded events, so a lesson cannot drift from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.custom.examples import EXAMPLES
from scheduler_core.features import V1_35_DEFAULTS, Features
from scheduler_core.loop.scheduler import Scheduler

from .. import engine, plugins
from ..custom_plugins.services import registry_with
from ..runs.execution.script import ScriptStep, play
from ..runs.panels import charts
from ..runs.services import EventCycles
from .languages import in_language, translation_problems
from .loader import SOURCE_LANGUAGE, Lesson, Question, RunPointer
from .spoilers import Cycle, told_before_asked
from .text import count

NONE = "none"


@dataclass(slots=True)
class LessonRun:
    """The events of one engine run of a lesson, grouped by cycle as a run page groups them."""

    events: list[dict[str, Any]]
    placements: dict[str, str | None]
    cycles: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # Each cycle's events as the run page steps through them (no queue events: the page shows
    # the queue in its own panel), what a "show this step" link's index counts.
    page_cycles: dict[int, list[Mapping[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        of = EventCycles()
        for ev in self.events:
            cycle = of.see(ev["type"], ev["pod"], ev["cycle"])
            if cycle is not None:
                self.cycles.setdefault(cycle, []).append(ev)
        self.page_cycles = charts.split_by_cycle(self.events)

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
    features: Features = V1_35_DEFAULTS,
) -> LessonRun:
    """Run the engine to the end over ``snapshot`` under ``features`` (the lesson's gates),
    applying each script step after its cycle (``runs.script.play``, as a run's execution
    does)."""
    events: list[dict[str, Any]] = []
    sched = Scheduler(
        load_config(config, features=features),  # defaulting adds the gates' plugins
        snapshot,
        clock=SimulatedClock(),
        on_event=lambda ev: events.append(ev.to_dict()),
        registry=registry_with(EXAMPLES),  # with the shipped custom plugins, as load_demo has
        plugin_events=plugins.EVENTS_TO_REGISTER,
        extenders=extenders,
        extender_policy=engine.extender_policy(),
        features=features,  # as a lesson's run has them (Lesson.features)
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


def _devices(evs: list[dict[str, Any]], claim: str) -> list[str]:
    """The devices (pool/device) DynamicResources allocated to ``claim`` in the cycle."""
    got = (_first(evs, "DeviceAllocation").get("claims") or {}).get(_pod_key(claim)) or {}
    return sorted(f"{d['pool']}/{d['device']}" for d in got.get("devices") or [])


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
    if kind == "device":
        return _devices(evs, str(p["claim"]))
    raise ValueError(f"unknown question kind {kind!r}")


# -- comparing answers ---------------------------------------------------------------------------


def normalize(value: Any, answer_type: str) -> Any:
    """An answer as compared: names are trimmed, lower-cased, without the default namespace;
    counts are read from digits or words ("two", "两个节点", "87分", "没有": ``text.count``)."""
    if answer_type == "count":
        return count(str(value))
    if answer_type == "names":
        # A Chinese input method types the full-width comma or the enumeration comma.
        items = value if isinstance(value, list | tuple) else re.split(r"[,，、]", str(value))
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
    """The index of the run page's step for ``pointer`` (its ``#cycle=K&step=N``), if any: the
    page's own steps of the cycle, so that the index opens the named step there."""
    if pointer.cycle not in run.page_cycles:
        return None
    for step in charts.steps(run.page_cycles[pointer.cycle]):
        if step["point"] == pointer.point and (
            pointer.plugin is None or step["plugin"] == pointer.plugin
        ):
            return int(step["index"])
    return None


@dataclass(frozen=True, slots=True)
class Failure:
    lesson: str
    question: str  # the question's id, or the item: "step 2", "narrative.zh-hans.md", ...
    message: str
    language: str = ""  # the language whose text fails ("" for what all languages share)

    @property
    def item(self) -> str:
        """The item as the command prints it: a translation's items name their language."""
        shared = self.language in ("", SOURCE_LANGUAGE)
        return self.question if shared else f"[{self.language}] {self.question}"

    def __str__(self) -> str:
        return f"{self.lesson} {self.item}: {self.message}"


def _scored(evs: list[dict[str, Any]]) -> bool:
    return bool(_first(evs, "Combine").get("totals"))


def _allowed_points(run: LessonRun, q: Question) -> tuple[str, ...] | None:
    """The extension points whose run-page step shows ``q``'s answer (None: any step of the
    question's cycle)."""
    p, kind = q.params, q.kind
    evs = run.cycles.get(int(p["cycle"])) if "cycle" in p else None
    if kind == "winner":
        if evs is not None and _scored(evs):
            return ("Combine",)  # the weighted sum of scores, then select host
        return ("CycleEnd", "Filter", "PostFilter")
    if kind == "rejector":
        return ("Filter", "PreFilter")
    if kind in ("victims", "nominated"):
        return ("PostFilter",)
    if kind == "score":
        return ("Score", "NormalizeScore")
    if kind == "total":
        return ("Combine",)
    if kind in ("evaluated", "first_evaluated", "feasible"):
        return ("Filter",)
    if kind == "code":
        return (str(p["point"]),)
    if kind == "device":
        return ("DeviceAllocation", "PreBind", "Reserve")
    if kind == "requeue":
        return ("CycleStart",)  # the queue panel of the cycle after the move
    return None  # pod, profile, pending, placement: the whole cycle shows them


def _wanted_plugin(run: LessonRun, q: Question) -> str | None:
    """The plugin whose step the link must open, when the question is about one."""
    p, kind = q.params, q.kind
    if kind == "score":
        return str(p["plugin"])
    if kind == "code" and p.get("plugin"):
        return str(p["plugin"])
    if kind == "rejector" and str(q.answer).lower() != NONE:
        evs = run.cycles.get(int(p["cycle"])) or []
        plugins = {str(e.get("plugin")) for e in evs if e["type"] == "Filter" and e.get("plugin")}
        match = [name for name in plugins if name.lower() == str(q.answer).lower()]
        return match[0] if match else None  # an extender's verdict has no plugin step
    return None


def link_problem(run: LessonRun, q: Question) -> str | None:
    """Why ``q``'s "show this step" link does not open the step that shows its answer, if so.

    The link must name the question's cycle and an extension point that shows the answer (the
    weighted sum of scores for a winner, Filter with the rejecting plugin for a rejector,
    PostFilter for victims, the plugin's Score for a score), and that step must exist in the run.
    """
    show = q.show
    if show is None:
        return "show: every question names the run-page step that shows its answer"
    p = q.params
    if q.kind == "requeue":
        moved = _requeue_shown_in(run, q)
        if moved is not None and show.cycle != moved:
            return f"show: cycle {show.cycle}, but the queue shows the move in cycle {moved}"
    elif "cycle" in p and show.cycle != int(p["cycle"]):
        return f"show: cycle {show.cycle}, but the question is about cycle {p['cycle']}"
    if q.kind == "placement":
        pod = _pod_key(str(p["pod"]))
        evs = run.cycles.get(show.cycle) or []
        if _first(evs, "CycleStart").get("pod") != pod:
            return f"show: cycle {show.cycle} does not schedule {_short(pod)}"
    allowed = _allowed_points(run, q)
    if allowed is not None and show.point not in allowed:
        return f"show: {show.point}, but the answer is shown at {' or '.join(allowed)}"
    plugin = _wanted_plugin(run, q)
    if plugin is not None and show.plugin != plugin:
        return f"show: {show.plugin or 'no plugin'}, but the question is about {plugin}'s step"
    node = p.get("node")
    if show.node is not None and node is not None and show.node != node:
        return f"show: node {show.node}, but the question is about {node}"
    if run_step(run, show) is None:
        where = f"{show.point} step{f' of {show.plugin}' if show.plugin else ''}"
        return f"show: no {where} in cycle {show.cycle}"
    if q.kind == "rejector" and show.plugin and str(q.answer).lower() != NONE:
        ev = _first(run.cycles[show.cycle], "Filter", show.plugin)
        code = ev.get("codes", [])[_node_index(run.cycles[show.cycle], str(node))]
        if code in (None, "Success"):
            return f"show: {show.plugin} does not reject {node} at that step"
    return None


def _requeue_shown_in(run: LessonRun, q: Question) -> int | None:
    """The cycle whose queue panel (at its start) shows where a cluster event moved the pod of
    ``q``'s cycle: the first cycle to start after the move."""
    evs = run.cycles.get(int(q.params["cycle"])) or []
    moves = [
        e["seq"]
        for e in evs
        if e["type"] in ("Backoff", "MoveToActive")
        and (e.get("details") or {}).get("from") == "unschedulable"
    ]
    if not moves:
        return None
    starts = [e for e in run.events if e["type"] == "CycleStart" and e["seq"] > moves[0]]
    return int(starts[0]["cycle"]) if starts else None


@dataclass(frozen=True, slots=True)
class Checked:
    """What the check of one lesson looks at, for the command's count."""

    answers: int  # expected answers compared with the engine's
    told: int  # questions checked for an answer told before they ask
    told_on_purpose: int  # questions that say why the text may state their answer
    links: int  # run-page links (questions' and steps') checked against the run

    @classmethod
    def of(cls, lesson: Lesson) -> Checked:
        on_purpose = sum(1 for q in lesson.questions if q.told)
        return cls(
            answers=len(lesson.questions),
            told=len(lesson.questions) - on_purpose,
            told_on_purpose=on_purpose,
            links=len(lesson.questions) + sum(1 for s in lesson.steps if s.show is not None),
        )


def check_lesson(
    lesson: Lesson, runs: Mapping[str, LessonRun], languages: Sequence[str] = (SOURCE_LANGUAGE,)
) -> list[Failure]:
    """Every disagreement between the lesson and the engine's runs: expected answers, answers
    told before they are asked, and run-page links that do not show what they are about; and
    for each of ``languages`` besides the source, each piece of text not translated and each
    sentence of the translation that tells an answer before its question asks."""
    failures = []
    where = f"{lesson.number:02d}-{lesson.slug}"
    for n, step in enumerate(lesson.steps, start=1):
        if step.show is not None and run_step(runs["default"], step.show) is None:
            failures.append(
                Failure(
                    where,
                    f"step {n}",
                    f"show: no {step.show.point} step in cycle {step.show.cycle}",
                )
            )
    for q in lesson.questions:
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
        if SOURCE_LANGUAGE in languages:
            spoiler = told_before_asked(lesson, q, cycle=_cycle(run, q))
            if spoiler is not None:
                failures.append(Failure(where, q.id, str(spoiler)))
        problem = link_problem(run, q)
        if problem is not None:
            failures.append(Failure(where, q.id, problem))
    for language in languages:
        if language != SOURCE_LANGUAGE:
            failures.extend(_check_translation(lesson, runs, language))
    return failures


def _check_translation(
    lesson: Lesson, runs: Mapping[str, LessonRun], language: str
) -> list[Failure]:
    """What ``language``'s text lacks, and its sentences that tell an answer before it is asked
    (run-page pointers and answers are shared: the source's check covers them)."""
    where = f"{lesson.number:02d}-{lesson.slug}"
    failures = [
        Failure(where, item, problem, language)
        for item, problem in translation_problems(lesson, language)
    ]
    translated = in_language(lesson, language)
    if translated.language != language:
        return failures  # nothing is translated: the source's own check reads the source
    for q in translated.questions:
        spoiler = told_before_asked(translated, q, cycle=_cycle(runs[q.profile], q))
        if spoiler is not None:
            failures.append(Failure(where, q.id, str(spoiler), language))
    return failures


def _cycle(run: LessonRun, q: Question) -> Cycle:
    """What the run knows of ``q``'s cycle, for the check that lessons ask before they tell."""
    pods = frozenset(_short(str(ev["pod"])).lower() for ev in run.events if ev.get("pod"))
    last = {
        _short(str(_first(evs, "CycleStart")["pod"])).lower(): k for k, evs in run.cycles.items()
    }
    fates = tuple(
        (pod, last[pod], node)
        for pod, node in ((_short(p).lower(), n) for p, n in run.placements.items())
        if pod in last
    )
    if "cycle" not in q.params or int(q.params["cycle"]) not in run.cycles:
        return Cycle(pods=pods, fates=fates)
    start = _first(run.cycles[int(q.params["cycle"])], "CycleStart")
    nodes = tuple(str(n) for n in start.get("nodes") or ())
    return Cycle(pod=_cycle_pod(run, q), nodes=nodes, pods=pods, fates=fates)


def _cycle_pod(run: LessonRun, q: Question) -> str | None:
    if "cycle" not in q.params or int(q.params["cycle"]) not in run.cycles:
        return None
    return _short(str(_first(run.cycles[int(q.params["cycle"])], "CycleStart").get("pod", "")))


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
            elif ev["type"] == "DeviceAllocation":
                for claim in ev.get("claims") or {}:
                    lines.append(f"  devices {claim}: {', '.join(_devices(evs, claim))}")
    lines.append(f"placements: {run.placements}")
    return lines
