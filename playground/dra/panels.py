"""DRA panels and explanations built from a run's DeviceMatches and DeviceAllocation events.

Pure functions over event dicts, like charts.py (which calls them): which devices matched which
request on each node and why the others did not, and what the binding cycle allocated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

Event = Mapping[str, Any]

MATCHES: Final = "DeviceMatches"
ALLOCATION: Final = "DeviceAllocation"

POINT_HELP: Final[dict[str, Promise]] = {
    MATCHES: gettext_lazy(
        "Dynamic Resource Allocation, seen per node: for every device request of the "
        "pod's unallocated claims, each device the node can reach is checked against its "
        "DeviceClass's CEL selectors, then the request's own, and must not be allocated to another "
        "claim already. Filter's allocator then needs enough matching devices for every request at "
        "once (and any matchAttribute constraint); kube-scheduler itself only reports 'cannot "
        "allocate all claims'."
    ),
    ALLOCATION: gettext_lazy(
        "PreBind of DynamicResources wrote the allocation chosen in Filter for the "
        "selected node into each claim's status, and reserved the claim for the pod: later pods "
        "see these devices as taken."
    ),
}
_SHOWN_NODES: Final = 4
_SHOWN_DEVICES: Final = 3


def _label(row: Mapping[str, Any]) -> str:
    return gettext("%(claim)s request %(request)s") % {
        "claim": row.get("claim"),
        "request": row.get("request"),
    }


def node_rows(explanation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One node's requests: the matched devices and the others with why, for a table."""
    out = []
    for row in explanation.get("requests") or ():
        if row.get("allocated"):
            out.append(
                {
                    "claim": row.get("claim"),
                    "request": "",
                    "matched": [],
                    "rejected": [],
                    "note": gettext("already allocated; usable here")
                    if row.get("availableHere")
                    else gettext("already allocated; not available on this node"),
                }
            )
            continue
        devices = row.get("devices") or ()
        out.append(
            {
                "claim": row.get("claim"),
                "request": row.get("request"),
                "class": row.get("class"),
                "count": row.get("count"),
                "matched": [d["device"] for d in devices if d.get("verdict") == "matched"],
                "rejected": [d for d in devices if d.get("verdict") != "matched"],
                "note": "" if devices else gettext("no device of any pool on this node"),
            }
        )
    return out


def matches_panel(ev: Event) -> list[dict[str, Any]]:
    """Per node (snapshot order): its request rows, the pools it cannot reach, its allocation."""
    return [
        {
            "node": node,
            "requests": node_rows(explanation),
            "elsewhere": dict(explanation.get("elsewhere") or {}),
            "allocation": explanation.get("allocation"),
            "filter": explanation.get("filter"),  # None: an earlier plugin rejected the node
        }
        for node, explanation in zip(
            ev.get("nodes") or (), ev.get("explanations") or (), strict=False
        )
    ]


def _short_why(rejected: Sequence[Mapping[str, Any]]) -> str:
    """The rejected devices grouped by reason: ``pool/gpu-0, pool/gpu-1 (reason)``."""
    by_reason: dict[str, list[str]] = {}
    for d in rejected:
        name = "/".join(str(d["device"]).split("/")[-2:])
        by_reason.setdefault(str(d.get("why") or d.get("verdict")), []).append(name)
    parts = []
    for reason, names in by_reason.items():
        more = len(names) - _SHOWN_DEVICES
        shown = ", ".join(names[:_SHOWN_DEVICES]) + _more(more)
        parts.append(f"{shown} ({reason})")
    return "; ".join(parts)


def _enough(row: Mapping[str, Any]) -> bool:
    count = row.get("count")
    need = count if isinstance(count, int) else 1
    return len(row["matched"]) >= need


