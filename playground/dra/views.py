"""The DRA pages: add a device pool to a node, add a claim (optionally to a pod).

A run's devices as JSON (``runs/<ref>/devices.json``) is a run endpoint: ``runs/http/views.py``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from ..clusters import selectors, services
from ..inputs import manifests
from ..models import Cluster
from . import forms as dra_forms

# Where a claim's field paths land in ClaimForm (the rest become form-wide errors).
_CLAIM_FIELDS = {
    "spec.devices.requests[0].exactly.selectors[0].cel.expression": "selector",
    "spec.devices.requests[0].exactly.count": "count",
    "spec.devices.constraints[0].matchAttribute": "same_attribute",
    "metadata.name": "name",
    "pod": "pod",
}


def _classes(cluster: Cluster) -> list[str]:
    return list(
        cluster.kube_objects.filter(kind="DeviceClass")
        .order_by("name")
        .values_list("name", flat=True)
    )


def _report(form: Any, err: manifests.ManifestProblems, fields: dict[str, str]) -> None:
    for problem in err.problems:
        said = gettext("%(path)s: %(problem)s") % {"path": problem.path, "problem": problem.said}
        form.add_error(fields.get(problem.path), said)


def _page(request: HttpRequest, cluster: Cluster, form: Any, title: str) -> HttpResponse:
    return render(
        request, "playground/dra/form.html", {"form": form, "cluster": cluster, "title": title}
    )


@login_required
def device_pool_new(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    nodes = list(cluster.nodes.order_by("name").values_list("name", flat=True))
    form = dra_forms.DevicePoolForm(
        request.POST if request.method == "POST" else None, nodes=nodes, classes=_classes(cluster)
    )
    if request.method == "POST" and form.is_valid():
        try:
            cluster = services.dra_objects_create(
                cluster=cluster, user=request.user, objects=form.to_manifests()
            )
        except manifests.ManifestProblems as err:
            _report(form, err, {"metadata.name": "node"})
        else:
            count = form.cleaned_data["count"]
            messages.success(
                request,
                gettext("Added %(count)s device(s).") % {"count": count},
            )
            return redirect("playground:cluster", pk=cluster.pk)
    return _page(request, cluster, form, gettext("Add a device pool"))


@login_required
def claim_new(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    pods = [
        f"{ns}/{name}"
        for ns, name in cluster.pods.filter(node_name="")
        .order_by("namespace", "name")
        .values_list("namespace", "name")
    ]
    form = dra_forms.ClaimForm(
        request.POST if request.method == "POST" else None, classes=_classes(cluster), pods=pods
    )
    if request.method == "POST" and form.is_valid():
        pod_key = form.cleaned_data["pod"]
        namespace, _, name = pod_key.partition("/")
        pod = (namespace, name) if pod_key else None
        try:
            cluster = services.dra_objects_create(
                cluster=cluster,
                user=request.user,
                objects=[form.to_manifest()],
                pod=pod,
            )
        except manifests.ManifestProblems as err:
            _report(form, err, _CLAIM_FIELDS)
        else:
            messages.success(
                request, gettext("Added claim %(name)s.") % {"name": form.cleaned_data["name"]}
            )
            return redirect("playground:cluster", pk=cluster.pk)
    return _page(request, cluster, form, gettext("Add a resource claim"))
