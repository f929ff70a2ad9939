"""The scheduling queue as one cycle found it, and the moves during that cycle.

``cycles/<n>.json`` carries it under ``"queue"``: activeQ, backoffQ and the unschedulable pool
(gated pods included) just before the cycle's pod was popped, each pod with its priority,
attempts, the time it was queued and, in backoffQ, when its backoff ends; then every queue
event up to the next cycle's pop, each saying where a pod went and why (the cluster event, the
plugin whose queueing hint moved it). A run can hold thousands of cycles, so the browser is never
sent the run's queue events: it gets one cycle's start and moves, and replays the moves as it
steps. Derived from the stored queue events only (``scheduler_core.queue.SchedulingQueue``
documents them); nothing here decides where a pod goes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext, gettext_lazy

from scheduler_core.words import listed

from ...inputs.jsontext import loads
from ...models import Run, RunCycle, RunEvent
from ..storage import packs
from . import changes
from .charts import QUEUE_TYPES, Event

EVENT_TYPES: Final = QUEUE_TYPES | {"Bind", "ClusterChange"}
LISTED: Final = 100  # pods listed per queue; the counts cover them all
MAX_MOVES: Final = 300
ORDER_NOTE: Final = gettext_lazy(
    "activeQ is ordered by QueueSort (PrioritySort): priority, then the time the pod was "
    "queued (earlier first; pods queued at the same time keep the order they came in). "
    "backoffQ is ordered by when each pod's backoff ends."
)
QUEUE_NAMES: Final = {
    "active": "activeQ",
    "backoff": "backoffQ",
    "unschedulable": gettext_lazy("the unschedulable pool"),
    "gated": gettext_lazy("the unschedulable pool (gated)"),
    "in_flight": gettext_lazy("in flight"),
    None: gettext_lazy("nowhere"),
}
_PLACES: Final = ("active", "backoff", "unschedulable", "gated", "in_flight")


def _plugins(names: Sequence[str]) -> str:
    return listed(names) or gettext("no plugin")


class QueueFold:
    """Where each pending pod is after the queue events seen so far, one row per pod."""

    def __init__(self, priorities: Mapping[str, int]) -> None:
        self._priorities = priorities
        self.pods: dict[str, dict[str, Any]] = {}
        self.now = 0.0

    def _row(self, pod: str) -> dict[str, Any]:
        row = self.pods.get(pod)
        if row is None:
            row = {
                "pod": pod,
                "queue": None,
                "priority": self._priorities.get(pod, 0),
                "attempts": 0,
                "queued_at": self.now,
                "order": 0,
                "until": None,
                "plugins": [],
                "plugin": None,
            }
            self.pods[pod] = row
        return row

    def apply(self, ev: Event, *, explain: bool = True) -> dict[str, Any] | None:
        """Fold one event; the move it makes (or the note it deserves), else None.

        ``explain=False`` only folds (the events before the cycle asked for, where no move is
        shown).
        """
        kind, pod = ev.get("type"), str(ev.get("pod") or "")
        d: Mapping[str, Any] = ev.get("details") or {}
        self.now = max(self.now, float(ev.get("time") or 0.0))
        if kind == "ClusterChange":
            if not explain:
                return None
            values = {"change": changes.describe(dict(d)), "events": listed(d.get("events") or [])}
            said = (
                gettext(
                    "Cluster event: %(change)s (%(events)s): the queue asks the plugins that "
                    "rejected each waiting pod whether it may now fit."
                )
                if values["events"]
                else gettext(
                    "Cluster event: %(change)s: the queue asks the plugins that rejected each "
                    "waiting pod whether it may now fit."
                )
            )
            return {**_move_head(ev, d), "from": None, "to": None, "text": said % values}
        if kind == "Bind" and ev.get("code") != "Success":
            return None
        if kind in ("Delete", "Bind") and pod not in self.pods:
            return None
        row = self._row(pod)
        before = row["queue"]
        text = self._fold(kind, row, d, ev)
        if row["queue"] is None:
            del self.pods[pod]
        if text is None or not explain:
            return None
        return {
            **_move_head(ev, d),
            "from": before,
            "to": row["queue"],
            "text": text,
            "row": dict(row),
        }

    def _fold(self, kind: Any, row: dict[str, Any], d: Mapping[str, Any], ev: Event) -> str | None:
        pod, before = row["pod"], row["queue"]
        why = _hint_text(d)
        if kind == "Enqueue":
            queue = d.get("queue") or "active"
            row.update(queue=queue, until=None)
            if before is None:
                row.update(queued_at=self.now, order=ev.get("seq", 0))
            if queue == "gated":
                row["plugin"] = d.get("plugin")
                return gettext(
                    "%(pod)s is gated by %(plugin)s (PreEnqueue): it waits outside activeQ."
                ) % {"pod": pod, "plugin": d.get("plugin")}
            if queue == "unschedulable":
                return gettext(
                    "%(pod)s goes to the unschedulable pool: it waits for a cluster event that "
                    "%(plugins)s registered, whose queueing hint says Queue."
                ) % {"pod": pod, "plugins": _plugins(row["plugins"])}
            if before == "in_flight":
                return gettext("%(pod)s goes straight back to activeQ%(why)s.") % {
                    "pod": pod,
                    "why": why,
                }
            return gettext("%(pod)s enters activeQ (%(event)s).") % {
                "pod": pod,
                "event": d.get("event"),
            }
        if kind == "MoveToActive":
            row.update(queue="active", until=None, plugin=None)
            return gettext("%(pod)s: %(from)s → activeQ%(why)s.") % {
                "pod": pod,
                "from": QUEUE_NAMES.get(d.get("from"), d.get("from")),
                "why": why,
            }
        if kind == "Backoff":
            row.update(queue="backoff", until=d.get("until"), plugin=None)
            ends = gettext("its backoff ends at %(time)s") % {"time": _seconds(d.get("until"))}
            if before == "in_flight" or d.get("from") is None:
                return gettext(
                    "%(pod)s goes to backoffQ after the failed attempt%(why)s: %(ends)s."
                ) % {
                    "pod": pod,
                    "why": why,
                    "ends": ends,
                }
            return gettext("%(pod)s: %(from)s → backoffQ%(why)s: %(ends)s.") % {
                "pod": pod,
                "from": QUEUE_NAMES.get(d.get("from"), d.get("from")),
                "why": why,
                "ends": ends,
            }
        if kind == "Pop":
            row.update(queue="in_flight", attempts=d.get("attempts") or row["attempts"] + 1)
            if d.get("queue") == "backoff":
                return gettext(
                    "%(pod)s is popped from backoffQ (attempt %(attempt)s): activeQ was "
                    "empty, so the head of backoffQ goes first (PopFromBackoffQ)."
                ) % {"pod": pod, "attempt": row["attempts"]}
            return gettext(
                "%(pod)s is popped from activeQ (attempt %(attempt)s): it is the head of "
                "activeQ, highest priority first, then earliest queued."
            ) % {"pod": pod, "attempt": row["attempts"]}
        if kind == "Unschedulable":
            row["plugins"] = list(d.get("plugins") or []) + list(d.get("pending_plugins") or [])
            # The attempt's failure re-stamps the pod: its place in QueueSort order starts anew.
            row.update(queued_at=self.now, order=ev.get("seq", 0))
            if d.get("error"):
                return gettext(
                    "%(pod)s's attempt ended in an error: it will back off and retry."
                ) % {"pod": pod}
            return gettext("%(pod)s's attempt failed: rejected by %(plugins)s.") % {
                "pod": pod,
                "plugins": _plugins(row["plugins"]),
            }
        if kind == "Nominate":
            node = d.get("node")
            if node:
                return gettext(
                    "%(pod)s is nominated to %(node)s: the next attempt tries that node first."
                ) % {"pod": pod, "node": node}
            return gettext("%(pod)s has no nominated node any more.") % {"pod": pod}
        if kind == "Delete":
            row["queue"] = None
            return gettext("%(pod)s was deleted: it leaves %(place)s.") % {
                "pod": pod,
                "place": QUEUE_NAMES.get(before, before),
            }
        if kind == "Bind":
            row["queue"] = None
            return gettext("%(pod)s is bound to %(node)s: it leaves the scheduling queue.") % {
                "pod": pod,
                "node": ev.get("node"),
            }
        return None

    def queues(self) -> dict[str, Any]:
        """Each place's pods in its order (first LISTED), and how many there are."""
        by: dict[str, list[dict[str, Any]]] = {p: [] for p in _PLACES}
        for row in self.pods.values():
            if row["queue"] in by:
                by[row["queue"]].append(dict(row))
        by["active"].sort(key=active_order)
        by["backoff"].sort(key=lambda r: (r["until"] or 0.0, -r["priority"], r["order"]))
        for place in ("unschedulable", "gated", "in_flight"):
            by[place].sort(key=lambda r: (r["queued_at"], r["order"]))
        return {
            "pods": {p: rows[:LISTED] for p, rows in by.items()},
            "counts": {p: len(rows) for p, rows in by.items()},
        }


