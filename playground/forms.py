"""Forms every feature shares: sign-up, and the small helpers of line-per-item text fields.

Each feature keeps its own forms (``clusters/``, ``profiles/``, ``runs/``, ``lessons/``,
``custom_plugins/``); they parse and validate input and do nothing else.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from . import kube


def textarea(rows: int = 3, placeholder: str = "") -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, "placeholder": placeholder, "spellcheck": "false"})


class SignUpForm(UserCreationForm):
    pass


def line_field(parser: Any, value: str) -> Any:
    try:
        return parser(value)
    except kube.SyntaxProblem as err:
        raise forms.ValidationError(str(err)) from err
