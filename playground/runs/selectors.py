"""Reads of runs: who may watch or command a run, its stored events, and plain data for views."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Max, Q, QuerySet
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils.translation import gettext, gettext_lazy

from scheduler_core.objects.quantity import NANO

from ..clusters import selectors as cluster_selectors
from ..models import Cluster, Run, RunCycle, RunEvent, SharedLessonRun
from . import said
from .execution import script
from .live import stream
from .storage import packs
from .storage.columns import decode_cycle, summary_message
from .storage.rebuilt import stored_record

SUMMARY_FIELDS: Final = (
    "cycle",
    "seq_first",
    "seq_last",
    "pod",
    "profile",
    "result",
    "node",
    "feasible",
    "evaluated",
    "message",
)

User = AbstractBaseUser | AnonymousUser


def _run_visible_q(
    user: User, share: uuid.UUID | None = None, class_tokens: Collection[str] = ()
) -> Q:
    """The runs a viewer may watch: what they started, and the runs whose cluster and profile
    they may both see (the run's cycles show its profile's every setting).

    A cluster is seen when it is a demo or the viewer's; a profile when it is a demo or the
    viewer's. The share token of a cluster (``?share=``) adds the runs its owner started on it
    under a demo profile or one of theirs, and nothing else: not other users' runs of that
    cluster, not the profile's runs of other clusters. The run id alone is never enough.
    A live class's students (``class_tokens``, see ``class_tokens``) add the class's run while
    the class is open, and only that run.
    """
    public_profile = Q(profile__is_demo=True)
    q = Q(cluster__is_demo=True) & public_profile
    if share is not None:
        q |= (
            Q(cluster__share_token=share)
            & Q(started_by=F("cluster__owner"))
            & (public_profile | Q(profile__owner=F("cluster__owner")))
        )
    if class_tokens:  # one class row: open, with one of these students
        q |= Q(classes__ended_at__isnull=True, classes__students__token__in=list(class_tokens))
    if user is not None and user.is_authenticated:
        q |= Q(started_by=user) | (
            (Q(cluster__is_demo=True) | Q(cluster__owner=user))
            & (public_profile | Q(profile__owner=user))
        )
    return q


def share_token(value: Any) -> uuid.UUID | None:
    """The share token a request carries (``?share=``), or None when absent or malformed."""
    try:
        return uuid.UUID(str(value)) if value else None
    except ValueError:
        return None


# The session's live-class memberships (class code -> student token), written by the classes
# feature when a student joins: while a class is open its students may watch its run.
SESSION_CLASS_STUDENTS: Final = "class_students"
CLASS_TOKENS_READ: Final = 20  # a session in more classes than that is not a student's


def class_tokens(session: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The student tokens this session holds (its live classes), at most CLASS_TOKENS_READ."""
    tokens = (session or {}).get(SESSION_CLASS_STUDENTS) or {}
    if not isinstance(tokens, Mapping):
        return ()
    return tuple(t for t in tokens.values() if isinstance(t, str))[:CLASS_TOKENS_READ]


def run_visible(
    *,
    user: User,
    run_id: int,
    share: uuid.UUID | None = None,
    class_tokens: Collection[str] = (),
) -> Run | None:
    """The run if the user may watch it, else None."""
    # The snapshot (every manifest of the cluster) and the node order are megabytes at
    # thousands of nodes: loaded only by what reads them.
    return (
        Run.objects.select_related("cluster", "profile")
        .defer("node_names", "cluster__description")
        .filter(_run_visible_q(user, share, class_tokens), pk=run_id)
        .first()
    )


def run_get(
    *,
    user: User,
    run_id: int,
    share: uuid.UUID | None = None,
    class_tokens: Collection[str] = (),
) -> Run:
    """The run if the user may watch it; Http404 otherwise (never 403)."""
    run = run_visible(user=user, run_id=run_id, share=share, class_tokens=class_tokens)
    if run is None:
        raise Http404("No such run")
    return run


def runs_for_cluster(*, user: User, cluster: Cluster) -> QuerySet[Run]:
    """The cluster's runs the user may watch, newest first."""
    return (
        Run.objects.filter(_run_visible_q(user), cluster=cluster)
        .select_related("profile")
        .defer("node_names", "config", "placements")
    )


PRIVATE_PROFILE: Final = gettext_lazy("a private profile")


