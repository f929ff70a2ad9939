"""Reads of runs: who may watch or command a run, its stored events, and plain data for views."""

from __future__ import annotations

import uuid
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Max, Q, QuerySet
from django.http import Http404

from ..models import Cluster, Run, RunEvent
from . import stream

User = AbstractBaseUser | AnonymousUser


def _run_visible_q(user: User, share: uuid.UUID | None = None) -> Q:
    """Runs of demo clusters, of the user's own clusters or own starting, and of the shared
    cluster whose share token the request carries (the run id alone is never enough)."""
    q = Q(cluster__is_demo=True)
    if share is not None:
        q |= Q(cluster__share_token=share)
    if user is not None and user.is_authenticated:
        q |= Q(cluster__owner=user) | Q(started_by=user)
    return q


def share_token(value: Any) -> uuid.UUID | None:
    """The share token a request carries (``?share=``), or None when absent or malformed."""
    try:
        return uuid.UUID(str(value)) if value else None
    except ValueError:
        return None


def run_visible(*, user: User, run_id: int, share: uuid.UUID | None = None) -> Run | None:
    """The run if the user may watch it, else None."""
    return (
        Run.objects.select_related("cluster", "profile")
        .filter(_run_visible_q(user, share), pk=run_id)
        .first()
    )


def run_get(*, user: User, run_id: int, share: uuid.UUID | None = None) -> Run:
    """The run if the user may watch it; Http404 otherwise (never 403)."""
    run = run_visible(user=user, run_id=run_id, share=share)
    if run is None:
        raise Http404("No such run")
    return run


def runs_for_cluster(*, user: User, cluster: Cluster) -> QuerySet[Run]:
    """The cluster's runs the user may watch, newest first."""
    return Run.objects.filter(_run_visible_q(user), cluster=cluster).select_related("profile")


PRIVATE_PROFILE: Final = "a private profile"


def profile_label(*, user: User, run: Run) -> tuple[str, bool]:
    """(name to show, whether to link it): a profile that is not the viewer's nor a demo is
    shown as "a private profile"."""
    profile = run.profile
    mine = user is not None and user.is_authenticated and profile.owner_id == user.pk
    if profile.is_demo or mine:
        return profile.name, True
    return PRIVATE_PROFILE, False


def run_may_command(*, user: User, run: Run) -> bool:
    """Whether the user may cancel the run or answer its Permit waits.

    The user who started it, the cluster's owner, or anyone when an anonymous user started it.
    """
    if run.started_by_id is None:
        return run.cluster.owner_id is None or (
            user is not None and user.is_authenticated and run.cluster.owner_id == user.pk
        )
    if user is None or not user.is_authenticated:
        return False
    return user.pk in (run.started_by_id, run.cluster.owner_id)


def run_events(*, run: Run, after: int = -1, limit: int | None = None) -> list[dict[str, Any]]:
    """The run's event payloads with ``seq > after``, in seq order."""
    qs = RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")
    if limit is not None:
        qs = qs[:limit]
    return list(qs.values_list("payload", flat=True))


def run_cycle_events(*, run: Run, cycle: int) -> list[dict[str, Any]]:
    """The payloads of one scheduling cycle's events, in seq order; [] for an unknown cycle.

    That is the cycle's pod from its CycleStart to its next one: the scheduling cycle, the
    pod's queue events after it and its binding cycle, however late a Permit wait let it run
    (``RunEvent.cycle``, filled by ``runs.EventCycles``, indexed with the run and seq).
    """
    return list(
        RunEvent.objects.filter(run=run, cycle=cycle)
        .order_by("seq")
        .values_list("payload", flat=True)
    )


def run_event_messages(
    *, run_id: int, after: int, upto: int | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Websocket envelopes of the stored events in ``(after, upto]``, at most ``limit``."""
    qs = RunEvent.objects.filter(run_id=run_id, seq__gt=after)
    if upto is not None:
        qs = qs.filter(seq__lte=upto)
    rows = qs.order_by("seq").values_list("seq", "payload")[:limit]
    return [{"kind": "event", "run": run_id, "seq": seq, "event": payload} for seq, payload in rows]


def run_last_seq(run: Run) -> int:
    """The highest stored event seq, -1 before the first."""
    value = RunEvent.objects.filter(run=run).aggregate(m=Max("seq"))["m"]
    return -1 if value is None else int(value)


def run_finished_message(run: Run) -> dict[str, Any]:
    """The ``finished`` envelope of a run that has ended."""
    summary = run.summary or {}
    return stream.finished_message(
        run.pk,
        seq=run_last_seq(run) + 1,
        status=run.status,
        error=run.error_message,
        summary={k: summary[k] for k in ("total", "scheduled", "unschedulable") if k in summary},
    )


def run_waiting_pods(run: Run) -> list[dict[str, Any]]:
    """Pods of a running run that wait at Permit now: pod, node, plugin, timeout (from events)."""
    waiting: dict[tuple[str, str], dict[str, Any]] = {}
    if run.is_terminal:
        return []
    for payload in (
        RunEvent.objects.filter(run=run, type="Permit")
        .order_by("seq")
        .values_list("payload", flat=True)
    ):
        key = (payload.get("pod", ""), payload.get("plugin", ""))
        if payload.get("code") == "Wait":
            waiting[key] = {
                "pod": key[0],
                "plugin": key[1],
                "node": payload.get("node"),
                "timeout": payload.get("timeout"),
                "seq": payload.get("seq"),
            }
        else:
            waiting.pop(key, None)
    return list(waiting.values())


def run_dict(run: Run) -> dict[str, Any]:
    """Plain data about a run for pages and JSON."""
    return {
        "id": run.pk,
        "cluster": run.cluster_id,
        "profile": run.profile_id,
        "label": run.label,
        "status": run.status,
        "created": run.created.isoformat() if run.created else None,
        "started": run.started.isoformat() if run.started else None,
        "finished": run.finished.isoformat() if run.finished else None,
        "error": run.error_message,
        "summary": run.summary or {},
        "placements": run.placements or {},
        "compare_with": run.compare_with_id,
        "write_back": run.write_back,
    }
