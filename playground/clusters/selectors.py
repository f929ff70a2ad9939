"""Reads of clusters: what a user may see of them, and plain data for views."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import Count, QuerySet, TextField
from django.db.models.functions import Cast
from django.http import Http404

from scheduler_core.tools.gcpause import with_collector_paused

from ..inputs import manifests
from ..inputs.jsontext import loads
from ..models import Cluster, KubeObject, Node, Pod
from ..selectors import User, visible
from . import setup_text


def clusters_for_user(user: User) -> QuerySet[Cluster]:
    """Clusters a user may read: their own and the demo ones."""
    return (
        Cluster.objects.filter(visible(user))
        .annotate(node_count=Count("nodes", distinct=True), pod_count=Count("pods", distinct=True))
        .order_by("-is_demo", "name", "id")
    )


def cluster_for_user(user: User, pk: int) -> Cluster:
    """The cluster if the user may read it; Http404 otherwise (never 403)."""
    try:
        return Cluster.objects.get(visible(user), pk=pk)
    except Cluster.DoesNotExist:
        raise Http404("No such cluster") from None


def cluster_by_share_token(token: uuid.UUID) -> Cluster:
    try:
        return Cluster.objects.get(share_token=token)
    except Cluster.DoesNotExist:
        raise Http404("No such shared cluster") from None


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


CLUSTER_PAGE: Final = 200  # nodes, pods or other objects shown on one cluster page


@dataclass(frozen=True)
class RowPage:
    """One page of a cluster's nodes, pods or other objects: ``number`` of ``pages`` (1-based),
    rows ``start``..``end`` of ``count``."""

    rows: list[Any]
    number: int
    pages: int
    count: int

    @property
    def start(self) -> int:
        return (self.number - 1) * CLUSTER_PAGE + 1 if self.count else 0

    @property
    def end(self) -> int:
        return self.start + len(self.rows) - 1 if self.rows else 0


def _page(rows: QuerySet[Any], number: int) -> tuple[QuerySet[Any], int, int, int]:
    """The rows of page ``number`` (clamped to the pages there are), in id order."""
    count = rows.count()
    pages = max(1, -(-count // CLUSTER_PAGE))
    number = max(1, min(number, pages))
    first = (number - 1) * CLUSTER_PAGE
    return rows.order_by("id")[first : first + CLUSTER_PAGE], number, pages, count


# Pods read for the usage bars of one page of nodes; past it the bars are left out.
USAGE_PODS: Final = 20_000


def node_page(cluster: Cluster, number: int = 1) -> RowPage:
    """One page of the cluster page's node rows, each with what its pods request of it."""
    nodes, number, pages, count = _page(cluster.nodes.all(), number)
    rows = _node_rows(nodes)
    bound = cluster.pods.filter(node_name__in=[r["name"] for r in rows])
    if rows and bound.count() <= USAGE_PODS:
        by_node: dict[str, list[dict[str, Any]]] = {}
        for name, manifest in bound.values_list("node_name", "manifest"):
            by_node.setdefault(name, []).append(manifest)
        for row in rows:
            row["usage"] = setup_text.node_usage(row["allocatable"], by_node.get(row["name"], []))
    return RowPage(rows, number, pages, count)


def pod_page(cluster: Cluster, number: int = 1) -> RowPage:
    """One page of the cluster page's pod rows."""
    pods, number, pages, count = _page(cluster.pods.all(), number)
    return RowPage(_pod_rows(pods), number, pages, count)


def object_page(cluster: Cluster, number: int = 1) -> RowPage:
    """One page of the cluster's other objects (models, for their kind, name and id)."""
    objects, number, pages, count = _page(cluster.kube_objects.defer("manifest"), number)
    return RowPage(list(objects), number, pages, count)


def _node_rows(nodes: QuerySet[Node]) -> list[dict[str, Any]]:
    rows = []
    for node in nodes:
        labels = (node.manifest.get("metadata") or {}).get("labels") or {}
        rows.append(
            {
                "name": node.name,
                "zone": labels.get("topology.kubernetes.io/zone", ""),
                "allocatable": _resources(node.manifest, "allocatable"),
                "taints": (node.manifest.get("spec") or {}).get("taints") or [],
                "unschedulable": node.unschedulable,
                **setup_text.node_setup(node.manifest),
            }
        )
    return rows


def _pod_rows(pods: QuerySet[Pod]) -> list[dict[str, Any]]:
    rows = []
    for pod in pods:
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
                **setup_text.pod_setup(pod.manifest),
            }
        )
    return rows


@with_collector_paused  # thousands of new dicts, none garbage: the collector would walk them all
def cluster_manifests(cluster: Cluster) -> list[dict[str, Any]]:
    """Every manifest of the cluster by kind (dependencies first), then as added."""
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind in manifests.EXPORT_ORDER}
    by_kind["Node"] = [m for _, m in _manifests(cluster.nodes.all())]
    by_kind["Pod"] = [m for _, m in _manifests(cluster.pods.all())]
    for kind, manifest in _manifests(cluster.kube_objects.all(), "kind"):
        by_kind.setdefault(kind, []).append(manifest)
    return [m for kind in by_kind for m in by_kind[kind]]


def _manifests(rows: QuerySet[Any], field: str = "id") -> list[tuple[Any, dict[str, Any]]]:
    """(``field``, manifest) of the rows in id order. A run reads thousands at once: the text
    goes straight to the JSON reader, without a model instance or field conversion per row."""
    texts = rows.order_by("id").annotate(text=Cast("manifest", TextField()))
    return [(value, loads(text)) for value, text in texts.values_list(field, "text")]


def cluster_export_yaml(cluster: Cluster) -> str:
    """The cluster as multi-document YAML that imports back to the same objects."""
    header = f"# kube-scheduler playground cluster: {cluster.name}\n"
    return header + manifests.dump_yaml_documents(cluster_manifests(cluster))