def profile_label(*, user: User, run: Run) -> tuple[str, bool]:
    """(name to show, whether to link it): a profile that is not the viewer's nor a demo is
    shown as "a private profile"."""
    profile = run.profile
    mine = user is not None and user.is_authenticated and profile.owner_id == user.pk
    if profile.is_demo or mine:
        return profile.shown_name, True
    return str(PRIVATE_PROFILE), False


# The runs an anonymous visitor started, kept in their session: theirs alone to command.
SESSION_STARTED: Final = "runs_started"
SESSION_STARTED_KEPT: Final = 200


def session_run_ids(session: Mapping[str, Any] | None) -> frozenset[int]:
    """The ids of the runs this session started (anonymous visitors' lesson runs)."""
    if session is None:
        return frozenset()
    ids = session.get(SESSION_STARTED) or []
    return frozenset(i for i in ids if isinstance(i, int))


def run_may_command(*, user: User, run: Run, session: Mapping[str, Any] | None = None) -> bool:
    """Whether the user may cancel the run, answer its Permit waits or change its cluster.

    The user who started it or the cluster's owner; a run an anonymous visitor started, only
    from the session that started it (still theirs after they sign in: the session's data
    survives the login).
    """
    signed_in = user is not None and user.is_authenticated
    if run.started_by_id is None:
        if run.pk in session_run_ids(session):
            return True
        return signed_in and run.cluster.owner_id is not None and run.cluster.owner_id == user.pk
    if not signed_in:
        return False
    return user.pk in (run.started_by_id, run.cluster.owner_id)


SHARED_RUN_READ_ONLY: Final = gettext_lazy(
    "this is the lesson's shared run: everyone on the lesson watches it, so nobody can cancel, "
    "answer or change it. Sign in and start the lesson's run to get one of your own."
)
NOT_OWNER: Final = gettext_lazy("only the run's owner can do that")


def run_command_refusal(run_id: int) -> str:
    """Why a command from someone who may not command the run is refused (a lesson's shared
    run says it is shared)."""
    if SharedLessonRun.objects.filter(run_id=run_id).exists():
        return str(SHARED_RUN_READ_ONLY)
    return str(NOT_OWNER)


def stored_last_seq(run_id: int) -> int:
    """The highest stored seq (events and cycle records), -1 before the first."""
    event = RunEvent.objects.filter(run_id=run_id).aggregate(m=Max(Coalesce("last", "seq")))["m"]
    cycle = RunCycle.objects.filter(run_id=run_id).aggregate(m=Max("seq_last"))["m"]
    return max(-1 if event is None else int(event), -1 if cycle is None else int(cycle))


def run_last_seq(run: Run) -> int:
    return stored_last_seq(run.pk)


def _cycle_rows(run_id: int) -> QuerySet[RunCycle, dict[str, Any]]:
    return RunCycle.objects.filter(run_id=run_id).order_by("seq_first").values(*SUMMARY_FIELDS)


def run_cycle_summaries(
    *, run: Run, offset: int = 0, limit: int | None = None, query: str = ""
) -> tuple[list[dict[str, Any]], int]:
    """Cycle summaries in seq order (one page, and how many match): pod, result, node, counts.

    ``query`` keeps the cycles whose pod, node or result contains it (case-insensitive).
    """
    qs = _cycle_rows(run.pk)
    if query:
        qs = qs.filter(Q(pod__icontains=query) | Q(node__icontains=query) | Q(result__iexact=query))
    total = qs.count()
    rows = qs[offset : offset + limit] if limit is not None else qs[offset:]
    return [dict(r) for r in rows], total


