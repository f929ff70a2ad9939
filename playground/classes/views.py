"""HTTP layer of live classes: open, present, join, the student page, results and the end."""

from __future__ import annotations

import csv
import ipaddress
import json
from typing import Any
from urllib.parse import urlsplit

import segno
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .. import throttle
from ..lessons.loader import lesson_by_slug
from ..runs import selectors as run_selectors
from . import events, forms, run_questions, selectors, services
from .models import LiveClass

JSON_BODY_MAX = 4096


def _class(code: str) -> LiveClass:
    found = selectors.class_by_code(code)
    if found is None:
        raise Http404("No such class")
    return found


def _lecturer_class(request: HttpRequest, code: str) -> LiveClass:
    """The lecturer's class by its code; ``?id=`` names one class exactly, so an ended class's
    page and results stay reachable after its code was given to a new class."""
    pk = request.GET.get("id", "")
    if pk:
        if not pk.isdigit():
            raise Http404("id must be a class number")
        found = LiveClass.objects.filter(pk=int(pk), code=services.code_clean(code)).first()
        if found is None:
            raise Http404("No such class")
        live_class = found
    else:
        live_class = _class(code)
    if not request.user.is_authenticated or request.user.pk != live_class.lecturer_id:
        raise PermissionDenied(_("Only the class's lecturer may open this page."))
    return live_class


@login_required
@require_POST
def class_new(request: HttpRequest) -> HttpResponse:
    """Open a live class on a lesson or on a run the user may see; to the presenter page."""
    form = forms.ClassNewForm(request.POST)
    if not form.is_valid():
        return HttpResponse(
            " ".join(str(e) for errors in form.errors.values() for e in errors), status=400
        )
    lesson, run = None, None
    if form.cleaned_data.get("lesson"):
        lesson = lesson_by_slug(form.cleaned_data["lesson"])
        if lesson is None:
            raise Http404("No such lesson")
    else:
        run = run_selectors.run_visible(user=request.user, run_id=form.cleaned_data["run"])
        if run is None:
            raise Http404("No such run")
    try:
        live_class = services.class_open(
            lecturer=request.user,
            lesson=lesson,
            run=run,
            language=form.cleaned_data.get("language") or get_language(),
        )
    except services.ClassError as err:
        return HttpResponse(err.message, status=409)
    return redirect("playground:class_present", live_class.code)


def _join_url(request: HttpRequest, code: str) -> str:
    """The link students open: on PLAYGROUND_PUBLIC_URL when set (serve --room sets it)."""
    path = reverse("playground:class_join") + f"?code={code}"
    public = settings.PLAYGROUND_PUBLIC_URL
    return public + path if public else request.build_absolute_uri(path)


def _only_this_machine(url: str) -> bool:
    """Whether a join link names a loopback host, which no student's device can open."""
    host = (urlsplit(url).hostname or "").lower()
    if host in ("localhost", "ip6-localhost") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@login_required
@require_GET
def my_classes(request: HttpRequest) -> HttpResponse:
    """The lecturer's classes, open and ended, with their counts and results."""
    return render(
        request,
        "playground/classes/mine.html",
        {"rows": selectors.lecturer_classes(request.user)},
    )


@require_GET
def present(request: HttpRequest, code: str) -> HttpResponse:
    live_class = _lecturer_class(request, code)
    join_url = _join_url(request, live_class.code)
    qr = segno.make(join_url, error="m").svg_inline(
        scale=5, omitsize=True, title=_("Join the class")
    )
    lesson = selectors.lesson_of(live_class)
    return render(
        request,
        "playground/classes/present.html",
        {
            "live_class": live_class,
            "lesson": lesson,
            "join_url": join_url,
            "join_local_only": _only_this_machine(join_url),
            "final": selectors.final_numbers(live_class) if live_class.ended_at else None,
            "qr_svg": qr,
            "config": selectors.page_config(live_class, role="lecturer"),
        },
    )


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "") or (
        request.content_type == "application/json"
    )


