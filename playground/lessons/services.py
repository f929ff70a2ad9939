"""Writes of the course: lessons as demo content, their engine runs, runs started from a lesson,
and answers recorded as progress (per user, or in the session for anonymous visitors)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from ..clusters.services import demo_cluster_put
from ..custom_plugins.services import demo_load as custom_plugins_demo_load
from ..inputs import manifests
from ..inputs.manifests import SourceObject
from ..models import Cluster, Profile, Run
from ..profiles.services import demo_profile_put
from ..runs import selectors as run_selectors
from ..runs import services as runs
from ..runs.execution import limits
from ..runs.execution import sample_extender as extender
from .checks import Failure, LessonRun, check_lesson, engine_answer, matches, run_lesson, shown
from .loader import Lesson, Question, course
from .models import LessonProgress, SharedLessonRun

User = AbstractBaseUser | AnonymousUser

SESSION_PROGRESS: Final = "lesson_progress"  # slug -> {question id -> answer record}
SESSION_RUNS: Final = "lesson_runs"  # slug -> {profile -> run id}
_SCRATCH: Final = "~lesson check: "


@functools.cache
def _parsed(text: str) -> list[SourceObject]:
    """A lesson's manifests parsed once per process (lesson 9's 500 nodes take a second)."""
    return manifests.parse_documents(text).objects


def lesson_load(lesson: Lesson) -> tuple[Cluster, dict[str, Profile]]:
    """Create or refresh one lesson's demo cluster and profiles."""
    with transaction.atomic():
        cluster = demo_cluster_put(
            name=lesson.cluster_name,
            description=lesson.summary,
            parsed=_parsed(lesson.cluster_text),
        )
        profiles = {
            name: demo_profile_put(
                name=lesson.profile_name(name),
                description=f"The profile of lesson {lesson.number}: {lesson.title}",
                config=config,
            )
            for name, config in lesson.profiles.items()
        }
    return cluster, profiles


def lessons_load() -> int:
    """Every lesson's cluster and profiles as demo content; returns the number of lessons."""
    for lesson in course():
        lesson_load(lesson)
    return len(course())


def lesson_inputs(*, lesson: Lesson) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The snapshot a run of this lesson gets, and each profile's configuration, through the same
    code a run uses.

    The lesson is stored as a scratch demo cluster inside a savepoint that is rolled back, so the
    manifests go through the importer (controllers expanded, API defaults, cluster order) exactly
    as they do for ``load_demo``, and nothing is left behind.
    """
    with transaction.atomic():
        custom_plugins_demo_load()  # a lesson's profile may enable the shipped custom plugins
        cluster = demo_cluster_put(
            name=_SCRATCH + lesson.slug, description="", parsed=_parsed(lesson.cluster_text)
        )
        snapshot, _ = runs._snapshot(cluster, None)  # noqa: SLF001  the run's own input path
        configs = {}
        for name, config in lesson.profiles.items():
            stored = demo_profile_put(
                name=f"{_SCRATCH}{lesson.slug} {name}", description="", config=config
            )
            configs[name] = runs._check_config(stored)  # noqa: SLF001
        transaction.set_rollback(True)
    return snapshot, configs


_RUNS: dict[tuple[str, str, str], LessonRun] = {}


def _digest(lesson: Lesson, profile: str) -> str:
    text = json.dumps(
        # With the gates: a shared run made before runs kept them ran under others, and a
        # lesson that changes its gates needs a new one.
        [
            lesson.cluster_text,
            lesson.profiles[profile],
            repr(lesson.script),
            lesson.features.to_gates(),
        ],
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def lesson_runs(*, lesson: Lesson) -> dict[str, LessonRun]:
    """The engine's run of each of the lesson's profiles (deterministic, so kept per process)."""
    keys = {name: (lesson.slug, name, _digest(lesson, name)) for name in lesson.profiles}
    if any(key not in _RUNS for key in keys.values()):
        snapshot, configs = lesson_inputs(lesson=lesson)
        for name, key in keys.items():
            with extender.serving(configs[name]):
                _RUNS[key] = run_lesson(
                    snapshot, configs[name], lesson.script, features=lesson.features
                )
    return {name: _RUNS[key] for name, key in keys.items()}


def lessons_check(lessons: list[Lesson] | None = None) -> list[tuple[Lesson, list[Failure]]]:
    """Each lesson with the questions whose expected answer the engine does not give."""
    out = []
    for lesson in lessons if lessons is not None else list(course()):
        try:
            failures = check_lesson(lesson, lesson_runs(lesson=lesson))
        except Exception as err:  # a lesson the engine refuses fails; it is never skipped
            failures = [Failure(f"{lesson.number:02d}-{lesson.slug}", "run", repr(err))]
        out.append((lesson, failures))
    return out


# -- runs started from a lesson ------------------------------------------------------------------


def _lesson_content(lesson: Lesson, profile: str) -> tuple[Cluster, Profile]:
    cluster = Cluster.objects.filter(is_demo=True, owner=None, name=lesson.cluster_name).first()
    stored = Profile.objects.filter(
        is_demo=True, owner=None, name=lesson.profile_name(profile)
    ).first()
    if cluster is None or stored is None:
        cluster, profiles = lesson_load(lesson)
        stored = profiles[profile]
    return cluster, stored


def lesson_run_shared(*, lesson: Lesson, profile: str) -> bool:
    """Whether visitors share one run of the lesson's profile: yes, unless a Permit plugin may
    wait for a user's answer (lesson 11's ApprovalGate), so each visitor's run goes their way."""
    return not limits.waits_for_user(lesson.profiles[profile], None)


