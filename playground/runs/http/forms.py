"""Forms of runs: the feature gates, a script of cluster changes, step by step, and "try a
change" on a profile.

A script step is a row (action, after cycle, target, value); the rows become the stored
script (``runs.script``), whose validation errors come back on the row's field that caused them.
"""

from __future__ import annotations

from typing import Any, Final

import yaml
from django import forms
from django.utils.translation import gettext, gettext_lazy

from scheduler_core.features import GATE_NAMES, V1_35_DEFAULTS, Features

from ...custom_plugins.services import registry_for
from ...engine import plugin_names
from ...inputs import kube, yaml_limits
from ...inputs.upstream import parser_said
from .. import try_change
from ..execution import script
from ..gates import ALPHA, GATE_HELP, v1_35_gates

STEP_ROWS: Final = 4
_MANIFEST_ACTIONS: Final = ("add_node", "add_pod")


GATES_PREFIX: Final = "gate"
GATES_SHOWN: Final = f"{GATES_PREFIX}-shown"  # a form that showed the fieldset posts it
_ON: Final = frozenset({"on", "true", "1"})
_OFF: Final = frozenset({"off", "false", "0", ""})
# Upstream's feature dependencies (kube_features.go): the gate needs the other one on.
_NEEDS: Final = {"GangScheduling": "GenericWorkload"}


class FeatureGatesForm(forms.Form):
    """One checkbox per feature gate, v1.35's defaults checked. A POST without ``gate-shown``
    (a form that did not show the fieldset) leaves every gate at v1.35's default."""

    def __init__(self, data: Any = None) -> None:
        if data is not None and GATES_SHOWN not in data:
            data = None
        super().__init__(data, prefix=GATES_PREFIX)
        for name, on in v1_35_gates().items():
            self.fields[name] = forms.BooleanField(
                required=False, initial=on, label=name, help_text=GATE_HELP[name]
            )

    def rows(self) -> list[tuple[Any, bool]]:
        """Each gate's bound field and whether it is alpha (for the template)."""
        return [(self[name], name in ALPHA) for name in GATE_NAMES]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        known = {self.add_prefix(name) for name in GATE_NAMES} | {GATES_SHOWN}
        for key in self.data:
            if key.startswith(f"{GATES_PREFIX}-") and key not in known:
                gate = key.split("-", 1)[1]
                raise forms.ValidationError(
                    gettext("feature gates: %(gate)s is not a feature gate of v1.35")
                    % {"gate": gate}
                )
        for name in GATE_NAMES:
            raw = self.data.get(self.add_prefix(name))
            if raw is not None and str(raw).strip().lower() not in _ON | _OFF:
                self.add_error(name, gettext("must be on or off"))
        for gate, needed in _NEEDS.items():
            if data.get(gate) and not data.get(needed):
                self.add_error(gate, gettext("needs %(gate)s on") % {"gate": needed})
        return data

    def chosen(self) -> Features | None:
        """The gates asked for (v1.35's defaults when the fieldset was not shown); None when
        the input is invalid (``errors`` say why)."""
        if not self.is_bound:
            return V1_35_DEFAULTS
        if not self.is_valid():
            return None
        return Features.from_gates({name: bool(self.cleaned_data[name]) for name in GATE_NAMES})

    def problems(self) -> str:
        """The errors in one line, each after the gate it is about."""
        return "; ".join(
            f"{field if field != '__all__' else gettext('feature gates')}: {' '.join(errors)}"
            for field, errors in self.errors.items()
        )