def _join_data(request: HttpRequest) -> dict[str, Any]:
    if request.content_type == "application/json":
        if len(request.body) > JSON_BODY_MAX:
            return {}
        try:
            data = json.loads(request.body or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    return {"code": request.POST.get("code", ""), "nickname": request.POST.get("nickname", "")}


def _csrf_checked() -> None:
    """Stands for the join form's POST in the CSRF check (``join`` itself is exempt)."""


@csrf_exempt  # the JSON answer only returns a token; the form's POST is checked below
@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    """Join a class with its code and a nickname (no account). ``Accept: application/json``:
    the student's token in JSON (201), or the errors per field (400); nothing in the session."""
    as_json = request.method == "POST" and _wants_json(request)
    if request.method == "POST" and not as_json:
        refused = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(
            request, _csrf_checked, (), {}
        )
        if refused is not None:
            return refused
    if request.method == "GET":
        code = services.code_clean(request.GET.get("code"))
        joined = selectors.class_by_code(code) if code else None
        if joined is not None and joined.ended_at is None:
            token = selectors.session_token(request.session, joined.code)
            if selectors.student_by_token(joined, token) is not None:  # back to the class
                return redirect("playground:class_student", joined.code)
        form = forms.JoinForm(initial={"code": code})
        return render(request, "playground/classes/join.html", {"form": form})
    data = _join_data(request)
    form = forms.JoinForm({"code": data.get("code", ""), "nickname": data.get("nickname", "")})
    code = services.code_clean(data.get("code", ""))
    if throttle.join_throttled(request, code):
        return _too_many_joins(request, form, as_json)
    if form.is_valid():
        try:
            student = services.student_join(
                code=form.cleaned_data["code"], nickname=form.cleaned_data["nickname"]
            )
        except services.JoinRefused as refused:
            throttle.join_attempted(request, code, joined=False, no_class=refused.no_class)
            for field, messages in refused.errors.items():
                for message in messages:
                    form.add_error(field, message)
        else:
            throttle.join_attempted(request, code, joined=True, no_class=False)
            code = student.live_class.code
            events.send(
                code,
                {
                    "type": "joined",
                    "joined": selectors.joined(student.live_class_id),
                    "student": selectors.student_dict(student),
                },
                lecturer_only=True,
            )
            if as_json:
                body = {"code": code, "token": student.token, "student": student.pk}
                return JsonResponse(body, status=201)
            tokens = dict(request.session.get(services.SESSION_STUDENTS) or {})
            tokens[code] = student.token
            request.session[services.SESSION_STUDENTS] = tokens
            return redirect("playground:class_student", code)
    if as_json:
        errors = {f: [str(m) for m in ms] for f, ms in form.errors.items()}
        return JsonResponse({"errors": errors}, status=400)
    return render(request, "playground/classes/join.html", {"form": form}, status=400)


def _too_many_joins(request: HttpRequest, form: forms.JoinForm, as_json: bool) -> HttpResponse:
    message = _("Too many joins from here; try again in a few minutes.")
    if as_json:
        response: HttpResponse = JsonResponse({"errors": {"__all__": [message]}}, status=429)
    else:
        form.is_valid()
        form.add_error(None, message)
        response = render(request, "playground/classes/join.html", {"form": form}, status=429)
    response["Retry-After"] = str(throttle.join_limits().window)
    return response


@require_GET
def student_page(request: HttpRequest, code: str) -> HttpResponse:
    """The student's page; without the class's token, the join form whether the class is open,
    ended or unknown (the answer does not tell a guessed code's state)."""
    live_class = selectors.class_by_code(code)
    token = selectors.session_token(request.session, live_class.code) if live_class else None
    student = selectors.student_by_token(live_class, token) if live_class else None
    if live_class is None or student is None:
        return redirect(reverse("playground:class_join") + f"?code={services.code_clean(code)}")
    if live_class.ended_at is not None:
        return render(
            request, "playground/classes/ended.html", {"live_class": live_class}, status=410
        )
    return render(
        request,
        "playground/classes/student.html",
        {
            "live_class": live_class,
            "student": student,
            "lesson": selectors.lesson_of(live_class),
            "config": selectors.page_config(live_class, role="student"),
        },
    )


@require_GET
def results_csv(request: HttpRequest, code: str) -> HttpResponse:
    live_class = _lecturer_class(request, code)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="class-{live_class.code}.csv"'
    writer = csv.writer(response)
    for row in selectors.results_rows(live_class):
        writer.writerow(row)
    return response


@require_POST
def class_end(request: HttpRequest, code: str) -> HttpResponse:
    live_class = _lecturer_class(request, code)
    if services.class_end(live_class=live_class, user=request.user):
        events.send(live_class.code, {"type": "ended"})
    return redirect("playground:class_present", live_class.code)


@require_GET
def cycle_steps(request: HttpRequest, code: str, cycle: int) -> JsonResponse:
    """The run page's steps of one cycle of the class's run (the presenter steps through them)."""
    live_class = _lecturer_class(request, code)
    if live_class.run_id is None:
        raise Http404("Not a run class")
    return JsonResponse(
        {
            "steps": selectors.cycle_steps(live_class.run_id, cycle),
            "asks": run_questions.run_asks(live_class.run_id, cycle),
        }
    )
