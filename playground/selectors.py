"""Reads: what a user may see, and plain data for views."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, Q, QuerySet
from django.http import Http404

from . import manifests
from .models import Cluster, KubeObject, Node, Pod, Profile

User = AbstractBaseUser | AnonymousUser


def _visible(user: User) -> Q:
    if user.is_authenticated:
        return Q(is_demo=True) | Q(owner=user)
    return Q(is_demo=True)


def clusters_for_user(user: User) -> QuerySet[Cluster]:
    """Clusters a user may read: their own and the demo ones."""
    return (
        Cluster.objects.filter(_visible(user))
        .annotate(node_count=Count("nodes", distinct=True), pod_count=Count("pods", distinct=True))
        .order_by("-is_demo", "name", "id")
    )


def cluster_for_user(user: User, pk: int) -> Cluster:
    """The cluster if the user may read it; Http404 otherwise (never 403)."""
    try:
        return Cluster.objects.get(_visible(user), pk=pk)
    except Cluster.DoesNotExist:
        raise Http404("No such cluster") from None


def cluster_by_share_token(token: uuid.UUID) -> Cluster:
    try:
        return Cluster.objects.get(share_token=token)
    except Cluster.DoesNotExist:
        raise Http404("No such shared cluster") from None


def profiles_for_user(user: User) -> QuerySet[Profile]:
    return Profile.objects.filter(_visible(user)).order_by("-is_demo", "name", "id")


def profile_for_user(user: User, pk: int) -> Profile:
    try:
        return Profile.objects.get(_visible(user), pk=pk)
    except Profile.DoesNotExist:
        raise Http404("No such profile") from None


def node_in_cluster(cluster: Cluster, name: str) -> Node:
    try:
        return cluster.nodes.get(name=name)
    except Node.DoesNotExist:
        raise Http404("No such node") from None


def pod_in_cluster(cluster: Cluster, namespace: str, name: str) -> Pod:
    try:
        return cluster.pods.get(namespace=namespace, name=name)
    except Pod.DoesNotExist:
        raise Http404("No such pod") from None


def object_in_cluster(cluster: Cluster, pk: int) -> KubeObject:
    try:
        return cluster.kube_objects.get(pk=pk)
    except KubeObject.DoesNotExist:
        raise Http404("No such object") from None


def _resources(manifest: dict[str, Any], part: str) -> dict[str, Any]:
    return dict((manifest.get("status") or {}).get(part) or {})


def node_rows(cluster: Cluster) -> list[dict[str, Any]]:
    """One plain row per node for the cluster page."""
    rows = []
    for node in cluster.nodes.all():
        labels = (node.manifest.get("metadata") or {}).get("labels") or {}
        rows.append(
            {
                "name": node.name,
                "zone": labels.get("topology.kubernetes.io/zone", ""),
                "allocatable": _resources(node.manifest, "allocatable"),
                "taints": (node.manifest.get("spec") or {}).get("taints") or [],
                "unschedulable": node.unschedulable,
            }
        )
    return rows


def pod_rows(cluster: Cluster) -> list[dict[str, Any]]:
    rows = []
    for pod in cluster.pods.all():
        requests: dict[str, str] = {}
        for container in (pod.manifest.get("spec") or {}).get("containers") or []:
            for key, value in ((container.get("resources") or {}).get("requests") or {}).items():
                requests[key] = value if key not in requests else f"{requests[key]}+{value}"
        owners = (pod.manifest.get("metadata") or {}).get("ownerReferences") or []
        rows.append(
            {
                "name": pod.name,
                "namespace": pod.namespace,
                "node_name": pod.node_name,
                "phase": pod.phase,
                "requests": requests,
                "owner": f"{owners[0].get('kind')}/{owners[0].get('name')}" if owners else "",
            }
        )
    return rows


def _device_text(device: dict[str, Any]) -> str:
    attrs = [
        f"{k}={next(iter(v.values()), '')}"
        for k, v in (device.get("attributes") or {}).items()
        if isinstance(v, dict)
    ]
    caps = [
        f"{k}={v.get('value', '')}"
        for k, v in (device.get("capacity") or {}).items()
        if isinstance(v, dict)
    ]
    return " ".join(attrs + caps)


def _request_text(request: dict[str, Any]) -> str:
    def one(r: dict[str, Any]) -> str:
        many = "all" if r.get("allocationMode") == "All" else str(r.get("count") or 1)
        sel = " with selector" if r.get("selectors") else ""
        return f"{many} × {r.get('deviceClassName', '?')}{sel}"

    if request.get("exactly"):
        return f"{request.get('name')}: {one(request['exactly'])}"
    subs = " or ".join(f"{s.get('name')} ({one(s)})" for s in request.get("firstAvailable") or ())
    return f"{request.get('name')}: first of {subs}"


def cluster_devices(cluster: Cluster) -> dict[str, Any] | None:
    """The DRA side of a cluster for its page: device pools with who holds each device, claims.

    None when the cluster has no ResourceSlice and no ResourceClaim.
    """
    rows = cluster.kube_objects.filter(kind__in=["ResourceSlice", "ResourceClaim"]).order_by("id")
    slices = [o.manifest for o in rows if o.kind == "ResourceSlice"]
    claims = [o.manifest for o in rows if o.kind == "ResourceClaim"]
    if not slices and not claims:
        return None
    holder: dict[tuple[str, str, str], str] = {}
    claim_rows = []
    for c in claims:
        meta, status = c.get("metadata") or {}, c.get("status") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        results = ((status.get("allocation") or {}).get("devices") or {}).get("results") or []
        for r in results:
            holder[(r.get("driver"), r.get("pool"), r.get("device"))] = key
        requests = ((c.get("spec") or {}).get("devices") or {}).get("requests") or []
        claim_rows.append(
            {
                "key": key,
                "requests": "; ".join(_request_text(r) for r in requests),
                "allocated": ", ".join(f"{r.get('pool')}/{r.get('device')}" for r in results),
                "reserved": ", ".join(str(x.get("name")) for x in status.get("reservedFor") or ()),
            }
        )
    pool_rows = []
    for sl in slices:
        spec = sl.get("spec") or {}
        where = spec.get("nodeName") or ("all nodes" if spec.get("allNodes") else "node selector")
        driver, pool = spec.get("driver"), (spec.get("pool") or {}).get("name")
        pool_rows.append(
            {
                "slice": (sl.get("metadata") or {}).get("name"),
                "where": where,
                "driver": driver,
                "pool": pool,
                "devices": [
                    {
                        "name": d.get("name"),
                        "text": _device_text(d),
                        "claim": holder.get((driver, pool, d.get("name")), ""),
                    }
                    for d in spec.get("devices") or ()
                ],
            }
        )
    return {"pools": pool_rows, "claims": claim_rows}


def cluster_manifests(cluster: Cluster) -> list[dict[str, Any]]:
    """Every manifest of the cluster by kind (dependencies first), then as added."""
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind in manifests.EXPORT_ORDER}
    by_kind["Node"] = [n.manifest for n in cluster.nodes.order_by("id")]
    by_kind["Pod"] = [p.manifest for p in cluster.pods.order_by("id")]
    for obj in cluster.kube_objects.order_by("id"):
        by_kind.setdefault(obj.kind, []).append(obj.manifest)
    return [m for kind in by_kind for m in by_kind[kind]]


def cluster_export_yaml(cluster: Cluster) -> str:
    """The cluster as multi-document YAML that imports back to the same objects."""
    header = f"# kube-scheduler playground cluster: {cluster.name}\n"
    return header + manifests.dump_yaml_documents(cluster_manifests(cluster))


def profile_export_yaml(profile: Profile, *, effective: bool = False) -> str:
    """The profile as a KubeSchedulerConfiguration file (v1); optionally after defaulting."""
    from . import engine

    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        **{k: v for k, v in profile.config.items() if k not in ("apiVersion", "kind")},
    }
    if effective:
        result = engine.evaluate_config(config)
        if result.effective is not None:
            config = result.effective
    return manifests.dump_yaml(config)


# -- runs (backend)

from django.db.models import Max  # noqa: E402

from . import events  # noqa: E402
from .models import Run, RunEvent  # noqa: E402


def _run_visible_q(user: User) -> Q:
    """Runs of demo and shared clusters, and of the user's own clusters or own starting."""
    q = Q(cluster__is_demo=True) | Q(cluster__share_token__isnull=False)
    if user is not None and user.is_authenticated:
        q |= Q(cluster__owner=user) | Q(started_by=user)
    return q


