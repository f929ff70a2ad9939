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
