"""Writes of clusters: nodes, pods, other objects, imports. One transaction per import or edit.

Services take and return model instances; they raise ``ManifestProblems`` with every problem found
and store nothing in that case. Editing a demo cluster edits a private copy, which the service
returns.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Model
from django.utils.translation import gettext

from ..inputs import manifests, yaml_limits
from ..inputs.manifests import ManifestProblems, Problem, SourceObject
from ..models import Cluster, KubeObject, Node, Pod
from . import controllers


@dataclass
class ImportReport:
    """What an import stored, and what it reported without storing."""

    counts: dict[str, int] = field(default_factory=dict)
    generated: int = 0
    warnings: list[Problem] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def cluster_create(*, owner: AbstractBaseUser, name: str, description: str = "") -> Cluster:
    return Cluster.objects.create(owner=owner, name=name, description=description)


def copy_name(cluster: Cluster) -> str:
    """A copy's name, told apart from its original on every list: "Three zones (copy)", in the
    reader's language (a demo's own name too, as its page shows it)."""
    shown = gettext(cluster.name) if cluster.is_demo else cluster.name
    return gettext("%(name)s (copy)") % {"name": shown}


def cluster_copy(*, cluster: Cluster, owner: AbstractBaseUser, name: str | None = None) -> Cluster:
    """A private copy of a cluster and everything in it, named ``copy_name`` unless named."""
    with transaction.atomic():
        new = Cluster.objects.create(
            owner=owner,
            name=name or copy_name(cluster),
            description=cluster.description,
            copied_from=cluster,
        )
        Node.objects.bulk_create(
            [_row(Node, new, copy.deepcopy(n.manifest)) for n in cluster.nodes.order_by("id")]
        )
        Pod.objects.bulk_create(
            [_row(Pod, new, copy.deepcopy(p.manifest)) for p in cluster.pods.order_by("id")]
        )
        KubeObject.objects.bulk_create(
            [
                _row(KubeObject, new, copy.deepcopy(o.manifest))
                for o in cluster.kube_objects.order_by("id")
            ]
        )
    return new


def writable_cluster(*, cluster: Cluster, user: AbstractBaseUser) -> Cluster:
    """The cluster itself if the user owns it, a fresh private copy if it is a demo."""
    if cluster.is_demo and cluster.owner_id != user.pk:
        return cluster_copy(cluster=cluster, owner=user)
    if cluster.owner_id != user.pk:
        raise PermissionError("not the owner")  # selectors already 404 this; a bug if reached
    return cluster


def cluster_update(
    *, cluster: Cluster, user: AbstractBaseUser, name: str, description: str
) -> Cluster:
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        cluster.name = name
        cluster.description = description
        cluster.save(update_fields=["name", "description", "updated"])
    return cluster


def cluster_delete(*, cluster: Cluster, user: AbstractBaseUser) -> None:
    if cluster.is_demo or cluster.owner_id != user.pk:
        raise PermissionError("only the owner can delete a cluster")
    cluster.delete()


def cluster_set_sharing(*, cluster: Cluster, user: AbstractBaseUser, shared: bool) -> Cluster:
    """Turn the read-only share link on (a new secret token) or off."""
    if cluster.owner_id != user.pk:
        raise PermissionError("only the owner can share a cluster")
    cluster.share_token = uuid.uuid4() if shared else None
    cluster.save(update_fields=["share_token", "updated"])
    return cluster


def cluster_reset_pods(*, cluster: Cluster, user: AbstractBaseUser) -> tuple[Cluster, int]:
    """Make every pod of the cluster pending again (no ``spec.nodeName``); returns how many.

    Undoes applied runs, so the next run schedules every pod. A demo cluster is copied first.
    """
    cluster = writable_cluster(cluster=cluster, user=user)
    with transaction.atomic():
        changed = []
        for pod in Pod.objects.filter(cluster=cluster).exclude(node_name=""):
            manifest = copy.deepcopy(pod.manifest)
            (manifest.get("spec") or {}).pop("nodeName", None)
            pod.manifest = manifest
            pod.sync_from_manifest()
            changed.append(pod)
        Pod.objects.bulk_update(changed, ["manifest", "node_name"], batch_size=500)
    return cluster, len(changed)


def _row(model: type[Model], cluster: Cluster, manifest: dict[str, Any]) -> Any:
    row: Any = model(cluster=cluster, manifest=manifest)
    row.sync_from_manifest()
    return row


def _key(kind: str, namespace: str, name: str) -> tuple[str, str, str]:
    return (kind, namespace, name)


def _existing_keys(cluster: Cluster) -> set[tuple[str, str, str]]:
    keys = {_key("Node", "", n) for n in cluster.nodes.values_list("name", flat=True)}
    keys |= {_key("Pod", ns, n) for ns, n in cluster.pods.values_list("namespace", "name")}
    keys |= {
        _key(k, ns or "", n)
        for k, ns, n in cluster.kube_objects.values_list("kind", "namespace", "name")
    }
    return keys


def _store(cluster: Cluster, objects: list[dict[str, Any]]) -> dict[str, int]:
    nodes, pods, others = [], [], []
    counts: dict[str, int] = {}
    for manifest in objects:
        kind = manifest["kind"]
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "Node":
            nodes.append(_row(Node, cluster, manifest))
        elif kind == "Pod":
            pods.append(_row(Pod, cluster, manifest))
        else:
            others.append(_row(KubeObject, cluster, manifest))
    Node.objects.bulk_create(nodes)
    Pod.objects.bulk_create(pods)
    KubeObject.objects.bulk_create(others)
    Cluster.objects.filter(pk=cluster.pk).update(name=cluster.name)  # touch `updated`
    return counts


def _plan(
    cluster: Cluster,
    sources: list[SourceObject],
    replacing: AbstractSet[tuple[str, str, str]] = frozenset(),
) -> tuple[list[dict], int]:
    """Check every object, expand controllers and claim templates through the engine's pipeline
    (the one ``simulate`` uses); raise ManifestProblems listing every problem."""
    problems: list[Problem] = []
    for obj in sources:
        problems += manifests.check_object(obj)
    if problems:
        raise ManifestProblems(problems)
    state = controllers.ClusterState(keys=_existing_keys(cluster) - set(replacing))
    for manifest in cluster.pods.values_list("manifest", flat=True):
        state.owned |= controllers.owner_keys(manifest)
    for manifest in cluster.kube_objects.values_list("manifest", flat=True):
        state.owned |= controllers.owner_keys(manifest)
    state.nodes = list(cluster.nodes.order_by("id").values_list("manifest", flat=True))
    templates = cluster.kube_objects.filter(kind="ResourceClaimTemplate")
    state.claim_templates = list(templates.values_list("manifest", flat=True))
    try:
        plan = controllers.plan_objects(
            [obj.manifest for obj in sources],
            cluster=state,
            max_generated=settings.PLAYGROUND_IMPORT_MAX_GENERATED,
            admitted=True,  # check_object above ran the same admission checks
        )
    except controllers.PlanProblems as err:
        raise ManifestProblems(
            [sources[p.source].problem(p.path, p.message, upstream=True) for p in err.problems]
        ) from err
    return [item.manifest for item in plan.objects], plan.generated


IMPORT_COMMAND: Final = "python manage.py import_cluster FILE --name NAME [--user USER]"
DEFAULT: Final = -1  # the limit argument's default: PLAYGROUND_IMPORT_MAX_BYTES


def too_big_message(what: str, size: int | None, limit: int) -> str:
    """Why an input was refused, with the way around: gzip it, or the command line."""
    unzipped = settings.PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES
    values = {
        "what": what,
        "size": f"{size or 0:,}",
        "limit": f"{limit:,}",
        "unzipped": f"{unzipped:,}",
        "command": IMPORT_COMMAND,
    }
    if size is not None:
        text = gettext(
            "%(what)s is %(size)s bytes; uploads are limited to %(limit)s bytes. Upload it "
            "gzipped (.gz, up to %(unzipped)s bytes once unzipped), or import a file of any "
            "size with `%(command)s`."
        )
    else:
        text = gettext(
            "%(what)s is over the limit; uploads are limited to %(limit)s bytes. Upload it "
            "gzipped (.gz, up to %(unzipped)s bytes once unzipped), or import a file of any "
            "size with `%(command)s`."
        )
    return text % values


def _check_size(text: str, limit: int | None) -> None:
    if limit is None:
        return
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > limit:
        raise ManifestProblems(
            [Problem(too_big_message(gettext("the input"), size, limit), path="manifests")]
        )


def cluster_import_yaml(
    *, cluster: Cluster, user: AbstractBaseUser, text: str, limit: int | None = DEFAULT
) -> tuple[Cluster, ImportReport]:
    """Add every object of a YAML/JSON text to the cluster, or nothing if any is invalid.

    Controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, ReplicationController)
    also get the objects their controller would create, unless the input already holds them.
    ``limit`` caps the text's size in bytes (default PLAYGROUND_IMPORT_MAX_BYTES; None: none,
    for the command line, which also reads any number of documents and values). Objects are
    validated all at once, then stored with bulk inserts in one transaction.
    """
    _check_size(text, settings.PLAYGROUND_IMPORT_MAX_BYTES if limit == DEFAULT else limit)
    budget = yaml_limits.UNBOUNDED if limit is None else yaml_limits.import_budget()
    parsed = manifests.parse_documents(text, budget)
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        objects, generated = _plan(cluster, parsed.objects)
        counts = _store(cluster, objects)
    return cluster, ImportReport(counts=counts, generated=generated, warnings=parsed.warnings)


def cluster_create_from_yaml(
    *,
    owner: AbstractBaseUser,
    name: str,
    description: str = "",
    text: str = "",
    limit: int | None = DEFAULT,
) -> tuple[Cluster, ImportReport]:
    """A new cluster holding the objects of ``text``; nothing is created if any is invalid."""
    with transaction.atomic():
        cluster = cluster_create(owner=owner, name=name, description=description)
        report = ImportReport()
        if text.strip():
            cluster, report = cluster_import_yaml(
                cluster=cluster, user=owner, text=text, limit=limit
            )
    return cluster, report


# --- single objects (the forms) -------------------------------------------------------------


def _numbered_names(base: str, count: int, taken: set[str]) -> list[str]:
    if count == 1:
        return [base]
    names: list[str] = []
    i = 1
    while len(names) < count:
        candidate = f"{base}-{i}"
        if candidate not in taken:
            names.append(candidate)
        i += 1
    return names


def node_save(
    *,
    cluster: Cluster,
    user: AbstractBaseUser,
    manifest: dict[str, Any],
    original_name: str | None = None,
    count: int = 1,
) -> tuple[Cluster, list[Node]]:
    """Create ``count`` nodes like ``manifest`` (name-1, name-2, ... when more than one), or
    replace the node called ``original_name``."""
    if not 1 <= count <= settings.PLAYGROUND_BULK_MAX:
        raise ManifestProblems(
            [
                Problem(
                    gettext("between 1 and %(max)s nodes at a time")
                    % {"max": settings.PLAYGROUND_BULK_MAX},
                    path="count",
                )
            ]
        )
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        replacing = set()
        if original_name is not None:
            cluster.nodes.filter(name=original_name).delete()
            replacing.add(_key("Node", "", original_name))
        base = manifest["metadata"]["name"]
        taken = set(cluster.nodes.values_list("name", flat=True))
        sources = []
        for name in _numbered_names(base, count, taken):
            item = copy.deepcopy(manifest)
            item["metadata"]["name"] = name
            labels = item["metadata"].get("labels")
            if labels and labels.get("kubernetes.io/hostname") == base:
                labels["kubernetes.io/hostname"] = name
            sources.append(SourceObject(item))
        objects, _ = _plan(cluster, sources, replacing)
        _store(cluster, objects)
        names = [o["metadata"]["name"] for o in objects]
        return cluster, list(cluster.nodes.filter(name__in=names).order_by("id"))


def pod_save(
    *,
    cluster: Cluster,
    user: AbstractBaseUser,
    manifest: dict[str, Any],
    original: tuple[str, str] | None = None,
) -> tuple[Cluster, Pod]:
    """Create a pod, or replace the pod ``original`` = (namespace, name)."""
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        replacing = set()
        if original is not None:
            cluster.pods.filter(namespace=original[0], name=original[1]).delete()
            replacing.add(_key("Pod", *original))
        objects, _ = _plan(cluster, [SourceObject(copy.deepcopy(manifest))], replacing)
        _store(cluster, objects)
        meta = objects[0]["metadata"]
        pod = cluster.pods.get(namespace=meta.get("namespace") or "default", name=meta["name"])
        return cluster, pod


def workload_create(
    *,
    cluster: Cluster,
    user: AbstractBaseUser,
    pod_manifest: dict[str, Any],
    replicas: int,
    kind: str = "Deployment",
    min_count: int | None = None,
) -> tuple[Cluster, ImportReport]:
    """A controller of ``replicas`` pods shaped like ``pod_manifest``, plus those pods; or, for
    ``kind`` "Workload", a Workload (scheduling.k8s.io/v1alpha1) whose one pod group is a gang
    of ``min_count`` (default: all of them) and ``replicas`` pods that name it."""
    if kind not in ("Deployment", "StatefulSet", "ReplicaSet", "Job", "Workload"):
        raise ManifestProblems(
            [
                Problem(
                    gettext("unsupported workload kind %(kind)s") % {"kind": repr(kind)},
                    path="kind",
                )
            ]
        )
    if not 1 <= replicas <= settings.PLAYGROUND_BULK_MAX:
        raise ManifestProblems(
            [
                Problem(
                    gettext("between 1 and %(max)s replicas")
                    % {"max": settings.PLAYGROUND_BULK_MAX},
                    path="replicas",
                )
            ]
        )
    meta = pod_manifest.get("metadata") or {}
    name = meta.get("name") or "app"
    labels = dict(meta.get("labels") or {}) or {"app": name}
    spec = copy.deepcopy(pod_manifest.get("spec") or {})
    spec.pop("nodeName", None)
    if kind == "Workload":
        sources = _gang(name, meta.get("namespace") or "default", labels, spec, replicas, min_count)
        with transaction.atomic():
            cluster = writable_cluster(cluster=cluster, user=user)
            objects, generated = _plan(cluster, sources)
            counts = _store(cluster, objects)
        return cluster, ImportReport(counts=counts, generated=generated)
    controller: dict[str, Any] = {
        "apiVersion": manifests.KINDS[kind][0],
        "kind": kind,
        "metadata": {"name": name, "namespace": meta.get("namespace") or "default"},
        "spec": {"template": {"metadata": {"labels": labels}, "spec": spec}},
    }
    if kind == "Job":
        controller["spec"]["parallelism"] = replicas
        controller["spec"]["completions"] = replicas
        spec.setdefault("restartPolicy", "Never")
    else:
        controller["spec"]["replicas"] = replicas
        controller["spec"]["selector"] = {"matchLabels": labels}
        if kind == "StatefulSet":
            controller["spec"]["serviceName"] = name
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        objects, generated = _plan(cluster, [SourceObject(controller)])
        counts = _store(cluster, objects)
    return cluster, ImportReport(counts=counts, generated=generated)


GANG_GROUP: Final = "workers"  # the pod group of a Workload made by the workload form


def _gang(
    name: str,
    namespace: str,
    labels: dict[str, str],
    spec: dict[str, Any],
    replicas: int,
    min_count: int | None,
) -> list[SourceObject]:
    """A Workload with one gang and its pods ``NAME-0`` … (the API server checks both)."""
    workload = {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "podGroups": [
                {"name": GANG_GROUP, "policy": {"gang": {"minCount": min_count or replicas}}}
            ]
        },
    }
    ref = {"name": name, "podGroup": GANG_GROUP}
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{name}-{i}", "namespace": namespace, "labels": labels},
            "spec": {**copy.deepcopy(spec), "workloadRef": ref},
        }
        for i in range(replicas)
    ]
    return [SourceObject(workload), *(SourceObject(p) for p in pods)]


def node_delete(*, cluster: Cluster, user: AbstractBaseUser, name: str) -> Cluster:
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        cluster.nodes.filter(name=name).delete()
    return cluster


def pod_delete(*, cluster: Cluster, user: AbstractBaseUser, namespace: str, name: str) -> Cluster:
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        cluster.pods.filter(namespace=namespace, name=name).delete()
    return cluster


def object_delete(
    *, cluster: Cluster, user: AbstractBaseUser, kind: str, namespace: str, name: str
) -> Cluster:
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        cluster.kube_objects.filter(kind=kind, namespace=namespace, name=name).delete()
    return cluster


# --- profiles -------------------------------------------------------------------------------


def dra_objects_create(
    *,
    cluster: Cluster,
    user: AbstractBaseUser,
    objects: list[dict[str, Any]],
    pod: tuple[str, str] | None = None,
) -> Cluster:
    """Store new DRA objects (the forms'); with ``pod``, add the claim to its resourceClaims.

    All or nothing: raises ManifestProblems (field paths as an import gives them) and stores
    nothing when an object is invalid, a name is taken, or the pod is in another namespace.
    """
    with transaction.atomic():
        cluster = writable_cluster(cluster=cluster, user=user)
        planned, _ = _plan(cluster, [SourceObject(copy.deepcopy(m)) for m in objects])
        _store(cluster, planned)
        claim = next((m for m in objects if m["kind"] == "ResourceClaim"), None)
        if pod is not None and claim is not None:
            meta = claim["metadata"]
            if pod[0] != meta.get("namespace", "default"):
                raise ManifestProblems(
                    [Problem(gettext("a pod can only use claims of its own namespace"), path="pod")]
                )
            row = cluster.pods.get(namespace=pod[0], name=pod[1])
            manifest = copy.deepcopy(row.manifest)
            refs = manifest.setdefault("spec", {}).setdefault("resourceClaims", [])
            refs.append({"name": meta["name"], "resourceClaimName": meta["name"]})
            pod_save(cluster=cluster, user=user, manifest=manifest, original=pod)
    return cluster


def claims_apply(*, cluster_id: int, claims: Iterable[Any]) -> int:
    """Write the status a run's binding cycles gave each ResourceClaim (allocation, reservedFor).

    ``claims`` are the engine's ``scheduler_core.dra.ResourceClaim`` values after the run;
    only claims whose status changed are written. Returns how many were.
    """
    changed = []
    for claim in claims:
        row = KubeObject.objects.filter(
            cluster_id=cluster_id, kind="ResourceClaim", namespace=claim.namespace, name=claim.name
        ).first()
        if row is None:
            continue
        status = claim.to_manifest().get("status")
        if (row.manifest.get("status") or None) == status:
            continue
        manifest = copy.deepcopy(row.manifest)
        if status is None:
            manifest.pop("status", None)
        else:
            manifest["status"] = status
        row.manifest = manifest
        changed.append(row)
    KubeObject.objects.bulk_update(changed, ["manifest"])
    return len(changed)


def demo_cluster_put(
    *, name: str, description: str, text: str = "", parsed: list[SourceObject] | None = None
) -> Cluster:
    """Create or replace the demo cluster ``name`` with the objects of a YAML text.

    ``parsed`` (what ``manifests.parse_documents`` made of the text) saves parsing it again.
    """
    cluster, _ = Cluster.objects.update_or_create(
        is_demo=True, owner=None, name=name, defaults={"description": description}
    )
    cluster.nodes.all().delete()
    cluster.pods.all().delete()
    cluster.kube_objects.all().delete()
    sources = parsed if parsed is not None else manifests.parse_documents(text).objects
    objects, _ = _plan(cluster, sources)
    _store(cluster, objects)
    return cluster
