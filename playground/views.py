"""HTTP: the pages that show several features at once: home, the cluster page, sign-up.

Each feature keeps its own views (``clusters/views.py``, ``profiles/views.py``, ``runs/http/``,
...): parse the request with a form, call one service or selector, render. The pages here sit
above every feature (the cluster page lists the cluster's runs, the profiles to run it with and
its devices), so that no feature imports another against the direction of
``tests/playground/test_pg_layout.py``.
"""

from __future__ import annotations

import uuid
from typing import Any, cast

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext

from . import demo, forms, throttle
from .clusters import selectors as cluster_selectors
from .clusters.views import cluster_page_context
from .dra import selectors as dra_selectors
from .lessons import selectors as lesson_selectors
from .models import Cluster, Profile
from .profiles import selectors as profile_selectors
from .runs import selectors as run_selectors
from .runs.http.forms import FeatureGatesForm

RUNS_SHOWN = 50  # runs listed on a cluster page, newest first


def home(request: HttpRequest) -> HttpResponse:
    # The course's demo clusters and profiles are listed apart, folded, under the others.
    cluster_names, profile_names = lesson_selectors.lesson_content_names()
    clusters, lesson_clusters = lesson_selectors.split_lesson_content(
        cluster_selectors.clusters_for_user(request.user), cluster_names
    )
    profiles, lesson_profiles = lesson_selectors.split_lesson_content(
        profile_selectors.profiles_for_user(request.user), profile_names
    )
    return render(
        request,
        "playground/home.html",
        {
            "clusters": _in_language(clusters),
            "lesson_clusters": _in_language(lesson_clusters),
            "profiles": _in_language(profiles),
            "lesson_profiles": _in_language(lesson_profiles),
        },
    )


def cluster_detail(request: HttpRequest, pk: int) -> HttpResponse:
    cluster = cluster_selectors.cluster_for_user(request.user, pk)
    context = cluster_page_context(request, cluster, readonly=False)
    context["devices"] = dra_selectors.cluster_devices(cluster)
    context["is_owner"] = request.user.is_authenticated and cluster.owner_id == request.user.pk
    profiles = list(profile_selectors.profiles_for_user(request.user))
    context["suggested_profile"] = _suggested_profile(cluster, profiles)  # by the stored names
    context["profiles"] = _in_language(profiles)
    context["gates_form"] = FeatureGatesForm()  # the Run form's fieldset
    _in_language([cluster])
    context["runs"] = run_selectors.runs_for_cluster(user=request.user, cluster=cluster)[
        :RUNS_SHOWN
    ]
    if context["is_owner"] and cluster.share_token:
        context["share_url"] = request.build_absolute_uri(
            reverse("playground:shared_cluster", args=[cluster.share_token])
        )
    return render(request, "playground/cluster_detail.html", context)


def _suggested_profile(cluster: Cluster, profiles: list[Profile]) -> int | None:
    """The profile the Run form opens with: the one a demo or lesson cluster (or a user's copy of
    one) is meant for, else the demo "Default"."""
    origin = cluster if cluster.is_demo else cast("Cluster | None", cluster.copied_from)
    meant = {**demo.SUGGESTED_PROFILES, **lesson_selectors.lesson_profiles_by_cluster()}
    wanted = meant.get(origin.name, "Default") if origin is not None and origin.is_demo else ""
    demos = {p.name: p.pk for p in profiles if p.is_demo}
    return demos.get(wanted) or demos.get("Default")


def shared_cluster(request: HttpRequest, token: uuid.UUID) -> HttpResponse:
    cluster = cluster_selectors.cluster_by_share_token(token)
    context = cluster_page_context(request, cluster, readonly=True)
    context["devices"] = dra_selectors.cluster_devices(cluster)
    context["share_token"] = token
    _in_language([cluster])
    return render(request, "playground/cluster_detail.html", context)


def _in_language(rows: Any) -> list[Any]:
    """The demo rows' names and descriptions in the visitor's language (demo.py marks them;
    the stored rows keep the English, which also names them), the others as they are."""
    rows = list(rows)
    for row in rows:
        lesson_words = lesson_selectors.lesson_demo_words(row.name) if row.is_demo else None
        if lesson_words is not None:
            row.name, row.description = lesson_words
        elif row.is_demo:  # gettext("") would give the catalog's header
            row.name = gettext(row.name) if row.name else row.name
            row.description = gettext(row.description) if row.description else row.description
    return rows


def signup(request: HttpRequest) -> HttpResponse:
    """One form; an address that created or tried to create many accounts lately gets a 429."""
    if request.method == "POST" and throttle.signup_throttled(request):
        return throttle.too_many(request, gettext("sign-ups"), throttle.limits().signup_window)
    form = forms.SignUpForm(request.POST or None)
    if request.method == "POST":
        created = form.is_valid()
        throttle.signup_attempted(request, created=created)
        if created:
            user = form.save()
            login(request, user)
            return redirect("playground:home")
    return render(request, "registration/signup.html", {"form": form})
