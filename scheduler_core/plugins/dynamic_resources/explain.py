"""DynamicResources explained: the devices behind its Filter verdict, and its Score.

Filter: for each pending request of the pod's claims, every device of every pool the node can
reach, with its attributes and capacity, the DeviceClass's and the request's CEL selectors, and
the device's verdict (matched; taken, by which claim; or which selector said false), then the
devices the allocator chose there, or why no allocation exists. Claims allocated already say
whether their node selector admits the node. Score: per claim, the ``firstAvailable`` subrequest
the node's allocation used and its 8 − index.

The device verdicts come from ``scheduler_core.dra.explain`` (the allocator's own pools,
selectors and taken devices); this module adds the devices' attributes, who holds a taken device,
and the sentences. Reserve and PreBind are explained in ``scheduler_core.explain.plugins.dra``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from scheduler_core.dra.explain import explain_node as explain_devices
from scheduler_core.dra.types import (
    FIRST_AVAILABLE_MAX_SIZE,
    Allocation,
    Device,
    ResourceClaim,
    ResourceSlice,
)
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.types import NodeInfo
from scheduler_core.plugins import names
from scheduler_core.words import _, clauses, listed, ngettext
from scheduler_core.words import sentences as join_sentences

if TYPE_CHECKING:
    from scheduler_core.plugins.dynamic_resources.plugin import DynamicResources

NAME: Final = names.DYNAMIC_RESOURCES
_SHOWN: Final = 4  # devices named per reason in a sentence

DeviceID = tuple[str, str, str]


def plugin_state(state: Any) -> Any:
    """The plugin's stateData (claims, allocator, node_allocations), or None without claims."""
    found = state.get(NAME)
    return found if getattr(found, "claims", None) else None


def device_attributes(device: Device) -> dict[str, Any]:
    """A device's attributes and capacity as plain values: ``{"model": "l4"}``, ``{"memory":
    "24Gi"}``."""
    return {
        "attributes": {k: a.value for k, a in device.attributes},
        "capacity": dict(device.capacity),
    }


def device_index(slices: Iterable[ResourceSlice]) -> dict[DeviceID, Device]:
    """Every published device by (driver, pool, name)."""
    return {(s.driver, s.pool, d.name): d for s in slices for d in s.devices}


def holders(claims: Iterable[ResourceClaim]) -> dict[DeviceID, str]:
    """The claim holding each allocated device (namespace/name)."""
    out: dict[DeviceID, str] = {}
    for claim in claims:
        if claim.allocation is not None:
            for d in claim.allocation.devices:
                out[(d.driver, d.pool, d.device)] = claim.key
    return out


def device_text(did: str, info: Mapping[str, Any]) -> str:
    """``gpu-2/gpu-0 (model l4, memory 24Gi)``: pool/device and its attributes and capacity."""
    parts = [
        f"{k} {v}" for k, v in info.get("attributes", {}).items() if k not in ("index", "uuid")
    ]
    parts += [f"{k} {v}" for k, v in info.get("capacity", {}).items()]
    short = "/".join(did.split("/")[-2:])
    return f"{short} ({', '.join(parts)})" if parts else short


def _shown(items: Sequence[str]) -> str:
    more = len(items) - _SHOWN
    shown = listed(items[:_SHOWN])
    if more <= 0:
        return shown
    return _("%(items)s and %(more)s more") % {"items": shown, "more": more}


