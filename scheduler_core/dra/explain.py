"""Why each device did or did not match each request, per node: the DRA explanation.

Not part of upstream: kube-scheduler only says "cannot allocate all claims". This walks the same
pools, selectors and taken devices as the allocator (sharing its verdict cache) and reports,
for one node, every device of every pool the node sees against every pending (sub)request:
``matched``, ``taken`` (allocated to a claim already), or ``selector`` (which class or request
selector said false, or its error). Devices of pools the node does not see are counted per
pool as ``elsewhere``; a claim already allocated says whether its node selector admits the node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from scheduler_core.dra.allocator import Allocator, gather_pools
from scheduler_core.dra.cel_env import CelError
from scheduler_core.dra.types import Allocation, Device, DeviceClass, Request, ResourceClaim
from scheduler_core.objects.labels import node_selector

if TYPE_CHECKING:
    from scheduler_core.objects.api import Node

Translate = Callable[[str], str]


def gettext_noop(message: str) -> str:
    """Mark a sentence for makemessages; ``tr`` translates it. The plugin records these
    explanations in the run's events, in English; the explanation view asks for them translated
    (scheduler_core.plugins.dynamic_resources.explain passes the explanations' translation hook)."""
    return message


def _selector_verdict(
    allocator: Allocator,
    cls: str | None,
    selectors: Sequence[str],
    driver: str,
    device: Device,
    tr: Translate,
) -> str | None:
    """None when every selector holds, else which one failed and how: a selector of the device
    class ``cls``, or of the request when ``cls`` is None."""
    if not selectors or allocator.match_cache.get((tuple(selectors), id(device))):
        return None  # Filter already found they all hold
    for i, expr in enumerate(selectors):
        compiled = allocator.cel_cache.get_or_compile(expr)
        where = {"class": cls, "index": i, "expression": expr}
        try:
            if not compiled.matches(driver, device):
                if cls is None:
                    return tr(_REQUEST_FALSE) % where
                return tr(_CLASS_FALSE) % where
        except CelError as err:
            where["error"] = str(err)
            if cls is None:
                return tr(_REQUEST_ERROR) % where
            return tr(_CLASS_ERROR) % where
    return None


_REQUEST_FALSE = gettext_noop("request selector #%(index)s is false: %(expression)s")
_CLASS_FALSE = gettext_noop("class %(class)s selector #%(index)s is false: %(expression)s")
_REQUEST_ERROR = gettext_noop("request selector #%(index)s: %(error)s")
_CLASS_ERROR = gettext_noop("class %(class)s selector #%(index)s: %(error)s")
_POOL_UPDATING = gettext_noop("pool is being updated")
_NO_CLASS = gettext_noop("device class %(class)s does not exist")
_TAKEN = gettext_noop("allocated to another claim")


def _requests(claim: ResourceClaim) -> list[Request]:
    out: list[Request] = []
    for req in claim.requests:
        if req.exactly is not None:
            out.append(req.exactly)
        out.extend(req.first_available)
    return out


def explain_node(
    allocator: Allocator,
    claims: Sequence[ResourceClaim],
    node: Node,
    allocations: Sequence[Allocation] | None,
    tr: Translate = gettext_noop,
) -> dict[str, Any]:
    """One node's explanation (see the module docstring); JSON-ready. ``tr`` translates its
    sentences (they stay English by default)."""
    pools = gather_pools(allocator.slices, node)
    seen = {(p.driver, p.pool) for p in pools}
    elsewhere: dict[str, int] = {}
    for s in allocator.slices:
        if (s.driver, s.pool) not in seen:
            key = f"{s.driver}/{s.pool}"
            elsewhere[key] = elsewhere.get(key, 0) + len(s.devices)
    rows: list[dict[str, Any]] = []
    for claim in claims:
        if claim.allocation is not None:
            raw = claim.allocation.node_selector_raw
            ok = raw is None or node_selector(raw).matches(node.labels, node.name)
            rows.append({"claim": claim.key, "allocated": True, "availableHere": ok})
            continue
        for req in _requests(claim):
            cls: DeviceClass | None = allocator.classes.get(req.device_class)
            devices: list[dict[str, str]] = []
            for pool in pools:
                if pool.incomplete or pool.invalid:
                    reason = tr(_POOL_UPDATING) if pool.incomplete else pool.invalid_reason
                    devices.append({"device": pool.id_text, "verdict": "pool", "why": reason})
                    continue
                for slc in pool.slices:
                    for dev in slc.devices:
                        did = (slc.driver, slc.pool, dev.name)
                        entry = {"device": "/".join(did), "verdict": "matched"}
                        why: str | None = None
                        if cls is None:
                            why = tr(_NO_CLASS) % {"class": req.device_class}
                        else:
                            why = _selector_verdict(
                                allocator, cls.name, cls.selectors, slc.driver, dev, tr
                            ) or _selector_verdict(
                                allocator, None, req.selectors, slc.driver, dev, tr
                            )
                        if why is not None:
                            entry.update(verdict="selector", why=why)
                        elif did in allocator.allocated:
                            entry.update(verdict="taken", why=tr(_TAKEN))
                        devices.append(entry)
            rows.append(
                {
                    "claim": claim.key,
                    "request": req.full_name,
                    "class": req.device_class,
                    "count": "All" if req.mode == "All" else req.count,
                    "devices": devices,
                }
            )
    out: dict[str, Any] = {"requests": rows, "elsewhere": elsewhere}
    if allocations is not None:
        out["allocation"] = [[d.to_dict() for d in a.devices] for a in allocations]
    return out