# A shared run still running is reused too: its visitors watch it live.
REUSABLE: Final = (Run.Status.PENDING, Run.Status.RUNNING, Run.Status.SUCCEEDED)


def shared_lesson_run(
    *,
    lesson: Lesson,
    profile: str,
    session: MutableMapping[str, Any] | None = None,
    owner: str | None = None,
) -> tuple[Run, bool]:
    """The run of the lesson's profile that every visitor without an account shares, and
    whether this call started it.

    One run per (lesson, profile, lesson digest): it is reused while pending, running or
    succeeded; a failed or cancelled one is replaced. The key's row is locked while the run is
    looked at and started, so simultaneous calls start one run. ``session`` (a visitor's) is
    checked against every visitor's active runs, and pays from no budget of its own; ``owner``
    is whose share of the runners it uses. Raises runs.RunRefused when it may not start.
    """
    key = {"lesson": lesson.slug, "profile": profile, "digest": _digest(lesson, profile)}
    with transaction.atomic():
        row, _ = SharedLessonRun.objects.get_or_create(**key)
        row = SharedLessonRun.objects.select_for_update(of=("self",)).get(pk=row.pk)
        if row.run is not None and row.run.status in REUSABLE:
            return row.run, False
        # Shared by every visitor (one per lesson and profile): no session's budget pays for it.
        run = _started(
            lesson, profile, user=None, session=session, owner=owner, budget=limits.SHARED
        )
        row.run = run
        row.save(update_fields=["run", "updated"])
    return run, True


def _started(
    lesson: Lesson,
    profile: str,
    *,
    user: User | None,
    session: MutableMapping[str, Any] | None,
    owner: str | None,
    budget: str = limits.LESSON,
) -> Run:
    """A new run of the lesson's demo cluster under ``profile``; ``session`` (a visitor's without
    an account) is refused first when it has started as many runs as ``budget`` allows."""
    if session is not None:
        refusal = limits.anonymous_refusal(session, budget=budget)
        if refusal:
            raise runs.RunRefused(refusal)
    cluster, stored = _lesson_content(lesson, profile)
    extender.ensure_running(stored.config)
    return runs.run_start(
        user=user if user is not None and user.is_authenticated else None,
        cluster=cluster,
        profile=stored,
        label=f"Lesson {lesson.number}",
        script=lesson.script,
        owner=owner,
        features=lesson.features,
    )