def run_visible(*, user: User, run_id: int) -> Run | None:
    """The run if the user may watch it, else None."""
    return (
        Run.objects.select_related("cluster", "profile")
        .filter(_run_visible_q(user), pk=run_id)
        .first()
    )


def run_get(*, user: User, run_id: int) -> Run:
    """The run if the user may watch it; Http404 otherwise (never 403)."""
    run = run_visible(user=user, run_id=run_id)
    if run is None:
        raise Http404("No such run")
    return run


def runs_for_cluster(*, user: User, cluster: Cluster) -> QuerySet[Run]:
    """The cluster's runs the user may watch, newest first."""
    return Run.objects.filter(_run_visible_q(user), cluster=cluster).select_related("profile")


def run_may_command(*, user: User, run: Run) -> bool:
    """Whether the user may cancel the run or answer its Permit waits.

    The user who started it, the cluster's owner, or anyone when an anonymous user started it.
    """
    if run.started_by_id is None:
        return run.cluster.owner_id is None or (
            user is not None and user.is_authenticated and run.cluster.owner_id == user.pk
        )
    if user is None or not user.is_authenticated:
        return False
    return user.pk in (run.started_by_id, run.cluster.owner_id)


def run_events(*, run: Run, after: int = -1, limit: int | None = None) -> list[dict[str, Any]]:
    """The run's event payloads with ``seq > after``, in seq order."""
    qs = RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")
    if limit is not None:
        qs = qs[:limit]
    return list(qs.values_list("payload", flat=True))


