"""HTTP layer of runs: start one, watch it, step through it, decide a waiting pod, compare two.

Pages draw from the run's stored events through ``playground.charts``; the live part comes over
the websocket (``ws/runs/<id>/``), with ``events.json`` as the fallback the client polls.
"""

from __future__ import annotations

from typing import Any

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_POST

from scheduler_core.tools.gcpause import with_collector_paused

from ...clusters import selectors as cluster_selectors
from ...dra import selectors as dra_selectors
from ...inputs.params import MAX_ID, bounded_int, page_links
from ...models import Run
from ...profiles import selectors as profile_selectors
from .. import said, selectors, services, try_change
from ..execution import script
from ..gates import gate_notes, gates_differing
from ..panels import changes, overview, paging, queue_view
from ..panels import compare as compare_page
from ..refs import run_ref
from .forms import FeatureGatesForm, ScriptStepForm, try_change_form

TIMELINE_PAGE = 100
EVENTS_PAGE = 5000


def run_for_request(request: HttpRequest, pk: int) -> Run:
    """The run if this request may see it: its user, the share token in ``?share=``, or the
    session's open live class on it."""
    share = selectors.share_token(request.GET.get("share"))
    tokens = selectors.class_tokens(request.session)
    return selectors.run_get(user=request.user, run_id=pk, share=share, class_tokens=tokens)


def _run_and_events(
    request: HttpRequest, pk: int, after: int = -1
) -> tuple[Run, list[dict[str, Any]]]:
    run = run_for_request(request, pk)
    return run, selectors.run_events(run=run, after=after)


def _run_context(request: HttpRequest, run: Run) -> dict[str, Any]:
    label, linked = selectors.profile_label(user=request.user, run=run)
    share = selectors.share_token(request.GET.get("share"))
    owner = request.user.is_authenticated and run.cluster.owner_id == request.user.pk
    return {
        "run": run,
        "profile_label": label,
        "profile_linked": linked,
        # The owner of a shared cluster may pass this on: the run, readable with the token.
        "share_url": (
            request.build_absolute_uri(
                reverse("playground:run", args=[run.pk]) + f"?share={run.cluster.share_token}"
            )
            if owner and run.cluster.share_token
            else ""
        ),
        "config": {
            "run": run.pk,
            "status": run.status,
            "terminal": run.status in ("succeeded", "failed", "cancelled"),
            "share": str(share) if share else "",
            "ws": f"/ws/runs/{run_ref(run.pk)}/",
            "events": reverse("playground:run_events", args=[run.pk]),
            "cycles": reverse("playground:run_cycles", args=[run.pk]),
            "changes": reverse("playground:run_changes", args=[run.pk]),
            "cycle": reverse("playground:run_cycle", args=[run.pk, 0]).rsplit("0.json", 1)[0],
            "usage": reverse("playground:run_usage", args=[run.pk]),
            "permit": reverse("playground:run_permit", args=[run.pk]),
            "cancel": reverse("playground:run_cancel", args=[run.pk]),
        },
    }


# A lesson page shows the run page in a frame beside its narrative; no other page may be framed,
# and no other site may frame this one.
@xframe_options_sameorigin
@csp_replace({"frame-ancestors": SELF})
def run_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The run page: its first cycles and counts; the rest comes over the stream and JSON."""
    run = run_for_request(request, pk)
    context = _run_context(request, run)
    rows, count = selectors.run_cycle_summaries(run=run, limit=TIMELINE_PAGE)
    summary = run.summary or {}
    context["timeline"] = rows
    # What the worker wrote in English, in the reader's language (said.py).
    context["run_text"] = {k: said.run_text(run, k) for k in ("error", "note", "waiting")}
    context["script_steps"] = script.script_described(run.script)
    context["gates_differing"] = gates_differing(run.feature_gates)
    context["gate_notes"] = gate_notes(run.feature_gates)  # what each of them changes
    # Gangs form only with GangScheduling on; gangs.json says which (none: the panel stays hidden).
    context["has_gangs"] = bool((run.feature_gates or {}).get("GangScheduling"))
    may_command = selectors.run_may_command(user=request.user, run=run, session=request.session)
    context["may_command"] = may_command  # the cancel button and the Permit answers
    if not run.is_terminal and may_command:
        context["change_form"] = ScriptStepForm(prefix="now")
    context["has_changes"] = bool(run.script) or changes.run_has_changes(run=run)
    if (  # shown once it finishes; a share token allows reading only
        context["profile_linked"]
        and request.user.is_authenticated
        and selectors.run_visible(user=request.user, run_id=run.pk) is not None
    ):
        context["try_form"] = try_change_form(run)
        context["try_weights"] = try_change.score_plugins(run.config)
    context["progress"] = {
        "pods": summary.get("total", 0),
        "bound": summary.get("scheduled", 0),
        "cycles": count,
    }
    context["may_apply"] = (
        run.status == Run.Status.SUCCEEDED
        and run.applied is None
        and request.user.is_authenticated
        and may_command
    )
    return render(request, "playground/run_detail.html", context)


def run_events_json(request: HttpRequest, pk: int) -> JsonResponse:
    """What is stored after ``after`` as stream envelopes, and the run's status (the fallback).

    At most ``EVENTS_PAGE`` envelopes; ``more`` says to ask again from the last one's seq.
    """
    run = run_for_request(request, pk)
    after = bounded_int(request.GET.get("after"), -1, low=-1, high=MAX_ID)
    envelopes = selectors.run_event_messages(run_id=run.pk, after=after, limit=EVENTS_PAGE)
    return JsonResponse(
        {
            "run": run.pk,
            "status": run.status,
            "terminal": run.status in ("succeeded", "failed", "cancelled"),
            "error": said.run_text(run, "error"),  # in the reader's language (said.py)
            "waiting": said.run_text(run, "waiting"),
            "messages": envelopes,
            "more": len(envelopes) == EVENTS_PAGE,
        }
    )


def run_changes_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The run's script and the cluster changes made so far, each with the pods it moved."""
    run = run_for_request(request, pk)
    return JsonResponse(
        {
            "run": run.pk,
            "terminal": run.is_terminal,
            "script": script.script_described(run.script),
            "changes": changes.run_changes(run=run),
        }
    )