def node_devices(ctx: ExplainInputs, state: Any, node: NodeInfo) -> dict[str, Any]:
    """One node's DRA inputs: per request its class, selectors and devices (with attributes,
    verdicts and holders), the pools of other nodes, and the allocation chosen there."""
    manager = ctx.snapshot.objects.dra
    index = device_index(manager.slices)
    held = holders(manager.claims.values())
    name = node.node.name
    # Without a pending claim there is no allocator: dra.explain then reads none of it.
    allocator: Any = state.allocator if state.allocator is not None else _NoAllocator()
    found = explain_devices(
        allocator, state.claims, node.node, state.node_allocations.get(name), tr=_
    )
    for row in found["requests"]:
        if row.get("allocated"):
            continue
        cls = manager.classes.get(row["class"])
        row["classSelectors"] = list(cls.selectors) if cls is not None else []
        row["requestSelectors"] = list(_request(state.claims, row).selectors)
        for dev in row["devices"]:
            did = tuple(str(dev["device"]).split("/", 2))
            if len(did) == 3 and did in index:
                dev.update(device_attributes(index[did]))
            if dev["verdict"] == "taken":
                holder = held.get(did)  # type: ignore[arg-type]
                if holder is not None:
                    dev["heldBy"] = holder
                    dev["why"] = _("allocated to %(claim)s") % {"claim": holder}
    allocations: Sequence[Allocation] | None = state.node_allocations.get(name)
    if allocations is not None:
        found["allocation"] = [
            {
                **d.to_dict(),
                **device_attributes(index[(d.driver, d.pool, d.device)]),
            }
            if (d.driver, d.pool, d.device) in index
            else d.to_dict()
            for a in allocations
            for d in a.devices
        ]
    return found


class _NoAllocator:
    """What dra.explain reads of an allocator when no claim is pending (it reads none)."""

    slices: tuple[ResourceSlice, ...] = ()
    classes: dict[str, Any] = {}
    allocated: frozenset[DeviceID] = frozenset()


def _request(claims: Sequence[ResourceClaim], row: Mapping[str, Any]) -> Any:
    for claim in claims:
        if claim.key != row["claim"]:
            continue
        for req in claim.requests:
            for r in (req.exactly, *req.first_available):
                if r is not None and r.full_name == row["request"]:
                    return r
    raise LookupError(row["request"])


def _request_sentence(row: Mapping[str, Any]) -> str:
    need = row["count"] if isinstance(row["count"], int) else 1
    matched = [d for d in row["devices"] if d["verdict"] == "matched"]
    selectors = row.get("requestSelectors") or []
    where = {
        "claim": row["claim"],
        "request": row["request"],
        "class": row["class"],
        "selectors": " && ".join(selectors),
        "count": row["count"],
        "matched": len(matched),
    }
    if selectors and row["count"] == "All":
        head = _(
            "%(claim)s request %(request)s (class %(class)s, selector %(selectors)s) needs all: "
            "%(matched)s matched"
        )
    elif selectors:
        head = _(
            "%(claim)s request %(request)s (class %(class)s, selector %(selectors)s) needs "
            "%(count)s: %(matched)s matched"
        )
    elif row["count"] == "All":
        head = _("%(claim)s request %(request)s (class %(class)s) needs all: %(matched)s matched")
    else:
        head = _(
            "%(claim)s request %(request)s (class %(class)s) needs %(count)s: %(matched)s matched"
        )
    text = head % where
    if matched:
        text += " — " + _shown([device_text(d["device"], d) for d in matched])
    by_reason: dict[str, list[str]] = {}
    for d in row["devices"]:
        if d["verdict"] != "matched":
            by_reason.setdefault(str(d.get("why") or d["verdict"]), []).append(
                device_text(d["device"], d)
            )
    for reason, devices in by_reason.items():
        text += _("; %(devices)s: %(reason)s") % {"devices": _shown(devices), "reason": reason}
    if not row["devices"]:
        text += _("; the node reaches no device")
    if len(matched) < need:
        text += _(" — not enough")
    return text


