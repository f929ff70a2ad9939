"""Forms: parse and validate input into manifests and configurations; nothing else.

Node and pod forms work without YAML (line-per-item text fields use kubectl's syntax) and convert
both ways: ``to_manifest(base)`` overlays the form on a manifest, keeping fields the form does not
show; ``initial_from_manifest`` fills the form from one. The YAML editor beside each form goes
through the same two functions, so both stay in sync.
"""

from __future__ import annotations

import copy
import re
import zlib
from typing import Any, Final

import yaml
from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import MaxValueValidator

from scheduler_core.config import io as config_io

from . import engine, kube, manifests, yaml_limits

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
HOSTNAME_LABEL = "kubernetes.io/hostname"
_RESOURCE_NAME_RE = re.compile(
    r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*"
    r"[A-Za-z0-9])?$"
)


def _textarea(rows: int = 3, placeholder: str = "") -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows, "placeholder": placeholder, "spellcheck": "false"})


class SignUpForm(UserCreationForm):
    pass


class ClusterForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=_textarea(2))


def _check_quantity(value: str, label: str) -> str:
    value = value.strip()
    if value:
        try:
            engine.check_quantity(value, label)
        except engine.ManifestError as err:
            raise forms.ValidationError(err.message) from err
    return value


def _line_field(parser: Any, value: str) -> Any:
    try:
        return parser(value)
    except kube.SyntaxProblem as err:
        raise forms.ValidationError(str(err)) from err


def _resource_lines(text: str) -> dict[str, str]:
    """``name=quantity`` per line (extended resources, extra requests)."""
    values = _line_field(lambda t: kube.parse_key_values(t, labels=False), text)
    for number, (name, quantity) in enumerate(values.items(), start=1):
        if not _RESOURCE_NAME_RE.match(name):
            raise forms.ValidationError(f"line {number}: {name!r} is not a resource name")
        try:
            engine.check_quantity(quantity, name)
        except engine.ManifestError as err:
            raise forms.ValidationError(f"line {number}: {name}: {err.message}") from err
    return values


