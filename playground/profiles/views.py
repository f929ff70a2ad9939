"""HTTP: the import page (paste an older configuration, see it as v1 beside the input)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from .importing import profile_import, profile_import_preview


class ImportConfigurationForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, label="Profile name")
    source = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}),
        label="Configuration (any version, or a legacy Policy; YAML or JSON)",
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
                messages.success(request, f"Imported profile {profile.name}.")
                if preview.placeholders:
                    messages.info(
                        request,
                        "Placeholders that let every pod through were made for "
                        f"{', '.join(preview.placeholders)}: define them under Custom plugins.",
                    )
                return redirect("playground:profile", pk=profile.pk)
        else:
            if request.POST.get("action") == "save":
                form.add_error("name", "Give the profile a name to save it.")
            preview = profile_import_preview(owner=request.user, text=text)
    return render(request, "playground/profile_import.html", {"form": form, "preview": preview})
