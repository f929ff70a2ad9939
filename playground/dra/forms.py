"""Forms for Dynamic Resource Allocation: a device pool on a node, and a claim for a pod.

Each form turns its fields into resource.k8s.io/v1 manifests (``to_manifests``); the service
stores them through the same checks as an import, so a bad CEL selector or count is reported on
its field exactly as a YAML import reports it.
"""

from __future__ import annotations

from typing import Any, Final

from django import forms
from django.utils.translation import gettext, gettext_lazy

from .. import engine
from ..inputs import kube
from ..inputs.upstream import glossed

API: Final = "resource.k8s.io/v1"
MAX_DEVICES: Final = 128


def _check_name(value: str) -> str:
    problems = kube.dns_subdomain_errors(value)
    if problems:
        raise forms.ValidationError(problems[0])
    return value


def _set_choices(form: forms.Form, name: str, choices: list[tuple[str, str]]) -> None:
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)
    field.choices = choices


class DevicePoolForm(forms.Form):
    """A node-local pool of identical devices (one ResourceSlice), and its DeviceClass if new."""

    node = forms.ChoiceField(label=gettext_lazy("Node"))
    driver = forms.CharField(
        initial="gpu.example.com",
        label=gettext_lazy("Driver"),
        help_text=gettext_lazy("the DRA driver's name"),
    )
    model = forms.CharField(
        initial="a100",
        label=gettext_lazy("Model"),
        help_text=gettext_lazy("string attribute 'model' of each device"),
    )
    memory = forms.CharField(
        initial="40Gi",
        required=False,
        label=gettext_lazy("Memory"),
        help_text=gettext_lazy("capacity 'memory' of each device"),
    )
    count = forms.IntegerField(
        initial=2, min_value=1, max_value=MAX_DEVICES, label=gettext_lazy("Count")
    )
    device_class = forms.CharField(
        initial="gpu",
        label=gettext_lazy("Device class"),
        required=False,
        help_text=gettext_lazy(
            "created (selecting this driver) if the cluster has no class of this name"
        ),
    )

    def __init__(self, *args: Any, nodes: list[str], classes: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _set_choices(self, "node", [(n, n) for n in nodes])
        self.classes = set(classes)

    def clean_driver(self) -> str:
        return _check_name(self.cleaned_data["driver"])

    def clean_memory(self) -> str:
        value = str(self.cleaned_data.get("memory") or "").strip()
        if value:
            try:
                engine.check_quantity(value, "memory")
            except engine.ManifestError as err:
                raise forms.ValidationError(glossed(err.message)) from err
        return value

    def clean_device_class(self) -> str:
        value = str(self.cleaned_data.get("device_class") or "").strip()
        return _check_name(value) if value else ""

    def to_manifests(self) -> list[dict[str, Any]]:
        d = self.cleaned_data
        node, driver = d["node"], d["driver"]
        devices = []
        for i in range(d["count"]):
            device: dict[str, Any] = {
                "name": f"dev-{i}",
                "attributes": {"model": {"string": d["model"]}, "index": {"int": i}},
            }
            if d["memory"]:
                device["capacity"] = {"memory": {"value": d["memory"]}}
            devices.append(device)
        out: list[dict[str, Any]] = []
        if d["device_class"] and d["device_class"] not in self.classes:
            out.append(
                {
                    "apiVersion": API,
                    "kind": "DeviceClass",
                    "metadata": {"name": d["device_class"]},
                    "spec": {
                        "selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]
                    },
                }
            )
        out.append(
            {
                "apiVersion": API,
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-{driver.split('.')[0]}"},
                "spec": {
                    "driver": driver,
                    "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }
        )
        return out


class ClaimForm(forms.Form):
    """A ResourceClaim with one request, optionally added to a pending pod's resourceClaims."""

    name = forms.CharField(label=gettext_lazy("Name"))
    namespace = forms.CharField(initial="default", label=gettext_lazy("Namespace"))
    device_class = forms.ChoiceField(label=gettext_lazy("Device class"))
    mode = forms.ChoiceField(
        choices=[
            ("ExactCount", gettext_lazy("exactly this many")),
            ("All", gettext_lazy("all matching devices")),
        ],
        initial="ExactCount",
        label=gettext_lazy("Mode"),
    )
    count = forms.IntegerField(initial=1, min_value=1, max_value=32, label=gettext_lazy("Count"))
    selector = forms.CharField(
        required=False,
        label=gettext_lazy("CEL selector"),
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=gettext_lazy('e.g. device.attributes["gpu.example.com"].model == "a100"'),
    )
    same_attribute = forms.CharField(
        required=False,
        label=gettext_lazy("All devices share"),
        help_text=gettext_lazy(
            "a fully qualified attribute (matchAttribute), e.g. gpu.example.com/model"
        ),
    )
    pod = forms.ChoiceField(required=False, label=gettext_lazy("Add to pending pod"))

    def __init__(self, *args: Any, classes: list[str], pods: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _set_choices(self, "device_class", [(c, c) for c in classes])
        _set_choices(self, "pod", [("", gettext("(none)"))] + [(p, p) for p in pods])

    def clean_name(self) -> str:
        return _check_name(self.cleaned_data["name"])

    def clean_namespace(self) -> str:
        return _check_name(self.cleaned_data["namespace"])

    def to_manifest(self) -> dict[str, Any]:
        d = self.cleaned_data
        exactly: dict[str, Any] = {
            "deviceClassName": d["device_class"],
            "allocationMode": d["mode"],
        }
        if d["mode"] == "ExactCount":
            exactly["count"] = d["count"]
        if d["selector"].strip():
            exactly["selectors"] = [{"cel": {"expression": d["selector"].strip()}}]
        devices: dict[str, Any] = {"requests": [{"name": "devices", "exactly": exactly}]}
        if d["same_attribute"].strip():
            devices["constraints"] = [
                {"requests": ["devices"], "matchAttribute": d["same_attribute"].strip()}
            ]
        return {
            "apiVersion": API,
            "kind": "ResourceClaim",
            "metadata": {"name": d["name"], "namespace": d["namespace"]},
            "spec": {"devices": devices},
        }
