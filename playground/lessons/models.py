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
