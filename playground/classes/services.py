"""Writes of a live class: open and end it, join it, move the step, ask, answer and reveal.

Every change is a row; ``events`` tells the class's connections about it afterwards. Lecturer
actions check that the acting user is the class's lecturer (``NotLecturer`` otherwise).
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from ..inputs.params import MAX_ID
from ..lessons.checks import matches, normalize, shown
from ..lessons.languages import in_language, language_of
from ..lessons.loader import Lesson, RunPointer, lesson_by_slug
from ..models import Run
from ..runs import selectors as run_selectors
from . import run_questions
from .models import ClassAnswer, ClassQuestion, ClassStudent, LiveClass

User = AbstractBaseUser | AnonymousUser

CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 6
IDLE: Final = timedelta(hours=3)
NICKNAME_MAX: Final = 40
ANSWER_MAX: Final = 200
PROMPT_MAX: Final = 500
CHOICES_MAX: Final = 20
# session: class code -> student token (the runs feature reads it: a class's run is its
# students' to watch while the class is open)
SESSION_STUDENTS: Final = run_selectors.SESSION_CLASS_STUDENTS
STEP_TEXT_MAX: Final = 253
STUDENTS_MAX: Final = 1000  # per class: the join form is open to anyone with the code
OPEN_CLASSES_MAX: Final = 10  # open classes per lecturer at once


class ClassError(Exception):
    """A refused action; ``field`` names the form field it is about (or "__all__")."""

    def __init__(self, message: str, field: str = "__all__") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotLecturer(ClassError):
    """The acting user is not the class's lecturer."""


def _now() -> datetime:
    return timezone.now()


# -- opening, ending, idleness -------------------------------------------------------------------


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def class_open(
    *,
    lecturer: User,
    lesson: Lesson | None = None,
    run: Run | None = None,
    language: str | None = None,
) -> LiveClass:
    """A new open class on a lesson or on a run (the caller checked the run is visible), taught
    in ``language`` (a request language: the lesson's text and the questions are in it)."""
    if not lecturer.is_authenticated:
        raise NotLecturer(_("Sign in to open a live class."))
    if (lesson is None) == (run is None):
        raise ClassError(_("A live class is on a lesson or on a run."))
    classes_end_idle()
    if (
        LiveClass.objects.filter(lecturer=lecturer, ended_at__isnull=True).count()
        >= OPEN_CLASSES_MAX
    ):
        raise ClassError(
            _("You have %(n)d live classes open; end one before opening another.")
            % {"n": OPEN_CLASSES_MAX}
        )
    step: dict[str, Any] = step_clean({"lessonStep": 1} if lesson else {"cycle": 1})
    if lesson is not None:
        step = _with_lesson_pointer(lesson, step)
    for _attempt in range(20):
        try:
            with transaction.atomic():
                return LiveClass.objects.create(
                    code=_new_code(),
                    lecturer=lecturer,
                    lesson_slug=lesson.slug if lesson else "",
                    run=run,
                    language=language_of(language),
                    step=step,
                )
        except IntegrityError:  # the code is taken by an open class: draw again
            continue
    raise ClassError(_("No free class code; try again."))


def classes_end_idle(now: datetime | None = None) -> int:
    """End every open class idle for ``IDLE``; how many were ended. Called lazily by the join
    and connect paths, and once a minute by each web process that holds class connections
    (``consumers``), which then closes the ended classes' sockets."""
    now = now or _now()
    return LiveClass.objects.filter(ended_at__isnull=True, last_activity_at__lt=now - IDLE).update(
        ended_at=now
    )


def classes_ended(class_ids: Iterable[int]) -> list[tuple[int, str]]:
    """Of these classes, the ended ones, as (id, code), in id order."""
    return list(
        LiveClass.objects.filter(pk__in=list(class_ids), ended_at__isnull=False)
        .order_by("pk")
        .values_list("pk", "code")
    )


_IDLE_CHECK_EVERY: Final = 60.0  # seconds between a process's sweeps from the join/connect path
_last_idle_check = -_IDLE_CHECK_EVERY


