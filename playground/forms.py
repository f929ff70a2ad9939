"""Forms every feature shares: sign-up, and the small helpers of line-per-item text fields.

Each feature keeps its own forms (``clusters/``, ``profiles/``, ``runs/``, ``lessons/``,
``custom_plugins/``); they parse and validate input and do nothing else.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from .inputs import kube


def textarea(rows: int = 3, placeholder: str = "") -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, "placeholder": placeholder, "spellcheck": "false"})


class SignUpForm(UserCreationForm):
    pass


def line_field(parser: Any, value: str) -> Any:
    try:
        return parser(value)
    except kube.SyntaxProblem as err:
        raise forms.ValidationError(str(err)) from err


def error_summary(*all_forms: forms.Form) -> list[dict[str, str]]:
    """Every error of ``all_forms`` in page order, each with the field it belongs to: the list
    shown at the top of a form, so one save shows every problem and links to each field."""
    out: list[dict[str, str]] = []
    for form in all_forms:
        if not form.is_bound:
            continue
        for message in form.non_field_errors():
            out.append({"label": "", "message": str(message), "anchor": "form-errors"})
        for name, field in form.fields.items():
            bound = form[name]
            for message in bound.errors:
                out.append(
                    {
                        "label": str(field.label or name),
                        "message": str(message),
                        "anchor": bound.id_for_label or bound.html_name,
                    }
                )
    return out
