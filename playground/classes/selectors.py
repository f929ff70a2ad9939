"""Reads of a live class: the class by its code, the ``state`` message, tallies, the results."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any, Final

from django.db import models
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone

from ..lessons import selectors as lesson_selectors
from ..lessons import text as lesson_text
from ..lessons.languages import in_language
from ..lessons.loader import Lesson, lesson_by_slug
from ..models import RunCycle
from . import run_questions, run_steps, services
from .models import ClassAnswer, ClassQuestion, ClassStudent, LiveClass

CYCLES_LISTED: Final = 2000  # a presenter lists at most this many of a run's cycles


def group(code: str) -> str:
    """Every connection of the class."""
    return f"class.{code}"


def lecturer_group(code: str) -> str:
    return f"class.{code}.lecturer"


def class_by_code(code: str) -> LiveClass | None:
    """The class with this code: the open one, else the latest ended one; an open class idle
    for too long is ended here."""
    code = services.code_clean(code)
    if not code:
        return None
    found = LiveClass.objects.filter(code=code).order_by("ended_at", "-id").first()
    if found is None:
        return None
    if found.ended_at is None and services.is_idle(found):
        services.classes_end_idle()
        found.refresh_from_db()
    if found.ended_at is not None:
        # an ended class's code may be reused: the open class with it wins
        return LiveClass.objects.filter(code=code, ended_at__isnull=True).first() or found
    return found


def student_by_token(live_class: LiveClass, token: Any) -> ClassStudent | None:
    if not isinstance(token, str) or not token or len(token) > 64:
        return None
    return ClassStudent.objects.filter(live_class=live_class, token=token).first()


def session_token(session: Any, code: str) -> str | None:
    tokens = (session or {}).get(services.SESSION_STUDENTS) or {}
    token = tokens.get(code) if isinstance(tokens, dict) else None
    return token if isinstance(token, str) else None


def lesson_of(live_class: LiveClass) -> Lesson | None:
    """The class's lesson with its text in the class's language."""
    lesson = lesson_by_slug(live_class.lesson_slug) if live_class.lesson_slug else None
    return in_language(lesson, live_class.language) if lesson is not None else None


# -- counts --------------------------------------------------------------------------------------


def counts(question_id: int) -> dict[str, int]:
    """Answers per choice (one aggregate query)."""
    rows = (
        ClassAnswer.objects.filter(question_id=question_id)
        .values_list("choice")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {choice: n for choice, n in rows}


def joined(class_id: int) -> int:
    return ClassStudent.objects.filter(live_class_id=class_id).count()


def student_dict(student: ClassStudent) -> dict[str, Any]:
    return {"id": student.pk, "nickname": student.nickname}


def students(class_id: int) -> list[dict[str, Any]]:
    """The class's students in join order, for the lecturer (who may remove one)."""
    rows = ClassStudent.objects.filter(live_class_id=class_id).order_by("joined_at", "id")
    return [{"id": pk, "nickname": n} for pk, n in rows.values_list("id", "nickname")]


def tally_message(class_id: int, question_id: int) -> dict[str, Any]:
    got = counts(question_id)
    return {
        "type": "tally",
        "questionId": question_id,
        "counts": got,
        "answered": sum(got.values()),
        "joined": joined(class_id),
    }


# -- messages ------------------------------------------------------------------------------------


def question_dict(q: ClassQuestion) -> dict[str, Any]:
    """What students see of a question: never its answer. ``labels``: how choice values read
    in the class's language (a value without a label reads as itself; the value is answered)."""
    return {
        "id": q.pk,
        "number": q.number,
        "prompt": q.prompt,
        "choices": list(q.choices),
        "labels": dict(q.labels or {}),
    }