def classes_end_idle_lazily() -> None:
    """``classes_end_idle`` at most once a minute per process (the join and connect paths call
    this; the class a request names is checked by ``selectors.class_by_code`` every time)."""
    global _last_idle_check
    now = time.monotonic()
    if now - _last_idle_check >= _IDLE_CHECK_EVERY:
        _last_idle_check = now
        classes_end_idle()


def is_idle(live_class: LiveClass, now: datetime | None = None) -> bool:
    return live_class.last_activity_at < (now or _now()) - IDLE


def class_end(*, live_class: LiveClass, user: User) -> bool:
    """End the class; False if it had ended already."""
    _require_lecturer(live_class, user)
    if live_class.ended_at is not None:
        return False
    live_class.ended_at = _now()
    live_class.save(update_fields=["ended_at"])
    return True


def touch(class_id: int) -> None:
    """Record activity (lecturer or student) so that the class is not ended as idle."""
    LiveClass.objects.filter(pk=class_id).update(last_activity_at=_now())


def _require_lecturer(live_class: LiveClass, user: User | None) -> None:
    if user is None or not user.is_authenticated or user.pk != live_class.lecturer_id:
        raise NotLecturer(_("Only the class's lecturer may do this."))


# -- students ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JoinRefused(Exception):
    errors: dict[str, list[str]]
    no_class: bool = False  # the code is of no open class (counted as a guess)


def code_clean(code: Any) -> str:
    return str(code or "").strip().upper().replace(" ", "").replace("-", "")[: CODE_LENGTH + 4]


def student_join(*, code: str, nickname: str) -> ClassStudent:
    """A new student of the open class ``code``; ``JoinRefused`` names the field(s) at fault."""
    classes_end_idle_lazily()
    errors: dict[str, list[str]] = {}
    code = code_clean(code)
    live_class = (
        LiveClass.objects.filter(code=code, ended_at__isnull=True).first() if code else None
    )
    if live_class is None:  # ended or never opened: the same answer, so guesses learn less
        errors["code"] = [_("No open class has this code.")]
    nickname = nickname_clean(nickname)
    if not nickname:
        errors["nickname"] = [_("Choose a nickname.")]
    elif len(nickname) > NICKNAME_MAX:
        errors["nickname"] = [_("A nickname has at most %(n)d characters.") % {"n": NICKNAME_MAX}]
    if errors or live_class is None:
        raise JoinRefused(errors, no_class=live_class is None)
    taken = JoinRefused(
        {"nickname": [_("“%(name)s” is taken in this class; choose another.") % {"name": nickname}]}
    )
    key = nickname_key(nickname)
    if ClassStudent.objects.filter(live_class=live_class, nickname_key=key).exists():
        raise taken
    if ClassStudent.objects.filter(live_class=live_class).count() >= student_cap(live_class):
        raise JoinRefused({"code": [_("This class is full.")]})
    try:
        with transaction.atomic():
            student = ClassStudent.objects.create(
                live_class=live_class,
                nickname=nickname,
                nickname_key=key,
                token=secrets.token_urlsafe(24),
            )
    except IntegrityError as err:  # the same nickname, a moment earlier
        raise taken from err
    touch(live_class.pk)
    return student


def student_cap(live_class: LiveClass) -> int:
    """The most students the class admits: the lecturer's cap, never above ``STUDENTS_MAX``."""
    cap = live_class.student_cap
    return STUDENTS_MAX if cap is None else min(cap, STUDENTS_MAX)


def student_cap_set(*, live_class: LiveClass, user: User | None, cap: Any) -> int | None:
    """Set the class's cap (None: no cap of the lecturer's); students already in stay."""
    _require_lecturer(live_class, user)
    if cap is not None and (not _is_count(cap) or cap > STUDENTS_MAX):
        raise ClassError(_("A cap is a number of students from 0 to %(n)d.") % {"n": STUDENTS_MAX})
    LiveClass.objects.filter(pk=live_class.pk).update(student_cap=cap, last_activity_at=_now())
    live_class.student_cap = cap
    return cap