def _move_head(ev: Event, d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "seq": ev.get("seq"),
        "time": float(ev.get("time") or 0.0),
        "type": ev.get("type"),
        "pod": str(ev.get("pod") or ""),
        "event": d.get("event") or d.get("in_flight_event"),
        "plugin": d.get("plugin"),
        "hints": d.get("hints") or {},
    }


def active_order(row: Mapping[str, Any]) -> tuple[float, float, int]:
    """PrioritySort's key: higher priority first, then earlier queued, then arrival."""
    return (-row["priority"], row["queued_at"], row["order"])


def _seconds(value: Any) -> str:
    return "-" if value is None else f"t={round(float(value), 1)} s"


def _hint_text(d: Mapping[str, Any]) -> str:
    """Why a move happened, from the cluster event and the queueing hint that said Queue."""
    event, plugin = d.get("in_flight_event") or d.get("event"), d.get("plugin")
    if not event:
        return ""
    if d.get("in_flight_event"):
        text = gettext(": %(event)s happened during the attempt") % {"event": event}
    else:
        text = gettext(" on %(event)s") % {"event": event}
    if plugin:
        text += gettext(" and %(plugin)s's queueing hint said Queue") % {"plugin": plugin}
    skipped = sorted(p for p, answer in (d.get("hints") or {}).items() if answer != "Queue")
    if skipped:
        text += gettext(" (%(plugins)s said QueueSkip)") % {"plugins": listed(skipped)}
    return text


