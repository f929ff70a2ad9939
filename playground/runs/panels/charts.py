"""Page data built from decision records (event dicts), never from the engine.

Every function takes event dicts as ``scheduler_core.events.Event.to_dict()`` writes them (the
payloads of a run's RunEvent rows, or the websocket stream) and returns plain JSON-ready values:
the run page renders them server-side and ``static/playground/run.js`` draws them. Nothing here
re-computes a scheduling decision; it only regroups what the events already say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any, Final, overload

from django.utils.translation import gettext

from ...dra import panels as devices
from . import step_text
from .point_help import PLUGIN_HELP, POINT_HELP
from .sampling import sampling_sentence
from .step_text import BINDING_TYPES as BINDING_TYPES
from .verdicts import normalize_summary, post_filter_parts, preemption, winner_explanation

# The score table's three readings, and how many nodes a page shows by default: the heatmap and
# the combine bars are drawn from the table in the browser (static/playground/score_figures.js).
SCORE_MODES: Final = ("raw", "normalized", "weighted")
DEFAULT_TOP_N: Final = 20

Event = Mapping[str, Any]

CYCLE_TYPES: Final = frozenset(
    {
        "CycleStart",
        "PreFilter",
        "Filter",
        devices.MATCHES,
        "PostFilter",
        "PreScore",
        "Score",
        "Combine",
        devices.ALLOCATION,
        "CycleEnd",
    }
)
QUEUE_TYPES: Final = frozenset(
    {"Enqueue", "Pop", "Backoff", "Unschedulable", "MoveToActive", "Nominate", "Delete"}
)

# -- grouping ----------------------------------------------------------------------------------


# A cycle's result token: its CycleEnd's (Scheduled, Unschedulable, Error); NotQueued for a pod
# no profile serves (upstream never queues it: it stays Pending), Running while a cycle goes on.
NOT_QUEUED: Final = "NotQueued"


def cycle_result(end: Event | None, profile: str | None) -> str:
    if end is not None:
        return str(end["result"])
    return NOT_QUEUED if not profile else "Running"


def split_by_cycle(events: Iterable[Event]) -> dict[int, list[Event]]:
    """Each cycle's own events plus the binding events of its pod that follow it.

    A binding cycle can finish long after its scheduling cycle (a pod waiting at Permit is
    allowed later), so binding events belong to the pod's latest cycle, not to ``event.cycle``.
    """
    out: dict[int, list[Event]] = {}
    latest: dict[str, int] = {}
    for ev in events:
        kind = ev.get("type")
        if kind == "CycleStart":
            cycle = int(ev["cycle"])
            out[cycle] = [ev]
            latest[ev["pod"]] = cycle
        elif kind in CYCLE_TYPES:
            cycle = int(ev["cycle"])
            if cycle in out:
                out[cycle].append(ev)
        elif kind in BINDING_TYPES or kind == devices.ALLOCATION:
            owner = latest.get(ev.get("pod", ""))
            if owner is not None:
                out[owner].append(ev)
    return out


def binding_state(binding: Sequence[Event]) -> str:
    """One word for a binding cycle so far: Bound, Waiting, Rejected, Failed, or Binding."""
    waiting: set[str] = set()
    state = "Binding" if binding else ""
    for ev in binding:
        kind, code = ev["type"], ev.get("code")
        if kind == "Permit" and code == "Wait":
            waiting.add(ev.get("plugin", ""))
            state = "Waiting"
        elif kind == "Permit" and code == "Success":
            waiting.discard(ev.get("plugin", ""))
            state = "Waiting" if waiting else "Binding"
        elif kind == "Unreserve":
            state = (
                "Rejected"
                if any(
                    e["type"] == "Permit" and e.get("code") not in ("Success", "Wait")
                    for e in binding
                )
                else "Failed"
            )
        elif kind == "Bind" and code == "Success":
            state = "Bound"
        elif code not in (None, "Success", "Skip", "Wait"):
            state = "Failed"
    return state


def cycle_events(events: Iterable[Event], cycle: int) -> list[Event]:
    return split_by_cycle(events).get(cycle, [])


# -- filter ------------------------------------------------------------------------------------


class FilterRows(Sequence[dict[str, Any]]):
    """The filter matrix's rows, each built when it is read, over the cycle's columns.

    At thousands of nodes the page shows one page of rows; paging sorts and searches the
    ``nodes`` and ``verdicts`` columns and reads only the rows it shows.
    """

    def __init__(self, cycle_evs: Sequence[Event]) -> None:
        start = next((e for e in cycle_evs if e["type"] == "CycleStart"), {})
        self.nodes: list[str] = list(start.get("nodes") or [])
        self.plugin_events = [e for e in cycle_evs if e["type"] == "Filter" and e.get("plugin")]
        verdict = next(
            (e for e in cycle_evs if e["type"] == "Filter" and not e.get("plugin")), None
        )
        end = next((e for e in cycle_evs if e["type"] == "CycleEnd"), None)
        n = len(self.nodes)
        self.verdict = verdict
        codes: list[str | None] = list(verdict["codes"][:n]) if verdict is not None else []
        # Each row's verdict: None where Filter did not evaluate the node.
        self.verdicts = codes + [None] * (n - len(codes))
        self.evaluated = len(codes) - codes.count(None)
        passed = [node for node, code in zip(self.nodes, codes, strict=False) if code == "Success"]
        # With node sampling, the node that ends Filter's walk passes but is not kept (CycleEnd).
        self.feasible: list[str] = (
            list(end["feasible"]) if end and end.get("feasible") is not None else passed
        )
        self.message = end.get("message") if end else None
        self._kept: set[str] | None = None

    def __len__(self) -> int:
        return len(self.nodes)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self._row(k) for k in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return self._row(i % len(self))

    def _row(self, i: int) -> dict[str, Any]:
        """Node ``i``'s row: each plugin's cell (None: not run), the verdict, its reasons, the
        first rejector, and whether a passing node was dropped."""
        if self._kept is None:
            self._kept = set(self.feasible)
        node = self.nodes[i]
        row: dict[str, Any] = {
            "node": node,
            "cells": [_filter_cell(ev, i) for ev in self.plugin_events],
            "verdict": None,
            "rejector": None,
        }
        verdict = self.verdict
        if verdict is not None and i < len(verdict["codes"]):
            row["verdict"] = verdict["codes"][i]
            row["reasons"] = list(verdict["reasons"][i] or [])
            rejectors = verdict.get("rejector") or []
            row["rejector"] = rejectors[i] if i < len(rejectors) else None
        row["dropped"] = row["verdict"] == "Success" and node not in self._kept
        return row


def filter_matrix(cycle_evs: Sequence[Event], *, lazy_rows: bool = False) -> dict[str, Any]:
    """Nodes x Filter plugins: each cell's code and reasons, the first rejector, the FitError.

    Rows follow the snapshot order (CycleStart.nodes); a cell is None where the plugin did not
    run on that node. ``lazy_rows``: the rows as a ``FilterRows``, built when read.
    """
    rows = FilterRows(cycle_evs)
    return {
        "plugins": [e["plugin"] for e in rows.plugin_events],
        "rows": rows if lazy_rows else list(rows),
        "feasible": rows.feasible,
        "evaluated": rows.evaluated,
        "message": rows.message,
    }


def _filter_cell(ev: Event, i: int) -> dict[str, Any] | None:
    """A Filter plugin's cell on node ``i`` (None: not run)."""
    codes, reasons = ev["codes"], ev["reasons"]
    code = codes[i] if i < len(codes) else None
    if code is None:
        return None
    return {"code": code, "reasons": list((reasons[i] if i < len(reasons) else None) or ())}


