"""HTTP layer: parse the request with a form, call one service or selector, render."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from . import engine, forms, manifests, selectors, services
from .custom_plugins.services import registry_for
from .lessons import selectors as lesson_selectors
from .models import Cluster
from .runs import selectors as run_selectors
from .uploads import SKIPPED_ATTR

POD_CONTAINER_ROWS = 2
RUNS_SHOWN = 50  # runs listed on a cluster page, newest first


def _yaml_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


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


def home(request: HttpRequest) -> HttpResponse:
    # The course's demo clusters and profiles are listed apart, folded, under the others.
    cluster_names, profile_names = lesson_selectors.lesson_content_names()
    clusters, lesson_clusters = lesson_selectors.split_lesson_content(
        selectors.clusters_for_user(request.user), cluster_names
    )
    profiles, lesson_profiles = lesson_selectors.split_lesson_content(
        selectors.profiles_for_user(request.user), profile_names
    )
    return render(
        request,
        "playground/home.html",
        {
            "clusters": clusters,
            "lesson_clusters": lesson_clusters,
            "profiles": profiles,
            "lesson_profiles": lesson_profiles,
        },
    )


def signup(request: HttpRequest) -> HttpResponse:
    form = forms.SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect("playground:home")
    return render(request, "registration/signup.html", {"form": form})


# --- clusters -------------------------------------------------------------------------------


@login_required
def cluster_new(request: HttpRequest) -> HttpResponse:
    form = forms.NewClusterForm(
        _bound(request), request.FILES or None, oversized=_oversized(request)
    )
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
        extra = f" ({report.generated} created by controllers)" if report.generated else ""
        messages.success(request, f"Imported {parts}{extra}.")
    for warning in report.warnings:
        messages.warning(request, str(warning))


def _cluster_context(cluster: Cluster, *, readonly: bool) -> dict[str, Any]:
    objects = list(cluster.kube_objects.all())
    return {
        "cluster": cluster,
        "nodes": selectors.node_rows(cluster),
        "pods": selectors.pod_rows(cluster),
        "objects": objects,
        "devices": selectors.cluster_devices(cluster),
        "readonly": readonly,
    }


def cluster_detail(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    context = _cluster_context(cluster, readonly=False)
    context["is_owner"] = request.user.is_authenticated and cluster.owner_id == request.user.pk
    context["profiles"] = selectors.profiles_for_user(request.user)
    context["runs"] = run_selectors.runs_for_cluster(user=request.user, cluster=cluster)[
        :RUNS_SHOWN
    ]
    if context["is_owner"] and cluster.share_token:
        context["share_url"] = request.build_absolute_uri(
            reverse("playground:shared_cluster", args=[cluster.share_token])
        )
    return render(request, "playground/cluster_detail.html", context)


def shared_cluster(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    cluster = selectors.cluster_by_share_token(token)
    context = _cluster_context(cluster, readonly=True)
    context["share_token"] = token
    return render(request, "playground/cluster_detail.html", context)


def shared_cluster_export(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    cluster = selectors.cluster_by_share_token(token)
    return _yaml_response(selectors.cluster_export_yaml(cluster), f"{cluster.name}.yaml")


def cluster_export(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    return _yaml_response(selectors.cluster_export_yaml(cluster), f"{cluster.name}.yaml")


@login_required
def cluster_edit(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    form = forms.ClusterForm(
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
        messages.error(request, "Demo clusters cannot be deleted.")
        return redirect("playground:cluster", pk=cluster.pk)
    services.cluster_delete(cluster=cluster, user=request.user)
    messages.success(request, f"Deleted cluster {cluster.name}.")
    return redirect("playground:home")


@login_required
@require_POST
def cluster_copy(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    copy = services.cluster_copy(cluster=cluster, owner=request.user, name=f"{cluster.name} (copy)")
    return redirect("playground:cluster", pk=copy.pk)


@login_required
@require_POST
def cluster_share(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    if cluster.owner_id != request.user.pk:
        messages.error(request, "Copy a demo cluster before sharing it.")
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
    messages.success(request, f"{count} pod{'s' if count != 1 else ''} set back to pending.")
    return redirect("playground:cluster", pk=cluster.pk)


@login_required
def cluster_import(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = selectors.cluster_for_user(request.user, pk)
    form = forms.ImportForm(_bound(request), request.FILES or None, oversized=_oversized(request))
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
        form = forms.NodeForm(request.POST, allow_count=node is None)
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
                messages.success(
                    request,
                    f"Saved {len(nodes)} node(s): "
                    f"{', '.join(n.name for n in nodes[:5])}"
                    f"{' ...' if len(nodes) > 5 else ''}.",
                )
                return redirect("playground:cluster", pk=cluster.pk)
    else:
        manifest = node.manifest if node else None
        initial = (
            forms.NodeForm.initial_from_manifest(manifest)
            if manifest
            else {"cpu": "4", "memory": "16Gi", "pods": "110", "count": 1}
        )
        form = forms.NodeForm(initial=initial, allow_count=node is None)
        if manifest is None:
            probe = forms.NodeForm({**initial, "name": "node", "mode": "form"})
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
        form = forms.PodForm(request.POST, container_rows=rows, allow_replicas=workload)
        if form.is_valid():
            try:
                if workload:
                    cluster, report = services.workload_create(
                        cluster=cluster,
                        user=request.user,
                        pod_manifest=form.cleaned_data["manifest"],
                        replicas=form.cleaned_data["replicas"],
                        kind=form.cleaned_data["workload_kind"],
                    )
                    _report(request, report)
                else:
                    cluster, saved = services.pod_save(
                        cluster=cluster,
                        user=request.user,
                        manifest=form.cleaned_data["manifest"],
                        original=(pod.namespace, pod.name) if pod else None,
                    )
                    messages.success(request, f"Saved pod {saved}.")
            except manifests.ManifestProblems as err:
                _add_problems(
                    form, "manifest_yaml" if form.cleaned_data["mode"] == "yaml" else None, err
                )
            else:
                return redirect("playground:cluster", pk=cluster.pk)
    else:
        initial: dict[str, Any]
        if pod:
            initial = forms.PodForm.initial_from_manifest(pod.manifest)
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
        form = forms.PodForm(initial=initial, container_rows=rows, allow_replicas=workload)
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
    form_class = {"node": forms.NodeForm, "pod": forms.PodForm}.get(kind)
    if form_class is None:
        return JsonResponse({"error": "unknown kind"}, status=404)
    kwargs: dict[str, Any] = {}
    if kind == "pod":
        kwargs["container_rows"] = POD_CONTAINER_ROWS
    if request.POST.get("direction") == "to_form":
        kube_kind = "Node" if kind == "node" else "Pod"
        try:
            manifest = forms.parse_single_manifest(request.POST.get("manifest_yaml", ""), kube_kind)
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


# --- profiles -------------------------------------------------------------------------------


def _profile_forms(
    data: Any, config: dict[str, Any] | None
) -> tuple[forms.ConfigurationForm, list[forms.SchedulerProfileForm]]:
    if data is not None:
        top = forms.ConfigurationForm(data)
        try:
            count = max(1, min(20, int(data.get("profile_count", 1))))
        except ValueError:
            count = 1
        return top, [forms.SchedulerProfileForm(data, prefix=f"p{i}") for i in range(count)]
    config = config or {}
    profiles = config.get("profiles") or [{"schedulerName": "default-scheduler"}]
    top = forms.ConfigurationForm(initial=forms.ConfigurationForm.initial_from_config(config))
    return top, [
        forms.SchedulerProfileForm(
            initial=forms.SchedulerProfileForm.initial_from_profile(p), prefix=f"p{i}"
        )
        for i, p in enumerate(profiles)
    ]


def _evaluate_forms(
    top: forms.ConfigurationForm, entries: list[forms.SchedulerProfileForm], user: Any
) -> tuple[dict[str, Any] | None, engine.ConfigResult | None]:
    valid = top.is_valid()
    if top.cleaned_data.get("mode") != "yaml":
        valid = all([e.is_valid() for e in entries]) and valid
    if not valid:
        return None, None
    config = top.to_config(entries)
    return config, engine.evaluate_config(config, registry=registry_for(user))


def _place_problems(
    config: dict[str, Any],
    result: engine.ConfigResult,
    top: forms.ConfigurationForm,
    entries: list[forms.SchedulerProfileForm],
) -> list[dict[str, Any]]:
    placed = []
    yaml_mode = top.cleaned_data.get("mode") == "yaml"
    for problem in result.problems:
        prefix, field, line = forms.problem_field(config, problem.path)
        text = f"{problem.path}: {problem.message}" if problem.path else problem.message
        if line is not None:
            text = f"line {line}: {text}"
        target = ""
        if not yaml_mode and field:
            if prefix:
                index = int(prefix[1:])
                if index < len(entries) and field in entries[index].fields:
                    target = f"{prefix}-{field}"
            elif field in top.fields:
                target = field
        placed.append(
            {"path": problem.path, "message": problem.message, "field": target, "text": text}
        )
    return placed


def _apply_problems(
    placed: list[dict[str, Any]],
    top: forms.ConfigurationForm,
    entries: list[forms.SchedulerProfileForm],
) -> None:
    for item in placed:
        field = item["field"]
        if "-" in field:
            prefix, name = field.split("-", 1)
            entries[int(prefix[1:])].add_error(name, item["text"])
        elif field:
            top.add_error(field, item["text"])
        else:
            top.add_error(
                "config_yaml" if top.cleaned_data.get("mode") == "yaml" else None, item["text"]
            )


def _profile_page(request: HttpRequest, profile: Any) -> HttpResponse:
    if request.method == "POST":
        top, entries = _profile_forms(request.POST, None)
        if request.POST.get("action") == "add_profile":
            count = len(entries) + 1
            data = request.POST.copy()
            data["profile_count"] = str(count)
            data[f"p{count - 1}-scheduler_name"] = f"profile-{count}"
            top, entries = _profile_forms(data, None)
            return render(
                request,
                "playground/profile_form.html",
                {
                    "top": top,
                    "entries": entries,
                    "profile": profile,
                    "plugin_names": engine.plugin_names(registry_for(request.user)),
                },
            )
        config, result = _evaluate_forms(top, entries, request.user)
        if config is not None and result is not None:
            if result.ok:
                data = top.cleaned_data
                if profile is None:
                    saved = services.profile_create(
                        owner=request.user,
                        name=data["name"],
                        description=data["description"],
                        config=config,
                    )
                else:
                    saved = services.profile_update(
                        profile=profile,
                        user=request.user,
                        name=data["name"],
                        description=data["description"],
                        config=config,
                    )
                if top.migration is not None:
                    messages.info(
                        request,
                        f"Converted from {top.migration.source}: "
                        + "; ".join(top.migration.changes or ("no changes",)),
                    )
                messages.success(request, f"Saved profile {saved.name}.")
                return redirect("playground:profile", pk=saved.pk)
            _apply_problems(_place_problems(config, result, top, entries), top, entries)
    else:
        config = (
            profile.config
            if profile
            else {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler"}],
            }
        )
        top, entries = _profile_forms(None, config)
        top.initial.update(
            {
                "name": profile.name if profile else "",
                "description": profile.description if profile else "",
            }
        )
    effective = None
    if profile is not None and request.method == "GET":
        result = engine.evaluate_config(profile.config, registry=registry_for(profile.owner))
        effective = manifests.dump_yaml(result.effective) if result.effective else None
    return render(
        request,
        "playground/profile_form.html",
        {
            "top": top,
            "entries": entries,
            "profile": profile,
            "effective": effective,
            "plugin_names": engine.plugin_names(registry_for(request.user)),
        },
    )


@login_required
def profile_new(request: HttpRequest) -> HttpResponse:
    return _profile_page(request, None)


def profile_detail(request: HttpRequest, pk: int) -> HttpResponse:
    profile = selectors.profile_for_user(request.user, pk)
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    return _profile_page(request, profile)


def profile_export(request: HttpRequest, pk: int) -> HttpResponse:
    profile = selectors.profile_for_user(request.user, pk)
    effective = request.GET.get("effective") == "1"
    return _yaml_response(
        selectors.profile_export_yaml(profile, effective=effective), f"{profile.name}.yaml"
    )


@login_required
@require_POST
def profile_delete(request: HttpRequest, pk: int) -> HttpResponse:
    profile = selectors.profile_for_user(request.user, pk)
    if profile.owner_id != request.user.pk:
        messages.error(request, "Demo profiles cannot be deleted.")
        return redirect("playground:profile", pk=profile.pk)
    services.profile_delete(profile=profile, user=request.user)
    return redirect("playground:home")


@require_POST
def profile_effective(request: HttpRequest) -> JsonResponse:
    """Live view: the submitted editor state after upstream defaulting, or its problems."""
    data = request.POST.copy()
    data["name"] = data.get("name") or "unsaved"  # the live view does not need a name yet
    top, entries = _profile_forms(data, None)
    config, result = _evaluate_forms(top, entries, request.user)
    if config is None or result is None:
        errors = {k: [str(m) for m in v] for k, v in top.errors.items() if k != "name"}
        for entry in entries:
            errors.update(
                {f"{entry.prefix}-{k}": [str(m) for m in v] for k, v in entry.errors.items()}
            )
        return JsonResponse({"ok": False, "errors": errors, "problems": []})
    placed = _place_problems(config, result, top, entries)
    fields: dict[str, Any] = {}
    if top.cleaned_data.get("mode") == "yaml":
        # The YAML pane was edited: send the form fields that now describe the same config.
        initial = forms.ConfigurationForm.initial_from_config(config)
        fields = {k: v for k, v in initial.items() if k != "config_yaml"}
        for i, profile in enumerate(config.get("profiles") or []):
            for key, value in forms.SchedulerProfileForm.initial_from_profile(profile).items():
                fields[f"p{i}-{key}"] = value
        fields = {k: "" if v is None else v for k, v in fields.items()}
    migration = top.migration
    return JsonResponse(
        {
            "migration": None
            if migration is None
            else {
                "source": migration.source,
                "changes": list(migration.changes),
                "custom_plugins": list(migration.custom_plugins),
            },
            "fields": fields,
            "ok": result.ok,
            "config_yaml": manifests.dump_yaml(config),
            "effective_yaml": manifests.dump_yaml(result.effective) if result.effective else "",
            "problems": placed,
            "errors": {},
        }
    )
