"""The pod form: a Pod (or a workload of pods) with its containers, affinity and spread."""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml
from django import forms
from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from .. import engine
from ..forms import line_field, textarea
from ..inputs import kube, yaml_limits
from ..inputs.upstream import glossed
from .form_fields import (
    YamlPaneMixin,
    parse_single_manifest,
    resource_lines,
)
from .pod_parsing import (
    CONTAINER_FIELDS,
    format_affinity,
    format_spread,
    parse_affinity_terms,
    parse_node_terms,
    parse_preferred_node,
    parse_spread,
)

# A container row's quantity fields and their labels.
_QUANTITY_LABELS = {
    "cpu_request": gettext_lazy("cpu request"),
    "memory_request": gettext_lazy("memory request"),
    "cpu_limit": gettext_lazy("cpu limit"),
    "memory_limit": gettext_lazy("memory limit"),
}


# A list typed in one field: split at commas, and at the full-width comma and the enumeration
# comma a Chinese input method types ("a，b、c").
_ITEM_SEPARATOR = re.compile(r"[,，、]")


def _items(text: str) -> list[str]:
    return [item.strip() for item in _ITEM_SEPARATOR.split(text) if item.strip()]


class PodForm(YamlPaneMixin, forms.Form):
    name = forms.CharField(max_length=253, label=gettext_lazy("Name"))
    namespace = forms.CharField(max_length=63, initial="default", label=gettext_lazy("Namespace"))
    labels = forms.CharField(
        required=False,
        widget=textarea(2, "app=web"),
        label=gettext_lazy("Labels"),
        help_text=gettext_lazy("key=value, one per line"),
    )
    priority = forms.IntegerField(required=False, label=gettext_lazy("Priority"))
    priority_class_name = forms.CharField(required=False, label=gettext_lazy("Priority class name"))
    scheduler_name = forms.CharField(
        required=False,
        label="schedulerName",
        help_text=gettext_lazy("empty means default-scheduler"),
    )
    node_name = forms.CharField(
        required=False,
        label=gettext_lazy("Running on node"),
        help_text=gettext_lazy("set for a pod that is already bound (spec.nodeName)"),
    )
    node_selector = forms.CharField(
        required=False,
        widget=textarea(2, "disktype=ssd"),
        label=gettext_lazy("Node selector"),
        help_text=gettext_lazy("key=value, one per line"),
    )
    required_node_affinity = forms.CharField(
        required=False,
        widget=textarea(2, "topology.kubernetes.io/zone in (a,b); gpu"),
        label=gettext_lazy("Required node affinity"),
        help_text=gettext_lazy(
            "one node selector term per line (ORed); requirements joined by ';'"
        ),
    )
    preferred_node_affinity = forms.CharField(
        required=False,
        widget=textarea(2, "10: disktype=ssd"),
        label=gettext_lazy("Preferred node affinity"),
        help_text=gettext_lazy("WEIGHT: requirements, one per line"),
    )
    pod_affinity = forms.CharField(
        required=False,
        widget=textarea(2, "required topology.kubernetes.io/zone app=db"),
        label=gettext_lazy("Pod affinity"),
        help_text=gettext_lazy(
            "required TOPOLOGY_KEY SELECTOR | preferred WEIGHT TOPOLOGY_KEY SELECTOR"
        ),
    )
    pod_anti_affinity = forms.CharField(
        required=False,
        widget=textarea(2, "preferred 100 kubernetes.io/hostname app=web"),
        label=gettext_lazy("Pod anti affinity"),
        help_text=gettext_lazy("same syntax as pod affinity"),
    )
    tolerations = forms.CharField(
        required=False,
        widget=textarea(2, "gpu=true:NoSchedule"),
        label=gettext_lazy("Tolerations"),
        help_text=gettext_lazy(
            "key=value:Effect (Equal), key[:Effect] (Exists), * ; add ' for=SECONDS'"
        ),
    )
    topology_spread = forms.CharField(
        required=False,
        widget=textarea(2, "1 topology.kubernetes.io/zone DoNotSchedule app=web"),
        label=gettext_lazy("Topology spread"),
        help_text=gettext_lazy("MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway [SELECTOR]"),
    )
    scheduling_gates = forms.CharField(
        required=False,
        label=gettext_lazy("Scheduling gates"),
        help_text=gettext_lazy("gate names, comma separated"),
    )
    workload_ref = forms.CharField(
        required=False,
        label=gettext_lazy("Workload and pod group"),
        help_text=gettext_lazy(
            "WORKLOAD/POD_GROUP: the gang this pod belongs to (spec.workloadRef; gang "
            "scheduling, alpha in v1.35)"
        ),
    )

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
            self.fields[f"c{i}_name"] = forms.CharField(
                required=False, label=gettext("Container name")
            )
            self.fields[f"c{i}_image"] = forms.CharField(required=False, label=gettext("Image"))
            for part, label in _QUANTITY_LABELS.items():
                self.fields[f"c{i}_{part}"] = forms.CharField(required=False, label=label)
            self.fields[f"c{i}_other_requests"] = forms.CharField(
                required=False,
                label=gettext("other requests"),
                help_text=gettext("name=quantity, comma separated"),
            )
            self.fields[f"c{i}_host_ports"] = forms.CharField(
                required=False,
                label=gettext("host ports"),
                help_text=gettext("8080 or 53/UDP, comma separated"),
            )
        if allow_replicas:
            self.fields["replicas"] = forms.IntegerField(
                min_value=1,
                max_value=settings.PLAYGROUND_BULK_MAX,
                initial=3,
                label=gettext("Replicas"),
            )
            self.fields["workload_kind"] = forms.ChoiceField(
                choices=[
                    *((k, k) for k in ("Deployment", "StatefulSet", "ReplicaSet", "Job")),
                    ("Workload", gettext("Workload (a gang)")),
                ],
                initial="Deployment",
                label=gettext("as a"),
            )
            self.fields["min_count"] = forms.IntegerField(
                required=False,
                min_value=1,
                max_value=settings.PLAYGROUND_BULK_MAX,
                label=gettext("Gang minCount"),
                help_text=gettext(
                    "a Workload only: how many of the pods must fit together (empty: all); a "
                    "run schedules it as a gang with the GenericWorkload and GangScheduling "
                    "gates on"
                ),
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
        return line_field(kube.parse_key_values, self.cleaned_data["labels"])

    def clean_node_selector(self) -> dict[str, str]:
        return line_field(kube.parse_key_values, self.cleaned_data["node_selector"])

    def clean_required_node_affinity(self) -> list[dict[str, Any]]:
        return line_field(parse_node_terms, self.cleaned_data["required_node_affinity"])

    def clean_preferred_node_affinity(self) -> list[dict[str, Any]]:
        return line_field(parse_preferred_node, self.cleaned_data["preferred_node_affinity"])

    def clean_pod_affinity(self) -> list:
        return line_field(parse_affinity_terms, self.cleaned_data["pod_affinity"])

    def clean_pod_anti_affinity(self) -> list:
        return line_field(parse_affinity_terms, self.cleaned_data["pod_anti_affinity"])

    def clean_tolerations(self) -> list[dict[str, Any]]:
        return line_field(kube.parse_tolerations, self.cleaned_data["tolerations"])

    def clean_topology_spread(self) -> list[dict[str, Any]]:
        return line_field(parse_spread, self.cleaned_data["topology_spread"])

    def clean_workload_ref(self) -> dict[str, str] | None:
        """``WORKLOAD/POD_GROUP`` as spec.workloadRef (the API server checks the names)."""
        text = (self.cleaned_data.get("workload_ref") or "").strip()
        if not text:
            return None
        name, slash, group = (part.strip() for part in text.partition("/"))
        if not slash or not name or not group or "/" in group:
            raise forms.ValidationError(
                gettext("write WORKLOAD/POD_GROUP, for example train/workers")
            )
        return {"name": name, "podGroup": group}

    def clean_scheduling_gates(self) -> list[str]:
        gates = _items(self.cleaned_data["scheduling_gates"])
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
            where = gettext("container row %(row)s") % {"row": i + 1}
            name = row["name"] or f"c{i}"
            for message in kube.dns_subdomain_errors(name):
                self.add_error(f"c{i}_name", f"{where}: {message}")
            container: dict[str, Any] = {
                "name": name,
                "image": row["image"] or "registry.k8s.io/pause:3.10",
            }
            requests: dict[str, str] = {}
            limits: dict[str, str] = {}
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
                        self.add_error(f"c{i}_{part}", f"{where}: {key}: {glossed(err.message)}")
                    target[key] = row[part]
            if row["other_requests"]:
                try:
                    requests.update(resource_lines("\n".join(_items(row["other_requests"]))))
                except forms.ValidationError as err:
                    self.add_error(f"c{i}_other_requests", err)
            if requests or limits:
                container["resources"] = {}
                if requests:
                    container["resources"]["requests"] = requests
                if limits:
                    container["resources"]["limits"] = limits
            ports = []
            for item in _items(row["host_ports"]):
                number, _, protocol = item.partition("/")
                if not number.isdigit() or not 1 <= int(number) <= 65535:
                    self.add_error(
                        f"c{i}_host_ports",
                        gettext("%(where)s: %(item)s is not a port in 1-65535")
                        % {"where": where, "item": repr(item)},
                    )
                    continue
                port: dict[str, Any] = {"containerPort": int(number), "hostPort": int(number)}
                if protocol:
                    if protocol.upper() not in ("TCP", "UDP", "SCTP"):
                        self.add_error(
                            f"c{i}_host_ports",
                            gettext("%(where)s: protocol %(protocol)s")
                            % {"where": where, "protocol": repr(protocol)},
                        )
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
                if name not in ("manifest_yaml", "replicas", "workload_kind", "min_count"):
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
            "workloadRef",
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
        if data.get("workload_ref"):
            spec["workloadRef"] = data["workload_ref"]
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
            "pod_affinity": format_affinity(affinity.get("podAffinity")),
            "pod_anti_affinity": format_affinity(affinity.get("podAntiAffinity")),
            "tolerations": kube.format_tolerations(spec.get("tolerations")),
            "topology_spread": format_spread(spec.get("topologySpreadConstraints")),
            "scheduling_gates": ", ".join(
                g.get("name", "") for g in spec.get("schedulingGates") or []
            ),
            "workload_ref": _workload_ref_text(spec.get("workloadRef")),
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


def _workload_ref_text(ref: Any) -> str:
    if not isinstance(ref, dict) or not ref.get("name"):
        return ""
    return f"{ref.get('name', '')}/{ref.get('podGroup', '')}"
