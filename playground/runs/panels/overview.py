"""Run-wide panels built from a run's events: cycle list, queue, waiting pods, progress, usage.

Like ``charts`` (one cycle's panels) these are pure functions from event dicts to JSON-ready
values; they read the small events and the cycle summaries' light CycleStart/CycleEnd
(``selectors.run_events``), never a cycle's per-node detail, except ``compare``'s tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from django.utils.translation import gettext

from .charts import BINDING_TYPES, Event, binding_state, cycle_result, split_by_cycle


def timeline(events: Iterable[Event]) -> list[dict[str, Any]]:
    """One row per scheduling cycle: pod, result, node, binding state, Permit's rejection or
    timeout (``outcome``), first and last seq."""
    rows = []
    for cycle, evs in split_by_cycle(events).items():
        start = evs[0]
        end = next((e for e in evs if e["type"] == "CycleEnd"), None)
        binding = [e for e in evs if e["type"] in BINDING_TYPES]
        rows.append(
            {
                "cycle": cycle,
                "pod": start["pod"],
                "profile": start.get("profile"),
                "result": cycle_result(end, start.get("profile")),
                "node": end.get("node") if end else None,
                "message": end.get("message") if end else None,
                "binding": binding_state(binding),
                "outcome": binding_outcome(binding),
                "seq": start["seq"],
                "last_seq": evs[-1]["seq"],
            }
        )
    return rows


TIMEOUT_PREFIX: Final = "rejected due to timeout"


def binding_outcome(binding: Sequence[Event]) -> str | None:
    """The cycle list's result for a pod Permit turned away after its scheduling cycle chose a
    node: "Rejected at Permit (Plugin): reason" or "Permit timed out (Plugin): reason"; None
    otherwise. Mirrored by run.js's bindingOutcome."""
    for ev in binding:
        if ev["type"] != "Permit" or ev.get("code") in (None, "Success", "Wait", "Skip"):
            continue
        reason = "; ".join(ev.get("reasons") or ()) or ev.get("code", "")
        plugin = ev.get("plugin") or "Permit"
        if reason.startswith(TIMEOUT_PREFIX):
            return gettext("Permit timed out (%(plugin)s): %(reason)s") % {
                "plugin": plugin,
                "reason": reason,
            }
        return gettext("Rejected at Permit (%(plugin)s): %(reason)s") % {
            "plugin": plugin,
            "reason": reason,
        }
    return None


