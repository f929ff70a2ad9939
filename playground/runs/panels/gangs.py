"""The run page's gangs: each Workload's gang, its members and where each one is, and the step at
which the gang completed.

A gang is a pod group of a Workload with the gang policy (scheduling.k8s.io/v1alpha1), read from
the manifests the run started with (and the pods its script adds); its members are the pods whose
``spec.workloadRef`` names it. Where each member is comes from the run's events as
``selectors.run_events`` gives them (queue events, the light CycleStart/CycleEnd, the binding
events): gated at PreEnqueue, in a queue, waiting at Permit on a node holding its requests,
allowed, bound, turned away at Permit. The gang completes at the first Permit GangScheduling
answers Success for one of its members: minCount of them have a node then, and the waiting ones
are allowed with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.utils.translation import gettext

from scheduler_core.objects.api import KubeObject, Pod
from scheduler_core.plugins.gang_scheduling.workload import GroupKey, gang_min_count, group_key
from scheduler_core.plugins.names import GANG_SCHEDULING

from .overview import TIMEOUT_PREFIX

__all__ = ["Gang", "gang_states", "gangs_of"]

# Where a member can be, in the order of its journey.
GATED: Final = "gated"
QUEUED: Final = "queued"
SCHEDULING: Final = "scheduling"
UNSCHEDULABLE: Final = "unschedulable"
WAITING: Final = "waiting"
ALLOWED: Final = "allowed"
BOUND: Final = "bound"
TIMED_OUT: Final = "timed_out"
REJECTED: Final = "rejected"
DELETED: Final = "deleted"
NOT_QUEUED: Final = "not_queued"
# A member with a node (assumed or bound): what Permit counts against minCount.
PLACED: Final = frozenset({WAITING, ALLOWED, BOUND})


@dataclass(frozen=True, slots=True)
class Gang:
    """One gang: a pod group of a Workload (per replica key), its minCount and its pods."""

    workload: str  # namespace/name
    group: str
    replica_key: str
    min_count: int
    members: tuple[str, ...]  # pod keys, in the manifests' order
    requests: Mapping[str, str]  # pod key -> "cpu 3, memory 4Gi"
    bound_before: Mapping[str, str]  # pod key -> node, for members bound when the run started


def gangs_of(manifests: Iterable[Mapping[str, Any]]) -> list[Gang]:
    """The gangs of a run's manifests, in the order their Workloads come; [] without any."""
    workloads: dict[str, KubeObject] = {}
    pods: list[Pod] = []
    for manifest in manifests:
        kind = manifest.get("kind")
        try:
            if kind == "Workload":
                workload = KubeObject(dict(manifest))
                workloads[f"{workload.namespace or 'default'}/{workload.name}"] = workload
            elif kind == "Pod" and (manifest.get("spec") or {}).get("workloadRef"):
                pods.append(Pod(dict(manifest)))
        except (TypeError, ValueError, KeyError):
            continue  # a manifest the engine refused is not part of the run either
    groups: dict[GroupKey, list[Pod]] = {}
    for pod in pods:
        key = group_key(pod)
        if key is not None:
            groups.setdefault(key, []).append(pod)
    order = list(workloads)
    out = []
    for key, members in sorted(
        groups.items(),
        key=lambda kv: (_index(order, _workload_key(kv[0])), kv[0].ref.pod_group),
    ):
        named = workloads.get(_workload_key(key))
        if named is None:
            continue
        found, min_count = gang_min_count(named, key.ref.pod_group)
        if not found or min_count is None:
            continue
        out.append(
            Gang(
                workload=_workload_key(key),
                group=key.ref.pod_group,
                replica_key=key.ref.replica_key,
                min_count=min_count,
                members=tuple(p.key for p in members),
                requests={p.key: _requests(p) for p in members},
                bound_before={p.key: p.node_name for p in members if p.node_name},
            )
        )
    return out


def _workload_key(key: GroupKey) -> str:
    return f"{key.namespace}/{key.ref.name}"


def _index(order: list[str], key: str) -> int:
    return order.index(key) if key in order else len(order)


def _requests(pod: Pod) -> str:
    """A pod's CPU and memory requests as a manifest writes them: "cpu 3, memory 4Gi"."""
    parts = []
    milli = pod.resource.milli_cpu
    if milli:
        parts.append(f"cpu {milli // 1000}" if milli % 1000 == 0 else f"cpu {milli}m")
    memory = pod.resource.memory
    if memory:
        parts.append(f"memory {_bytes(memory)}")
    return ", ".join(parts)


def _bytes(amount: int) -> str:
    for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if amount % size == 0:
            return f"{amount // size}{unit}"
    return str(amount)


