"""A cluster's setup in short readable form for its page: node labels, taints and usage, pod
priorities, tolerations, selectors, affinity and topology spread, each in a line of text.

Pure functions over manifests (dicts as ``kubectl get -o json`` prints them); they never raise
on odd input: a field of the wrong shape is left out, the manifest's YAML stays the whole truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from django.utils.translation import gettext, gettext_lazy

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.objects.quantity import (
    milli_value,
    parse_nanos,
    value,
)
from scheduler_core.words import listed

# Well-known topology keys read by their last word ("per zone", "per hostname").
_SHORT_KEYS: Final = {
    "topology.kubernetes.io/zone": gettext_lazy("zone"),
    "topology.kubernetes.io/region": gettext_lazy("region"),
    "kubernetes.io/hostname": gettext_lazy("hostname"),
}

Manifest = Mapping[str, Any]


def _dicts(items: Any) -> list[Mapping[str, Any]]:
    return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []


def _map(item: Any) -> Mapping[str, Any]:
    return item if isinstance(item, Mapping) else {}


def key_name(key: str) -> str:
    """A topology key as read in a sentence: zone, hostname, or the key itself."""
    return str(_SHORT_KEYS.get(key, key))


def taint_text(taint: Mapping[str, Any]) -> str:
    """``key=value:Effect`` as kubectl writes a taint."""
    value_ = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint.get('key', '')}{value_}:{taint.get('effect', '')}"


def toleration_text(tol: Mapping[str, Any]) -> str:
    """What a toleration tolerates: ``gpu=true:NoSchedule``, ``gpu (any value)``, every taint."""
    key, effect = tol.get("key") or "", tol.get("effect") or ""
    exists = tol.get("operator") == "Exists"
    if not key and exists:
        what = gettext("every taint")
    elif exists:
        what = gettext("%(key)s (any value)") % {"key": key}
    else:
        what = f"{key}={tol.get('value') or ''}"
    what += f":{effect}" if effect else gettext(" (any effect)")
    if tol.get("tolerationSeconds") is not None:
        what += gettext(" for %(seconds)s s") % {"seconds": tol["tolerationSeconds"]}
    return what


def _requirement(req: Mapping[str, Any]) -> str:
    op = req.get("operator") or ""
    values = [str(v) for v in req.get("values") or ()]
    key = req.get("key") or ""
    if op in ("Exists", "DoesNotExist"):
        return f"{key} {op}"
    if op in ("In", "NotIn") and len(values) == 1:
        return f"{key} {'=' if op == 'In' else '!='} {values[0]}"
    return f"{key} {op} ({', '.join(values)})"


def label_selector_text(selector: Any) -> str:
    """A label selector as one line: ``app=web, tier In (a, b)``; empty selects every pod."""
    sel = _map(selector)
    parts = [f"{k}={v}" for k, v in _map(sel.get("matchLabels")).items()]
    parts += [_requirement(r) for r in _dicts(sel.get("matchExpressions"))]
    return ", ".join(parts) or gettext("every pod")


def _node_term(term: Mapping[str, Any]) -> str:
    reqs = [_requirement(r) for r in _dicts(term.get("matchExpressions"))]
    reqs += [_requirement(r) for r in _dicts(term.get("matchFields"))]
    return gettext(" and ").join(reqs) or gettext("any node")


def _pod_term(term: Mapping[str, Any], near: bool) -> str:
    spaces = term.get("namespaces") or ()
    values = {
        "selector": label_selector_text(term.get("labelSelector")),
        "where": gettext(" in %(namespaces)s") % {"namespaces": listed(spaces)} if spaces else "",
        "key": key_name(term.get("topologyKey") or ""),
    }
    if near:
        return gettext("near pods %(selector)s%(where)s per %(key)s") % values
    return gettext("away from pods %(selector)s%(where)s per %(key)s") % values


def _weighted(text: str, weight: Any) -> str:
    return gettext("%(rule)s (weight %(weight)s)") % {"rule": text, "weight": weight}


def affinity_rules(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(kind, text) per rule of a pod's nodeSelector, affinity and topology spread."""
    rules: list[tuple[str, str]] = []
    selector = _map(spec.get("nodeSelector"))
    if selector:
        rules.append((gettext("node selector"), ", ".join(f"{k}={v}" for k, v in selector.items())))
    affinity = _map(spec.get("affinity"))
    node = _map(affinity.get("nodeAffinity"))
    required = _map(node.get("requiredDuringSchedulingIgnoredDuringExecution"))
    terms = _dicts(required.get("nodeSelectorTerms"))
    if terms:
        rules.append((gettext("node affinity"), gettext(" or ").join(_node_term(t) for t in terms)))
    for pref in _dicts(node.get("preferredDuringSchedulingIgnoredDuringExecution")):
        text = _node_term(_map(pref.get("preference")))
        rules.append((gettext("prefers nodes"), _weighted(text, pref.get("weight", "?"))))
    for field in ("podAffinity", "podAntiAffinity"):
        block = _map(affinity.get(field))
        near = field == "podAffinity"
        kind = gettext("pod affinity") if near else gettext("pod anti-affinity")
        preferred = (
            gettext("prefers pod affinity") if near else gettext("prefers pod anti-affinity")
        )
        for term in _dicts(block.get("requiredDuringSchedulingIgnoredDuringExecution")):
            rules.append((kind, _pod_term(term, near)))
        for pref in _dicts(block.get("preferredDuringSchedulingIgnoredDuringExecution")):
            text = _pod_term(_map(pref.get("podAffinityTerm")), near)
            rules.append((preferred, _weighted(text, pref.get("weight", "?"))))
    for tsc in _dicts(spec.get("topologySpreadConstraints")):
        rules.append(
            (
                gettext("spread"),
                gettext("max skew %(skew)s per %(key)s, %(when)s, pods %(selector)s")
                % {
                    "skew": tsc.get("maxSkew", "?"),
                    "key": key_name(tsc.get("topologyKey") or ""),
                    "when": tsc.get("whenUnsatisfiable") or "DoNotSchedule",
                    "selector": label_selector_text(tsc.get("labelSelector")),
                },
            )
        )
    return rules