def student_remove(*, live_class: LiveClass, user: User | None, student_id: Any) -> bool:
    """Remove a student (a fake one, say) and their answers; their token stops working. False
    when no such student is in the class."""
    _require_lecturer(live_class, user)
    if not _is_id(student_id):
        return False
    deleted, _rows = ClassStudent.objects.filter(live_class=live_class, pk=student_id).delete()
    touch(live_class.pk)
    return deleted > 0


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# Letters of other scripts that look like Latin ones (Cyrillic and Greek, after casefolding) and
# digits that pass for letters: "Аnn" (a Cyrillic А) or "B0b" would otherwise pass for Ann or Bob.
_LOOK_ALIKES: Final = str.maketrans(
    "авекмнорстухіјѕԁԛԝӏһαβεηικμνορτυχζ01",
    "abekmhopctyxijsdqwlhabenikmnoptyxzol",
)


def nickname_clean(value: Any) -> str:
    """A nickname as shown: spaces collapsed, control and format characters (a NUL, zero-width
    joiners, right-to-left overrides that reverse how a name reads) dropped."""
    text = unicodedata.normalize("NFC", words(value, 10 * NICKNAME_MAX))
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()


def nickname_key(nickname: str) -> str:
    """What two nicknames are compared by (unique per class): compatibility forms folded
    (full-width letters), case and accents ignored, look-alike letters of other scripts taken
    as the Latin ones, so that nobody joins under a name that reads like a classmate's."""
    text = unicodedata.normalize("NFKD", nickname).casefold()
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.translate(_LOOK_ALIKES)[:NICKNAME_MAX]


# -- the step ------------------------------------------------------------------------------------

STEP_KEYS: Final = ("lessonStep", "cycle", "point", "plugin", "node", "runStep")


def step_clean(raw: Any) -> dict[str, Any]:
    """A step object with exactly ``STEP_KEYS``: ints for lessonStep, cycle and runStep (the
    run page's ``#cycle=K&step=N``), bounded strings for point, plugin and node, else null."""
    raw = raw if isinstance(raw, dict) else {}
    out: dict[str, Any] = {}
    for key in STEP_KEYS:
        value = raw.get(key)
        if key in ("lessonStep", "cycle", "runStep"):
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**7
            out[key] = value if ok else None
        else:
            ok = isinstance(value, str) and 0 < len(value) <= STEP_TEXT_MAX
            out[key] = value if ok else None
    return out


def _with_lesson_pointer(lesson: Lesson, step: dict[str, Any]) -> dict[str, Any]:
    """A lesson step within the lesson, with the run step its narrative points at when the
    lecturer named none."""
    n = step.get("lessonStep") or 1
    n = min(max(int(n), 1), len(lesson.steps))
    step = {**step, "lessonStep": n}
    pointer = lesson.steps[n - 1].show
    if step.get("cycle") is None and pointer is not None:
        step.update(cycle=pointer.cycle, point=pointer.point, plugin=pointer.plugin)
    return step


def step_set(*, live_class: LiveClass, user: User | None, step: Any) -> tuple[dict[str, Any], int]:
    """Move the class to ``step``; the step as stored and its sequence number."""
    _require_lecturer(live_class, user)
    clean = step_clean(step)
    if live_class.lesson_slug:
        lesson = lesson_by_slug(live_class.lesson_slug)
        if lesson is not None:
            clean = _with_lesson_pointer(lesson, clean)
    LiveClass.objects.filter(pk=live_class.pk).update(
        step=clean, step_seq=F("step_seq") + 1, last_activity_at=_now()
    )
    seq = LiveClass.objects.filter(pk=live_class.pk).values_list("step_seq", flat=True).get()
    live_class.step, live_class.step_seq = clean, seq
    return clean, seq


# -- questions -----------------------------------------------------------------------------------


