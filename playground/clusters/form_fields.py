"""What the node and pod forms share: well-known labels, quantities, the YAML pane.

Node and pod forms work without YAML (line-per-item text fields use kubectl's syntax) and convert
both ways: ``to_manifest(base)`` overlays the form on a manifest, keeping fields the form does not
show; ``initial_from_manifest`` fills the form from one. The YAML editor beside each form goes
through the same two functions, so both stay in sync.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext

from .. import engine
from ..forms import line_field, textarea
from ..inputs import kube, manifests
from ..inputs.upstream import glossed

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
HOSTNAME_LABEL = "kubernetes.io/hostname"
_RESOURCE_NAME_RE = re.compile(
    r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*"
    r"[A-Za-z0-9])?$"
)


def check_quantity(value: str, label: str) -> str:
    value = value.strip()
    if value:
        try:
            engine.check_quantity(value, label)
        except engine.ManifestError as err:
            raise forms.ValidationError(glossed(err.message)) from err
    return value


def resource_lines(text: str) -> dict[str, str]:
    """``name=quantity`` per line (extended resources, extra requests)."""
    values = line_field(lambda t: kube.parse_key_values(t, labels=False), text)
    for number, (name, quantity) in enumerate(values.items(), start=1):
        if not _RESOURCE_NAME_RE.match(name):
            raise forms.ValidationError(
                gettext("line %(line)s: %(name)s is not a resource name")
                % {"line": number, "name": repr(name)}
            )
        try:
            engine.check_quantity(quantity, name)
        except engine.ManifestError as err:
            raise forms.ValidationError(
                gettext("line %(line)s: %(name)s: %(error)s")
                % {"line": number, "name": name, "error": glossed(err.message)}
            ) from err
    return values


class YamlPaneMixin:
    """The YAML editor beside a form: which side the user edited last wins on submit."""

    fields: dict[str, forms.Field]  # the form's, which this mixes into

    def add_yaml_fields(self) -> None:
        self.fields["manifest_yaml"] = forms.CharField(
            required=False, widget=textarea(24), label="YAML"
        )
        self.fields["mode"] = forms.ChoiceField(
            choices=[("form", "form"), ("yaml", "yaml")], initial="form", widget=forms.HiddenInput
        )


def parse_single_manifest(text: str, kind: str) -> dict[str, Any]:
    """One object of ``kind`` from YAML/JSON text; ValidationError naming line and field."""
    try:
        parsed = manifests.parse_documents(text)
    except manifests.ManifestProblems as err:
        raise forms.ValidationError([str(p) for p in err.problems]) from err
    if len(parsed.objects) != 1 or parsed.objects[0].kind != kind:
        found = ", ".join(o.kind for o in parsed.objects) or gettext("nothing usable")
        raise forms.ValidationError(
            gettext("expected exactly one %(kind)s, found %(found)s")
            % {"kind": kind, "found": found}
        )
    obj = parsed.objects[0]
    problems = manifests.check_object(obj)
    if problems:
        raise forms.ValidationError([str(p) for p in problems])
    return obj.manifest
