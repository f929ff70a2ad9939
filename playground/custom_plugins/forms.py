"""The custom plugin form: one CEL expression per extension point, compiled on clean."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_lazy

from playground import engine
from scheduler_core.custom.plugin import NORMALIZE_MODES, POINTS

from .services import check_definition

POINT_HELP = {
    "queueSort": gettext_lazy("bool over a and b (two pods): true when a goes first"),
    "preFilter": gettext_lazy(
        'true / "skip" / "reject: reason" (the value is state.preFilter later)'
    ),
    "filter": gettext_lazy("bool, or a reason string to reject the node"),
    "preScore": gettext_lazy("any value; later points read it as state.preScore"),
    "score": gettext_lazy("an int for this node"),
    "normalizeScore": gettext_lazy(
        "an int from score, scores, min and max (normalize: expression)"
    ),
    "reserve": gettext_lazy("a note (string) recorded at Reserve"),
    "unreserve": gettext_lazy("a note recorded at Unreserve"),
    "permit": gettext_lazy('"allow", "deny: reason" or "wait N" (seconds)'),
    "preBind": gettext_lazy("a note recorded at PreBind"),
    "postBind": gettext_lazy("a note recorded at PostBind"),
}


class CustomPluginForm(forms.Form):
    """Name, one expression per extension point, Filter's reason and NormalizeScore's mode."""

    name = forms.CharField(max_length=63, label=gettext_lazy("Name"))
    description = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label=gettext_lazy("Description"),
    )
    filter_reason = forms.CharField(
        required=False,
        max_length=200,
        label=gettext_lazy("Filter reason (when the expression is false)"),
    )
    normalize = forms.ChoiceField(
        choices=[(m, m) for m in (*NORMALIZE_MODES, "expression")],
        initial="none",
        label="NormalizeScore",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for point in POINTS:
            self.fields[f"point_{point}"] = forms.CharField(
                required=False,
                label=point,
                help_text=POINT_HELP.get(point, ""),
                widget=forms.Textarea(attrs={"rows": 2, "class": "cel", "data-point": point}),
            )

    def point_fields(self) -> list[forms.BoundField]:
        return [self[f"point_{p}"] for p in POINTS]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.\-]*", name):
            raise forms.ValidationError(gettext("a plugin name: letters, digits, '.', '-' or '_'"))

        if name in engine.plugin_names():
            raise forms.ValidationError(
                gettext("%(name)s is an in-tree plugin name") % {"name": name}
            )
        return name

    def definition(self) -> dict[str, Any]:
        data = self.cleaned_data
        points = {
            p: data[f"point_{p}"].strip() for p in POINTS if data.get(f"point_{p}", "").strip()
        }
        return {
            "name": data.get("name", ""),
            "points": points,
            "filterReason": data.get("filter_reason", ""),
            "normalize": data.get("normalize") or "none",
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if not self.definition()["points"]:
            raise forms.ValidationError(gettext("give at least one extension point an expression"))
        for point, messages in check_definition(self.definition()).items():
            field = f"point_{point}" if point else None
            for message in messages:
                self.add_error(field, message)
        return data

    @staticmethod
    def initial_from(plugin: Any) -> dict[str, Any]:
        initial = {
            "name": plugin.name,
            "description": plugin.description,
            "filter_reason": plugin.filter_reason,
            "normalize": plugin.normalize or "none",
        }
        for point, expression in (plugin.points or {}).items():
            initial[f"point_{point}"] = expression
        return initial