def _pointer_dict(pointer: RunPointer | None) -> dict[str, Any]:
    if pointer is None:
        return {}
    return {
        "cycle": pointer.cycle,
        "point": pointer.point,
        "plugin": pointer.plugin,
        "node": pointer.node,
        "label": pointer.label,
    }


def _ask(live_class: LiveClass, **fields: Any) -> ClassQuestion:
    with transaction.atomic():
        locked = LiveClass.objects.select_for_update().get(pk=live_class.pk)
        number = (
            locked.questions.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        question = ClassQuestion.objects.create(live_class=locked, number=number, **fields)
        LiveClass.objects.filter(pk=locked.pk).update(question=question, last_activity_at=_now())
    live_class.question = question
    return question


def question_ask_lesson(*, live_class: LiveClass, user: User | None, qid: str) -> ClassQuestion:
    """Open one of the lesson's questions (its expected answer is checked by `lessons --check`),
    its prompt, choices' labels and explanation stored in the class's language (the choices'
    values stay the source's: they are what is answered, compared and tallied)."""
    _require_lecturer(live_class, user)
    lesson = lesson_by_slug(live_class.lesson_slug) if live_class.lesson_slug else None
    if lesson is not None:
        lesson = in_language(lesson, live_class.language)
    q = lesson.question(str(qid)) if lesson is not None else None
    if lesson is None or q is None:
        raise ClassError(_("This lesson has no such question."))
    return _ask(
        live_class,
        lesson_question_id=q.id,
        prompt=q.prompt,
        choices=list(q.choices),
        labels={c: label for c, label in q.choice_items if label != c},
        answer=shown(q.answer)[:ANSWER_MAX],
        answer_type=q.answer_type,
        explanation=q.explanation,
        show={**_pointer_dict(q.show), "lessonStep": q.step},
    )


def question_ask_quick(*, live_class: LiveClass, user: User | None, quick: Any) -> ClassQuestion:
    """Open a question the lecturer wrote: a prompt, two or more choices, the right one."""
    _require_lecturer(live_class, user)
    quick = quick if isinstance(quick, dict) else {}
    prompt = words(quick.get("prompt"), PROMPT_MAX)
    raw = quick.get("choices") if isinstance(quick.get("choices"), list) else []
    choices: list[str] = []
    for c in raw[:CHOICES_MAX]:
        text = words(c, ANSWER_MAX)
        if text and text not in choices:
            choices.append(text)
    answer = words(quick.get("answer"), ANSWER_MAX)
    if not prompt:
        raise ClassError(_("Write the question."), "prompt")
    if len(choices) < 2:
        raise ClassError(_("Give at least two choices."), "choices")
    if answer not in choices:
        raise ClassError(_("The right answer must be one of the choices."), "answer")
    show = quick.get("show") if isinstance(quick.get("show"), dict) else {}
    return _ask(
        live_class,
        prompt=prompt,
        choices=choices,
        answer=answer,
        answer_type="name",
        explanation=str(quick.get("explanation") or "").replace("\x00", "")[:2000],
        show=step_clean(show),
    )


def question_ask_about(
    *, live_class: LiveClass, user: User | None, kind: Any, cycle: Any = None
) -> ClassQuestion:
    """A one-click question about the run the class shows (``run_questions.KINDS``: which node
    wins, which plugin rejects a node, which pods are evicted) on ``cycle`` (the class's step's
    cycle when None), its answer read from the run, its words in the class's language."""
    _require_lecturer(live_class, user)
    try:
        fields = run_questions.question_fields(live_class, kind, cycle)
    except run_questions.ClassAskError as err:
        raise ClassError(str(err), err.field or "__all__") from None
    return _ask(live_class, **fields)


def question_ask_winner(*, live_class: LiveClass, user: User | None, cycle: Any) -> ClassQuestion:
    """ "Which node wins cycle N?" on the class's run."""
    return question_ask_about(live_class=live_class, user=user, kind="winner", cycle=cycle)


# -- answers -------------------------------------------------------------------------------------


def _given(question: dict[str, Any], choice: Any) -> str:
    """The answer as stored: one of the choices, or a worded answer normalised as lessons
    compare it (so that "87" and " 87 " are counted together)."""
    text = words(choice, 10 * ANSWER_MAX)
    if not text:
        raise ClassError(_("Choose an answer."))
    if question["choices"]:
        if text not in question["choices"]:
            raise ClassError(_("That is not one of the choices."))
        return text
    value = normalize(text[:ANSWER_MAX], question["answer_type"])
    if value is None:
        raise ClassError(_("Write a number."))
    return (", ".join(value) if isinstance(value, list) else str(value))[:ANSWER_MAX]


@dataclass(frozen=True, slots=True)
class Answer:
    """One student's answer as sent, before it is checked."""

    student_id: int
    question_id: Any
    choice: Any


def answer_submit(*, class_id: int, student_id: int, question_id: Any, choice: Any) -> str:
    """Record a student's answer to the class's open question (a repeat before the reveal
    replaces it); the answer as stored. Refused after the reveal or for another question."""
    result = answers_submit(class_id, [Answer(student_id, question_id, choice)])[0]
    if isinstance(result, ClassError):
        raise result
    return result


def _is_id(value: Any) -> bool:
    """A row id the database can compare: out of a signed 64-bit column's range, SQLite's driver
    raises for the whole statement (one student's answer failed the batch it shared)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ID


def words(value: Any, limit: int) -> str:
    """Text as stored: runs of white space made one space, control characters (a NUL, which
    PostgreSQL refuses in text) dropped, at most ``limit`` characters."""
    text = str(value if value is not None else "").translate(_CONTROLS)
    return " ".join(text.split())[:limit]


_CONTROLS: Final = dict.fromkeys([*range(0x20), 0x7F], " ")


def answers_submit(class_id: int, answers: list[Answer]) -> list[str | ClassError]:
    """Record several students' answers to the class's open question at once: one select and
    one upsert (INSERT ... ON CONFLICT (question, student) DO UPDATE) for all of them. Per answer,
    in order: the answer as stored, or why it was refused. A later answer of the same student to
    the same question replaces an earlier one, as if they had come one after the other."""
    ids = {a.question_id for a in answers if _is_id(a.question_id)}
    open_questions = {
        row["pk"]: row
        for row in ClassQuestion.objects.filter(
            pk__in=ids,
            live_class_id=class_id,
            live_class__question_id=F("pk"),
            live_class__ended_at__isnull=True,
        ).values("pk", "choices", "answer", "answer_type", "revealed_at")
    }
    results: list[str | ClassError] = []
    rows: dict[tuple[int, int], ClassAnswer] = {}
    now = _now()
    for answer in answers:
        qid = answer.question_id
        question = open_questions.get(qid) if _is_id(qid) else None
        try:
            if not _is_id(qid):
                raise ClassError(_("No such question."))
            if question is None:
                raise ClassError(_("That question is not open."))
            if question["revealed_at"] is not None:
                raise ClassError(_("The answer has been revealed; answers are closed."))
            given = _given(question, answer.choice)
        except ClassError as err:
            results.append(err)
            continue
        results.append(given)
        rows[(qid, answer.student_id)] = ClassAnswer(
            question_id=qid,
            student_id=answer.student_id,
            choice=given,
            correct=matches(given, question["answer"], question["answer_type"]),
            answered_at=now,
        )
    if rows:
        ClassAnswer.objects.bulk_create(
            list(rows.values()),
            update_conflicts=True,
            unique_fields=["question", "student"],
            update_fields=["choice", "correct", "answered_at"],
        )
    return results


def reveal(*, live_class: LiveClass, user: User | None) -> ClassQuestion:
    """Reveal the open question's answer; answers are closed from then on."""
    _require_lecturer(live_class, user)
    question = (
        ClassQuestion.objects.filter(pk=live_class.question_id).first()
        if live_class.question_id
        else None
    )
    if question is None:
        raise ClassError(_("No question is open."))
    if question.revealed_at is None:
        question.revealed_at = _now()
        question.save(update_fields=["revealed_at"])
        touch(live_class.pk)
    return question
