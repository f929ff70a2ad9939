"""Forms of the course: an answer to one question, a run to start."""

from __future__ import annotations

from django import forms


class AnswerForm(forms.Form):
    answer = forms.CharField(max_length=500, strip=True)


class LessonRunForm(forms.Form):
    profile = forms.CharField(max_length=100, required=False)
    question = forms.CharField(max_length=100, required=False)
    step = forms.IntegerField(min_value=1, required=False)
