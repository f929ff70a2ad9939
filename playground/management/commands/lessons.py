"""manage.py lessons: list the course, or (--check) verify every answer against the engine."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.lessons.loader import LessonError, load_course


class Command(BaseCommand):
    help = (
        "List the course's lessons; with --check, run each lesson through the engine and verify "
        "every question's expected answer, that no answer is told before its question asks, and "
        "that every run-page link opens the step it is about, ending with "
        "'lessons: N passed, M failed'."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="verify answers with the engine")
        parser.add_argument(
            "--show", action="store_true", help="print each cycle of each lesson's engine run"
        )
        parser.add_argument("slugs", nargs="*", help="only these lessons (NN or slug)")

    def handle(self, *args: Any, **options: Any) -> None:
        from playground.lessons.checks import Checked
        from playground.lessons.services import lessons_check

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
            from playground.lessons.checks import summary
            from playground.lessons.services import lesson_runs

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
        passed = failed = 0
        totals = [0, 0, 0, 0]
        for lesson, failures in lessons_check(lessons):
            checked = Checked.of(lesson)
            totals = [
                t + c
                for t, c in zip(
                    totals,
                    (checked.answers, checked.told, checked.told_on_purpose, checked.links),
                    strict=True,
                )
            ]
            name = f"{lesson.number:02d}-{lesson.slug}"
            if failures:
                failed += 1
                self.stdout.write(self.style.ERROR(f"FAIL {name}"))
                for failure in failures:
                    self.stdout.write(f"  {failure.question}: {failure.message}")
            else:
                passed += 1
                self.stdout.write(f"ok   {name} ({len(lesson.questions)} questions)")
        answers, told, on_purpose, links = totals
        self.stdout.write(
            f"checked: {answers} answers against the engine, {told} questions for an answer "
            f"told before they ask ({on_purpose} told on purpose), {links} run-page links"
        )
        self.stdout.write(f"lessons: {passed} passed, {failed} failed")
        if failed:
            raise CommandError(f"{failed} lesson(s) disagree with the engine")