def run_events(*, run: Run, after: int = -1, limit: int | None = None) -> list[dict[str, Any]]:
    """The run's events with ``seq > after`` in seq order, a cycle standing for its events.

    Each stored cycle gives a light CycleStart (no node list) and a CycleEnd from its summary;
    the per-node detail stays in the cycle record (``run_cycle_events``). This is what the
    timeline, the progress, the queue and the comparison need, whatever the cluster's size.
    """
    rows = packs.from_seq(RunEvent.objects.filter(run=run), after).order_by("seq")
    cycles = _cycle_rows(run.pk).filter(seq_first__gt=after)
    if limit is None:
        merged = packs.expand(rows.values_list("payload", flat=True), after=after)
        for row in cycles:
            merged.extend(_light_cycle(row))
        merged.sort(key=lambda e: e["seq"])
        return merged
    payloads = list(rows.values_list("payload", flat=True)[:limit])
    events = packs.expand(payloads, after=after)
    cycle_rows = list(cycles[:limit])
    # Either list may stop short of what is stored: keep what comes before both ends.
    end = min(
        events[-1]["seq"] if len(payloads) == limit and events else float("inf"),
        cycle_rows[-1]["seq_last"] if len(cycle_rows) == limit else float("inf"),
    )
    merged = events
    for row in cycle_rows:
        merged.extend(_light_cycle(row))
    merged.sort(key=lambda e: e["seq"])
    return [e for e in merged if e["seq"] <= end][:limit]


def _light_cycle(row: dict[str, Any]) -> list[dict[str, Any]]:
    head = {"cycle": row["cycle"], "pod": row["pod"], "time": 0.0}
    out = [
        {"type": "CycleStart", "seq": row["seq_first"], **head, "profile": row["profile"] or None}
    ]
    if row["result"]:
        out.append(
            {
                "type": "CycleEnd",
                "seq": row["seq_last"],
                **head,
                "result": row["result"],
                "node": row["node"] or None,
                "message": row["message"] or None,
            }
        )
    return out


def run_cycle_events(*, run: Run, cycle: int) -> list[dict[str, Any]]:
    """Every event of one scheduling cycle, in seq order; [] for an unknown cycle.

    That is the cycle's pod from its CycleStart to its next one: the scheduling cycle (decoded
    from its record), the pod's queue events after it and its binding cycle, however late a
    Permit wait let it run (``RunEvent.cycle``, filled by ``EventCycles``).
    """
    record = RunCycle.objects.filter(run=run, cycle=cycle).values_list("data", flat=True).first()
    if record is None:
        return []
    nodes = run.node_names
    if nodes is None:
        nodes = Run.objects.filter(pk=run.pk).values_list("node_names", flat=True).first()
    events = decode_cycle(stored_record(run, cycle, record), nodes)
    events.extend(
        packs.expand(
            RunEvent.objects.filter(run=run, cycle=cycle)
            .order_by("seq")
            .values_list("payload", flat=True)
        )
    )
    events.sort(key=lambda e: e["seq"])
    return events


