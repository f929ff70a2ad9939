"""HTTP layer of runs with changes: a run with a script of cluster changes, "try a change"."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from ...clusters import selectors as cluster_selectors
from ...profiles import selectors as profile_selectors
from .. import selectors, services, try_change
from ..execution.script import ScriptError
from .forms import (
    FeatureGatesForm,
    ScriptFormSet,
    ScriptStepForm,
    add_script_errors,
    script_from_formset,
    try_change_form,
)
from .views import run_for_request


@login_required
def run_with_changes(request: HttpRequest, pk: int) -> HttpResponse:
    """Start a run of the cluster whose script changes it between cycles."""
    cluster = cluster_selectors.cluster_for_user(request.user, pk)
    profiles = profile_selectors.profiles_for_user(request.user)
    formset = ScriptFormSet(request.POST or None, prefix="step")
    gates = FeatureGatesForm(request.POST or None)
    error = ""
    if request.method == "POST":
        steps = script_from_formset(formset)
        features = gates.chosen()  # None: the fieldset shows why
        profile_id = request.POST.get("profile", "")
        if not profile_id.isdigit():
            error = gettext("profile: choose a profile")
        elif steps is not None and features is not None:
            profile = profile_selectors.profile_for_user(request.user, int(profile_id))
            try:
                run = services.run_start(
                    user=request.user,
                    cluster=cluster,
                    profile=profile,
                    label=gettext("with changes"),
                    script=steps,
                    features=features,
                )
            except ScriptError as err:
                add_script_errors(formset, err.errors)
            except services.RunInvalid as err:
                error = str(err)
            else:
                return redirect("playground:run", pk=run.pk)
        if error:
            messages.error(request, error)
    return render(
        request,
        "playground/runs/run_with_changes.html",
        {"cluster": cluster, "profiles": profiles, "formset": formset, "gates_form": gates},
        status=400 if request.method == "POST" else 200,
    )


@require_POST
def run_try_change(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-run a finished run with one change to its profile; open the comparison of the two.

    A run seen only through a share token is read-only: the token allows no new run."""
    run = selectors.run_get(user=request.user, run_id=pk)
    back = reverse("playground:run", args=[run.pk]) + "#section-try-change"
    form = try_change_form(run, request.POST)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect(back)
    try:
        new = try_change.run_try_change(user=request.user, run=run, change=form.change())
    except try_change.ChangeInvalid as err:
        messages.error(request, str(err))
        return redirect(back)
    return redirect("playground:compare", a=run.pk, b=new.pk)


@require_POST
def run_change(request: HttpRequest, pk: int) -> HttpResponse:
    """Change a running run's cluster now (the websocket ``change`` command's HTTP twin)."""
    run = run_for_request(request, pk)
    back = reverse("playground:run", args=[run.pk]) + "#section-cluster-events"
    if not selectors.run_may_command(user=request.user, run=run, session=request.session):
        raise Http404("No such run")
    form = ScriptStepForm(request.POST, prefix="now")
    step = form.step() if form.is_valid() else None
    if step is None:
        for field, errors in form.errors.items() or [("action", [gettext("choose a change")])]:
            messages.error(request, f"{field}: {' '.join(errors)}")
        return redirect(back)
    try:
        services.run_change(run_id=run.pk, step=step)
    except services.RunCommandRefused as err:
        messages.error(request, str(err))
    else:
        messages.success(request, gettext("The change is made between the next two cycles."))
    return redirect(back)