def run_cycles_json(request: HttpRequest, pk: int) -> JsonResponse:
    """One page of the cycle list (``offset``, ``limit``), searchable by pod, node or result."""
    run = run_for_request(request, pk)
    offset = bounded_int(request.GET.get("offset"), 0)
    limit = bounded_int(request.GET.get("limit"), TIMELINE_PAGE, low=1, high=1000)
    query = request.GET.get("q", "").strip()[:200]
    rows, count = selectors.run_cycle_summaries(run=run, offset=offset, limit=limit, query=query)
    return JsonResponse({"run": run.pk, "offset": offset, "count": count, "cycles": rows})


@with_collector_paused
def run_cycle_json(request: HttpRequest, pk: int, cycle: int) -> JsonResponse:
    """Every panel of one cycle, paged and cut to top N on the server (``paging.PageParams``).

    The collector is paused: the panels of thousands of nodes (and, for a cycle stored as a
    recipe, a whole Scheduler set up again) are fresh objects that the collector would walk
    several times over while they are built, half the request at 5,000 nodes; the few cycles
    among them are collected after.
    """
    run = run_for_request(request, pk)
    events = selectors.run_cycle_events(run=run, cycle=cycle)
    detail = paging.cycle_page(events, cycle, paging.PageParams.from_query(request.GET))
    if detail is None:
        raise Http404("No such cycle")
    detail["queue"] = queue_view.run_cycle_queue(run=run, cycle=cycle)
    return JsonResponse(detail)


def run_devices_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The devices a run allocated, per pod and claim, and its devices' attributes."""
    run = run_for_request(request, pk)
    return JsonResponse(dra_selectors.run_devices(run))


def run_gangs_json(request: HttpRequest, pk: int) -> JsonResponse:
    """The run's gangs: each Workload's gang, where its members are after the event ``upto``
    (the step the page shows; none: the latest), and when it completed."""
    run = run_for_request(request, pk)
    raw = request.GET.get("upto")
    upto = bounded_int(raw, 0, low=0, high=MAX_ID) if raw else None
    return JsonResponse(
        {"gangs": selectors.run_gangs(run=run, upto=upto), "terminal": run.is_terminal}
    )


def run_usage_json(request: HttpRequest, pk: int) -> JsonResponse:
    """Per-node CPU, memory and pod use before and after the run (from its snapshot)."""
    run, events = _run_and_events(request, pk)
    nodes, pods = selectors.run_resources(run=run, events=events)
    usage = overview.cluster_usage(nodes, pods, events)
    return JsonResponse(
        {
            "usage": usage,
            "figures": {
                res: overview.usage_figure(usage, resource=res) for res in overview.USAGE_RESOURCES
            },
        }
    )