class ScriptStepForm(forms.Form):
    action = forms.ChoiceField(
        required=False,
        choices=[("", gettext_lazy("(no change)")), *script.ACTION_LABELS.items()],
    )
    after_cycle = forms.IntegerField(required=False, min_value=0, max_value=100_000, initial=1)
    target = forms.CharField(
        required=False,
        max_length=253,
        help_text=gettext_lazy("the node or pod name (remove, labels, taints, delete)"),
    )
    value = forms.CharField(
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
        help_text=gettext_lazy(
            "labels: key=value per line; taints: key[=value]:Effect per line; "
            "add a node or pod: its YAML manifest"
        ),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        action = data.get("action")
        if not action:
            return data
        if data.get("after_cycle") is None and "after_cycle" not in self.errors:
            self.add_error("after_cycle", gettext("say after which cycle (0: before the first)"))
        target, text = (data.get("target") or "").strip(), data.get("value") or ""
        if action in _MANIFEST_ACTIONS:
            data["raw"] = self._manifest(text)
        elif not target:
            self.add_error("target", gettext("name the node or pod"))
        elif action == "set_labels":
            data["raw"] = {"node": target, "labels": self._lines(kube.parse_key_values, text)}
        elif action == "set_taints":
            data["raw"] = {"node": target, "taints": self._lines(kube.parse_taints, text)}
        else:
            data["raw"] = target
        return data

    def _lines(self, parser: Any, text: str) -> Any:
        try:
            return parser(text)
        except kube.SyntaxProblem as err:
            self.add_error("value", str(err))
            return None

    def _manifest(self, text: str) -> Any:
        if not text.strip():
            self.add_error("value", gettext("paste the manifest (YAML)"))
            return None
        try:
            return yaml_limits.load(text)
        except (yaml.YAMLError, ValueError) as err:
            self.add_error("value", parser_said(str(err)))
            return None

    def step(self) -> dict[str, Any] | None:
        """The stored form of the step (None for an unused row); call after is_valid()."""
        data = self.cleaned_data
        if not data.get("action"):
            return None
        return {"after_cycle": data["after_cycle"], data["action"]: data.get("raw")}


ScriptFormSet = forms.formset_factory(ScriptStepForm, extra=STEP_ROWS, max_num=script.MAX_STEPS)


def _field_of(path: str, action: str) -> str:
    """The row field a ``script[i].<action>...`` problem belongs to."""
    rest = path.split("].", 1)[1] if "]." in path else ""
    if rest.startswith("after_cycle"):
        return "after_cycle"
    if action in ("remove_node", "delete_pod") or rest.endswith(".node"):
        return "target"
    return "value"


def script_from_formset(formset: Any) -> tuple[script.ScriptStep, ...] | None:
    """The steps of the formset's rows, or None with the errors added to the rows' fields
    (every row is checked, so each problem shows at once)."""
    valid = formset.is_valid()
    used = [f for f in formset.forms if not f.errors and f.step() is not None]
    try:
        steps = script.parse_script([f.step() for f in used])
    except script.ScriptError as err:
        _place(used, err.errors)
        return None
    return steps if valid else None


def add_script_errors(formset: Any, errors: list[tuple[str, str]]) -> None:
    """Put each ``script[i]...`` problem on the field of the i-th used row that caused it."""
    _place([f for f in formset.forms if f.step() is not None], errors)


def _place(used: list[Any], errors: list[tuple[str, str]]) -> None:
    for path, message in errors:
        index = int(path.split("[", 1)[1].split("]", 1)[0]) if "[" in path else 0
        form = used[min(index, len(used) - 1)]
        action = str(form.cleaned_data.get("action") or "")
        where = path.split(action, 1)[1].lstrip(".") if action and action in path else ""
        form.add_error(_field_of(path, action), f"{where}: {message}" if where else message)


class TryChangeForm(forms.Form):
    """One change to a finished run's profile: the field a value belongs to is required."""

    kind = forms.ChoiceField(choices=list(try_change.KINDS.items()))
    plugin = forms.ChoiceField(required=False, choices=())
    weight = forms.IntegerField(required=False, min_value=1, max_value=100)
    strategy = forms.ChoiceField(
        required=False, choices=[("", "")] + [(s, s) for s in try_change.STRATEGIES]
    )

    def __init__(self, *args: Any, plugins: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plugin = self.fields["plugin"]
        assert isinstance(plugin, forms.ChoiceField)
        plugin.choices = [("", "")] + [(p, p) for p in plugins]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if kind in ("weight", "enable", "disable") and not data.get("plugin"):
            self.add_error("plugin", gettext("choose a plugin"))
        if kind == "weight" and data.get("weight") is None and "weight" not in self.errors:
            self.add_error("weight", gettext("give the new weight"))
        if kind == "strategy" and not data.get("strategy"):
            self.add_error("strategy", gettext("choose a scoring strategy"))
        return data

    def change(self) -> try_change.ProfileChange:
        data = self.cleaned_data
        kind = data["kind"]
        return try_change.ProfileChange(
            kind=kind,
            plugin=try_change.FIT if kind == "strategy" else data.get("plugin") or "",
            weight=data.get("weight") if kind == "weight" else None,
            strategy=data.get("strategy") or "" if kind == "strategy" else "",
        )


def try_change_form(run: Any, data: Any = None) -> TryChangeForm:
    """The "Try a change" form of a run page: every plugin the run's profile owner can use."""

    return TryChangeForm(data, plugins=plugin_names(registry_for(run.profile.owner)))
