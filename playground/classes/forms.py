"""Forms of a live class: opening one, and joining one."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from .services import CODE_LENGTH, NICKNAME_MAX


class ClassNewForm(forms.Form):
    lesson = forms.SlugField(required=False, max_length=100)
    run = forms.IntegerField(required=False, min_value=1, max_value=2**62)
    # the language the class is taught in; the lecturer's request language when not given
    language = forms.ChoiceField(required=False, choices=settings.LANGUAGES)

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if bool(data.get("lesson")) == bool(data.get("run")):
            raise forms.ValidationError(_("Open a live class on a lesson or on a run."))
        return data


class JoinForm(forms.Form):
    code = forms.CharField(
        label=_("Class code"),
        max_length=CODE_LENGTH + 4,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )
    nickname = forms.CharField(
        label=_("Your nickname"),
        max_length=NICKNAME_MAX,
        help_text=_("Shown to the lecturer in the results; no account needed."),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
