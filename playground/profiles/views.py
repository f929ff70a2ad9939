"""HTTP: the profile editor, export and deletion, the effective configuration, the import page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from .. import engine
from ..custom_plugins.services import registry_for
from ..forms import error_summary
from ..inputs import manifests
from ..inputs.params import bounded_int
from ..responses import yaml_response
from . import selectors, services
from .forms import ConfigurationForm, SchedulerProfileForm, problem_field
from .importing import profile_import, profile_import_preview


def _profile_forms(
    data: Any, config: dict[str, Any] | None
) -> tuple[ConfigurationForm, list[SchedulerProfileForm]]:
    if data is not None:
        top = ConfigurationForm(data)
        count = bounded_int(data.get("profile_count"), 1, low=1, high=20)
        return top, [SchedulerProfileForm(data, prefix=f"p{i}") for i in range(count)]
    config = config or {}
    profiles = config.get("profiles") or [{"schedulerName": "default-scheduler"}]
    top = ConfigurationForm(initial=ConfigurationForm.initial_from_config(config))
    return top, [
        SchedulerProfileForm(initial=SchedulerProfileForm.initial_from_profile(p), prefix=f"p{i}")
        for i, p in enumerate(profiles)
    ]


def _evaluate_forms(
    top: ConfigurationForm, entries: list[SchedulerProfileForm], user: Any
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
    top: ConfigurationForm,
    entries: list[SchedulerProfileForm],
) -> list[dict[str, Any]]:
    placed = []
    yaml_mode = top.cleaned_data.get("mode") == "yaml"
    for problem in result.problems:
        prefix, field, line = problem_field(config, problem.path)
        text = problem.said()
        if line is not None:
            text = gettext("line %(line)s: %(problem)s") % {"line": line, "problem": text}
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
    top: ConfigurationForm,
    entries: list[SchedulerProfileForm],
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
            posted = request.POST.copy()
            posted["profile_count"] = str(count)
            posted[f"p{count - 1}-scheduler_name"] = f"profile-{count}"
            top, entries = _profile_forms(posted, None)
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
                        gettext("Converted from %(source)s: %(changes)s")
                        % {
                            "source": top.migration.source,
                            "changes": "; ".join(top.migration.changes or (gettext("no changes"),)),
                        },
                    )
                messages.success(
                    request,
                    gettext("Saved scheduler configuration %(name)s.") % {"name": saved.name},
                )
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
            "error_summary": error_summary(top, *entries),
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
    return yaml_response(
        selectors.profile_export_yaml(profile, effective=effective), f"{profile.name}.yaml"
    )


@login_required
@require_POST
def profile_delete(request: HttpRequest, pk: int) -> HttpResponse:
    profile = selectors.profile_for_user(request.user, pk)
    if profile.owner_id != request.user.pk:
        messages.error(request, gettext("Demo profiles cannot be deleted."))
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
        initial = ConfigurationForm.initial_from_config(config)
        fields = {k: v for k, v in initial.items() if k != "config_yaml"}
        profiles = config.get("profiles")
        for i, profile in enumerate(profiles if isinstance(profiles, list) else []):
            for key, value in SchedulerProfileForm.initial_from_profile(profile).items():
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


class ImportConfigurationForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, label=gettext_lazy("Profile name"))
    source = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}),
        label=gettext_lazy("Configuration (any version, or a legacy Policy; YAML or JSON)"),
    )


@login_required
def profile_import_page(request: HttpRequest) -> HttpResponse:
    form = ImportConfigurationForm(request.POST or None)
    preview = None
    if request.method == "POST" and form.is_valid():
        text = form.cleaned_data["source"]
        if request.POST.get("action") == "save" and form.cleaned_data["name"].strip():
            try:
                profile, preview = profile_import(
                    owner=request.user,  # type: ignore[arg-type]
                    name=form.cleaned_data["name"].strip(),
                    text=text,
                )
            except ValueError:
                preview = profile_import_preview(owner=request.user, text=text)
            else:
                messages.success(
                    request, gettext("Imported profile %(name)s.") % {"name": profile.name}
                )
                if preview.placeholders:
                    messages.info(
                        request,
                        gettext(
                            "Placeholders that let every pod through were made for "
                            "%(plugins)s: define them under Custom plugins."
                        )
                        % {"plugins": ", ".join(preview.placeholders)},
                    )
                return redirect("playground:profile", pk=profile.pk)
        else:
            if request.POST.get("action") == "save":
                form.add_error("name", gettext("Give the profile a name to save it."))
            preview = profile_import_preview(owner=request.user, text=text)
    return render(request, "playground/profile_import.html", {"form": form, "preview": preview})
