"""LessonProgress: how far a signed-in learner got in one lesson (anonymous: the session)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LessonProgress(models.Model):
    """One learner's answers in one lesson.

    ``answers`` maps a question id to ``{"solved": bool, "first_try": bool, "tries": int}``.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lesson_progress"
    )
    lesson = models.SlugField(max_length=100)
    answers = models.JSONField(default=dict)
    done = models.BooleanField(default=False)
    correct_first_try = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "playground"
        ordering = ["user_id", "lesson"]
        constraints = [
            models.UniqueConstraint(fields=["user", "lesson"], name="lesson_progress_once")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.lesson}{' done' if self.done else ''}"


class SharedLessonRun(models.Model):
    """The one stored run of a lesson's profile that anonymous visitors (and a live class's
    students) share: a lesson's run is deterministic, so it is computed once per lesson version.

    ``digest`` is ``services._digest`` (cluster text, profile and script): a lesson edited gets a
    new row. ``run`` is None until the first visitor starts it, and is replaced when it failed or
    was cancelled. The unique constraint is what keeps one row per key under concurrent starts.
    """

    lesson = models.SlugField(max_length=100)
    profile = models.CharField(max_length=100)
    digest = models.CharField(max_length=64)
    run = models.ForeignKey(
        "playground.Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "playground"
        ordering = ["lesson", "profile"]
        constraints = [
            models.UniqueConstraint(
                fields=["lesson", "profile", "digest"], name="shared_lesson_run_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.lesson} {self.profile} {self.digest[:8]} -> {self.run_id}"
