"""The course in each of its languages: a lesson as a reader of one language sees it, and what a
translation still lacks.

English is the source: cluster, profiles, questions' ids, steps, engine queries, answers and
run-page pointers are shared, only the text is per language (see ``loader``). A page asks for the
request's language and gets the source's text for a piece not yet translated; ``lessons --check``
asks ``translation_problems`` and fails a lesson until every piece is there.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from .loader import LANGUAGES, SOURCE_LANGUAGE, Lesson, LessonText, Question, Step

# Request languages read as Simplified Chinese (Django's code, and browsers' region codes).
_ZH_HANS: Final = frozenset({"zh-hans", "zh-cn", "zh-sg", "zh-my", "zh"})


def language_of(code: str | None) -> str:
    """The course language for a request language (``get_language()``): Simplified Chinese for
    ``zh-hans`` (and ``zh-cn``, ``zh``), the source language for anything else."""
    code = (code or "").lower().replace("_", "-")
    return "zh-hans" if code in _ZH_HANS else SOURCE_LANGUAGE


def _question_in(question: Question, text: LessonText) -> Question:
    own = text.questions.get(question.id)
    if own is None:
        return question
    return dataclasses.replace(
        question,
        prompt=own.prompt or question.prompt,
        explanation=own.explanation or question.explanation,
        labels={k: v for k, v in own.labels.items() if v},
    )


def in_language(lesson: Lesson, code: str | None) -> Lesson:
    """``lesson`` with its text in the language of ``code`` (the source's text for each piece
    that is not translated; steps keep the source's run-page pointers)."""
    language = language_of(code)
    text = lesson.translations.get(language)
    if language == lesson.language or text is None:
        return lesson
    steps = tuple(
        _step_in(step, text.steps[i] if i < len(text.steps) else None)
        for i, step in enumerate(lesson.steps)
    )
    return dataclasses.replace(
        lesson,
        title=text.title or lesson.title,
        summary=text.summary or lesson.summary,
        note=(text.note or lesson.note) if lesson.note else "",
        steps=steps,
        questions=tuple(_question_in(q, text) for q in lesson.questions),
        language=language,
        source_title=lesson.source_title or lesson.title,
    )


def _step_in(source: Step, own: Step | None) -> Step:
    if own is None or not own.title or not own.body:
        return source
    return dataclasses.replace(own, show=source.show)


def _pointer_text(step: Step) -> str:
    show = step.show
    if show is None:
        return "none"
    return f"cycle {show.cycle}, {show.point}" + (f", {show.plugin}" if show.plugin else "")


def glossary_problems(entries: list[dict[str, Any]], language: str) -> list[tuple[str, str]]:
    """(term, problem) for each glossary entry without ``language``'s term and text."""
    if language == SOURCE_LANGUAGE:
        return []
    out = []
    for e in entries:
        own = e.get(language)
        missing = [k for k in ("term", "text") if not isinstance(own, dict) or not own.get(k)]
        if missing:
            out.append((str(e.get("term")), f"{language}.{' and '.join(missing)} missing"))
    return out


def translation_problems(lesson: Lesson, language: str) -> list[tuple[str, str]]:
    """(item, problem) for each piece of ``lesson`` missing or different in ``language``: the
    narrative file, each step (its count, heading, text and ``show`` comment), the title, the
    summary, the note, each question's prompt and explanation, and labels of unknown choices."""
    if language == SOURCE_LANGUAGE:
        return []
    if language not in LANGUAGES:
        return [("language", f"{language} is not one of {', '.join(LANGUAGES)}")]
    text = lesson.translations.get(language) or LessonText()
    narrative = f"narrative.{language}.md"
    out: list[tuple[str, str]] = []
    if not text.narrative_file:
        out.append((narrative, "file is missing: every step is untranslated"))
    elif len(text.steps) != len(lesson.steps):
        out.append(
            (
                narrative,
                f"{len(text.steps)} steps, but narrative.md has {len(lesson.steps)}: the same "
                "steps in the same order",
            )
        )
    if text.narrative_file:
        for n, (source, own) in enumerate(zip(lesson.steps, text.steps, strict=False), start=1):
            if not own.title or not own.body:
                out.append((f"step {n}", "heading or text is missing"))
            if own.show != source.show:
                out.append(
                    (
                        f"step {n}",
                        f"show comment is {_pointer_text(own)}, narrative.md has "
                        f"{_pointer_text(source)}: copy it unchanged",
                    )
                )
    for key in ("title", "summary", *(("note",) if lesson.note else ())):
        if not getattr(text, key):
            out.append((f"lesson.yaml {language}.{key}", "is missing"))
    for q in lesson.questions:
        mine = text.questions.get(q.id)
        missing = [k for k in ("prompt", "explanation") if mine is None or not getattr(mine, k)]
        if missing:
            out.append((q.id, f"{language}.{' and '.join(missing)} missing"))
        for value in mine.labels if mine else {}:
            if value not in q.choices:
                out.append((q.id, f"{language}.choices labels {value!r}, which is not a choice"))
    return out
