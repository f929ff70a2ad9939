"""HTTP: clusters, their nodes, pods and other objects, import and export, sharing."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from ..inputs import manifests
from ..inputs.params import bounded_int, page_links
from ..inputs.uploads import SKIPPED_ATTR
from ..models import Cluster
from ..responses import yaml_response
from . import selectors, services
from .form_fields import parse_single_manifest
from .forms import ClusterForm, ImportForm, NewClusterForm
from .node_forms import NodeForm
from .pod_forms import PodForm

POD_CONTAINER_ROWS = 2


def _add_problems(form: Any, field: str | None, err: manifests.ManifestProblems) -> None:
    for problem in err.problems:
        target = field if field in form.fields else None
        if problem.path in form.fields:
            target = problem.path
        form.add_error(target, str(problem))


def _bound(request: HttpRequest) -> Any:
    """Form data for a POST, even an empty one (an upload the handler dropped leaves none)."""
    return request.POST if request.method == "POST" else None


def _oversized(request: HttpRequest) -> list[str]:
    """Files the upload handler dropped for being over the size cap."""
    if request.method != "POST":
        return []
    request.FILES  # noqa: B018  (parses the body, running the upload handlers)
    return list(getattr(request, SKIPPED_ATTR, []))


@login_required
def cluster_new(request: HttpRequest) -> HttpResponse:
    form = NewClusterForm(_bound(request), request.FILES or None, oversized=_oversized(request))
    if request.method == "POST" and form.is_valid():
        try:
            cluster, report = services.cluster_create_from_yaml(
                owner=request.user,
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
                text=form.cleaned_data["text"],
                limit=form.cleaned_data["limit"],
            )
        except manifests.ManifestProblems as err:
            _add_problems(form, "manifests", err)
        else:
            _report(request, report)
            return redirect("playground:cluster", pk=cluster.pk)
    return render(request, "playground/cluster_form.html", {"form": form, "creating": True})


def _report(request: HttpRequest, report: services.ImportReport) -> None:
    if report.total:
        parts = ", ".join(f"{n} {kind}" for kind, n in report.counts.items())
        if report.generated:
            text = gettext("Imported %(objects)s (%(generated)s created by controllers).")
        else:
            text = gettext("Imported %(objects)s.")
        messages.success(request, text % {"objects": parts, "generated": report.generated})
    for warning in report.warnings:
        messages.warning(request, str(warning))


PAGE_PARAMS = ("nodes", "pods", "objects")  # ?nodes=2&pods=1&objects=1: each list's page


def cluster_page_context(
    request: HttpRequest, cluster: Cluster, *, readonly: bool
) -> dict[str, Any]:
    """The cluster page's own data: nodes, pods and other objects a page of each at a time
    (``selectors.CLUSTER_PAGE`` rows), so a cluster of 60,000 nodes is a page of 200.

    The page itself (with its runs, profiles and devices) is ``playground.views.cluster_detail``.
    """
    number = {name: bounded_int(request.GET.get(name), 1, low=1) for name in PAGE_PARAMS}
    pages = {
        "nodes": selectors.node_page(cluster, number["nodes"]),
        "pods": selectors.pod_page(cluster, number["pods"]),
        "objects": selectors.object_page(cluster, number["objects"]),
    }
    return {
        "cluster": cluster,
        **{name: page.rows for name, page in pages.items()},
        **{f"{name}_page": page for name, page in pages.items()},
        **{
            f"{name}_links": page_links(request.GET, name, page.number, page.pages)
            for name, page in pages.items()
        },
        "readonly": readonly,
    }


def shared_cluster_export(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    cluster = selectors.cluster_by_share_token(token)
    return yaml_response(selectors.cluster_export_yaml(cluster), f"{cluster.name}.yaml")


def cluster_export(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    return yaml_response(selectors.cluster_export_yaml(cluster), f"{cluster.name}.yaml")


@login_required
def cluster_edit(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    form = ClusterForm(
        request.POST or None, initial={"name": cluster.name, "description": cluster.description}
    )
    if request.method == "POST" and form.is_valid():
        cluster = services.cluster_update(
            cluster=cluster,
            user=request.user,
            name=form.cleaned_data["name"],
            description=form.cleaned_data["description"],
        )
        return redirect("playground:cluster", pk=cluster.pk)
    return render(request, "playground/cluster_form.html", {"form": form, "cluster": cluster})


@login_required
@require_POST
def cluster_delete(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    if cluster.owner_id != request.user.pk:
        messages.error(request, gettext("Demo clusters cannot be deleted."))
        return redirect("playground:cluster", pk=cluster.pk)
    services.cluster_delete(cluster=cluster, user=request.user)
    messages.success(request, gettext("Deleted cluster %(name)s.") % {"name": cluster.name})
    return redirect("playground:home")


@login_required
@require_POST
def cluster_copy(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    copy = services.cluster_copy(cluster=cluster, owner=request.user)
    return redirect("playground:cluster", pk=copy.pk)


@login_required
@require_POST
def cluster_share(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    if cluster.owner_id != request.user.pk:
        messages.error(request, gettext("Copy a demo cluster before sharing it."))
    else:
        services.cluster_set_sharing(
            cluster=cluster, user=request.user, shared=request.POST.get("shared") == "1"
        )
    return redirect("playground:cluster", pk=cluster.pk)


@login_required
@require_POST
def cluster_reset_pods(request: HttpRequest, pk: int) -> HttpResponse:
    """Every pod of the cluster back to pending (runs never bind them; applied runs do)."""
    cluster = selectors.cluster_for_user(request.user, pk)
    cluster, count = services.cluster_reset_pods(cluster=cluster, user=request.user)
    messages.success(
        request,
        ngettext("%(count)s pod set back to pending.", "%(count)s pods set back to pending.", count)
        % {"count": count},
    )
    return redirect("playground:cluster", pk=cluster.pk)


@login_required
def cluster_import(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    form = ImportForm(_bound(request), request.FILES or None, oversized=_oversized(request))
    if request.method == "POST" and form.is_valid():
        try:
            cluster, report = services.cluster_import_yaml(
                cluster=cluster,
                user=request.user,
                text=form.cleaned_data["text"],
                limit=form.cleaned_data["limit"],
            )
        except manifests.ManifestProblems as err:
            _add_problems(form, "manifests", err)
        else:
            _report(request, report)
            return redirect("playground:cluster", pk=cluster.pk)
    return render(request, "playground/import.html", {"form": form, "cluster": cluster})


# --- nodes and pods -------------------------------------------------------------------------


def _pane_yaml(manifest: dict[str, Any]) -> str:
    return manifests.dump_yaml(manifest)


@login_required
def node_form(request: HttpRequest, pk: int, name: str | None = None) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    node = selectors.node_in_cluster(cluster, name) if name else None
    if request.method == "POST":
        form = NodeForm(request.POST, allow_count=node is None)
        if form.is_valid():
            try:
                cluster, nodes = services.node_save(
                    cluster=cluster,
                    user=request.user,
                    manifest=form.cleaned_data["manifest"],
                    original_name=name,
                    count=form.cleaned_data.get("count") or 1,
                )
            except manifests.ManifestProblems as err:
                _add_problems(
                    form, "manifest_yaml" if form.cleaned_data["mode"] == "yaml" else None, err
                )
            else:
                names = ", ".join(n.name for n in nodes[:5]) + (" ..." if len(nodes) > 5 else "")
                messages.success(
                    request,
                    gettext("Saved %(count)s node(s): %(names)s.")
                    % {"count": len(nodes), "names": names},
                )
                return redirect("playground:cluster", pk=cluster.pk)
    else:
        manifest = node.manifest if node else None
        initial = (
            NodeForm.initial_from_manifest(manifest)
            if manifest
            else {"cpu": "4", "memory": "16Gi", "pods": "110", "count": 1}
        )
        form = NodeForm(initial=initial, allow_count=node is None)
        if manifest is None:
            probe = NodeForm({**initial, "name": "node", "mode": "form"})
            probe.is_valid()
            manifest = probe.to_manifest() if not probe.errors else {}
            manifest["metadata"]["name"] = ""
        form.initial["manifest_yaml"] = _pane_yaml(manifest)
    return render(
        request,
        "playground/node_form.html",
        {"form": form, "cluster": cluster, "node": node, "kind": "node"},
    )


@login_required
def pod_form(
    request: HttpRequest, pk: int, namespace: str | None = None, name: str | None = None
) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    pod = selectors.pod_in_cluster(cluster, namespace, name) if name else None
    workload = request.resolver_match.url_name == "workload_new"
    rows = POD_CONTAINER_ROWS
    if pod:
        rows = max(rows, len((pod.manifest.get("spec") or {}).get("containers") or []) + 1)
    if request.method == "POST":
        form = PodForm(request.POST, container_rows=rows, allow_replicas=workload)
        if form.is_valid():
            try:
                if workload:
                    cluster, report = services.workload_create(
                        cluster=cluster,
                        user=request.user,
                        pod_manifest=form.cleaned_data["manifest"],
                        replicas=form.cleaned_data["replicas"],
                        kind=form.cleaned_data["workload_kind"],
                        min_count=form.cleaned_data.get("min_count"),
                    )
                    _report(request, report)
                else:
                    cluster, saved = services.pod_save(
                        cluster=cluster,
                        user=request.user,
                        manifest=form.cleaned_data["manifest"],
                        original=(pod.namespace, pod.name) if pod else None,
                    )
                    messages.success(request, gettext("Saved pod %(pod)s.") % {"pod": saved})
            except manifests.ManifestProblems as err:
                _add_problems(
                    form, "manifest_yaml" if form.cleaned_data["mode"] == "yaml" else None, err
                )
            else:
                return redirect("playground:cluster", pk=cluster.pk)
    else:
        initial: dict[str, Any]
        if pod:
            initial = PodForm.initial_from_manifest(pod.manifest)
            manifest = pod.manifest
        else:
            initial = {
                "namespace": "default",
                "c0_name": "app",
                "c0_image": "registry.k8s.io/pause:3.10",
                "c0_cpu_request": "100m",
                "c0_memory_request": "128Mi",
                "replicas": 3,
            }
            manifest = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "", "namespace": "default"},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                        }
                    ]
                },
            }
        form = PodForm(initial=initial, container_rows=rows, allow_replicas=workload)
        form.initial["manifest_yaml"] = _pane_yaml(manifest)
    return render(
        request,
        "playground/pod_form.html",
        {"form": form, "cluster": cluster, "pod": pod, "kind": "pod", "workload": workload},
    )


@login_required
@require_POST
def node_delete(request: HttpRequest, pk: int, name: str) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    selectors.node_in_cluster(cluster, name)
    cluster = services.node_delete(cluster=cluster, user=request.user, name=name)
    return redirect("playground:cluster", pk=cluster.pk)


@login_required
@require_POST
def pod_delete(request: HttpRequest, pk: int, namespace: str, name: str) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    selectors.pod_in_cluster(cluster, namespace, name)
    cluster = services.pod_delete(
        cluster=cluster, user=request.user, namespace=namespace, name=name
    )
    return redirect("playground:cluster", pk=cluster.pk)


@login_required
@require_POST
def object_delete(request: HttpRequest, pk: int, object_pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    obj = selectors.object_in_cluster(cluster, object_pk)
    cluster = services.object_delete(
        cluster=cluster, user=request.user, kind=obj.kind, namespace=obj.namespace, name=obj.name
    )
    return redirect("playground:cluster", pk=cluster.pk)


@require_POST
def manifest_sync(request: HttpRequest, kind: str) -> JsonResponse:
    """The YAML pane and the form in step: ``direction=to_yaml`` or ``to_form``."""
    form_class: Any = {"node": NodeForm, "pod": PodForm}.get(kind)
    if form_class is None:
        return JsonResponse({"error": "unknown kind"}, status=404)
    kwargs: dict[str, Any] = {}
    if kind == "pod":
        kwargs["container_rows"] = POD_CONTAINER_ROWS
    if request.POST.get("direction") == "to_form":
        kube_kind = "Node" if kind == "node" else "Pod"
        try:
            manifest = parse_single_manifest(request.POST.get("manifest_yaml", ""), kube_kind)
        except ValidationError as err:
            return JsonResponse({"errors": {"manifest_yaml": err.messages}}, status=400)
        fields = form_class.initial_from_manifest(manifest)
        return JsonResponse(
            {"fields": {k: ("" if v is None else v) for k, v in fields.items()}, "errors": {}}
        )
    data = request.POST.copy()
    data["mode"] = "form"
    form = form_class(data, **kwargs)
    if not form.is_valid():
        errors = {k: [str(m) for m in v] for k, v in form.errors.items()}
        return JsonResponse({"errors": errors}, status=400)
    return JsonResponse({"yaml": _pane_yaml(form.cleaned_data["manifest"]), "errors": {}})