def lesson_run_start(
    *,
    lesson: Lesson,
    profile: str,
    user: User,
    session: MutableMapping[str, Any],
    owner: str | None = None,
) -> Run:
    """A run of the lesson's demo cluster under its profile, remembered in the session.

    A visitor without an account gets the lesson's shared run (``shared_lesson_run``; read-only
    to them) unless the lesson waits for their answers at Permit; then, and for a signed-in
    user, the run is their own to command. ``owner`` is whose share of the runners it uses
    (``runs.limits.request_owner``); raises runs.RunRefused when they have as many runs pending
    or running as they may, or a visitor without an account has started as many as they may.
    """
    if not user.is_authenticated and lesson_run_shared(lesson=lesson, profile=profile):
        run, _ = shared_lesson_run(lesson=lesson, profile=profile, session=session, owner=owner)
    else:
        visitor = None if user.is_authenticated else session
        run = _started(lesson, profile, user=user, session=visitor, owner=owner)
        if visitor is not None:
            limits.anonymous_started(visitor, budget=limits.LESSON)
        started = [*(session.get(run_selectors.SESSION_STARTED) or []), run.pk]
        session[run_selectors.SESSION_STARTED] = started[-run_selectors.SESSION_STARTED_KEPT :]
    mine = dict(session.get(SESSION_RUNS) or {})
    mine[lesson.slug] = {**(mine.get(lesson.slug) or {}), profile: run.pk}
    session[SESSION_RUNS] = mine
    return run


# -- answers and progress ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnswerResult:
    correct: bool
    engine_answer: str
    explanation: str
    first_try: bool
    lesson_done: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "correct": self.correct,
            "answer": self.engine_answer,
            "explanation": self.explanation,
            "first_try": self.first_try,
            "lesson_done": self.lesson_done,
        }


def _updated(record: dict[str, Any] | None, correct: bool) -> dict[str, Any]:
    record = dict(record or {"solved": False, "first_try": False, "tries": 0})
    if not record["solved"]:
        record["tries"] += 1
        record["first_try"] = correct and record["tries"] == 1
        record["solved"] = correct
    return record


def _done(lesson: Lesson, answers: dict[str, Any]) -> bool:
    return all((answers.get(q.id) or {}).get("solved") for q in lesson.questions)


def answer_submit(
    *,
    lesson: Lesson,
    question: Question,
    given: str,
    user: User,
    session: MutableMapping[str, Any],
) -> AnswerResult:
    """Check an answer against the engine's run of the lesson and record it as progress.

    Only the first try counts towards "correct on first try"; a solved question stays solved.
    """
    expected = engine_answer(lesson_runs(lesson=lesson)[question.profile], question)
    correct = matches(given, expected, question.answer_type)
    if user.is_authenticated:
        with transaction.atomic():
            row, _ = LessonProgress.objects.select_for_update().get_or_create(
                user=user, lesson=lesson.slug
            )
            answers = dict(row.answers)
            answers[question.id] = _updated(answers.get(question.id), correct)
            row.answers = answers
            row.done = _done(lesson, answers)
            row.correct_first_try = sum(1 for a in answers.values() if a.get("first_try"))
            row.save()
    else:
        progress = dict(session.get(SESSION_PROGRESS) or {})
        answers = dict(progress.get(lesson.slug) or {})
        answers[question.id] = _updated(answers.get(question.id), correct)
        progress[lesson.slug] = answers
        session[SESSION_PROGRESS] = progress
    record = answers[question.id]
    return AnswerResult(
        correct=correct,
        engine_answer=shown(expected),
        explanation=question.explanation,
        first_try=bool(record["first_try"]),
        lesson_done=_done(lesson, answers),
    )


def progress_claim(*, user: User, session: MutableMapping[str, Any]) -> int:
    """Move an anonymous visitor's session progress to the account they signed in with.

    Answers already stored for the user win; the session's fill the gaps. Returns the number of
    lessons touched (0 when there was nothing to move).
    """
    if not user.is_authenticated or not session.get(SESSION_PROGRESS):
        return 0
    by_slug = {lesson.slug: lesson for lesson in course()}
    moved = 0
    with transaction.atomic():
        for slug, answers in dict(session[SESSION_PROGRESS]).items():
            lesson = by_slug.get(slug)
            if lesson is None:
                continue
            row, _ = LessonProgress.objects.select_for_update().get_or_create(
                user=user, lesson=slug
            )
            merged = {**answers, **row.answers}
            row.answers = merged
            row.done = _done(lesson, merged)
            row.correct_first_try = sum(1 for a in merged.values() if a.get("first_try"))
            row.save()
            moved += 1
    del session[SESSION_PROGRESS]
    return moved