# -- score -------------------------------------------------------------------------------------


def score_table(cycle_evs: Sequence[Event]) -> dict[str, Any]:
    """Feasible nodes x Score plugins in three modes, the weights and the totals.

    ``nodes`` are sorted by total (highest first, then by name, as the tie list is), so the top
    N nodes are a prefix. ``values[mode][i][j]`` is plugin j's value on node i.
    """
    scores = [e for e in cycle_evs if e["type"] == "Score"]
    combine = next((e for e in cycle_evs if e["type"] == "Combine"), None)
    plugins = [e["plugin"] for e in scores]
    weights = [int(e.get("weight", 1)) for e in scores]
    order, columns = _score_columns(scores, combine)
    if combine is not None and combine.get("totals"):
        by_node = dict(zip(combine["nodes"], combine["totals"], strict=False))
        total_of = list(map(int, map(by_node.get, order, repeat(0))))
    else:
        weighted = zip(*columns["weighted"], strict=True) if scores else ((),) * len(order)
        total_of = [sum(row) for row in weighted]
    # By total, highest first, then by name: two stable sorts with C-speed keys (a reversed sort
    # keeps equal keys in their order), thousands of nodes being mostly tied.
    by_name = sorted(range(len(order)), key=order.__getitem__)
    ranked = sorted(by_name, key=total_of.__getitem__, reverse=True)
    nodes = list(map(order.__getitem__, ranked))
    values = {}
    for mode in SCORE_MODES:
        rows = list(zip(*columns[mode], strict=True)) if scores else [() for _ in order]
        values[mode] = list(map(list, map(rows.__getitem__, ranked)))
    totals = list(map(total_of.__getitem__, ranked))
    return {
        "plugins": plugins,
        "weights": weights,
        "nodes": nodes,
        "values": values,
        "totals": totals,
        "top": list(combine.get("top") or []) if combine else [],
        "selected": combine.get("selected") if combine else None,
        "scored": bool(combine.get("scored", True)) if combine else bool(scores),
    }