@login_required
@require_POST
def run_new(request: HttpRequest, pk: int) -> HttpResponse:
    """Start a run of the cluster under a profile, or two runs (what-if) with ``profile_b``."""
    cluster = cluster_selectors.cluster_for_user(request.user, pk)
    profile_id = bounded_int(request.POST.get("profile"), 0, high=MAX_ID)
    if not profile_id:
        return HttpResponseBadRequest(gettext("choose a profile"))
    profile = profile_selectors.profile_for_user(request.user, profile_id)
    gates = FeatureGatesForm(request.POST)
    features = gates.chosen()
    if features is None:  # nothing stored
        messages.error(request, gates.problems())
        return redirect("playground:cluster", pk=cluster.pk)
    other_id = bounded_int(request.POST.get("profile_b"), 0, high=MAX_ID)
    if other_id:
        other = profile_selectors.profile_for_user(request.user, other_id)
        try:
            run_a, run_b = services.run_compare_start(
                user=request.user,
                cluster=cluster,
                profile_a=profile,
                profile_b=other,
                features=features,
            )
        except services.RunInvalid as err:
            messages.error(request, str(err))
            return redirect("playground:cluster", pk=cluster.pk)
        return redirect("playground:compare", a=run_a.pk, b=run_b.pk)
    try:
        pod = request.POST.get("pod", "")  # one pending pod picked from the list (classroom)
        run = services.run_start(
            user=request.user,
            cluster=cluster,
            profile=profile,
            pod_keys=[pod] if pod else None,
            label=request.POST.get("label", "")
            or (gettext("only %(pod)s") % {"pod": pod} if pod else ""),
            features=features,
        )
    except services.RunInvalid as err:
        messages.error(request, str(err))
        return redirect("playground:cluster", pk=cluster.pk)
    return redirect("playground:run", pk=run.pk)


def _commandable(request: HttpRequest, pk: int) -> Run:
    """The run if the user may cancel it or answer its waiting pods; Http404 otherwise."""
    run = run_for_request(request, pk)
    if not selectors.run_may_command(user=request.user, run=run, session=request.session):
        if selectors.run_command_refusal(run.pk) == str(selectors.SHARED_RUN_READ_ONLY):
            raise PermissionDenied(selectors.SHARED_RUN_READ_ONLY)
        raise Http404("No such run")
    return run


@require_POST
def run_permit(request: HttpRequest, pk: int) -> JsonResponse:
    """Allow or reject a pod waiting at Permit (the websocket command's HTTP twin)."""
    run = _commandable(request, pk)
    pod = request.POST.get("pod", "")
    decision = request.POST.get("decision", "")
    if not pod or decision not in ("allow", "reject"):
        return JsonResponse({"error": "pod and decision (allow|reject) are required"}, status=400)
    try:
        services.run_decide_permit(
            run_id=run.pk,
            pod_key=pod,
            allow=decision == "allow",
            plugin=request.POST.get("plugin") or None,
        )
    except services.RunCommandRefused as err:
        return JsonResponse({"error": str(err)}, status=409)
    return JsonResponse({"run": run.pk, "pod": pod, "decision": decision})


@require_POST
def run_cancel(request: HttpRequest, pk: int) -> JsonResponse:
    run = _commandable(request, pk)
    services.run_cancel(run_id=run.pk)
    return JsonResponse({"run": run.pk, "command": "cancel"})


def compare(request: HttpRequest, a: int, b: int) -> HttpResponse:
    """Two runs of one cluster: the configuration diff, the pods placed differently, the nodes."""
    run_a, events_a = _run_and_events(request, a)
    run_b, events_b = _run_and_events(request, b)
    label_a = selectors.profile_label(user=request.user, run=run_a)[0]
    label_b = selectors.profile_label(user=request.user, run=run_b)[0]
    context = compare_page.page(
        run_a=run_a,
        run_b=run_b,
        events_a=events_a,
        events_b=events_b,
        label_a=label_a,
        label_b=label_b,
        detail=bounded_int(request.GET.get("detail"), 1, low=1),
    )
    shown = context["detail_page"]
    context["detail_links"] = page_links(request.GET, "detail", shown["number"], shown["pages"])
    terminal = all(r.status in ("succeeded", "failed", "cancelled") for r in (run_a, run_b))
    return render(
        request,
        "playground/compare.html",
        {
            **context,
            "run_a": run_a,
            "run_b": run_b,
            "profile_a": label_a,
            "profile_b": label_b,
            "terminal": terminal,
        },
    )


@login_required
@require_POST
def run_apply(request: HttpRequest, pk: int) -> HttpResponse:
    """Apply a finished run's placements to its cluster (the only way a run changes one)."""
    run = _commandable(request, pk)
    try:
        cluster, counts = services.run_apply_placements(run=run, user=request.user)
    except services.RunCommandRefused as err:
        messages.error(request, str(err))
        return redirect("playground:run", pk=run.pk)
    messages.success(
        request,
        gettext("Applied run %(run)s: %(bound)s pods bound, %(deleted)s preempted pods deleted.")
        % {"run": run.pk, "bound": counts["bound"], "deleted": counts["deleted"]},
    )
    return redirect("playground:cluster", pk=cluster.pk)
