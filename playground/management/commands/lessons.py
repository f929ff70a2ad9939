"""manage.py lessons: list the course, or (--check) verify every answer against the engine and
every language's text (--lang to check one)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.lessons.checks import Checked, Failure, check_lesson, summary
from playground.lessons.languages import glossary_problems
from playground.lessons.loader import LANGUAGES, LessonError, load_course
from playground.lessons.selectors import glossary_entries
from playground.lessons.services import lesson_runs


class Command(BaseCommand):
    help = (
        "List the course's lessons; with --check, run each lesson through the engine and verify "
        "every question's expected answer, that no answer is told before its question asks, and "
        "that every run-page link opens the step it is about, in every language of the course "
        "(each piece of text translated, no translation telling an answer first), ending with "
        "'lessons (LANG): N passed, M failed' per language and 'lessons: N passed, M failed'."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="verify answers with the engine")
        parser.add_argument(
            "--show", action="store_true", help="print each cycle of each lesson's engine run"
        )
        parser.add_argument(
            "--lang",
            choices=LANGUAGES,
            action="append",
            help="check only this language's text (repeatable; default: every language)",
        )
        parser.add_argument("slugs", nargs="*", help="only these lessons (NN or slug)")

    def handle(self, *args: Any, **options: Any) -> None:

        try:
            lessons = load_course()
        except LessonError as err:
            raise CommandError(f"lesson folder: {err}") from err
        wanted = set(options["slugs"])
        if wanted:
            lessons = [
                lesson
                for lesson in lessons
                if lesson.slug in wanted or f"{lesson.number:02d}" in wanted
            ]
        if options["show"]:
            for lesson in lessons:
                for profile, run in lesson_runs(lesson=lesson).items():
                    self.stdout.write(f"== {lesson.number:02d}-{lesson.slug} [{profile}]")
                    self.stdout.write("\n".join(summary(run)))
            return
        if not options["check"]:
            for lesson in lessons:
                self.stdout.write(
                    f"{lesson.number:02d} {lesson.slug}: {lesson.title} "
                    f"({len(lesson.steps)} steps, {len(lesson.questions)} questions)"
                )
            return
        languages = tuple(options["lang"] or LANGUAGES)
        passed = failed = 0
        per_language = {language: [0, 0] for language in languages}  # passed, failed
        totals = [0, 0, 0, 0]
        for lesson, failures in _checked(lessons, languages):
            checked = Checked.of(lesson)
            totals = [
                t + c
                for t, c in zip(
                    totals,
                    (checked.answers, checked.told, checked.told_on_purpose, checked.links),
                    strict=True,
                )
            ]
            for language, counts in per_language.items():
                mine = [f for f in failures if f.language in ("", language)]
                counts[1 if mine else 0] += 1
            name = f"{lesson.number:02d}-{lesson.slug}"
            if failures:
                failed += 1
                self.stdout.write(self.style.ERROR(f"FAIL {name}"))
                for failure in failures:
                    self.stdout.write(f"  {failure.item}: {failure.message}")
            else:
                passed += 1
                self.stdout.write(
                    f"ok   {name} ({len(lesson.questions)} questions; {', '.join(languages)})"
                )
        for language, (ok, bad) in per_language.items():
            self.stdout.write(f"lessons ({language}): {ok} passed, {bad} failed")
        glossary = _glossary_problems(languages) if not options["slugs"] else []
        for language, term, problem in glossary:
            line = f"FAIL glossary.yaml [{language}] {term}: {problem}"
            self.stdout.write(self.style.ERROR(line))
        answers, told, on_purpose, links = totals
        self.stdout.write(
            f"checked: {answers} answers against the engine, {told} questions for an answer "
            f"told before they ask ({on_purpose} told on purpose) in {', '.join(languages)}, "
            f"{links} run-page links"
        )
        self.stdout.write(f"lessons: {passed} passed, {failed} failed")
        if failed or glossary:
            raise CommandError(
                f"{failed} lesson(s) disagree with the engine or lack a translation; "
                f"{len(glossary)} glossary term(s) untranslated"
            )


def _glossary_problems(languages: tuple[str, ...]) -> list[tuple[str, str, str]]:

    entries = glossary_entries()
    return [
        (language, term, problem)
        for language in languages
        for term, problem in glossary_problems(entries, language)
    ]


def _checked(lessons: list[Any], languages: tuple[str, ...]) -> list[tuple[Any, list[Any]]]:
    """Each lesson with its failures in ``languages`` (a lesson the engine refuses fails)."""

    out = []
    for lesson in lessons:
        try:
            failures = check_lesson(lesson, lesson_runs(lesson=lesson), languages)
        except Exception as err:  # noqa: BLE001  a lesson the engine refuses is never skipped
            failures = [Failure(f"{lesson.number:02d}-{lesson.slug}", "run", repr(err))]
        out.append((lesson, failures))
    return out
