"""One-click questions about the run a class shows: which node wins a cycle, which plugin
rejects a node, which pods a preemption evicts.

The answer is read from the run itself, never typed by the lecturer: a run class's stored run,
or, in a lesson class, the engine's run of the lesson's default profile (the run its students'
lesson pages open; ``lessons --check`` holds it to the lesson's own answers). The question's
words are in the class's language.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from django.utils import translation
from django.utils.translation import gettext as _

from scheduler_core.words import listed

from ..lessons import checks
from ..lessons.checks import LessonRun, engine_answer
from ..lessons.loader import DEFAULT_PROFILE, Lesson, Question, RunPointer, lesson_by_slug
from ..lessons.services import lesson_runs
from ..models import Run
from ..runs import selectors as run_selectors
from . import run_steps
from .models import LiveClass

# What a presenter may ask with one click, in the order the buttons show.
KINDS: Final = ("winner", "rejector", "victims")
NONE: Final = checks.NONE


def _event(evs: Sequence[dict[str, Any]], type_: str) -> dict[str, Any]:
    """The cycle's first event of ``type_`` ({} when it has none)."""
    return next((e for e in evs if e["type"] == type_), {})


def _pod(evs: Sequence[dict[str, Any]]) -> str:
    return str(_event(evs, "CycleStart").get("pod") or "").removeprefix("default/")


def _asked(kind: str, cycle: int, **params: Any) -> Question:
    """The question as ``engine_answer`` reads it (a lesson question's kind and parameters)."""
    return Question(
        id=kind,
        step=0,
        prompt="",
        kind=kind,
        params={"cycle": cycle, **params},
        answer=None,
        explanation="",
    )


def _answer(evs: list[dict[str, Any]], kind: str, **params: Any) -> Any:
    """What a lesson question of ``kind`` on this cycle would have as its answer (the rule is
    ``checks.engine_answer``'s, for lessons and classes alike)."""
    cycle = int(evs[0]["cycle"])
    return engine_answer(LessonRun(events=evs, placements={}), _asked(kind, cycle, **params))


def _rejected(evs: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(node, plugin) for each node of the cycle's snapshot a plugin rejected, in node order."""
    if not evs:
        return
    for node in _event(evs, "CycleStart").get("nodes") or []:
        plugin = str(_answer(evs, "rejector", node=str(node)))
        if plugin != NONE:
            yield str(node), plugin


def _victims(evs: list[dict[str, Any]]) -> list[str]:
    return list(_answer(evs, "victims")) if evs else []


def asks_for(evs: list[dict[str, Any]]) -> list[str]:
    """The one-click questions a cycle has an answer to: every cycle has a winner (or none); a
    rejecting plugin when a node was rejected; victims when preemption evicted pods."""
    if not evs:
        return []
    out = ["winner"]
    if next(_rejected(evs), None) is not None:
        out.append("rejector")
    if _victims(evs):
        out.append("victims")
    return out


# -- where the cycle's events come from ----------------------------------------------------------


class _Source:
    """The run a class shows: its cycles' events and the run page's step of a pointer."""

    def __init__(self, live_class: LiveClass) -> None:
        self.live_class = live_class
        self.lesson: Lesson | None = None
        self.lesson_run: LessonRun | None = None
        self.run: Run | None = None
        if live_class.run_id is not None:
            runs = Run.objects.filter(pk=live_class.run_id)
            self.run = runs.defer("config", "placements").first()
        elif live_class.lesson_slug:
            self.lesson = lesson_by_slug(live_class.lesson_slug)
            if self.lesson is not None:
                self.lesson_run = lesson_runs(lesson=self.lesson)[DEFAULT_PROFILE]
        if self.run is None and self.lesson_run is None:
            raise ClassAskError(_("This class shows no run to ask about."))

    def events(self, cycle: int) -> list[dict[str, Any]]:
        if self.lesson_run is not None:
            return list(self.lesson_run.cycles.get(cycle) or [])
        assert self.run is not None
        return run_selectors.run_cycle_events(run=self.run, cycle=cycle)

    def run_step(self, cycle: int, point: str, plugin: str | None) -> int | None:
        if self.lesson_run is not None:
            return checks.run_step(self.lesson_run, RunPointer(cycle, point, plugin))
        assert self.run is not None
        return run_steps.run_step_index(self.run.pk, cycle, point, plugin)

    def winner_choices(
        self, cycle: int, evs: list[dict[str, Any]], winner: str | None
    ) -> list[str]:
        if self.run is not None:
            return run_steps.winner_choices(self.run.pk, cycle, winner)
        nodes = [str(n) for n in _event(evs, "CycleStart").get("nodes") or []]
        return run_steps.choices_among(nodes, _event(evs, "Combine"), winner)


class ClassAskError(ValueError):
    """Why the question cannot be asked (the lecturer reads it)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def lesson_asks(lesson: Lesson) -> dict[int, list[str]]:
    """For each narrative step that points at a cycle of the lesson's run, the one-click
    questions its cycle answers (the presenter offers those buttons at that step)."""
    run = lesson_runs(lesson=lesson)[DEFAULT_PROFILE]
    out = {}
    for n, step in enumerate(lesson.steps, start=1):
        if step.show is not None:
            out[n] = asks_for(list(run.cycles.get(step.show.cycle) or []))
    return out


def run_asks(run_id: int, cycle: int) -> list[str]:
    """The one-click questions cycle ``cycle`` of a stored run answers."""
    run = Run.objects.filter(pk=run_id).defer("config", "placements").first()
    return asks_for(run_selectors.run_cycle_events(run=run, cycle=cycle)) if run else []


# -- the questions -------------------------------------------------------------------------------


def question_fields(live_class: LiveClass, kind: Any, cycle: Any) -> dict[str, Any]:
    """A one-click question's fields (prompt, choices, answer, explanation, the step that shows
    it) in the class's language; ClassAskError when the cycle has no answer to it."""
    with translation.override(live_class.language):
        return _fields(live_class, kind, cycle)