def show_url(live_class: LiveClass, show: dict[str, Any], qid: str = "") -> str:
    """The page that shows a run step: the lesson page's step (its run opens there), or the
    class's run page at ``#cycle=K&step=N``."""
    if live_class.lesson_slug:
        step = show.get("lessonStep") or live_class.step.get("lessonStep") or 1
        url = reverse("playground:lesson", args=[live_class.lesson_slug]) + f"?step={step}"
        return url + (f"&q={qid}" if qid else "")
    if live_class.run_id and show.get("cycle") is not None:
        page = reverse("playground:run", args=[live_class.run_id])
        return f"{page}#cycle={show['cycle']}&step={show.get('runStep') or 0}"
    return ""


def reveal_dict(live_class: LiveClass, q: ClassQuestion) -> dict[str, Any]:
    show = dict(q.show or {})
    show["url"] = show_url(live_class, show, q.lesson_question_id)
    return {
        "questionId": q.pk,
        "answer": q.answer,
        "answerLabel": (q.labels or {}).get(q.answer, q.answer),
        "explanation": q.explanation,
        "show": show,
        "counts": counts(q.pk),
    }


def state(live_class: LiveClass, *, role: str, student_id: int | None = None) -> dict[str, Any]:
    """The full ``state`` message a connection gets first (so a reconnect catches up)."""
    q = (
        ClassQuestion.objects.filter(pk=live_class.question_id).first()
        if live_class.question_id
        else None
    )
    got = counts(q.pk) if q is not None else {}
    out: dict[str, Any] = {
        "type": "state",
        "code": live_class.code,
        "role": role,
        "step": services.step_clean(live_class.step),
        "stepSeq": live_class.step_seq,
        "question": question_dict(q) if q is not None else None,
        "revealed": reveal_dict(live_class, q) if q is not None and q.revealed_at else None,
        "joined": joined(live_class.pk),
        "answered": sum(got.values()),
        "ended": live_class.ended_at is not None,
    }
    if role == "lecturer":
        out["tally"] = got
        out["students"] = students(live_class.pk)
        out["cap"] = live_class.student_cap
    else:
        mine = (
            ClassAnswer.objects.filter(question=q, student_id=student_id)
            .values_list("choice", flat=True)
            .first()
            if q is not None
            else None
        )
        out["myAnswer"] = mine
    return out


# -- a run class ---------------------------------------------------------------------------------


def cycle_steps(run_id: int, cycle: int) -> list[dict[str, Any]]:
    """The run page's steps of one cycle: index, point, plugin, label, what the extension point
    does (``help``) and what this plugin decided (``why``)."""
    return [
        {
            "index": s["index"],
            "point": s["point"],
            "plugin": s["plugin"] or None,
            "label": s.get("label") or s["point"],
            "help": str(s.get("help") or ""),
            "why": str(s.get("why") or ""),
        }
        for s in run_steps.steps_of(run_id, cycle)
    ]


def run_cycles(run_id: int) -> list[dict[str, Any]]:
    rows = RunCycle.objects.filter(run_id=run_id).order_by("cycle").values("cycle", "pod", "node")
    return [
        {"cycle": r["cycle"], "pod": str(r["pod"]).removeprefix("default/"), "node": r["node"]}
        for r in rows[:CYCLES_LISTED]
    ]


# -- pages ---------------------------------------------------------------------------------------


def lesson_steps(lesson: Lesson) -> list[dict[str, Any]]:
    """Each narrative step's title and HTML (the student page browses them itself)."""
    return [
        {
            "n": i + 1,
            "title": lesson_text.inline_html(s.title),
            "html": lesson_selectors.step_html(lesson, i + 1),
        }
        for i, s in enumerate(lesson.steps)
    ]


def lesson_questions(lesson: Lesson) -> list[dict[str, Any]]:
    """The questions the presenter may ask, their prompts in ``lesson``'s language."""
    return [
        {"id": q.id, "step": q.step, "prompt": q.prompt, "choices": list(q.choices)}
        for q in lesson.questions
    ]