def run_event_messages(
    *, run_id: int, after: int, upto: int | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Stream envelopes of what is stored in ``(after, upto]``, at most ``limit``, in seq order.

    A cycle is one ``cycle`` envelope (its summary, covering seqs ``seq``..``last``), never its
    per-node detail; the other events are ``event`` envelopes.

    Events and cycles are two reads: a batch the run commits between them can show up in the
    second and not the first. What is stored is always seqs 0..n without a hole, so the answer
    stops at the first hole; the rest comes with a later read (or live).
    """
    events = packs.from_seq(RunEvent.objects.filter(run_id=run_id), after)
    # A cycle that ``after`` cuts through is sent whole (a client holds whole envelopes).
    cycles = _cycle_rows(run_id).filter(seq_last__gt=after)
    if upto is not None:
        events = events.filter(seq__lte=upto)
        cycles = cycles.filter(seq_first__lte=upto)
    payloads = events.order_by("seq").values_list("payload", flat=True)[:limit]
    out = [
        stream.event_message(run_id, payload)
        for payload in packs.expand(
            payloads, after=after, before=None if upto is None else upto + 1
        )[:limit]
    ]
    out.extend(summary_message(run_id, row) for row in cycles[:limit])
    out.sort(key=lambda m: m["seq"])
    expected, contiguous = after + 1, []
    for message in out[:limit]:
        if message["seq"] > expected:
            break
        contiguous.append(message)
        expected = stream.last_seq_of(message) + 1
    return contiguous


def run_finished_message(run: Run) -> dict[str, Any]:
    """The ``finished`` envelope of a run that has ended."""
    summary = run.summary or {}
    return stream.finished_message(
        run.pk,
        seq=run_last_seq(run) + 1,
        status=run.status,
        error=run.error_message,
        summary={k: summary[k] for k in ("total", "scheduled", "unschedulable") if k in summary},
        said=summary.get("said"),  # for the reader's language (said.envelope_shown)
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
        "error": said.run_text(run, "error"),  # in the reader's language
        "summary": run.summary or {},
        "placements": run.placements or {},
        "compare_with": run.compare_with_id,
        "applied": run.applied.isoformat() if run.applied else None,
    }


def run_resources(
    *, run: Run, events: list[dict[str, Any]], node_names: Collection[str] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Allocatable per node and requests per pod, read from the manifests the run started with.

    ``node_names``: only these nodes (the others are not even parsed: a second at 60,000).
    """
    from scheduler_core.objects.api import (
        Node,
        Pod,
    )

    manifests = run.snapshot or cluster_selectors.cluster_manifests(run.cluster)
    manifests = [*manifests, *script.added_manifests(run.script)]  # nodes a script adds
    pending = {e["pod"] for e in events if e.get("type") in ("CycleStart", "Enqueue")}
    nodes, pods = [], []
    for m in manifests:
        kind = m.get("kind")
        try:
            if kind == "Node":
                if node_names is not None and (m.get("metadata") or {}).get("name") not in (
                    node_names
                ):
                    continue
                node = Node(m)
                alloc = node.allocatable_list
                nodes.append(
                    {
                        "name": node.name,
                        "cpu": alloc.get("cpu", 0),
                        "memory": alloc.get("memory", 0),
                        # A count, compared with pods counted one by one: not scaled.
                        "pods": alloc.get("pods", 0) // NANO,
                    }
                )
            elif kind == "Pod":
                pod = Pod(m)
                pods.append(
                    {
                        "pod": pod.key,
                        "node": "" if pod.key in pending else pod.node_name,
                        "cpu": pod.requests.get("cpu", 0),
                        "memory": pod.requests.get("memory", 0),
                    }
                )
        except (TypeError, ValueError, KeyError):
            continue  # a manifest the engine refused is not part of the run either
    return nodes, pods


def run_gangs(*, run: Run, upto: int | None = None) -> list[dict[str, Any]]:
    """The run's gangs (``panels.gangs``): each with its members' places after the event
    ``upto`` (None: the latest), a title, a sentence saying whether it had completed by then,
    and when it completes in the run (``completes``, with the run-page step where it does:
    ``#cycle=K&step=N``), whatever the step shown."""
    from .panels import charts, gangs  # the panels read this module's records

    manifests = run.snapshot or cluster_selectors.cluster_manifests(run.cluster)
    found = gangs.gangs_of([*manifests, *script.added_manifests(run.script)])
    if not found:
        return []
    events = run_events(run=run)
    final = gangs.gang_states(found, events)
    shown = (
        final if upto is None else gangs.gang_states(found, [e for e in events if e["seq"] <= upto])
    )
    for gang, last in zip(shown, final, strict=True):
        gang["title"] = gettext(
            "%(workload)s, pod group %(group)s: minCount %(min)s, %(pods)s pods"
        ) % {
            "workload": gang["workload"].removeprefix("default/"),
            "group": gang["group"],
            "min": gang["min_count"],
            "pods": len(gang["members"]),
        }
        completes = last["completed"]
        if completes is not None:
            steps = charts.steps(run_cycle_events(run=run, cycle=completes["cycle"]))
            index = next(
                (
                    s["index"]
                    for s in steps
                    if s["point"] == "Permit" and s["plugin"] == gangs.GANG_SCHEDULING
                ),
                0,
            )
            completes["link"] = f"#cycle={completes['cycle']}&step={index}"
        gang["completes"] = completes
        done = gang["completed"]
        if done is not None:
            gang["status"] = gettext(
                "Complete in cycle %(cycle)s: with %(pod)s, minCount members had a node, and "
                "GangScheduling let every waiting member through at Permit."
            ) % {"cycle": done["cycle"], "pod": done["pod"].removeprefix("default/")}
            continue
        gang["status"] = gettext(
            "Not complete: %(placed)s of minCount %(min)s members have a node"
        ) % {"placed": gang["placed"], "min": gang["min_count"]}
        if gang["gated"]:
            gang["status"] += gettext("; %(gated)s gated before the queue") % {
                "gated": gang["gated"]
            }
        gang["status"] += gettext(".")
        if completes is not None:
            gang["status"] = gettext("%(status)s It completes in cycle %(cycle)s.") % {
                "status": gang["status"],
                "cycle": completes["cycle"],
            }
    return shown
