"""HTTP layer of the course: the course page, a lesson page, answers and lesson runs."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.http import require_POST

from ..inputs.params import bounded_int
from ..runs.execution import limits
from ..runs.services import RunRefused
from . import forms, selectors, services, text
from .languages import in_language, language_of
from .loader import DEFAULT_PROFILE, Lesson, lesson_by_slug


def _lesson(slug: str, *, translated: bool = True) -> Lesson:
    """The lesson with its text in the request's language (or the source's, for what is
    stored: a lesson's demo cluster is described in the source language)."""
    lesson = lesson_by_slug(slug)
    if lesson is None:
        raise Http404("No such lesson")
    return in_language(lesson, get_language()) if translated else lesson


def course_page(request: HttpRequest) -> HttpResponse:
    services.progress_claim(user=request.user, session=request.session)
    language = language_of(get_language())
    rows = selectors.course_overview(user=request.user, session=request.session, language=language)
    return render(
        request,
        "playground/lessons/course.html",
        {
            "rows": rows,
            "glossary": selectors.glossary_with_runs(session=request.session, language=language),
            "next_row": next((r for r in rows if not r["done"]), rows[0] if rows else None),
        },
    )


def lesson_page(request: HttpRequest, slug: str) -> HttpResponse:
    lesson = _lesson(slug)
    services.progress_claim(user=request.user, session=request.session)
    step = bounded_int(request.GET.get("step"), 1, low=1, high=len(lesson.steps))
    answers = selectors.progress_answers(user=request.user, session=request.session).get(
        lesson.slug, {}
    )
    questions = []
    for q in lesson.step_questions(step):
        run_id = selectors.lesson_run_id(lesson=lesson, profile=q.profile, session=request.session)
        fragment = selectors.question_hash(lesson, q) if run_id else ""
        questions.append(
            {
                "q": q,
                "record": answers.get(q.id),
                "run_url": reverse("playground:run", args=[run_id]) + fragment if fragment else "",
            }
        )
    runs = {
        name: selectors.lesson_run_id(lesson=lesson, profile=name, session=request.session)
        for name in lesson.profiles
    }
    # The run shown beside the narrative moves with it: to the step of the question whose link
    # started the run (?q=), else the step's own pointer, else its first question's, else the
    # run's start.
    asked = lesson.question(request.GET.get("q") or "")
    frame = next((str(i["run_url"]) for i in questions if asked and i["q"] is asked), "")
    if not frame and runs.get(DEFAULT_PROFILE):
        page = reverse("playground:run", args=[runs[DEFAULT_PROFILE]])
        own = selectors.pointer_hash(lesson, lesson.steps[step - 1].show)
        frame = page + own if own else ""
    frame = frame or next((str(i["run_url"]) for i in questions if i["run_url"]), "")
    if not frame and runs.get(DEFAULT_PROFILE):
        frame = reverse("playground:run", args=[runs[DEFAULT_PROFILE]])
    return render(
        request,
        "playground/lessons/lesson.html",
        {
            "lesson": lesson,
            "step": step,
            "step_title": text.inline_html(lesson.steps[step - 1].title),
            "title_html": text.inline_html(lesson.title),
            "step_html": selectors.step_html(lesson, step),
            "steps": [(i + 1, s.title.replace("*", "")) for i, s in enumerate(lesson.steps)],
            "questions": questions,
            "runs": runs,
            "shared_runs": selectors.shared_run_profiles(
                lesson=lesson, user=request.user, runs=runs
            ),
            "frame_url": frame,
            "cluster_id": selectors.lesson_cluster_id(lesson),
            "cluster": selectors.cluster_summary(lesson.cluster_text),
            "progress": lesson.progress(answers),
            "next_lesson": selectors.next_lesson(lesson),
        },
    )


@require_POST
def lesson_answer(request: HttpRequest, slug: str, qid: str) -> JsonResponse:
    """Check one answer against the engine's run of the lesson; JSON with the explanation and
    the learner's progress in the lesson after it."""
    lesson = _lesson(slug)
    question = lesson.question(qid)
    if question is None:
        raise Http404("No such question")
    form = forms.AnswerForm(request.POST)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
    result = services.answer_submit(
        lesson=lesson,
        question=question,
        given=form.cleaned_data["answer"],
        user=request.user,
        session=request.session,
    )
    answers = selectors.progress_answers(user=request.user, session=request.session)
    return JsonResponse(
        {
            **result.to_dict(),
            "answer": question.label(result.engine_answer),  # "none" reads 无 in Chinese
            "progress": lesson.progress(answers.get(lesson.slug, {})),
        }
    )


@require_POST
def lesson_run(request: HttpRequest, slug: str) -> HttpResponse:
    """Start the lesson's run and show it beside the lesson (at a question's step, if named)."""
    lesson = _lesson(slug, translated=False)
    form = forms.LessonRunForm(request.POST)
    form.is_valid()
    profile = form.cleaned_data.get("profile") or DEFAULT_PROFILE
    if profile not in lesson.profiles:
        raise Http404("No such profile")
    question = lesson.question(form.cleaned_data.get("question") or "")
    step = question.step if question else form.cleaned_data.get("step") or 1
    page = reverse("playground:lesson", args=[lesson.slug]) + f"?step={step}"
    if question is not None:
        page += f"&q={question.id}"  # the frame opens this question's step
    try:
        services.lesson_run_start(
            lesson=lesson,
            profile=profile,
            user=request.user,
            session=request.session,
            owner=limits.request_owner(request),
        )
    except RunRefused as err:
        messages.error(request, str(err))
        return redirect(page)
    return redirect(page + "#run-frame-box")