def _misses(panel: Mapping[str, Any]) -> list[str]:
    """Why the requests of one node cannot be served; empty when each has enough devices.

    Subrequests of one ``firstAvailable`` list count as served when any of them is.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in panel["requests"]:
        if r["request"]:
            parent = str(r["request"]).split("/")[0]
            groups.setdefault((str(r["claim"]), parent), []).append(r)
    out = []
    for rows in groups.values():
        if any(_enough(r) for r in rows):
            continue
        for r in rows:
            have = gettext("%(matched)s of %(count)s matched") % {
                "matched": len(r["matched"]),
                "count": r["count"],
            }
            reason = (
                _short_why(r["rejected"]) or r["note"] or gettext("no other device on this node")
            )
            if not r["rejected"] and not r["matched"] and panel["elsewhere"]:
                pools = ", ".join(list(panel["elsewhere"])[:_SHOWN_DEVICES])
                reason += gettext(" (pools of other nodes: %(pools)s)") % {"pools": pools}
            out.append(f"{panel['node']}: {_label(r)}: {have} — {reason}")
    return out


def why_matches(ev: Event) -> str:
    """One step's text: where every request found devices, and where none matched and why."""
    allocatable: list[str] = []
    blocked: list[str] = []
    unchecked: list[str] = []
    misses: list[str] = []
    for panel in matches_panel(ev):
        node_misses = _misses(panel)
        if node_misses:
            misses += node_misses
        elif panel["filter"] == "":
            allocatable.append(panel["node"])
        elif panel["filter"] is None:
            unchecked.append(panel["node"])
        else:
            blocked.append(f"{panel['node']} ({panel['filter']})")
    text = []
    if allocatable:
        text.append(
            gettext("Devices can be allocated on %(nodes)s.")
            % {"nodes": _listed(allocatable, ", ")}
        )
    if blocked:
        text.append(
            gettext(
                "Enough matching devices, yet no allocation on %(nodes)s: a matchAttribute "
                "constraint, or requests competing for the same devices."
            )
            % {"nodes": _listed(blocked, ", ")}
        )
    if unchecked:
        text.append(
            gettext(
                "Enough matching devices on %(nodes)s, but an earlier Filter plugin rejected the "
                "node."
            )
            % {"nodes": _listed(unchecked, ", ")}
        )
    if not text:
        text.append(gettext("No node has enough matching devices."))
    if misses:
        text.append(gettext("Not enough: %(misses)s.") % {"misses": _listed(misses, ". ")})
    return " ".join(text)


def _more(more: int) -> str:
    return gettext(" and %(more)s more") % {"more": more} if more > 0 else ""


def _listed(items: list[str], sep: str) -> str:
    """The first few items, saying how many more there are."""
    return sep.join(items[:_SHOWN_NODES]) + _more(len(items) - _SHOWN_NODES)


def why_allocation(ev: Event) -> str:
    """One step's text: the devices each claim got."""
    parts = []
    for key, summary in (ev.get("claims") or {}).items():
        devices = ", ".join(_device_for(d) for d in summary.get("devices") or ())
        parts.append(f"{key}: {devices or gettext('no device')}")
    if not parts:
        return gettext("No claim to allocate.")
    return gettext("Allocated %(parts)s.") % {"parts": "; ".join(parts)}


def _device_for(d: Mapping[str, Any]) -> str:
    return gettext("%(device)s for %(request)s") % {
        "device": f"{d['driver']}/{d['pool']}/{d['device']}",
        "request": d["request"],
    }


def _chosen(cycle_evs: Sequence[Event]) -> list[str]:
    """The devices Filter chose on the cycle's node, ``claim: driver/pool/device for request``."""
    matches = next((e for e in cycle_evs if e["type"] == MATCHES), None)
    end = next((e for e in cycle_evs if e["type"] == "CycleEnd"), None)
    if matches is None or end is None or not end.get("node"):
        return []
    panel = next((p for p in matches_panel(matches) if p["node"] == end["node"]), None)
    if panel is None:
        return []
    pending: list[str] = []
    for r in panel["requests"]:
        if r["request"] and r["claim"] not in pending:
            pending.append(str(r["claim"]))
    out = []
    for i, devices in enumerate(panel["allocation"] or ()):
        claim = pending[i] if i < len(pending) else gettext("a claim")
        for d in devices:
            out.append(f"{claim}: {_device_for(d)}")
    return out


_BINDING_WHY: Final = {
    "Reserve": gettext_lazy("Reserve keeps the allocation Filter found on {node}: {devices}."),
    "PreBind": gettext_lazy(
        "PreBind writes it into each claim's status.allocation and reserves the claim "
        "for the pod: {devices}."
    ),
}


def annotate_binding_steps(steps: list[dict[str, Any]], cycle_evs: Sequence[Event]) -> None:
    """DynamicResources' successful Reserve and PreBind steps name the devices they keep."""
    chosen = _chosen(cycle_evs)
    if not chosen:
        return
    end = next(e for e in cycle_evs if e["type"] == "CycleEnd")
    for step in steps:
        template = _BINDING_WHY.get(step["point"])
        if step["plugin"] == "DynamicResources" and template and step["code"] == "Success":
            step["why"] = str(template).format(node=end["node"], devices="; ".join(chosen))
