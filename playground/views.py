"""HTTP: the home page, sign-up, and what every feature's views share.

Each feature keeps its own views (``clusters/views.py``, ``profiles/views.py``, ``runs/``, ...):
parse the request with a form, call one service or selector, render.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from . import forms, throttle
from .clusters import selectors as cluster_selectors
from .lessons import selectors as lesson_selectors
from .profiles import selectors as profile_selectors


def yaml_response(text: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


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
            "lesson_clusters": lesson_clusters,
            "profiles": _in_language(profiles),
            "lesson_profiles": lesson_profiles,
        },
    )


def _in_language(rows: Any) -> list[Any]:
    """The demo rows' names and descriptions in the visitor's language (demo.py marks them;
    the stored rows keep the English, which also names them), the others as they are."""
    rows = list(rows)
    for row in rows:
        if row.is_demo:  # gettext("") would give the catalog's header
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
