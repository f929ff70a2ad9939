"""The node form: a Node's labels, taints, capacity and images without YAML."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from ..forms import line_field, textarea
from ..inputs import kube, yaml_limits
from .form_fields import (
    HOSTNAME_LABEL,
    REGION_LABEL,
    ZONE_LABEL,
    YamlPaneMixin,
    check_quantity,
    parse_single_manifest,
    resource_lines,
)


class NodeForm(YamlPaneMixin, forms.Form):
    name = forms.CharField(max_length=253, label=gettext_lazy("Name"))
    zone = forms.CharField(required=False, help_text=ZONE_LABEL, label=gettext_lazy("Zone"))
    region = forms.CharField(required=False, help_text=REGION_LABEL, label=gettext_lazy("Region"))
    labels = forms.CharField(
        required=False,
        widget=textarea(3, "disktype=ssd"),
        label=gettext_lazy("Labels"),
        help_text=gettext_lazy("key=value, one per line"),
    )
    taints = forms.CharField(
        required=False,
        widget=textarea(2, "gpu=true:NoSchedule"),
        label=gettext_lazy("Taints"),
        help_text=gettext_lazy("key[=value]:Effect, one per line"),
    )
    cpu = forms.CharField(
        required=False,
        initial="4",
        label=gettext_lazy("Cpu"),
        help_text=gettext_lazy("allocatable, e.g. 4 or 3500m"),
    )
    memory = forms.CharField(required=False, initial="16Gi", label=gettext_lazy("Memory"))
    pods = forms.CharField(
        required=False, initial="110", label=pgettext_lazy("allocatable", "Pods")
    )
    ephemeral_storage = forms.CharField(required=False, label=gettext_lazy("Ephemeral storage"))
    extended_resources = forms.CharField(
        required=False,
        widget=textarea(2, "nvidia.com/gpu=4"),
        label=gettext_lazy("Extended resources"),
        help_text=gettext_lazy("name=quantity, one per line"),
    )
    images = forms.CharField(
        required=False,
        widget=textarea(2, "nginx:1.27 187000000"),
        label=gettext_lazy("Images"),
        help_text=gettext_lazy("image [size in bytes], one per line"),
    )
    unschedulable = forms.BooleanField(
        required=False, label=gettext_lazy("Unschedulable"), help_text=gettext_lazy("cordoned")
    )
    count = forms.IntegerField(
        min_value=1,
        initial=1,
        required=False,
        label=gettext_lazy("Count"),
        help_text=gettext_lazy("add this many nodes like this one (name-1, name-2, ...)"),
    )

    def __init__(self, *args: Any, allow_count: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_yaml_fields()
        if not allow_count:
            del self.fields["count"]
        else:
            self.fields["count"].validators.append(MaxValueValidator(settings.PLAYGROUND_BULK_MAX))

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        for message in kube.dns_subdomain_errors(name):
            raise forms.ValidationError(message)
        return name

    def _label_value(self, field: str) -> str:
        value = self.cleaned_data[field].strip()
        for message in kube.label_value_errors(value):
            raise forms.ValidationError(message)
        return value

    def clean_zone(self) -> str:
        return self._label_value("zone")

    def clean_region(self) -> str:
        return self._label_value("region")

    def clean_labels(self) -> dict[str, str]:
        return line_field(kube.parse_key_values, self.cleaned_data["labels"])

    def clean_taints(self) -> list[dict[str, str]]:
        return line_field(kube.parse_taints, self.cleaned_data["taints"])

    def clean_cpu(self) -> str:
        return check_quantity(self.cleaned_data["cpu"], "cpu")

    def clean_memory(self) -> str:
        return check_quantity(self.cleaned_data["memory"], "memory")

    def clean_pods(self) -> str:
        return check_quantity(self.cleaned_data["pods"], "pods")

    def clean_ephemeral_storage(self) -> str:
        return check_quantity(self.cleaned_data["ephemeral_storage"], "ephemeral-storage")

    def clean_extended_resources(self) -> dict[str, str]:
        return resource_lines(self.cleaned_data["extended_resources"])

    def clean_images(self) -> list[dict[str, Any]]:
        images = []
        for number, line in enumerate(self.cleaned_data["images"].splitlines(), start=1):
            parts = line.split()
            if not parts:
                continue
            image: dict[str, Any] = {"names": [parts[0]]}
            if len(parts) > 1:
                if not parts[1].isdigit():
                    raise forms.ValidationError(
                        gettext("line %(line)s: size %(size)s is not a number of bytes")
                        % {"line": number, "size": repr(parts[1])}
                    )
                image["sizeBytes"] = int(parts[1])
            images.append(image)
        return images

    def clean_count(self) -> int:
        return self.cleaned_data.get("count") or 1

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == "yaml":
            # The YAML pane wins: errors of the form fields do not matter then.
            for name in list(self.errors):
                if name not in ("manifest_yaml", "count"):
                    del self.errors[name]
            try:
                data["manifest"] = parse_single_manifest(data.get("manifest_yaml", ""), "Node")
            except forms.ValidationError as err:
                self.add_error("manifest_yaml", err)
        elif not self.errors:
            data["manifest"] = self.to_manifest(self._base())
        return data

    def _base(self) -> dict[str, Any]:
        try:
            base = yaml_limits.load(self.cleaned_data.get("manifest_yaml") or "")
        except yaml.YAMLError:
            return {}
        return base if isinstance(base, dict) and base.get("kind") == "Node" else {}

    def to_manifest(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """The node manifest: ``base`` (kept for fields the form lacks) overlaid by the form."""
        data = self.cleaned_data
        manifest = copy.deepcopy(base or {})
        manifest["apiVersion"], manifest["kind"] = "v1", "Node"
        metadata = manifest.setdefault("metadata", {})
        metadata["name"] = data["name"]
        labels = {HOSTNAME_LABEL: data["name"]}
        if data.get("zone"):
            labels[ZONE_LABEL] = data["zone"]
        if data.get("region"):
            labels[REGION_LABEL] = data["region"]
        labels.update(data.get("labels") or {})
        metadata["labels"] = labels
        spec = {
            k: v
            for k, v in (manifest.get("spec") or {}).items()
            if k not in ("taints", "unschedulable")
        }
        if data.get("taints"):
            spec["taints"] = data["taints"]
        if data.get("unschedulable"):
            spec["unschedulable"] = True
        manifest["spec"] = spec
        resources = {}
        for field, key in (
            ("cpu", "cpu"),
            ("memory", "memory"),
            ("ephemeral_storage", "ephemeral-storage"),
            ("pods", "pods"),
        ):
            if data.get(field):
                resources[key] = data[field]
        resources.update(data.get("extended_resources") or {})
        status = {
            k: v
            for k, v in (manifest.get("status") or {}).items()
            if k not in ("capacity", "allocatable", "images")
        }
        status["capacity"] = dict(resources)
        status["allocatable"] = dict(resources)
        if data.get("images"):
            status["images"] = data["images"]
        manifest["status"] = status
        return {k: manifest[k] for k in ("apiVersion", "kind", "metadata", "spec", "status")} | {
            k: v
            for k, v in manifest.items()
            if k not in ("apiVersion", "kind", "metadata", "spec", "status")
        }

    @staticmethod
    def initial_from_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
        metadata = manifest.get("metadata") or {}
        labels = dict(metadata.get("labels") or {})
        name = metadata.get("name", "")
        if labels.get(HOSTNAME_LABEL) == name:
            labels.pop(HOSTNAME_LABEL)
        zone, region = labels.pop(ZONE_LABEL, ""), labels.pop(REGION_LABEL, "")
        allocatable = dict((manifest.get("status") or {}).get("allocatable") or {})
        images = (manifest.get("status") or {}).get("images") or []
        return {
            "name": name,
            "zone": zone,
            "region": region,
            "labels": kube.format_key_values(labels),
            "taints": kube.format_taints((manifest.get("spec") or {}).get("taints")),
            "cpu": str(allocatable.pop("cpu", "")),
            "memory": str(allocatable.pop("memory", "")),
            "pods": str(allocatable.pop("pods", "")),
            "ephemeral_storage": str(allocatable.pop("ephemeral-storage", "")),
            "extended_resources": kube.format_key_values(allocatable),
            "images": "\n".join(
                " ".join(
                    [(img.get("names") or [""])[0]]
                    + ([str(img["sizeBytes"])] if img.get("sizeBytes") else [])
                )
                for img in images
            ),
            "unschedulable": bool((manifest.get("spec") or {}).get("unschedulable")),
        }