def filter_parts(ctx: ExplainInputs, view: FilterView) -> FilterParts:
    """The Filter explanation's inputs, formula and sentences for one node."""
    state = plugin_state(view.state)
    if state is None:
        return {"claims": []}, "", _("The pod references no ResourceClaim.")
    found = node_devices(ctx, state, view.node_info)
    sentences = []
    for row in found["requests"]:
        if row.get("allocated"):
            if row["availableHere"]:
                line = _("%(claim)s is allocated already and may be used here.")
            else:
                line = _("%(claim)s is allocated already and is not available here.")
            sentences.append(line % {"claim": row["claim"]})
        else:
            sentences.append(_("%(clauses)s.") % {"clauses": _request_sentence(row)})
    if found["elsewhere"]:
        pools = [
            ngettext("%(pool)s (%(count)s device)", "%(pool)s (%(count)s devices)", n)
            % {"pool": k, "count": n}
            for k, n in found["elsewhere"].items()
        ]
        sentences.append(
            _("Pools of other nodes, not reachable from here: %(pools)s.")
            % {"pools": _shown(pools)}
        )
    chosen = found.get("allocation")
    if chosen:
        picks = [
            _("%(device)s for %(request)s")
            % {"device": device_text(device_id(d), d), "request": d["request"]}
            for d in chosen
        ]
        sentences.append(_("The allocator chose %(devices)s.") % {"devices": listed(picks)})
    elif state.allocator is not None and all(
        sum(d["verdict"] == "matched" for d in r["devices"])
        >= (r["count"] if isinstance(r["count"], int) else 1)
        for r in found["requests"]
        if not r.get("allocated")
    ):
        sentences.append(
            _(
                "Each request has enough matching devices, yet no set serves every request at "
                "once (a matchAttribute constraint, or requests competing for the same devices)."
            )
        )
    formula = _(
        "per request: count devices passing the class's and the request's selectors and not "
        "allocated to another claim; every request (and constraint) served at once"
    )
    return found, formula, join_sentences(sentences)


def device_id(d: Mapping[str, Any]) -> str:
    return f"{d['driver']}/{d['pool']}/{d['device']}"


def score_parts(pl: DynamicResources, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
    """Score: per claim, the firstAvailable subrequest the node's allocation used, 8 − index."""
    value, _status = pl.score(ctx.state, ctx.pod, ni)
    state = plugin_state(ctx.state)
    if state is None:
        return {"claims": []}, f"Score = {value}", value, _("The pod has no claims: 0.")
    allocations = state.node_allocations.get(ni.node.name)
    if allocations is None:
        text = _("No allocation was found on %(node)s, so it scores %(value)s.") % {
            "node": ni.node.name,
            "value": value,
        }
        return {"claims": [c.key for c in state.claims]}, f"Score = {value}", value, text
    terms: list[dict[str, Any]] = []
    for i, claim in enumerate(state.claims):
        chosen = {d.request for d in allocations[i].devices} if i < len(allocations) else set()
        for req in claim.requests:
            for j, sub in enumerate(req.first_available):
                if sub.full_name in chosen:
                    terms.append(
                        {
                            "claim": claim.key,
                            "request": req.name,
                            "subrequest": sub.name,
                            "index": j,
                            "position": j + 1,
                            "of": len(req.first_available),
                            "points": FIRST_AVAILABLE_MAX_SIZE - j,
                        }
                    )
    if terms:
        formula = (
            " + ".join(f"({FIRST_AVAILABLE_MAX_SIZE} − {t['index']})" for t in terms)
            + f" = {value}"
        )
        text = clauses(
            _(
                "%(claim)s request %(request)s is served by its subrequest %(subrequest)s, "
                "alternative %(position)s of %(of)s: %(max)s − %(index)s = %(points)s"
            )
            % {**t, "max": FIRST_AVAILABLE_MAX_SIZE}
            for t in terms
        )
        text = _(
            "Each request served from a firstAvailable list scores %(max)s (the most "
            "alternatives a list may hold) minus the index of the alternative used, counted "
            "from 0: earlier alternatives score more. %(terms)s."
        ) % {"max": FIRST_AVAILABLE_MAX_SIZE, "terms": text}
    else:
        formula = _("no firstAvailable request → %(value)s") % {"value": value}
        text = _(
            "The pod's claims ask for devices 'exactly' (no firstAvailable list), so every node "
            "with an allocation scores %(value)s."
        ) % {"value": value}
    picked = [device_id(d.to_dict()) for a in allocations for d in a.devices]
    return {"subrequests": terms, "allocation": picked}, formula, value, text