def _score_columns(
    scores: Sequence[Event], combine: Event | None
) -> tuple[list[str], dict[str, list[list[int]]]]:
    """Every scored node once (first-seen order) and, per mode, each plugin's column over them
    (0 where a plugin did not score a node). When every Score event lists the same nodes, as
    the engine records them, its columns are taken as they are."""
    first = list(scores[0]["nodes"]) if scores else []
    extra = list((combine.get("nodes") or []) if combine is not None else [])
    if (
        scores
        and len(set(first)) == len(first)
        and all(list(ev["nodes"]) == first for ev in scores[1:])
        and (not extra or set(extra) <= set(first))
    ):
        return first, {mode: [list(map(int, ev[mode])) for ev in scores] for mode in SCORE_MODES}
    seen: dict[str, None] = {}  # a dict keeps first-seen order in linear time
    for ev in scores:
        seen.update(dict.fromkeys(ev["nodes"]))
    seen.update(dict.fromkeys(extra))
    order = list(seen)
    columns: dict[str, list[list[int]]] = {}
    for mode in SCORE_MODES:
        columns[mode] = []
        for ev in scores:
            by_node = {n: int(v) for n, v in zip(ev["nodes"], ev[mode], strict=False)}
            columns[mode].append([by_node.get(n, 0) for n in order])
    return order, columns


# -- binding -----------------------------------------------------------------------


def binding_steps(cycle_evs: Sequence[Event]) -> list[dict[str, Any]]:
    """Reserve, Permit, PreBind, Bind, PostBind and Unreserve steps in order."""
    return [
        {
            "seq": e["seq"],
            "point": e["type"],
            "plugin": e.get("plugin", ""),
            "node": e.get("node", ""),
            "code": e.get("code", ""),
            "reasons": list(e.get("reasons") or []),
            "timeout": e.get("timeout"),
            "time": e.get("time", 0.0),
        }
        for e in cycle_evs
        if e["type"] in BINDING_TYPES
    ]


# -- step-through ------------------------------------------------------------------------------


def _step_events(cycle_evs: Sequence[Event]) -> list[Event]:
    """The events as steps: a NormalizeScore step per Score plugin after the last Score event,
    and a rejecting PostFilter event split per plugin (``post_filter_parts``).

    The Score event carries raw, normalized and weighted at once; upstream runs every plugin's
    Score, then every plugin's NormalizeScore, then the weighted sum, so the step-through does.
    The NormalizeScore steps keep their Score event's seq.
    """
    out: list[Event] = []
    for ev in cycle_evs:
        if ev["type"] == "PostFilter" and not ev.get("nominated_node"):
            out.extend({**ev, **part} for part in post_filter_parts(ev))
        else:
            out.append(ev)
    scores = [e for e in out if e["type"] == "Score"]
    if not scores:
        return out
    last = max(i for i, e in enumerate(out) if e["type"] == "Score")
    extra = [{**e, "type": "NormalizeScore"} for e in scores]
    return [*out[: last + 1], *extra, *out[last + 1 :]]