def waiting_pods(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Pods whose Permit answered Wait and that no later Permit or Unreserve settled."""
    waits: dict[str, dict[str, Any]] = {}
    for ev in events:
        kind = ev.get("type")
        pod = ev.get("pod", "")
        if kind == "Permit" and ev.get("code") == "Wait":
            entry = waits.setdefault(
                pod, {"pod": pod, "node": ev.get("node"), "plugins": {}, "since": ev["time"]}
            )
            timeout = ev.get("timeout")
            entry["plugins"][ev.get("plugin", "")] = {
                "timeout": timeout,
                "deadline": None if timeout is None else ev["time"] + timeout,
            }
        elif kind == "Permit" and pod in waits:
            waits[pod]["plugins"].pop(ev.get("plugin", ""), None)
            if not waits[pod]["plugins"] or ev.get("code") != "Success":
                waits.pop(pod)
        elif kind in ("Unreserve", "CycleStart", "Delete") and pod in waits:
            waits.pop(pod)
    out = []
    for entry in waits.values():
        plugins = [{"plugin": p, **v} for p, v in entry["plugins"].items()]
        deadlines = [p["deadline"] for p in plugins if p["deadline"] is not None]
        out.append({**entry, "plugins": plugins, "deadline": min(deadlines) if deadlines else None})
    return out


# -- queue, progress, placements ---------------------------------------------------------------


def queue_state(events: Iterable[Event], *, upto: int | None = None) -> dict[str, Any]:
    """activeQ, backoffQ (with remaining backoff) and unschedulable pods after the events.

    Derived from queue events only; a popped pod is "in flight" until its next queue event.
    ``Unschedulable`` records a failed attempt, not a place: the event after it says where the
    pod went, and a pod parked in the unschedulable pool or backoffQ keeps the plugins that
    rejected it (``plugins``). Gated pods name their gating plugin.
    """
    where: dict[str, tuple[str, dict[str, Any]]] = {}
    rejected: dict[str, list[str]] = {}
    now = 0.0
    for ev in events:
        if upto is not None and ev["seq"] > upto:
            break
        now = max(now, float(ev.get("time") or 0.0))
        kind, pod, d = ev.get("type"), ev.get("pod", ""), ev.get("details") or {}
        if kind == "Enqueue":
            queue = d.get("queue") or "active"
            info: dict[str, Any] = {"event": d.get("event")}
            if queue == "unschedulable":
                info["plugins"] = rejected.get(pod, [])
            elif queue == "gated":
                info["plugin"] = d.get("plugin")
            where[pod] = (queue, info)
        elif kind == "MoveToActive":
            where[pod] = ("active", {"event": d.get("event")})
        elif kind == "Backoff":
            plugins = rejected.get(pod, [])
            where[pod] = (
                "backoff",
                {"until": d.get("until"), "event": d.get("event"), "plugins": plugins},
            )
        elif kind == "Unschedulable":
            rejected[pod] = list(d.get("plugins") or [])
            where[pod] = ("unschedulable", {"plugins": rejected[pod]})
        elif kind == "Pop":
            where[pod] = ("in_flight", {"attempts": d.get("attempts")})
        elif kind == "Delete" or (kind == "Bind" and ev.get("code") == "Success"):
            where.pop(pod, None)
            rejected.pop(pod, None)
    out: dict[str, Any] = {
        "active": [],
        "backoff": [],
        "unschedulable": [],
        "gated": [],
        "in_flight": [],
        "now": now,
    }
    for pod, (queue, info) in where.items():
        row = {"pod": pod, **info}
        if queue == "backoff" and info.get("until") is not None:
            row["remaining"] = max(0.0, float(info["until"]) - now)
        out.setdefault(queue, []).append(row)
    return out


def progress(events: Sequence[Event]) -> dict[str, Any]:
    """How far a run is: cycles, pods seen, pods bound, pods still pending."""
    pods: set[str] = set()
    bound: set[str] = set()
    cycles = 0
    for ev in events:
        kind = ev.get("type")
        if kind == "Enqueue":
            pods.add(ev["pod"])
        elif kind == "CycleStart":
            cycles += 1
            pods.add(ev["pod"])
        elif kind == "Bind" and ev.get("code") == "Success":
            bound.add(ev["pod"])
        elif kind == "Delete":
            bound.discard(ev["pod"])
    return {"cycles": cycles, "pods": len(pods), "bound": len(bound & pods)}


def placements(events: Iterable[Event]) -> dict[str, str | None]:
    """Pod -> node after the events: set by a successful Bind, cleared by Delete."""
    out: dict[str, str | None] = {}
    for ev in events:
        kind = ev.get("type")
        if kind == "CycleStart":
            out.setdefault(ev["pod"], None)
        elif kind == "Bind" and ev.get("code") == "Success":
            out[ev["pod"]] = ev.get("node")
        elif kind == "Delete":
            out.pop(ev["pod"], None)
    return out


# -- cluster usage -----------------------------------------------------------------------------


def cluster_usage(
    nodes: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
    events: Iterable[Event],
) -> dict[str, Any]:
    """Per node CPU, memory and pod count in use before and after the run.

    ``nodes``: ``{"name", "cpu" (millicores), "memory" (bytes), "pods"}`` allocatable;
    ``pods``: ``{"pod" (ns/name), "node" (bound before the run or ""), "cpu", "memory"}``
    requests. Placement after the run comes from the Bind and Delete events.
    """
    before = {p["pod"]: p.get("node") or None for p in pods}
    after = dict(before)
    for ev in events:
        if ev.get("type") == "Bind" and ev.get("code") == "Success":
            after[ev["pod"]] = ev.get("node")
        elif ev.get("type") == "Delete":
            after[ev["pod"]] = None
    requests = {p["pod"]: p for p in pods}

    def use(where: Mapping[str, str | None]) -> dict[str, dict[str, int]]:
        out = {n["name"]: {"cpu": 0, "memory": 0, "pods": 0} for n in nodes}
        for pod, node in where.items():
            if node in out:
                req = requests.get(pod, {})
                out[node]["cpu"] += int(req.get("cpu", 0))
                out[node]["memory"] += int(req.get("memory", 0))
                out[node]["pods"] += 1
        return out

    b, a = use(before), use(after)
    rows = []
    for n in nodes:
        row: dict[str, Any] = {"node": n["name"]}
        for res in ("cpu", "memory", "pods"):
            cap = int(n.get(res, 0)) or 1
            row[res] = {
                "allocatable": int(n.get(res, 0)),
                "before": b[n["name"]][res],
                "after": a[n["name"]][res],
                "before_pct": round(100.0 * b[n["name"]][res] / cap, 1),
                "after_pct": round(100.0 * a[n["name"]][res] / cap, 1),
            }
        rows.append(row)
    return {"rows": rows}


USAGE_TOP_N: Final = 20
USAGE_RESOURCES: Final = ("cpu", "memory", "pods")


def shown_nodes(usage: Mapping[str, Any], top_n: int = USAGE_TOP_N) -> frozenset[str]:
    """The ``top_n`` nodes every usage chart draws: the most used after the run, by the fullest
    of their CPU, memory and pods (the snapshot's order among equals)."""
    rows = usage["rows"]
    ranked = sorted(
        range(len(rows)),
        key=lambda i: (-max(rows[i][res]["after_pct"] for res in USAGE_RESOURCES), i),
    )
    return frozenset(rows[i]["node"] for i in ranked[:top_n])


def usage_figure(
    usage: Mapping[str, Any], *, resource: str = "cpu", top_n: int = USAGE_TOP_N
) -> dict[str, Any]:
    """Horizontal bars per node: percent of allocatable in use before and after the run.

    Past ``top_n`` nodes, the most used after the run are drawn and the others become one pair
    of bars, their mean: a 5,000-node cluster stays readable, and light to draw. The nodes drawn
    are the same in the CPU, memory and pod charts (``shown_nodes``), so they can be read side by
    side. One row per node, so every name is written out level.
    """
    rows = list(usage["rows"])
    rest: list[Mapping[str, Any]] = []
    if len(rows) > top_n:
        keep = shown_nodes(usage, top_n)
        rest = [r for r in rows if r["node"] not in keep]
        rows = [r for r in rows if r["node"] in keep]
    nodes = [r["node"] for r in rows]
    before = [r[resource]["before_pct"] for r in rows]
    after = [r[resource]["after_pct"] for r in rows]
    if rest:
        nodes.append(gettext("the other %(count)s (mean)") % {"count": len(rest)})
        before.append(round(sum(r[resource]["before_pct"] for r in rest) / len(rest), 1))
        after.append(round(sum(r[resource]["after_pct"] for r in rest) / len(rest), 1))
    bars = ((gettext("before"), before, "#9bb7e0"), (gettext("after"), after, "#326ce5"))
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "y": nodes,
                "x": values,
                "marker": {"color": color},
                "hovertemplate": "%{y}: %{x}%<extra>" + name + "</extra>",
            }
            for name, values, color in bars
        ],
        "layout": {
            "barmode": "group",
            "title": {
                "text": gettext("%(resource)s requested, %% of allocatable")
                % {"resource": resource}
            },
            "xaxis": {"range": [0, 100], "ticksuffix": "%", "automargin": True},
            "yaxis": {"type": "category", "autorange": "reversed", "automargin": True},
            "height": 130 + 24 * len(nodes),
            "legend": {"orientation": "v"},  # beside the plot: clear of title and labels
            "margin": {"t": 50, "l": 10, "r": 10, "b": 30},
        },
    }


def compare(events_a: Sequence[Event], events_b: Sequence[Event]) -> dict[str, Any]:
    """Two runs of one cluster side by side: placement per pod and each pod's score tables."""
    place_a, place_b = placements(events_a), placements(events_b)
    last_a = _last_cycle_per_pod(events_a)
    last_b = _last_cycle_per_pod(events_b)
    pods = sorted(set(place_a) | set(place_b))
    rows = [
        {
            "pod": pod,
            "a": place_a.get(pod),
            "b": place_b.get(pod),
            "same": place_a.get(pod) == place_b.get(pod),
            "cycle_a": last_a.get(pod),
            "cycle_b": last_b.get(pod),
        }
        for pod in pods
    ]
    return {"rows": rows, "differ": sum(1 for r in rows if not r["same"])}


def _last_cycle_per_pod(events: Iterable[Event]) -> dict[str, int]:
    out: dict[str, int] = {}
    for ev in events:
        if ev.get("type") == "CycleStart":
            out[ev["pod"]] = int(ev["cycle"])
    return out