def gang_states(gangs: Sequence[Gang], events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each gang with its members' places after ``events`` (seq order) and, once it completed,
    the cycle, seq and pod of its completion (``completed``; the run page adds the step)."""
    owner = {pod: i for i, gang in enumerate(gangs) for pod in gang.members}
    where: dict[str, dict[str, Any]] = {
        pod: (
            {"state": BOUND, "node": node, "before": True}
            if (node := gangs[i].bound_before.get(pod))
            else {"state": NOT_QUEUED}
        )
        for pod, i in owner.items()
    }
    completed: dict[int, dict[str, Any]] = {}
    cycle_pods: dict[int, str] = {}
    for ev in events:
        kind, pod = ev.get("type"), str(ev.get("pod") or "")
        if kind == "CycleStart":
            cycle_pods[int(ev["cycle"])] = pod
        if pod not in owner:
            continue
        here = where[pod]
        details = ev.get("details") or {}
        if kind == "Enqueue":
            queue = details.get("queue")
            if queue == "gated":
                where[pod] = {"state": GATED, "plugin": details.get("plugin") or ""}
            else:
                where[pod] = {
                    "state": QUEUED,
                    "queue": queue or "active",
                    "cycle": here.get("cycle"),
                }
        elif kind in ("MoveToActive", "Backoff"):
            queue = "active" if kind == "MoveToActive" else "backoff"
            where[pod] = {"state": QUEUED, "queue": queue, "cycle": here.get("cycle")}
        elif kind == "CycleStart":
            where[pod] = {"state": SCHEDULING, "cycle": int(ev["cycle"])}
        elif kind == "CycleEnd" and ev.get("result") not in (None, "Scheduled"):
            where[pod] = {"state": UNSCHEDULABLE, "cycle": here.get("cycle")}
        elif kind == "Permit" and ev.get("plugin") == GANG_SCHEDULING:
            code = ev.get("code")
            node = ev.get("node")
            if code == "Wait":
                where[pod] = {**here, "state": WAITING, "node": node, "since": ev.get("seq")}
                where[pod]["timeout"] = ev.get("timeout")
            elif code == "Success":
                where[pod] = {**here, "state": ALLOWED, "node": node}
                i = owner[pod]
                if i not in completed:
                    k = int(ev.get("cycle") or 0)
                    completed[i] = {
                        "cycle": k,
                        "seq": ev.get("seq"),
                        "pod": cycle_pods.get(k, pod),
                    }
            else:
                reasons = "; ".join(ev.get("reasons") or ())
                state = TIMED_OUT if reasons.startswith(TIMEOUT_PREFIX) else REJECTED
                where[pod] = {**here, "state": state, "node": node, "reason": reasons}
        elif kind == "Permit" and ev.get("code") not in ("Success", "Wait", "Skip", None):
            where[pod] = {**here, "state": REJECTED, "node": ev.get("node")}
        elif kind == "Bind" and ev.get("code") == "Success":
            where[pod] = {**here, "state": BOUND, "node": ev.get("node")}
        elif kind == "Delete":
            where[pod] = {"state": DELETED}
    out = []
    for i, gang in enumerate(gangs):
        members = []
        for pod in gang.members:
            place = where[pod]
            members.append(
                {
                    "pod": pod,
                    **place,
                    "requests": gang.requests.get(pod, ""),
                    "text": _state_text(place, gang.requests.get(pod, "")),
                }
            )
        placed = sum(1 for m in members if m["state"] in PLACED)
        out.append(
            {
                "workload": gang.workload,
                "group": gang.group,
                "replica_key": gang.replica_key,
                "min_count": gang.min_count,
                "members": members,
                "placed": placed,
                "gated": sum(1 for m in members if m["state"] == GATED),
                "completed": completed.get(i),
            }
        )
    return out


def _state_text(place: Mapping[str, Any], requests: str) -> str:
    """Where a member is, in a few words of the reader's language."""
    state = place["state"]
    node = place.get("node") or ""
    if state == GATED:
        return gettext("gated at PreEnqueue (%(plugin)s): too few pods of its gang exist") % {
            "plugin": place.get("plugin") or GANG_SCHEDULING
        }
    if state == QUEUED:
        queue = place.get("queue")
        if queue == "unschedulable":
            return gettext("among the unschedulable pods, waiting for a cluster event")
        return gettext("in %(queue)s") % {"queue": "backoffQ" if queue == "backoff" else "activeQ"}
    if state == SCHEDULING:
        return gettext("in its scheduling cycle")
    if state == UNSCHEDULABLE:
        return gettext("unschedulable: no node fits it")
    if state == WAITING:
        if requests:
            return gettext("waits at Permit on %(node)s, holding %(requests)s") % {
                "node": node,
                "requests": requests,
            }
        return gettext("waits at Permit on %(node)s") % {"node": node}
    if state == ALLOWED:
        return gettext("allowed at Permit, binding to %(node)s") % {"node": node}
    if state == BOUND:
        if place.get("before"):
            return gettext("on %(node)s since before the run") % {"node": node}
        return gettext("bound to %(node)s") % {"node": node}
    if state == TIMED_OUT:
        return gettext("timed out at Permit on %(node)s: back to the queue") % {"node": node}
    if state == REJECTED:
        return gettext("rejected at Permit on %(node)s") % {"node": node}
    if state == DELETED:
        return gettext("deleted")
    return gettext("not in the queue yet")