def steps(cycle_evs: Sequence[Event]) -> list[dict[str, Any]]:
    """The step-through of one cycle: one step per plugin per extension point, in order.

    Score events give two steps each, in upstream's order: every plugin's Score (raw), then
    every plugin's NormalizeScore; the Combine step is the weighted sum.

    Each step has ``point`` (extension point), ``plugin``, ``seq``, ``help`` (what the point
    does), ``plugin_help`` and ``why`` (what this plugin decided, from its event).
    """
    start = next((e for e in cycle_evs if e["type"] == "CycleStart"), {})
    nodes = list(start.get("nodes") or [])
    out: list[dict[str, Any]] = []
    for ev in _step_events(cycle_evs):
        kind = ev["type"]
        plugin = ev.get("plugin") or ""
        if kind == "PreFilter" and ev.get("merged"):
            label = gettext("PreFilter result")
        elif kind == "Filter" and not plugin:
            label = gettext("Filter verdict")
        elif kind in (devices.MATCHES, devices.ALLOCATION):
            plugin = "DynamicResources"
            label = (
                gettext("Devices per node")
                if kind == devices.MATCHES
                else gettext("Device allocation")
            )
        else:
            label = f"{kind} · {plugin}" if plugin else kind
        out.append(
            {
                "index": len(out),
                "seq": ev["seq"],
                "time": ev.get("time"),
                "point": kind,
                "plugin": plugin,
                "code": ev.get("code"),
                "label": label,
                "help": str(POINT_HELP.get(kind, "")),
                "plugin_help": str(PLUGIN_HELP.get(plugin, "")),
                "why": step_text.why(ev, nodes),
            }
        )
    devices.annotate_binding_steps(out, cycle_evs)  # Reserve/PreBind name their devices
    return _upstream_order(out)


# Reserve and Permit close the scheduling cycle upstream; the engine records the cycle's end
# (its chosen node) before them, so the step-through moves that step after them. A Permit answer
# after a Wait (allowed, rejected, timed out) belongs to the binding cycle's WaitOnPermit.
_SCHEDULING_TAIL: Final = frozenset({"Reserve", "Permit", devices.ALLOCATION})


def _upstream_order(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    end = next((i for i, s in enumerate(out) if s["point"] == "CycleEnd"), None)
    if end is not None:
        tail, waiting = end + 1, set[str]()
        while tail < len(out) and out[tail]["point"] in _SCHEDULING_TAIL:
            step = out[tail]
            if step["point"] == "Permit":
                if step["plugin"] in waiting:
                    break
                if step["code"] == "Wait":
                    waiting.add(step["plugin"])
            tail += 1
        out.insert(tail - 1, out.pop(end))
    for i, step in enumerate(out):
        step["index"] = i
    return out


# -- one cycle, all panels ---------------------------------------------------------------------


def cycle_detail(
    events: Iterable[Event], cycle: int, *, lazy_rows: bool = False
) -> dict[str, Any] | None:
    """Everything the run page shows for one cycle, or None if the cycle has no events yet.

    ``lazy_rows``: the filter matrix's rows as a ``FilterRows`` (``filter_matrix``)."""
    evs = cycle_events(events, cycle)
    if not evs:
        return None
    start = evs[0]
    end = next((e for e in evs if e["type"] == "CycleEnd"), None)
    table = score_table(evs)
    binding = binding_steps(evs)
    return {
        "cycle": cycle,
        "pod": start["pod"],
        "profile": start.get("profile"),
        "note": start.get("note"),
        "sampling": sampling_sentence(start.get("sampling"), start.get("nodes")),
        "result": cycle_result(end, start.get("profile")),
        "node": end.get("node") if end else None,
        "message": end.get("message") if end else None,
        "prefilter": [
            {
                "plugin": e.get("plugin"),
                "merged": e.get("merged", False),
                "code": e.get("code"),
                "reasons": list(e.get("reasons") or []),
                "node_names": e.get("node_names"),
            }
            for e in evs
            if e["type"] == "PreFilter"
        ],
        "prescore": [
            {"plugin": e.get("plugin"), "code": e.get("code"), "reasons": e.get("reasons")}
            for e in evs
            if e["type"] == "PreScore"
        ],
        "filter": filter_matrix(evs, lazy_rows=lazy_rows),
        "scores": table,
        "winner": winner_explanation(table),
        "normalize": normalize_summary(table) if table["scored"] else [],
        "preemption": preemption(evs),
        "devices": next(
            (devices.matches_panel(e) for e in evs if e["type"] == devices.MATCHES), None
        ),
        "binding": binding,
        "binding_state": binding_state([e for e in evs if e["type"] in BINDING_TYPES]),
        "steps": steps(evs),
        "last_seq": evs[-1]["seq"],
    }