def run_cycle_events(*, run: Run, cycle: int) -> list[dict[str, Any]]:
    """The payloads of one scheduling cycle's events, in seq order; [] for an unknown cycle.

    That is the cycle's pod from its CycleStart to its next one: the scheduling cycle, the
    pod's queue events after it and its binding cycle, however late a Permit wait let it run
    (``RunEvent.cycle``, filled by ``runs.EventCycles``, indexed with the run and seq).
    """
    return list(
        RunEvent.objects.filter(run=run, cycle=cycle)
        .order_by("seq")
        .values_list("payload", flat=True)
    )


def run_event_messages(
    *, run_id: int, after: int, upto: int | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Websocket envelopes of the stored events in ``(after, upto]``, at most ``limit``."""
    qs = RunEvent.objects.filter(run_id=run_id, seq__gt=after)
    if upto is not None:
        qs = qs.filter(seq__lte=upto)
    rows = qs.order_by("seq").values_list("seq", "payload")[:limit]
    return [{"kind": "event", "run": run_id, "seq": seq, "event": payload} for seq, payload in rows]


def run_last_seq(run: Run) -> int:
    """The highest stored event seq, -1 before the first."""
    value = RunEvent.objects.filter(run=run).aggregate(m=Max("seq"))["m"]
    return -1 if value is None else int(value)


def run_finished_message(run: Run) -> dict[str, Any]:
    """The ``finished`` envelope of a run that has ended."""
    summary = run.summary or {}
    return events.finished_message(
        run.pk,
        seq=run_last_seq(run) + 1,
        status=run.status,
        error=run.error_message,
        summary={k: summary[k] for k in ("total", "scheduled", "unschedulable") if k in summary},
    )


def run_waiting_pods(run: Run) -> list[dict[str, Any]]:
    """Pods of a running run that wait at Permit now: pod, node, plugin, timeout (from events)."""
    waiting: dict[tuple[str, str], dict[str, Any]] = {}
    if run.is_terminal:
        return []
    for payload in (
        RunEvent.objects.filter(run=run, type="Permit")
        .order_by("seq")
        .values_list("payload", flat=True)
    ):
        key = (payload.get("pod", ""), payload.get("plugin", ""))
        if payload.get("code") == "Wait":
            waiting[key] = {
                "pod": key[0],
                "plugin": key[1],
                "node": payload.get("node"),
                "timeout": payload.get("timeout"),
                "seq": payload.get("seq"),
            }
        else:
            waiting.pop(key, None)
    return list(waiting.values())


def run_dict(run: Run) -> dict[str, Any]:
    """Plain data about a run for pages and JSON."""
    return {
        "id": run.pk,
        "cluster": run.cluster_id,
        "profile": run.profile_id,
        "label": run.label,
        "status": run.status,
        "created": run.created.isoformat() if run.created else None,
        "started": run.started.isoformat() if run.started else None,
        "finished": run.finished.isoformat() if run.finished else None,
        "error": run.error_message,
        "summary": run.summary or {},
        "placements": run.placements or {},
        "compare_with": run.compare_with_id,
        "write_back": run.write_back,
    }