class YamlPaneMixin:
    """The YAML editor beside a form: which side the user edited last wins on submit."""

    def add_yaml_fields(self) -> None:
        self.fields["manifest_yaml"] = forms.CharField(
            required=False, widget=_textarea(24), label="YAML"
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
        found = ", ".join(o.kind for o in parsed.objects) or "nothing usable"
        raise forms.ValidationError(f"expected exactly one {kind}, found {found}")
    obj = parsed.objects[0]
    problems = manifests.check_object(obj)
    if problems:
        raise forms.ValidationError([str(p) for p in problems])
    return obj.manifest


class NodeForm(YamlPaneMixin, forms.Form):
    name = forms.CharField(max_length=253)
    zone = forms.CharField(required=False, help_text=ZONE_LABEL)
    region = forms.CharField(required=False, help_text=REGION_LABEL)
    labels = forms.CharField(
        required=False, widget=_textarea(3, "disktype=ssd"), help_text="key=value, one per line"
    )
    taints = forms.CharField(
        required=False,
        widget=_textarea(2, "gpu=true:NoSchedule"),
        help_text="key[=value]:Effect, one per line",
    )
    cpu = forms.CharField(required=False, initial="4", help_text="allocatable, e.g. 4 or 3500m")
    memory = forms.CharField(required=False, initial="16Gi")
    pods = forms.CharField(required=False, initial="110")
    ephemeral_storage = forms.CharField(required=False, label="Ephemeral storage")
    extended_resources = forms.CharField(
        required=False,
        widget=_textarea(2, "nvidia.com/gpu=4"),
        help_text="name=quantity, one per line",
    )
    images = forms.CharField(
        required=False,
        widget=_textarea(2, "nginx:1.27 187000000"),
        help_text="image [size in bytes], one per line",
    )
    unschedulable = forms.BooleanField(required=False, help_text="cordoned")
    count = forms.IntegerField(
        min_value=1,
        initial=1,
        required=False,
        help_text="add this many nodes like this one (name-1, name-2, ...)",
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
        return _line_field(kube.parse_key_values, self.cleaned_data["labels"])

    def clean_taints(self) -> list[dict[str, str]]:
        return _line_field(kube.parse_taints, self.cleaned_data["taints"])

    def clean_cpu(self) -> str:
        return _check_quantity(self.cleaned_data["cpu"], "cpu")

    def clean_memory(self) -> str:
        return _check_quantity(self.cleaned_data["memory"], "memory")

    def clean_pods(self) -> str:
        return _check_quantity(self.cleaned_data["pods"], "pods")

    def clean_ephemeral_storage(self) -> str:
        return _check_quantity(self.cleaned_data["ephemeral_storage"], "ephemeral-storage")

    def clean_extended_resources(self) -> dict[str, str]:
        return _resource_lines(self.cleaned_data["extended_resources"])

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
                        f"line {number}: size {parts[1]!r} is not a number of bytes"
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


CONTAINER_FIELDS = (
    "name",
    "image",
    "cpu_request",
    "memory_request",
    "cpu_limit",
    "memory_limit",
    "other_requests",
    "host_ports",
)


def _parse_affinity_terms(text: str) -> list[tuple[str, int, str, dict[str, Any]]]:
    """``required TOPOLOGY_KEY SELECTOR`` or ``preferred WEIGHT TOPOLOGY_KEY SELECTOR``."""
    terms = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3 if line.startswith("preferred") else 2)
        kind = parts[0]
        try:
            if kind == "required" and len(parts) == 3:
                weight, key, selector = 0, parts[1], parts[2]
            elif kind == "preferred" and len(parts) == 4:
                weight, key, selector = int(parts[1]), parts[2], parts[3]
                if not 1 <= weight <= 100:
                    raise kube.SyntaxProblem(f"line {number}: weight {weight} is not in [1, 100]")
            else:
                raise ValueError
        except ValueError:
            raise kube.SyntaxProblem(
                f"line {number}: write 'required TOPOLOGY_KEY SELECTOR' or 'preferred WEIGHT "
                "TOPOLOGY_KEY SELECTOR'"
            ) from None
        for message in kube.qualified_name_errors(key):
            raise kube.SyntaxProblem(f"line {number}: topology key {key!r}: {message}")
        try:
            expressions = kube.parse_requirements(selector.replace(";", "\n"))
        except kube.SyntaxProblem as err:
            raise kube.SyntaxProblem(f"line {number}: {err}") from None
        terms.append((kind, weight, key, kube.label_selector(expressions)))
    return terms


def _format_affinity(section: dict[str, Any] | None) -> str:
    section = section or {}
    lines = []
    for term in section.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
        lines.append(
            f"required {term.get('topologyKey', '')} "
            f"{kube.format_selector(term.get('labelSelector'))}"
        )
    for weighted in section.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        term = weighted.get("podAffinityTerm") or {}
        lines.append(
            f"preferred {weighted.get('weight', 1)} {term.get('topologyKey', '')} "
            f"{kube.format_selector(term.get('labelSelector'))}"
        )
    return "\n".join(lines)


def _parse_spread(text: str) -> list[dict[str, Any]]:
    """``MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway SELECTOR`` per line."""
    constraints = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 3 or not parts[0].isdigit():
            raise kube.SyntaxProblem(
                f"line {number}: write 'MAX_SKEW TOPOLOGY_KEY "
                "DoNotSchedule|ScheduleAnyway [SELECTOR]'"
            )
        skew, key, when = int(parts[0]), parts[1], parts[2]
        if skew < 1:
            raise kube.SyntaxProblem(f"line {number}: maxSkew {skew} must be greater than zero")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise kube.SyntaxProblem(
                f"line {number}: whenUnsatisfiable {when!r} is not DoNotSchedule or ScheduleAnyway"
            )
        constraint: dict[str, Any] = {
            "maxSkew": skew,
            "topologyKey": key,
            "whenUnsatisfiable": when,
        }
        if len(parts) == 4:
            try:
                expressions = kube.parse_requirements(parts[3].replace(";", "\n"))
            except kube.SyntaxProblem as err:
                raise kube.SyntaxProblem(f"line {number}: {err}") from None
            constraint["labelSelector"] = kube.label_selector(expressions)
        constraints.append(constraint)
    return constraints


def _format_spread(constraints: list[dict[str, Any]] | None) -> str:
    return "\n".join(
        f"{c.get('maxSkew', 1)} {c.get('topologyKey', '')} {c.get('whenUnsatisfiable', '')} "
        f"{kube.format_selector(c.get('labelSelector'))}".rstrip()
        for c in constraints or []
    )


def _parse_node_terms(text: str) -> list[dict[str, Any]]:
    """One nodeSelectorTerm per line (requirements joined by ';'); terms are ORed."""
    terms = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            expressions = kube.parse_requirements(line.replace(";", "\n"), node=True)
        except kube.SyntaxProblem as err:
            raise kube.SyntaxProblem(f"line {number}: {str(err).split(': ', 1)[-1]}") from None
        terms.append({"matchExpressions": expressions})
    return terms


def _parse_preferred_node(text: str) -> list[dict[str, Any]]:
    """``WEIGHT: requirements`` per line."""
    preferred = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        weight_text, sep, rest = line.partition(":")
        if not sep or not weight_text.strip().isdigit():
            raise kube.SyntaxProblem(f"line {number}: write 'WEIGHT: requirements'")
        weight = int(weight_text)
        if not 1 <= weight <= 100:
            raise kube.SyntaxProblem(f"line {number}: weight {weight} is not in [1, 100]")
        try:
            expressions = kube.parse_requirements(rest.replace(";", "\n"), node=True)
        except kube.SyntaxProblem as err:
            raise kube.SyntaxProblem(f"line {number}: {str(err).split(': ', 1)[-1]}") from None
        preferred.append({"weight": weight, "preference": {"matchExpressions": expressions}})
    return preferred


class PodForm(YamlPaneMixin, forms.Form):
    name = forms.CharField(max_length=253)
    namespace = forms.CharField(max_length=63, initial="default")
    labels = forms.CharField(
        required=False, widget=_textarea(2, "app=web"), help_text="key=value, one per line"
    )
    priority = forms.IntegerField(required=False)
    priority_class_name = forms.CharField(required=False, label="Priority class name")
    scheduler_name = forms.CharField(
        required=False, label="schedulerName", help_text="empty means default-scheduler"
    )
    node_name = forms.CharField(
        required=False,
        label="Running on node",
        help_text="set for a pod that is already bound (spec.nodeName)",
    )
    node_selector = forms.CharField(
        required=False, widget=_textarea(2, "disktype=ssd"), help_text="key=value, one per line"
    )
    required_node_affinity = forms.CharField(
        required=False,
        widget=_textarea(2, "topology.kubernetes.io/zone in (a,b); gpu"),
        help_text="one node selector term per line (ORed); requirements joined by ';'",
    )
    preferred_node_affinity = forms.CharField(
        required=False,
        widget=_textarea(2, "10: disktype=ssd"),
        help_text="WEIGHT: requirements, one per line",
    )
    pod_affinity = forms.CharField(
        required=False,
        widget=_textarea(2, "required topology.kubernetes.io/zone app=db"),
        help_text="required TOPOLOGY_KEY SELECTOR | preferred WEIGHT TOPOLOGY_KEY SELECTOR",
    )
    pod_anti_affinity = forms.CharField(
        required=False,
        widget=_textarea(2, "preferred 100 kubernetes.io/hostname app=web"),
        help_text="same syntax as pod affinity",
    )
    tolerations = forms.CharField(
        required=False,
        widget=_textarea(2, "gpu=true:NoSchedule"),
        help_text="key=value:Effect (Equal), key[:Effect] (Exists), * ; add ' for=SECONDS'",
    )
    topology_spread = forms.CharField(
        required=False,
        widget=_textarea(2, "1 topology.kubernetes.io/zone DoNotSchedule app=web"),
        help_text="MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway [SELECTOR]",
    )
    scheduling_gates = forms.CharField(required=False, help_text="gate names, comma separated")

    def __init__(
        self, *args: Any, container_rows: int = 2, allow_replicas: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if self.is_bound:
            submitted = {
                int(m.group(1)) for key in self.data if (m := re.match(r"^c(\d+)_name$", key))
            }
            container_rows = max([container_rows, *(i + 1 for i in submitted)])
        self.container_rows = container_rows
        for i in range(container_rows):
            self.fields[f"c{i}_name"] = forms.CharField(required=False, label="Container name")
            self.fields[f"c{i}_image"] = forms.CharField(required=False, label="Image")
            for part in ("cpu_request", "memory_request", "cpu_limit", "memory_limit"):
                self.fields[f"c{i}_{part}"] = forms.CharField(
                    required=False, label=part.replace("_", " ")
                )
            self.fields[f"c{i}_other_requests"] = forms.CharField(
                required=False, label="other requests", help_text="name=quantity, comma separated"
            )
            self.fields[f"c{i}_host_ports"] = forms.CharField(
                required=False, label="host ports", help_text="8080 or 53/UDP, comma separated"
            )
        if allow_replicas:
            self.fields["replicas"] = forms.IntegerField(
                min_value=1, max_value=settings.PLAYGROUND_BULK_MAX, initial=3
            )
            self.fields["workload_kind"] = forms.ChoiceField(
                choices=[(k, k) for k in ("Deployment", "StatefulSet", "ReplicaSet", "Job")],
                initial="Deployment",
                label="as a",
            )
        self.add_yaml_fields()

    def container_groups(self) -> list[list[forms.BoundField]]:
        return [[self[f"c{i}_{f}"] for f in CONTAINER_FIELDS] for i in range(self.container_rows)]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        for message in kube.dns_subdomain_errors(name):
            raise forms.ValidationError(message)
        return name

    def clean_namespace(self) -> str:
        namespace = self.cleaned_data["namespace"].strip() or "default"
        for message in kube.dns_subdomain_errors(namespace):
            raise forms.ValidationError(message)
        return namespace

    def clean_labels(self) -> dict[str, str]:
        return _line_field(kube.parse_key_values, self.cleaned_data["labels"])

    def clean_node_selector(self) -> dict[str, str]:
        return _line_field(kube.parse_key_values, self.cleaned_data["node_selector"])

    def clean_required_node_affinity(self) -> list[dict[str, Any]]:
        return _line_field(_parse_node_terms, self.cleaned_data["required_node_affinity"])

    def clean_preferred_node_affinity(self) -> list[dict[str, Any]]:
        return _line_field(_parse_preferred_node, self.cleaned_data["preferred_node_affinity"])

    def clean_pod_affinity(self) -> list:
        return _line_field(_parse_affinity_terms, self.cleaned_data["pod_affinity"])

    def clean_pod_anti_affinity(self) -> list:
        return _line_field(_parse_affinity_terms, self.cleaned_data["pod_anti_affinity"])

    def clean_tolerations(self) -> list[dict[str, Any]]:
        return _line_field(kube.parse_tolerations, self.cleaned_data["tolerations"])

    def clean_topology_spread(self) -> list[dict[str, Any]]:
        return _line_field(_parse_spread, self.cleaned_data["topology_spread"])

    def clean_scheduling_gates(self) -> list[str]:
        gates = [g.strip() for g in self.cleaned_data["scheduling_gates"].split(",") if g.strip()]
        for gate in gates:
            for message in kube.qualified_name_errors(gate):
                raise forms.ValidationError(f"{gate!r}: {message}")
        return gates

    def _containers(self) -> list[dict[str, Any]]:
        containers = []
        data = self.cleaned_data
        for i in range(self.container_rows):
            row = {f: (data.get(f"c{i}_{f}") or "").strip() for f in CONTAINER_FIELDS}
            if not any(row.values()):
                continue
            where = f"container row {i + 1}"
            name = row["name"] or f"c{i}"
            for message in kube.dns_subdomain_errors(name):
                self.add_error(f"c{i}_name", f"{where}: {message}")
            container: dict[str, Any] = {
                "name": name,
                "image": row["image"] or "registry.k8s.io/pause:3.10",
            }
            requests, limits = {}, {}
            for part, target, key in (
                ("cpu_request", requests, "cpu"),
                ("memory_request", requests, "memory"),
                ("cpu_limit", limits, "cpu"),
                ("memory_limit", limits, "memory"),
            ):
                if row[part]:
                    try:
                        engine.check_quantity(row[part], key)
                    except engine.ManifestError as err:
                        self.add_error(f"c{i}_{part}", f"{where}: {key}: {err.message}")
                    target[key] = row[part]
            if row["other_requests"]:
                try:
                    requests.update(_resource_lines(row["other_requests"].replace(",", "\n")))
                except forms.ValidationError as err:
                    self.add_error(f"c{i}_other_requests", err)
            if requests or limits:
                container["resources"] = {}
                if requests:
                    container["resources"]["requests"] = requests
                if limits:
                    container["resources"]["limits"] = limits
            ports = []
            for item in (p.strip() for p in row["host_ports"].split(",") if p.strip()):
                number, _, protocol = item.partition("/")
                if not number.isdigit() or not 1 <= int(number) <= 65535:
                    self.add_error(
                        f"c{i}_host_ports", f"{where}: {item!r} is not a port in 1-65535"
                    )
                    continue
                port: dict[str, Any] = {"containerPort": int(number), "hostPort": int(number)}
                if protocol:
                    if protocol.upper() not in ("TCP", "UDP", "SCTP"):
                        self.add_error(f"c{i}_host_ports", f"{where}: protocol {protocol!r}")
                        continue
                    port["protocol"] = protocol.upper()
                ports.append(port)
            if ports:
                container["ports"] = ports
            containers.append(container)
        if not containers:
            containers.append({"name": "app", "image": "registry.k8s.io/pause:3.10"})
        return containers

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == "yaml":
            for name in list(self.errors):
                if name not in ("manifest_yaml", "replicas", "workload_kind"):
                    del self.errors[name]
            try:
                data["manifest"] = parse_single_manifest(data.get("manifest_yaml", ""), "Pod")
            except forms.ValidationError as err:
                self.add_error("manifest_yaml", err)
            return data
        if self.errors:
            return data
        containers = self._containers()
        if not self.errors:
            data["manifest"] = self.to_manifest(self._base(), containers=containers)
        return data

    def _base(self) -> dict[str, Any]:
        try:
            base = yaml_limits.load(self.cleaned_data.get("manifest_yaml") or "")
        except yaml.YAMLError:
            return {}
        return base if isinstance(base, dict) and base.get("kind") == "Pod" else {}

    def to_manifest(
        self, base: dict[str, Any] | None = None, *, containers: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        data = self.cleaned_data
        manifest = copy.deepcopy(base or {})
        metadata = manifest.get("metadata") or {}
        metadata.update({"name": data["name"], "namespace": data["namespace"]})
        if data.get("labels"):
            metadata["labels"] = data["labels"]
        else:
            metadata.pop("labels", None)
        managed = {
            "containers",
            "priority",
            "priorityClassName",
            "schedulerName",
            "nodeName",
            "nodeSelector",
            "affinity",
            "tolerations",
            "topologySpreadConstraints",
            "schedulingGates",
        }
        old_spec = manifest.get("spec") or {}
        spec: dict[str, Any] = {}
        old_containers = old_spec.get("containers") or []
        merged = []
        for i, container in enumerate(containers if containers is not None else self._containers()):
            old = copy.deepcopy(old_containers[i]) if i < len(old_containers) else {}
            old.pop("resources", None)
            old.pop("ports", None)
            merged.append({**old, **container})
        spec["containers"] = merged
        if data.get("priority") is not None:
            spec["priority"] = data["priority"]
        if data.get("priority_class_name"):
            spec["priorityClassName"] = data["priority_class_name"].strip()
        if data.get("scheduler_name"):
            spec["schedulerName"] = data["scheduler_name"].strip()
        if data.get("node_name"):
            spec["nodeName"] = data["node_name"].strip()
        if data.get("node_selector"):
            spec["nodeSelector"] = data["node_selector"]
        affinity: dict[str, Any] = {}
        node_affinity: dict[str, Any] = {}
        if data.get("required_node_affinity"):
            node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": data["required_node_affinity"]
            }
        if data.get("preferred_node_affinity"):
            node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = data[
                "preferred_node_affinity"
            ]
        if node_affinity:
            affinity["nodeAffinity"] = node_affinity
        for field, key in (
            ("pod_affinity", "podAffinity"),
            ("pod_anti_affinity", "podAntiAffinity"),
        ):
            terms = data.get(field) or []
            section: dict[str, Any] = {}
            required = [
                {"labelSelector": sel, "topologyKey": key_}
                for kind, _, key_, sel in terms
                if kind == "required"
            ]
            preferred = [
                {"weight": w, "podAffinityTerm": {"labelSelector": sel, "topologyKey": key_}}
                for kind, w, key_, sel in terms
                if kind == "preferred"
            ]
            if required:
                section["requiredDuringSchedulingIgnoredDuringExecution"] = required
            if preferred:
                section["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
            if section:
                affinity[key] = section
        if affinity:
            spec["affinity"] = affinity
        if data.get("tolerations"):
            spec["tolerations"] = data["tolerations"]
        if data.get("topology_spread"):
            spec["topologySpreadConstraints"] = data["topology_spread"]
        if data.get("scheduling_gates"):
            spec["schedulingGates"] = [{"name": g} for g in data["scheduling_gates"]]
        spec.update({k: v for k, v in old_spec.items() if k not in managed})
        result: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": metadata,
            "spec": spec,
        }
        status = manifest.get("status") or {}
        if data.get("node_name"):
            status = {**status, "phase": status.get("phase") or "Running"}
        elif status.get("phase") == "Running":
            status = {**status, "phase": "Pending"}
        if status:
            result["status"] = status
        return result

    @staticmethod
    def initial_from_manifest(manifest: dict[str, Any]) -> dict[str, Any]:
        metadata = manifest.get("metadata") or {}
        spec = manifest.get("spec") or {}
        affinity = spec.get("affinity") or {}
        node_affinity = affinity.get("nodeAffinity") or {}
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
        initial: dict[str, Any] = {
            "name": metadata.get("name", ""),
            "namespace": metadata.get("namespace") or "default",
            "labels": kube.format_key_values(metadata.get("labels")),
            "priority": spec.get("priority"),
            "priority_class_name": spec.get("priorityClassName", ""),
            "scheduler_name": spec.get("schedulerName", ""),
            "node_name": spec.get("nodeName", ""),
            "node_selector": kube.format_key_values(spec.get("nodeSelector")),
            "required_node_affinity": "\n".join(
                kube.format_requirements(t.get("matchExpressions"), sep="; ")
                for t in required.get("nodeSelectorTerms") or []
            ),
            "preferred_node_affinity": "\n".join(
                f"{p.get('weight', 1)}: "
                f"{kube.format_requirements((p.get('preference') or {}).get('matchExpressions'), sep='; ')}"  # noqa: E501
                for p in node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []
            ),
            "pod_affinity": _format_affinity(affinity.get("podAffinity")),
            "pod_anti_affinity": _format_affinity(affinity.get("podAntiAffinity")),
            "tolerations": kube.format_tolerations(spec.get("tolerations")),
            "topology_spread": _format_spread(spec.get("topologySpreadConstraints")),
            "scheduling_gates": ", ".join(
                g.get("name", "") for g in spec.get("schedulingGates") or []
            ),
        }
        for i, container in enumerate(spec.get("containers") or []):
            resources = container.get("resources") or {}
            requests = dict(resources.get("requests") or {})
            limits = resources.get("limits") or {}
            initial.update(
                {
                    f"c{i}_name": container.get("name", ""),
                    f"c{i}_image": container.get("image", ""),
                    f"c{i}_cpu_request": requests.pop("cpu", ""),
                    f"c{i}_memory_request": requests.pop("memory", ""),
                    f"c{i}_cpu_limit": limits.get("cpu", ""),
                    f"c{i}_memory_limit": limits.get("memory", ""),
                    f"c{i}_other_requests": ", ".join(f"{k}={v}" for k, v in requests.items()),
                    f"c{i}_host_ports": ", ".join(
                        str(p["hostPort"])
                        + (f"/{p['protocol']}" if p.get("protocol", "TCP") != "TCP" else "")
                        for p in container.get("ports") or []
                        if p.get("hostPort")
                    ),
                }
            )
        return initial


GZIP_MAGIC: Final = b"\x1f\x8b"


def upload_text(upload: Any) -> tuple[str, bool]:
    """An uploaded file's text, unzipped if it is gzip; and whether it was.

    A gzip file may unzip to PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES, no more (read in steps, so a
    small file that unzips to gigabytes is refused without being unzipped whole).
    """
    raw = upload.read()
    zipped = raw[:2] == GZIP_MAGIC
    if zipped:
        limit = settings.PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = inflater.decompress(raw, limit + 1)
        except zlib.error as err:
            raise forms.ValidationError(f"{upload.name} is not a valid gzip file: {err}") from err
        if len(raw) > limit or inflater.unconsumed_tail:
            raise forms.ValidationError(
                f"{upload.name} unzips to more than {limit:,} bytes; import it with "
                "`python manage.py import_cluster FILE --name NAME`"
            )
    try:
        return raw.decode("utf-8"), zipped
    except UnicodeDecodeError as err:
        raise forms.ValidationError(f"{upload.name} is not UTF-8 text") from err


class ImportForm(forms.Form):
    manifests = forms.CharField(
        required=False,
        widget=_textarea(14, "apiVersion: v1\nkind: Node\n..."),
        label="Paste YAML or JSON",
        help_text="one object, several documents separated by ---, a List, or kubectl get -o yaml",
    )
    file = forms.FileField(required=False, label="or upload a file")

    def __init__(self, *args: Any, oversized: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.oversized = oversized or []

    def clean_file(self) -> Any:
        from .services import too_big_message

        upload = self.cleaned_data.get("file")
        limit = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if self.oversized:
            raise forms.ValidationError(too_big_message(self.oversized[0], None, limit))
        if upload is not None and upload.size > limit:
            raise forms.ValidationError(too_big_message(upload.name, upload.size, limit))
        return upload

    def clean_manifests(self) -> str:
        text = self.cleaned_data.get("manifests") or ""
        limit = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if len(text.encode("utf-8")) > limit:
            raise forms.ValidationError(f"the pasted text is over the limit of {limit:,} bytes")
        return text

    def _read_text(self, data: dict[str, Any], *, read_file: bool) -> None:
        """``text`` from the file (gzip or not) or the pasted manifests, and its size ``limit``."""
        upload = data.get("file")
        data["limit"] = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if upload is not None and read_file:
            try:
                data["text"], zipped = upload_text(upload)
            except forms.ValidationError as err:
                self.add_error("file", err)
            else:
                if zipped:
                    data["limit"] = settings.PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES
        else:
            data["text"] = data.get("manifests") or ""

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._read_text(data, read_file=not self.errors)
        if not self.errors and not data["text"].strip():
            raise forms.ValidationError("paste some YAML or choose a file")
        return data


class NewClusterForm(ClusterForm, ImportForm):
    """A cluster's name plus, optionally, manifests to start it with."""

    def clean(self) -> dict[str, Any]:
        data = forms.Form.clean(self)
        self._read_text(data, read_file="file" not in self.errors)
        return data


# --- profiles -------------------------------------------------------------------------------

# The profile form's extension points in the wire format, multiPoint first.
EXTENSION_POINTS = ("multiPoint", *(w for _, w in config_io.EXTENSION_POINTS if w != "multiPoint"))
# (plugin, args key) -> profile form field; the reverse is used to put upstream messages next to
# the field they concern.
ARG_FIELDS = {
    ("NodeResourcesFit", "scoringStrategy.type"): "fit_strategy",
    ("NodeResourcesFit", "scoringStrategy.resources"): "fit_resources",
    ("NodeResourcesBalancedAllocation", "resources"): "balanced_resources",
    ("PodTopologySpread", "defaultingType"): "spread_defaulting",
    ("PodTopologySpread", "defaultConstraints"): "spread_constraints",
    ("InterPodAffinity", "hardPodAffinityWeight"): "hard_pod_affinity_weight",
    ("InterPodAffinity", "ignorePreferredTermsOfExistingPods"): "ignore_preferred_terms",
    ("DefaultPreemption", "minCandidateNodesPercentage"): "min_candidate_percentage",
    ("DefaultPreemption", "minCandidateNodesAbsolute"): "min_candidate_absolute",
    ("NodeAffinity", "addedAffinity"): "added_affinity",
    ("VolumeBinding", "bindTimeoutSeconds"): "bind_timeout_seconds",
}


def _plugin_lines(text: str, *, weights: bool) -> list[dict[str, Any]]:
    """``Name`` or ``Name:weight`` per line, in order; ``*`` means every plugin."""
    plugins = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, weight = line.partition(":")
        entry: dict[str, Any] = {"name": name.strip()}
        if sep:
            if not weights:
                raise kube.SyntaxProblem(f"line {number}: disabled plugins have no weight")
            try:
                entry["weight"] = int(weight.strip())
            except ValueError:
                raise kube.SyntaxProblem(
                    f"line {number}: weight {weight.strip()!r} is not a whole number"
                ) from None
        if not re.fullmatch(r"\*|[A-Za-z0-9][A-Za-z0-9_.\-/]*", entry["name"]):
            raise kube.SyntaxProblem(f"line {number}: {entry['name']!r} is not a plugin name")
        plugins.append(entry)
    return plugins


def _format_plugins(plugins: list[dict[str, Any]] | None) -> str:
    return "\n".join(
        p.get("name", "") + (f":{p['weight']}" if p.get("weight") is not None else "")
        for p in plugins or []
    )


def _weights_lines(text: str) -> list[dict[str, Any]]:
    values = _line_field(lambda t: kube.parse_key_values(t, labels=False), text)
    out = []
    for name, weight in values.items():
        try:
            out.append({"name": name, "weight": int(weight)})
        except ValueError:
            raise forms.ValidationError(
                f"{name}: weight {weight!r} is not a whole number"
            ) from None
    return out


class SchedulerProfileForm(forms.Form):
    """One entry of ``profiles``: plugin sets per extension point and typed plugin args.

    A blank args field means "upstream default"; the effective configuration shows its value.
    """

    scheduler_name = forms.CharField(max_length=253, label="schedulerName")
    percentage_of_nodes_to_score = forms.IntegerField(
        required=False, label="percentageOfNodesToScore"
    )
    fit_strategy = forms.ChoiceField(
        required=False,
        label="NodeResourcesFit scoring strategy",
        choices=[
            ("", "(default: LeastAllocated)"),
            ("LeastAllocated", "LeastAllocated"),
            ("MostAllocated", "MostAllocated"),
            ("RequestedToCapacityRatio", "RequestedToCapacityRatio"),
        ],
    )
    fit_resources = forms.CharField(
        required=False,
        widget=_textarea(2, "cpu=1\nmemory=1"),
        label="NodeResourcesFit resources",
        help_text="resource=weight, one per line",
    )
    balanced_resources = forms.CharField(
        required=False,
        widget=_textarea(2, "cpu=1\nmemory=1"),
        label="NodeResourcesBalancedAllocation resources",
    )
    spread_defaulting = forms.ChoiceField(
        required=False,
        label="PodTopologySpread defaultingType",
        choices=[("", "(default: System)"), ("System", "System"), ("List", "List")],
    )
    spread_constraints = forms.CharField(
        required=False,
        widget=_textarea(2, "1 topology.kubernetes.io/zone ScheduleAnyway"),
        label="PodTopologySpread defaultConstraints",
        help_text="MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway, one per line",
    )
    hard_pod_affinity_weight = forms.IntegerField(
        required=False, label="InterPodAffinity hardPodAffinityWeight"
    )
    ignore_preferred_terms = forms.NullBooleanField(
        required=False, label="InterPodAffinity ignorePreferredTermsOfExistingPods"
    )
    min_candidate_percentage = forms.IntegerField(
        required=False, label="DefaultPreemption minCandidateNodesPercentage"
    )
    min_candidate_absolute = forms.IntegerField(
        required=False, label="DefaultPreemption minCandidateNodesAbsolute"
    )
    added_affinity = forms.CharField(
        required=False,
        widget=_textarea(2, "node-role.kubernetes.io/worker"),
        label="NodeAffinity addedAffinity (required)",
        help_text="one node selector term per line; requirements joined by ';'",
    )
    bind_timeout_seconds = forms.IntegerField(
        required=False, label="VolumeBinding bindTimeoutSeconds"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for point in EXTENSION_POINTS:
            self.fields[f"{point}_enabled"] = forms.CharField(
                required=False,
                widget=_textarea(3 if point in ("multiPoint", "score") else 2),
                label=f"{point} enabled",
                help_text="Name or Name:weight, one per line, in order",
            )
            self.fields[f"{point}_disabled"] = forms.CharField(
                required=False,
                widget=_textarea(2),
                label=f"{point} disabled",
                help_text="Name, or * for every default plugin",
            )

    def extension_point_fields(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        return [(p, self[f"{p}_enabled"], self[f"{p}_disabled"]) for p in EXTENSION_POINTS]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for point in EXTENSION_POINTS:
            for part in ("enabled", "disabled"):
                key = f"{point}_{part}"
                try:
                    data[key] = _plugin_lines(data.get(key) or "", weights=part == "enabled")
                except kube.SyntaxProblem as err:
                    self.add_error(key, str(err))
        for key, parser in (
            ("fit_resources", _weights_lines),
            ("balanced_resources", _weights_lines),
            ("spread_constraints", lambda t: _line_field(_parse_spread, t)),
            ("added_affinity", lambda t: _line_field(_parse_node_terms, t)),
        ):
            if key in data:
                try:
                    data[key] = parser(data[key] or "")
                except forms.ValidationError as err:
                    self.add_error(key, err)
        return data

    def to_profile(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """This profile in wire format, keeping what the form does not show from ``base``."""
        data = self.cleaned_data
        base = copy.deepcopy(base or {})
        profile: dict[str, Any] = {"schedulerName": data["scheduler_name"].strip()}
        if data.get("percentage_of_nodes_to_score") is not None:
            profile["percentageOfNodesToScore"] = data["percentage_of_nodes_to_score"]
        plugins: dict[str, Any] = {}
        for point in EXTENSION_POINTS:
            plugin_set = {}
            if data.get(f"{point}_enabled"):
                plugin_set["enabled"] = data[f"{point}_enabled"]
            if data.get(f"{point}_disabled"):
                plugin_set["disabled"] = data[f"{point}_disabled"]
            if plugin_set:
                plugins[point] = plugin_set
        if plugins:
            profile["plugins"] = plugins
        entries = {e.get("name"): e for e in base.get("pluginConfig") or []}
        order = [e.get("name") for e in base.get("pluginConfig") or []]
        values: dict[str, dict[str, Any]] = {}
        for (plugin, path), field in ARG_FIELDS.items():
            value = data.get(field)
            if value in (None, "", []):
                continue
            args = values.setdefault(plugin, {})
            head, _, tail = path.partition(".")
            if tail:
                args.setdefault(head, {})[tail] = value
            else:
                args[head] = value
        if "addedAffinity" in values.get("NodeAffinity", {}):
            values["NodeAffinity"]["addedAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": values["NodeAffinity"]["addedAffinity"]
                }
            }
        managed_keys = {
            p: {path.partition(".")[0] for (pl, path) in ARG_FIELDS if pl == p}
            for p, _ in ARG_FIELDS
        }
        for plugin in managed_keys:
            entry = entries.get(plugin)
            kept = {
                k: v
                for k, v in ((entry or {}).get("args") or {}).items()
                if k not in managed_keys[plugin] and k not in ("apiVersion", "kind")
            }
            if plugin == "NodeResourcesFit" and "scoringStrategy" in values.get(plugin, {}):
                old = ((entry or {}).get("args") or {}).get("scoringStrategy") or {}
                values[plugin]["scoringStrategy"] = {
                    **{k: v for k, v in old.items() if k not in ("type", "resources")},
                    **values[plugin]["scoringStrategy"],
                }
            args = {**kept, **values.get(plugin, {})}
            if args:
                entries[plugin] = {
                    "name": plugin,
                    "args": {
                        "apiVersion": "kubescheduler.config.k8s.io/v1",
                        "kind": f"{plugin}Args",
                        **args,
                    },
                }
                if plugin not in order:
                    order.append(plugin)
            else:
                entries.pop(plugin, None)
        plugin_config = [entries[n] for n in order if n in entries]
        if plugin_config:
            profile["pluginConfig"] = plugin_config
        for key, value in base.items():
            if key not in ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"):
                profile[key] = value
        return profile

    @staticmethod
    def initial_from_profile(profile: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "scheduler_name": profile.get("schedulerName", ""),
            "percentage_of_nodes_to_score": profile.get("percentageOfNodesToScore"),
        }
        plugins = profile.get("plugins") or {}
        for point in EXTENSION_POINTS:
            plugin_set = plugins.get(point) or {}
            initial[f"{point}_enabled"] = _format_plugins(plugin_set.get("enabled"))
            initial[f"{point}_disabled"] = _format_plugins(plugin_set.get("disabled"))
        args_of = {e.get("name"): e.get("args") or {} for e in profile.get("pluginConfig") or []}
        for (plugin, path), field in ARG_FIELDS.items():
            value: Any = args_of.get(plugin, {})
            for part in path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value is None:
                continue
            if field in ("fit_resources", "balanced_resources"):
                value = "\n".join(f"{r.get('name')}={r.get('weight', 1)}" for r in value)
            elif field == "spread_constraints":
                value = _format_spread(value)
            elif field == "added_affinity":
                terms = (value.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get(
                    "nodeSelectorTerms"
                ) or []
                value = "\n".join(
                    kube.format_requirements(t.get("matchExpressions"), sep="; ") for t in terms
                )
            initial[field] = value
        return initial


class ConfigurationForm(forms.Form):
    """The profile record and the top-level fields of its KubeSchedulerConfiguration."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=_textarea(2))
    percentage_of_nodes_to_score = forms.IntegerField(
        required=False, label="percentageOfNodesToScore"
    )
    parallelism = forms.IntegerField(required=False)
    extenders = forms.CharField(
        required=False,
        widget=_textarea(4, "- urlPrefix: http://..."),
        label="extenders (YAML list)",
    )
    config_yaml = forms.CharField(
        required=False, widget=_textarea(30), label="KubeSchedulerConfiguration YAML"
    )
    mode = forms.ChoiceField(
        choices=[("form", "form"), ("yaml", "yaml")], initial="form", widget=forms.HiddenInput
    )
    profile_count = forms.IntegerField(
        min_value=1, max_value=20, initial=1, widget=forms.HiddenInput
    )

    def clean_extenders(self) -> list[Any]:
        text = self.cleaned_data.get("extenders") or ""
        try:
            value = yaml_limits.load(text) if text.strip() else []
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise forms.ValidationError(
                f"{line}invalid YAML: {getattr(err, 'problem', err)}"
            ) from err
        if not isinstance(value, list):
            raise forms.ValidationError("extenders must be a YAML list")
        return value

    def clean_config_yaml(self) -> dict[str, Any] | None:
        text = self.cleaned_data.get("config_yaml") or ""
        if self.data.get("mode") != "yaml":
            try:
                value = yaml_limits.load(text) if text.strip() else None
            except yaml.YAMLError:
                return None
            return value if isinstance(value, dict) else None
        try:
            value = yaml_limits.load(text) if text.strip() else {}
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line = f"line {mark.line + 1}: " if mark is not None else ""
            raise forms.ValidationError(
                f"{line}invalid YAML: {getattr(err, 'problem', err)}"
            ) from err
        if not isinstance(value, dict):
            raise forms.ValidationError("must be a KubeSchedulerConfiguration mapping")
        return self._brought_forward(value)

    def _brought_forward(self, value: dict[str, Any]) -> dict[str, Any]:
        """An older configuration or a Policy, converted to v1 (``self.migration`` says how)."""
        from scheduler_core.config import ConfigError
        from scheduler_core.config.migrate import V1, migrate

        if value.get("apiVersion") in (None, V1) and value.get("kind") != "Policy":
            return value
        try:
            self.migration = migrate(value)
        except ConfigError:
            return value  # v1 validation reports the apiVersion as upstream would
        return self.migration.config

    migration: Any = None

    def to_config(self, profile_forms: list[SchedulerProfileForm]) -> dict[str, Any]:
        data = self.cleaned_data
        if data.get("mode") == "yaml":
            return data.get("config_yaml") or {}
        base = data.get("config_yaml") or {}
        base_profiles = base.get("profiles") or []
        config: dict[str, Any] = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
        }
        for key, value in base.items():
            if key not in (
                "apiVersion",
                "kind",
                "profiles",
                "extenders",
                "parallelism",
                "percentageOfNodesToScore",
            ):
                config[key] = value
        if data.get("parallelism") is not None:
            config["parallelism"] = data["parallelism"]
        if data.get("percentage_of_nodes_to_score") is not None:
            config["percentageOfNodesToScore"] = data["percentage_of_nodes_to_score"]
        config["profiles"] = [
            form.to_profile(base_profiles[i] if i < len(base_profiles) else None)
            for i, form in enumerate(profile_forms)
        ]
        if data.get("extenders"):
            config["extenders"] = data["extenders"]
        return config

    @staticmethod
    def initial_from_config(config: dict[str, Any]) -> dict[str, Any]:
        extenders = config.get("extenders")
        return {
            "percentage_of_nodes_to_score": config.get("percentageOfNodesToScore"),
            "parallelism": config.get("parallelism"),
            "extenders": manifests.dump_yaml(extenders) if extenders else "",
            "config_yaml": manifests.dump_yaml(config),
            "profile_count": max(1, len(config.get("profiles") or [])),
        }


def problem_field(config: dict[str, Any], path: str) -> tuple[str, str, int | None]:
    """Where an upstream message belongs: (form prefix, field name, line within that field).

    ``profiles[0].plugins.score.enabled[1].weight`` -> ("p0", "score_enabled", 2);
    unknown paths give ("", "", None) and are shown above the form.
    """
    if match := re.match(r"^profiles\[(\d+)\]\.(.*)$", path):
        index, rest = int(match.group(1)), match.group(2)
        prefix = f"p{index}"
        if m := re.match(r"^plugins\.(\w+)\.(enabled|disabled)\[(\d+)\]", rest):
            return prefix, f"{m.group(1)}_{m.group(2)}", int(m.group(3)) + 1
        if rest.startswith("plugins."):
            point = rest.split(".")[1]
            return prefix, f"{point}_enabled", None
        if rest.startswith("schedulerName"):
            return prefix, "scheduler_name", None
        if rest.startswith("percentageOfNodesToScore"):
            return prefix, "percentage_of_nodes_to_score", None
        if m := re.match(r"^pluginConfig\[(\d+)\](?:\.args\.?(.*))?$", rest):
            profiles = config.get("profiles") or []
            entries = profiles[index].get("pluginConfig") or [] if index < len(profiles) else []
            j = int(m.group(1))
            plugin = entries[j].get("name") if j < len(entries) else None
            args_path = m.group(2) or ""
            for (pl, key), field in ARG_FIELDS.items():
                if (
                    pl == plugin
                    and args_path
                    and (
                        args_path == key
                        or args_path.startswith(key + ".")
                        or args_path.startswith(key + "[")
                        or key.startswith(args_path.split("[")[0])
                    )
                ):
                    return prefix, field, None
            return prefix, "", None
        return prefix, "", None
    if path.startswith("percentageOfNodesToScore"):
        return "", "percentage_of_nodes_to_score", None
    if path.startswith("parallelism"):
        return "", "parallelism", None
    if path.startswith("extenders"):
        return "", "extenders", None
    return "", "", None
