"""A run's cluster changes and what each did to the pending pods: the "Cluster events" section.

The engine records a change (``ClusterChange``) and, right after it, one record per
unschedulable pod whose queueing hints were asked: ``MoveToActive`` or ``Backoff`` when a
plugin's hint said Queue, ``StayUnschedulable`` when every asked hint said QueueSkip. The moves
of one change are the records that follow it with consecutive seqs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from django.utils.translation import gettext, gettext_noop

from ...models import Run, RunEvent
from ..storage import packs

MOVES: Final = ("MoveToActive", "Backoff", "StayUnschedulable")
_FOLLOWERS: Final = (*MOVES, "Delete", "Enqueue", "Nominate")  # what a change may emit after it
_QUEUE_NAMES: Final = {
    "MoveToActive": "activeQ",
    "Backoff": "backoffQ",
    "StayUnschedulable": "unschedulable",
}
_FROM_NAMES: Final = {"unschedulable": "unschedulable", "gated": "gated", "backoff": "backoffQ"}
# What a change did, as one sentence per object kind and action (the script's own sentences
# where they exist, so the run page and its script list say a change alike in every language).
_SENTENCES: Final = {
    ("node", "add"): gettext_noop("node %(node)s added"),
    ("node", "update"): gettext_noop("node %(node)s updated"),
    ("node", "remove"): gettext_noop("node %(node)s removed"),
    ("node", "delete"): gettext_noop("node %(node)s removed"),
    ("pod", "add"): gettext_noop("pod %(pod)s added"),
    ("pod", "update"): gettext_noop("pod %(pod)s updated"),
    ("pod", "remove"): gettext_noop("pod %(pod)s deleted"),
    ("pod", "delete"): gettext_noop("pod %(pod)s deleted"),
}
MAX_FOLLOWERS: Final = 2000  # records read after one change (pods it may have moved)


def describe(details: dict[str, Any]) -> str:
    """ "node n4 added", "pod default/web-2 deleted", in the reader's language."""
    kind = "node" if details.get("node") else "pod"
    name = str(details.get(kind) or "")
    sentence = _SENTENCES.get((kind, str(details.get("action"))))
    if sentence is None:  # an action this table does not know: its own word
        return f"{kind} {name} {details.get('action')}"
    return gettext(sentence) % {kind: name}


def group_changes(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each ClusterChange with the pods it moved and the pods it left (events in seq order).

    A change: {"seq", "after_cycle", "text", "events", "moved": [...], "kept": [...]}; a move:
    {"pod", "from", "to", "event", "plugin", "hint", "hints"}, where ``hint`` is what
    ``plugin``'s hint said ("Queue" for a move; for a pod kept, plugin is the first asked).
    """
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    expect = -1
    for ev in events:
        details = ev.get("details") or {}
        if ev["type"] == "ClusterChange":
            current = {
                "seq": ev["seq"],
                "after_cycle": ev["cycle"],
                "text": describe(details),
                "events": list(details.get("events") or []),
                "moved": [],
                "kept": [],
            }
            out.append(current)
            expect = ev["seq"] + 1
            continue
        if current is None or ev["seq"] != expect or ev["type"] not in _FOLLOWERS:
            current = None
            continue
        expect += 1
        if ev["type"] not in MOVES or details.get("from") not in _FROM_NAMES:
            continue
        hints = dict(details.get("hints") or {})
        plugin = details.get("plugin") or next(iter(hints), None)
        row = {
            "pod": ev["pod"],
            "from": _FROM_NAMES[details["from"]],
            "to": _QUEUE_NAMES[ev["type"]],
            "event": details.get("event"),
            "plugin": plugin,
            "hint": hints.get(plugin) if plugin else None,
            "hints": hints,
        }
        current["kept" if ev["type"] == "StayUnschedulable" else "moved"].append(row)
    return out


def run_has_changes(*, run: Run) -> bool:
    return RunEvent.objects.filter(run=run, type="ClusterChange").exists()


def run_changes(*, run: Run) -> list[dict[str, Any]]:
    """The run's cluster changes, grouped (``group_changes``), from its stored events."""
    starts = list(
        RunEvent.objects.filter(run=run, type="ClusterChange")
        .order_by("seq")
        .values_list("seq", flat=True)
    )
    if not starts:
        return []
    # A change's followers come after it in rows of their own or in packs (packs.py).
    end = starts[-1] + MAX_FOLLOWERS
    rows = (
        RunEvent.objects.filter(
            run=run,
            seq__gte=starts[0],
            seq__lte=end,
            type__in=("ClusterChange", *_FOLLOWERS, packs.PACK),
        )
        .order_by("seq")
        .values_list("payload", flat=True)
    )
    wanted = {"ClusterChange", *_FOLLOWERS}
    return group_changes([e for e in packs.expand(rows, before=end + 1) if e["type"] in wanted])