def cycle_queue(
    events: Iterable[Event], *, start: int, end: int | None, priorities: Mapping[str, int]
) -> dict[str, Any]:
    """The queues before seq ``start`` and the moves in ``[start, end)`` (to the end if None)."""
    fold = QueueFold(priorities)
    moves: list[dict[str, Any]] = []
    at_start: dict[str, Any] | None = None
    now = 0.0
    for ev in events:
        seq = int(ev.get("seq", 0))
        if end is not None and seq >= end:
            break
        if at_start is None and seq >= start:
            at_start, now = fold.queues(), fold.now
        move = fold.apply(ev, explain=at_start is not None)
        if move is not None:
            moves.append(move)
    if at_start is None:
        at_start, now = fold.queues(), fold.now
    return {
        "now": now,
        "order": str(ORDER_NOTE),
        "listed": LISTED,
        **at_start,
        "moves": moves[:MAX_MOVES],
        "more_moves": max(0, len(moves) - MAX_MOVES),
    }


# -- from the database ---------------------------------------------------------------------------

_PRIORITIES: OrderedDict[tuple[int, Any], dict[str, int]] = OrderedDict()
_PRIORITIES_KEPT: Final = 8


def run_priorities(run: Run) -> dict[str, int]:
    """Each pod's priority (spec.priority) in the run's snapshot, kept for a few recent runs.

    The snapshot is copied when the run starts and never changes, so it is read once. Kept by
    the run's id and creation time: a deleted run's id can be given again (SQLite reuses the
    highest one), and the new run must not read the old one's priorities.
    """
    kept = (run.pk, run.created)
    if kept in _PRIORITIES:
        _PRIORITIES.move_to_end(kept)
        return _PRIORITIES[kept]
    snapshot = run.snapshot
    out: dict[str, int] = {}
    for m in snapshot:
        if isinstance(m, dict) and m.get("kind") == "Pod":
            meta = m.get("metadata") or {}
            key = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
            try:
                out[key] = int((m.get("spec") or {}).get("priority") or 0)
            except (TypeError, ValueError):
                out[key] = 0
    _PRIORITIES[kept] = out
    while len(_PRIORITIES) > _PRIORITIES_KEPT:
        _PRIORITIES.popitem(last=False)
    return out


def _pop_seq(events: Sequence[Event], cycle: int, before: int) -> int:
    """The seq of the Pop that began ``cycle`` (the last before ``before``), else ``before``."""
    for ev in reversed(events):
        seq = int(ev["seq"])
        if seq >= before:
            continue
        if ev.get("type") == "Pop" and (ev.get("details") or {}).get("cycle") == cycle:
            return seq
        if ev.get("type") == "Pop":
            break  # another pod's pop: this cycle's own came first or not at all
    return before


def run_cycle_queue(*, run: Run, cycle: int) -> dict[str, Any] | None:
    """``cycle_queue`` for a stored cycle of ``run``; None for an unknown cycle."""
    first = (
        RunCycle.objects.filter(run=run, cycle=cycle).values_list("seq_first", flat=True).first()
    )
    if first is None:
        return None
    following = (
        RunCycle.objects.filter(run=run, seq_first__gt=first)
        .order_by("seq_first")
        .values_list("cycle", "seq_first")
        .first()
    )
    wanted = sorted(EVENT_TYPES | {packs.PACK})
    rows = RunEvent.objects.filter(run=run, type__in=wanted).order_by("seq")
    if following is not None:
        rows = rows.filter(seq__lt=following[1])
    # Every queue event before the next cycle (thousands late in a long run): read as text and
    # decoded by orjson, several times faster than a JSONField's json.loads per row.
    texts = rows.annotate(text=Cast("payload", TextField())).values_list("text", flat=True)
    before = following[1] if following is not None else None
    events = [
        e
        for e in packs.expand((loads(text) for text in texts), before=before)
        if e["type"] in EVENT_TYPES
    ]
    start = _pop_seq(events, cycle, first)
    end = _pop_seq(events, following[0], following[1]) if following is not None else None
    return cycle_queue(events, start=start, end=end, priorities=run_priorities(run))