def pod_setup(manifest: Manifest) -> dict[str, Any]:
    """A pod row's setup: priority, phase as shown, and its rules in short form.

    ``rules`` lists (kind, text): tolerations, the node selector, node and pod (anti-)affinity
    and topology spread. A manifest without ``status.phase`` reads as the API server would
    report it: Pending until a node is named, Running on one (``phase_implied``).
    """
    spec = _map(manifest.get("spec"))
    status = _map(manifest.get("status"))
    priority: Any = spec.get("priority")
    if priority is None:
        priority = spec.get("priorityClassName") or 0
    phase = str(status.get("phase") or "")
    implied = not phase
    if implied:
        phase = "Running" if spec.get("nodeName") else "Pending"
    rules = [(gettext("tolerates"), toleration_text(t)) for t in _dicts(spec.get("tolerations"))]
    rules += affinity_rules(spec)
    gates = [g.get("name", "") for g in _dicts(spec.get("schedulingGates"))]
    if gates:
        rules.append((gettext("gated by"), listed(gates)))
    return {"priority": priority, "phase": phase, "phase_implied": implied, "rules": rules}


def node_setup(manifest: Manifest) -> dict[str, Any]:
    """A node row's setup: its labels as ``key=value`` and its taints in kubectl's form."""
    meta = _map(manifest.get("metadata"))
    spec = _map(manifest.get("spec"))
    labels = [f"{k}={v}" for k, v in _map(meta.get("labels")).items()]
    return {"labels": labels, "taint_texts": [taint_text(t) for t in _dicts(spec.get("taints"))]}


def _amount(text: Any, resource: str) -> int | None:
    """A quantity in the unit the usage bar counts: millicores for cpu, whole units else."""
    try:
        nanos = parse_nanos(str(text))
    except (SchedulerCoreError, ValueError):
        return None
    return milli_value(nanos) if resource == "cpu" else value(nanos)


def pod_requests(manifest: Manifest) -> dict[str, int]:
    """A pod's cpu (millicores) and memory (bytes) requests: the sum of its containers', or
    the largest init container's when that is more (the rule kube-scheduler applies)."""
    spec = _map(manifest.get("spec"))
    out = {"cpu": 0, "memory": 0}
    for resource in out:
        total = 0
        for c in _dicts(spec.get("containers")):
            text = _map(_map(c.get("resources")).get("requests")).get(resource)
            total += (_amount(text, resource) or 0) if text is not None else 0
        for c in _dicts(spec.get("initContainers")):
            text = _map(_map(c.get("resources")).get("requests")).get(resource)
            if text is not None:
                total = max(total, _amount(text, resource) or 0)
        out[resource] = total
    return out


def node_usage(allocatable: Mapping[str, Any], pods: Iterable[Manifest]) -> list[dict[str, Any]]:
    """What the node's pods request of its allocatable cpu, memory and pods, one entry each:
    ``resource``, ``used``, ``allocatable`` (display text) and ``percent`` (0..100, capped)."""
    used = {"cpu": 0, "memory": 0, "pods": 0}
    for pod in pods:
        req = pod_requests(pod)
        used["cpu"] += req["cpu"]
        used["memory"] += req["memory"]
        used["pods"] += 1
    out = []
    for resource in ("cpu", "memory", "pods"):
        cap = _amount(allocatable.get(resource), resource) if resource in allocatable else None
        if not cap:
            continue
        percent = min(100, round(100 * used[resource] / cap))
        out.append(
            {
                "resource": resource,
                "percent": percent,
                "text": gettext("%(resource)s %(used)s of %(allocatable)s (%(percent)s%%)")
                % {
                    "resource": resource,
                    "used": _show(used[resource], resource),
                    "allocatable": allocatable[resource],
                    "percent": percent,
                },
            }
        )
    return out


def _show(amount: int, resource: str) -> str:
    if resource == "cpu":
        return f"{amount}m" if amount % 1000 else str(amount // 1000)
    if resource == "memory":
        for unit, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount >= size and amount % size == 0:
                return f"{amount // size}{unit}"
        if amount >= 2**20:
            return f"{amount / 2**30:.1f}Gi"
    return str(amount)