def _fields(live_class: LiveClass, kind: Any, cycle: Any) -> dict[str, Any]:
    if kind not in KINDS:
        raise ClassAskError(_("Unknown question."))
    if cycle is None:
        cycle = (live_class.step or {}).get("cycle")
    if not isinstance(cycle, int) or isinstance(cycle, bool):
        raise ClassAskError(_("Name a cycle of the run."), "cycle")
    source = _Source(live_class)
    evs = source.events(cycle)
    if not evs:
        raise ClassAskError(_("The run has no cycle %(n)d.") % {"n": cycle}, "cycle")
    pod = _pod(evs)
    if kind == "winner":
        return _winner(source, cycle, evs, pod)
    if kind == "rejector":
        return _rejector(source, cycle, evs, pod)
    return _evicted(source, cycle, evs, pod)


def _show(source: _Source, cycle: int, point: str, plugin: str | None = None) -> dict[str, Any]:
    show: dict[str, Any] = {"cycle": cycle, "point": point, "plugin": plugin, "node": None}
    show["runStep"] = source.run_step(cycle, point, plugin)
    if source.lesson is not None:
        show["lessonStep"] = (source.live_class.step or {}).get("lessonStep") or 1
    return show


def _winner(source: _Source, cycle: int, evs: list[dict[str, Any]], pod: str) -> dict[str, Any]:
    end = _event(evs, "CycleEnd")
    node = end.get("node") or None
    choices = source.winner_choices(cycle, evs, node)
    if node:
        explanation = _("In cycle %(n)d the scheduler placed %(pod)s on %(node)s.") % {
            "n": cycle,
            "pod": pod,
            "node": node,
        }
    else:
        explanation = _("In cycle %(n)d no node could take %(pod)s (%(result)s).") % {
            "n": cycle,
            "pod": pod,
            "result": end.get("result") or "",
        }
    return {
        "prompt": _("Which node wins cycle %(n)d (pod %(pod)s)?") % {"n": cycle, "pod": pod},
        "choices": choices,
        "labels": {NONE: _("none")} if NONE in choices else {},
        "answer": node or NONE,
        "answer_type": "name",
        "explanation": explanation,
        "show": _show(source, cycle, "Combine"),
    }


def _rejector(source: _Source, cycle: int, evs: list[dict[str, Any]], pod: str) -> dict[str, Any]:
    # The node the class's step is about, if a plugin rejected it; else the first rejected one.
    wanted = (source.live_class.step or {}).get("node")
    nodes = _event(evs, "CycleStart").get("nodes") or []
    answer = str(_answer(evs, "rejector", node=wanted)) if wanted in nodes else NONE
    if answer != NONE:
        node = str(wanted)
    else:
        node, answer = next(_rejected(evs), ("", NONE))
    if answer == NONE:
        raise ClassAskError(_("No node is rejected in cycle %(n)d.") % {"n": cycle}, "cycle")
    filters: list[str] = []
    for ev in evs:
        name = ev.get("plugin")
        if ev["type"] == "Filter" and name and name not in filters:
            filters.append(str(name))
    # A plugin's Filter, or PreFilter (its plugin named, or "PreFilter": the node left out of
    # PreFilter's node names).
    point = "Filter" if answer in filters else "PreFilter"
    plugin = None if answer == "PreFilter" else answer
    choices = filters if answer in filters else [*filters, answer]
    return {
        "prompt": _("Which plugin rejects node %(node)s in cycle %(n)d (pod %(pod)s)?")
        % {"node": node, "n": cycle, "pod": pod},
        "choices": choices,
        "labels": {},
        "answer": answer,
        "answer_type": "name",
        "explanation": _("In cycle %(n)d %(plugin)s rejected %(node)s for %(pod)s.")
        % {"n": cycle, "plugin": answer, "node": node, "pod": pod},
        "show": _show(source, cycle, point, plugin),
    }


def _evicted(source: _Source, cycle: int, evs: list[dict[str, Any]], pod: str) -> dict[str, Any]:
    answer = _victims(evs)
    if not answer:
        raise ClassAskError(_("Cycle %(n)d evicts no pod.") % {"n": cycle}, "cycle")
    node = _event(evs, "PostFilter").get("nominated_node") or ""
    return {
        "prompt": _(
            "Which pods does cycle %(n)d evict to make room for %(pod)s? Name them, separated "
            "by commas."
        )
        % {"n": cycle, "pod": pod},
        "choices": [],
        "labels": {},
        "answer": checks.shown(answer),
        "answer_type": "names",
        "explanation": _(
            "In cycle %(n)d preemption evicts %(victims)s from %(node)s to make room for %(pod)s."
        )
        % {"n": cycle, "victims": listed(answer), "node": node, "pod": pod},
        "show": _show(source, cycle, "PostFilter"),
    }