def page_config(live_class: LiveClass, *, role: str) -> dict[str, Any]:
    """What the class's page script needs beside the websocket."""
    lesson = lesson_of(live_class)
    cfg: dict[str, Any] = {
        "code": live_class.code,
        "role": role,
        "ws": f"/ws/classes/{live_class.code}/",
        "lessonUrl": reverse("playground:lesson", args=[lesson.slug]) if lesson else "",
        "runUrl": reverse("playground:run", args=[live_class.run_id]) if live_class.run_id else "",
        "steps": lesson_steps(lesson) if lesson else [],
    }
    if role == "lecturer":
        cfg["questions"] = lesson_questions(lesson) if lesson else []
        # The one-click questions each lesson step's cycle answers (a run class fetches its
        # cycle's with the cycle's steps).
        cfg["lessonAsks"] = run_questions.lesson_asks(lesson) if lesson else {}
        cfg["cycles"] = run_cycles(live_class.run_id) if live_class.run_id else []
        cfg["cycleSteps"] = (
            reverse("playground:class_cycle_steps", args=[live_class.code, 0]).removesuffix(
                "0/steps.json"
            )
            if live_class.run_id
            else ""
        )
    return cfg


_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r", "\n")


def _cell(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one starting like a formula gets a quote first
    (a nickname "=HYPERLINK(...)" stays a nickname), also after spaces or in a full-width form
    ("＝", "＋": some spreadsheets read them as "=" and "+"). A negative number stays one."""
    first = unicodedata.normalize("NFKC", text.lstrip(" ")[:1])
    if first in _FORMULA_STARTS and not (text[:1] == "-" and text[1:].isdigit()):
        return "'" + text
    return text


def results_rows(live_class: LiveClass) -> Iterator[list[str]]:
    """The CSV's rows: one per question and student, in question then join order; each row
    carries its question's right answer, so the file reads without the class."""
    yield ["question", "prompt", "nickname", "answer", "correct", "answered_at", "right_answer"]
    students = list(
        ClassStudent.objects.filter(live_class=live_class)
        .order_by("joined_at", "id")
        .values_list("id", "nickname")
    )
    for q in ClassQuestion.objects.filter(live_class=live_class).order_by("number"):
        given = {
            a["student_id"]: a
            for a in ClassAnswer.objects.filter(question=q).values(
                "student_id", "choice", "correct", "answered_at"
            )
        }
        for sid, nickname in students:
            a = given.get(sid)
            when = timezone.localtime(a["answered_at"]).isoformat() if a else ""
            yield [
                str(q.number),
                _cell(q.prompt),
                _cell(nickname),
                _cell(a["choice"]) if a else "",
                "true" if a and a["correct"] else "false",
                when,
                _cell(q.answer),
            ]


def lecturer_classes(user: Any) -> list[dict[str, Any]]:
    """The user's classes, newest first, open and ended: what "My classes" lists."""
    rows = (
        LiveClass.objects.filter(lecturer=user)
        .select_related("run")
        .annotate(joined=Count("students", distinct=True), asked=Count("questions", distinct=True))
        .order_by("-created_at", "-id")
    )
    out = []
    for c in rows:
        lesson = lesson_of(c)
        out.append(
            {
                "class": c,
                "subject": (
                    f"{lesson.number}. {lesson.title}" if lesson else (c.run.label if c.run else "")
                ),
                "joined": c.joined,
                "asked": c.asked,
            }
        )
    return out


def final_numbers(live_class: LiveClass) -> dict[str, Any]:
    """An ended class's numbers: students joined and, per question, answers and % right."""
    questions = []
    rows = (
        ClassQuestion.objects.filter(live_class=live_class)
        .annotate(
            answered=Count("answers"),
            right=Count("answers", filter=models.Q(answers__correct=True)),
        )
        .order_by("number")
    )
    for q in rows:
        pct = round(100 * q.right / q.answered) if q.answered else None
        questions.append(
            {
                "number": q.number,
                "prompt": q.prompt,
                "answer": q.answer,
                "answered": q.answered,
                "right": q.right,
                "percent": pct,
            }
        )
    joined = ClassStudent.objects.filter(live_class=live_class).count()
    return {"joined": joined, "questions": questions}
