"""A live class: a lecturer drives a lesson or a run, students join with a code and answer.

Everything a class is lives in these rows (the channel layer only carries notifications), so a
web process restarting loses no class, step or answer.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class LiveClass(models.Model):
    """One class session. ``step`` is the lecturer's position (see ``services.clean_step``)."""

    code = models.CharField(max_length=6, db_index=True)
    lecturer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="live_classes"
    )
    lesson_slug = models.SlugField(max_length=100, blank=True)
    run = models.ForeignKey(
        "playground.Run", on_delete=models.CASCADE, null=True, blank=True, related_name="classes"
    )
    # the language the class is taught in (the lesson's text, the questions): the lecturer's
    # when they opened it; the pages' own words follow each visitor's language
    language = models.CharField(max_length=10, default="en")
    step = models.JSONField(default=dict)
    step_seq = models.PositiveIntegerField(default=0)
    question = models.ForeignKey(
        "playground.ClassQuestion",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # the most students the lecturer admits (None: ``services.STUDENTS_MAX``): room kept for
    # the real ones when someone else has the code
    student_cap = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "playground"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["code"],
                condition=models.Q(ended_at__isnull=True),
                name="live_class_code_open_once",
            )
        ]

    def __str__(self) -> str:
        return f"class {self.code}"


class ClassStudent(models.Model):
    live_class = models.ForeignKey(LiveClass, on_delete=models.CASCADE, related_name="students")
    nickname = models.CharField(max_length=40)
    nickname_key = models.CharField(max_length=40)  # casefolded: unique per class
    token = models.CharField(max_length=64, unique=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "playground"
        ordering = ["live_class_id", "nickname_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["live_class", "nickname_key"], name="class_student_nickname_once"
            )
        ]

    def __str__(self) -> str:
        return self.nickname


class ClassQuestion(models.Model):
    live_class = models.ForeignKey(LiveClass, on_delete=models.CASCADE, related_name="questions")
    number = models.PositiveIntegerField()
    lesson_question_id = models.CharField(max_length=100, blank=True)
    prompt = models.TextField()
    choices = models.JSONField(default=list)  # [] for a lesson question answered in words
    labels = models.JSONField(default=dict)  # choice value -> how it reads in the class's language
    answer = models.CharField(max_length=200)
    answer_type = models.CharField(max_length=10, default="name")  # as lesson questions'
    explanation = models.TextField(blank=True)
    show = models.JSONField(default=dict)
    opened_at = models.DateTimeField(auto_now_add=True)
    revealed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "playground"
        ordering = ["live_class_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["live_class", "number"], name="class_question_number")
        ]

    def __str__(self) -> str:
        return f"{self.live_class_id} Q{self.number}"


class ClassAnswer(models.Model):
    question = models.ForeignKey(ClassQuestion, on_delete=models.CASCADE, related_name="answers")
    student = models.ForeignKey(ClassStudent, on_delete=models.CASCADE, related_name="answers")
    choice = models.CharField(max_length=200)
    correct = models.BooleanField(default=False)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "playground"
        ordering = ["question_id", "student_id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "student"], name="class_answer_once")
        ]

    def __str__(self) -> str:
        return f"{self.student_id}: {self.choice}"
