"""Reads of the DRA side: a cluster's devices and classes for its page, a run's allocations.

Plain dicts for templates and JSON. A device is named ``driver/pool/device`` everywhere, as the
engine's DeviceMatches events name it, so the run page can join the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from django.utils.translation import gettext

from ..models import Cluster, Run

Manifest = Mapping[str, Any]
DRA_KINDS: Final = ("ResourceSlice", "ResourceClaim", "DeviceClass")
# Attributes a table shows first, in this order; the others follow by name.
_FIRST: Final = ("model", "memory")


def attribute_values(device: Manifest) -> dict[str, Any]:
    """A device's attributes as plain values: ``{"model": "l4", "index": 0}``."""
    out = {}
    for name, value in (device.get("attributes") or {}).items():
        if isinstance(value, Mapping) and value:
            out[str(name)] = next(iter(value.values()))
    return out


def capacity_values(device: Manifest) -> dict[str, str]:
    """A device's capacity as quantity texts: ``{"memory": "24Gi"}``."""
    return {
        str(name): str(value.get("value", ""))
        for name, value in (device.get("capacity") or {}).items()
        if isinstance(value, Mapping)
    }


def _ordered(values: Mapping[str, Any]) -> list[tuple[str, Any]]:
    def key(item: tuple[str, Any]) -> tuple[int, str]:
        short = item[0].rsplit("/", 1)[-1]
        return (_FIRST.index(short) if short in _FIRST else len(_FIRST), item[0])

    return sorted(values.items(), key=key)


def _slice_nodes(spec: Mapping[str, Any]) -> str:
    """Where a ResourceSlice's devices are: its node, every node, or a node selector."""
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    return gettext("all nodes") if spec.get("allNodes") else gettext("node selector")


def device_index(slices: Iterable[Manifest]) -> dict[str, dict[str, Any]]:
    """Every published device by ``driver/pool/device``: node, attributes and capacity."""
    out: dict[str, dict[str, Any]] = {}
    for sl in slices:
        spec = sl.get("spec") or {}
        driver, pool = spec.get("driver"), (spec.get("pool") or {}).get("name")
        where = _slice_nodes(spec)
        for d in spec.get("devices") or ():
            out[f"{driver}/{pool}/{d.get('name')}"] = {
                "node": where,
                "attributes": attribute_values(d),
                "capacity": capacity_values(d),
            }
    return out


def _key(manifest: Manifest) -> str:
    meta = manifest.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _results(claim: Manifest) -> list[Manifest]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return list((allocation.get("devices") or {}).get("results") or ())


def _request_text(request: Manifest) -> str:
    def one(r: Manifest) -> str:
        many = "all" if r.get("allocationMode") == "All" else str(r.get("count") or 1)
        sel = [((s.get("cel") or {}).get("expression") or "") for s in r.get("selectors") or ()]
        where = f" where {' && '.join(sel)}" if sel else ""
        return f"{many} × {r.get('deviceClassName', '?')}{where}"

    if request.get("exactly"):
        return f"{request.get('name')}: {one(request['exactly'])}"
    subs = " or ".join(f"{s.get('name')} ({one(s)})" for s in request.get("firstAvailable") or ())
    return f"{request.get('name')}: first of {subs}"


