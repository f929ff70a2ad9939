"""HTTP: list, define, edit, share and delete custom plugins; a live compile check."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from . import selectors, services
from .forms import CustomPluginForm
from .models import CustomPlugin


def custom_plugin_list(request: HttpRequest) -> HttpResponse:
    plugins = selectors.custom_plugins_for_user(request.user)
    return render(request, "playground/custom_plugin_list.html", {"plugins": plugins})


def _page(request: HttpRequest, plugin: CustomPlugin | None) -> HttpResponse:
    if request.method == "POST":
        form = CustomPluginForm(request.POST)
        if form.is_valid():
            try:
                saved = services.custom_plugin_save(
                    owner=request.user,  # type: ignore[arg-type]
                    definition=form.definition(),
                    description=form.cleaned_data["description"],
                    plugin=plugin,
                )
            except services.CustomPluginInvalid as err:  # raced with a stricter check
                form.add_error(None, str(err))
            else:
                messages.success(
                    request, gettext("Saved custom plugin %(name)s.") % {"name": saved.name}
                )
                return redirect("playground:custom_plugin", pk=saved.pk)
    else:
        form = CustomPluginForm(initial=CustomPluginForm.initial_from(plugin) if plugin else None)
    return render(request, "playground/custom_plugin_form.html", {"form": form, "plugin": plugin})


@login_required
def custom_plugin_new(request: HttpRequest) -> HttpResponse:
    return _page(request, None)


def custom_plugin_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plugin = selectors.custom_plugin_for_user(request.user, pk)
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect("login")
    return _page(request, plugin)


@login_required
@require_POST
def custom_plugin_delete(request: HttpRequest, pk: int) -> HttpResponse:
    plugin = selectors.custom_plugin_for_user(request.user, pk)
    if plugin.owner_id != request.user.pk:
        messages.error(request, gettext("Demo plugins cannot be deleted."))
        return redirect("playground:custom_plugin", pk=pk)
    services.custom_plugin_delete(plugin=plugin, user=request.user)  # type: ignore[arg-type]
    return redirect("playground:custom_plugins")


@login_required
@require_POST
def custom_plugin_share(request: HttpRequest, pk: int) -> HttpResponse:
    plugin = selectors.custom_plugin_for_user(request.user, pk)
    if plugin.owner_id != request.user.pk:
        messages.error(request, gettext("Only the owner can share a plugin."))
    else:
        token = services.custom_plugin_share(plugin=plugin, user=request.user)  # type: ignore[arg-type]
        link = request.build_absolute_uri(f"/custom-plugins/shared/{token}/")
        messages.success(request, gettext("Read-only link: %(link)s") % {"link": link})
    return redirect("playground:custom_plugin", pk=pk)


def custom_plugin_shared(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    """A shared plugin, read-only; signed-in users can copy it into their own plugins."""
    plugin = selectors.custom_plugin_by_share_token(token)
    if request.method == "POST" and request.user.is_authenticated:
        copy = services.custom_plugin_save(
            owner=request.user,  # type: ignore[arg-type]
            definition=plugin.as_definition(),
            description=plugin.description,
        )
        messages.success(
            request, gettext("Copied %(name)s into your plugins.") % {"name": copy.name}
        )
        return redirect("playground:custom_plugin", pk=copy.pk)
    form = CustomPluginForm(initial=CustomPluginForm.initial_from(plugin))
    return render(
        request,
        "playground/custom_plugin_form.html",
        {"form": form, "plugin": plugin, "shared": True},
    )


@require_POST
def custom_plugin_check(request: HttpRequest) -> JsonResponse:
    """Live compile check of the form as typed: problems per extension point."""
    form = CustomPluginForm(request.POST)
    form.is_valid()
    errors = {k: [str(m) for m in v] for k, v in form.errors.items()}
    return JsonResponse({"ok": not errors, "errors": errors})