def cluster_devices(cluster: Cluster) -> dict[str, Any] | None:
    """The DRA side of a cluster for its page, or None when it has no DRA object.

    ``devices``: one row per device (slice, node, driver/pool, name, attributes, capacity, the
    claim holding it); ``classes``: each DeviceClass with its CEL selectors; ``claims``: each
    ResourceClaim with its requests, allocated devices and the pods it is reserved for.
    """
    rows = cluster.kube_objects.filter(kind__in=DRA_KINDS).order_by("id")
    by_kind: dict[str, list[Manifest]] = {kind: [] for kind in DRA_KINDS}
    for o in rows:
        by_kind[o.kind].append(o.manifest)
    if not any(by_kind.values()):
        return None
    holder: dict[str, str] = {}
    claims = []
    for c in by_kind["ResourceClaim"]:
        results = _results(c)
        for r in results:
            holder[f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"] = _key(c)
        status = c.get("status") or {}
        requests = ((c.get("spec") or {}).get("devices") or {}).get("requests") or ()
        claims.append(
            {
                "key": _key(c),
                "requests": "; ".join(_request_text(r) for r in requests),
                "allocated": ", ".join(f"{r.get('pool')}/{r.get('device')}" for r in results),
                "reserved": ", ".join(str(x.get("name")) for x in status.get("reservedFor") or ()),
            }
        )
    devices = []
    for sl in by_kind["ResourceSlice"]:
        spec = sl.get("spec") or {}
        driver, pool = spec.get("driver"), (spec.get("pool") or {}).get("name")
        where = _slice_nodes(spec)
        for d in spec.get("devices") or ():
            did = f"{driver}/{pool}/{d.get('name')}"
            devices.append(
                {
                    "id": did,
                    "slice": (sl.get("metadata") or {}).get("name"),
                    "node": where,
                    "driver": driver,
                    "pool": pool,
                    "name": d.get("name"),
                    "attributes": _ordered(attribute_values(d)),
                    "capacity": _ordered(capacity_values(d)),
                    "claim": holder.get(did, ""),
                }
            )
    classes = [
        {
            "name": (c.get("metadata") or {}).get("name"),
            "selectors": [
                (s.get("cel") or {}).get("expression") or ""
                for s in (c.get("spec") or {}).get("selectors") or ()
            ],
        }
        for c in by_kind["DeviceClass"]
    ]
    return {"devices": devices, "classes": classes, "claims": claims}


def _pod_claims(pod: Manifest) -> list[str]:
    """The names of the claims a pod uses: named ones, and those made from its templates."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    made = {
        s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or ()
    }
    out = []
    for ref in spec.get("resourceClaims") or ():
        name = ref.get("resourceClaimName") or made.get(ref.get("name"))
        if name:
            out.append(str(name))
    return out


def _has_dra(run: Run) -> bool:
    if (run.summary or {}).get("claims"):
        return True
    return bool(run.cluster.kube_objects.filter(kind__in=DRA_KINDS).exists())


def run_devices(run: Run) -> dict[str, Any]:
    """What a run allocated: one row per request of each pod it scheduled that uses claims.

    ``rows``: pod, node, claim, request, the device (``driver/pool/device``) with its attributes
    and capacity, or none; ``devices``: every device of the run's ResourceSlices by id, for the
    per-cycle panel. The claims are those the run's summary kept (as its binding cycles left
    them), so a run still going has ``final`` false and no rows yet.
    """
    terminal = bool(run.is_terminal)
    if not _has_dra(run):
        return {"final": True, "terminal": terminal, "rows": [], "devices": {}}
    manifests = run.snapshot or []
    slices = [m for m in manifests if m.get("kind") == "ResourceSlice"]
    index = device_index(slices)
    summary = run.summary or {}
    final = "claims" in summary
    claims = {_key(c): c for c in summary.get("claims") or ()}
    placements = run.placements or {}
    rows = []
    for pod in manifests:
        if pod.get("kind") != "Pod" or (pod.get("spec") or {}).get("nodeName"):
            continue
        pod_key = _key(pod)
        if run.pod_keys is not None and pod_key not in run.pod_keys:
            continue
        namespace = pod_key.split("/", 1)[0]
        for name in _pod_claims(pod):
            claim = claims.get(f"{namespace}/{name}")
            results = _results(claim) if claim is not None else []
            base = {"pod": pod_key, "node": placements.get(pod_key), "claim": f"{namespace}/{name}"}
            if not results:
                rows.append({**base, "request": "", "device": None})
            for r in results:
                did = f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"
                found = index.get(did, {})
                rows.append(
                    {
                        **base,
                        "request": r.get("request"),
                        "device": did,
                        "attributes": found.get("attributes", {}),
                        "capacity": found.get("capacity", {}),
                    }
                )
    return {"final": final, "terminal": terminal, "rows": rows if final else [], "devices": index}
