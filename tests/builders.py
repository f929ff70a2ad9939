"""Manifest builders for tests: make_node(), make_pod() with keyword options."""

from __future__ import annotations

from typing import Any


def make_node(
    name: str = "n1",
    *,
    cpu: str = "4",
    memory: str = "16Gi",
    pods: str = "110",
    zone: str | None = None,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    node_labels = {"kubernetes.io/hostname": name, **(labels or {})}
    if zone:
        node_labels["topology.kubernetes.io/zone"] = zone
    resources = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": node_labels},
        "spec": {},
        "status": {"capacity": dict(resources), "allocatable": dict(resources)},
    }
    if taints:
        node["spec"]["taints"] = taints
    return node


def make_pod(
    name: str = "p1",
    *,
    namespace: str = "default",
    cpu: str | None = "100m",
    memory: str | None = "128Mi",
    node_name: str | None = None,
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    container: dict[str, Any] = {"name": "app", "image": "registry.k8s.io/pause:3.10"}
    if requests:
        container["resources"] = {"requests": requests}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [container], **spec},
    }
    if labels:
        pod["metadata"]["labels"] = labels
    if node_name:
        pod["spec"]["nodeName"] = node_name
        pod["status"] = {"phase": "Running"}
    return pod


def make_deployment(
    name: str = "web",
    *,
    replicas: int = 3,
    namespace: str = "default",
    labels: dict[str, str] | None = None,
    **pod_spec: Any,
) -> dict[str, Any]:
    labels = labels or {"app": name}
    spec = {
        "containers": [
            {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}
        ],
        **pod_spec,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": spec},
        },
    }


def record_run(cluster, profile, *, registry=None, status="succeeded", drive=None, user=None):
    """A Run with the RunEvent rows of a real engine run of ``cluster`` under ``profile``.

    ``drive(scheduler)`` runs the engine (default: ``run_until_idle()``); returns the run, the
    scheduler (to continue it) and the list the events are appended to. Stands in for
    ``playground.runs.services.run_start`` where a test wants a run without the task.
    """
    from playground.clusters import selectors
    from playground.models import Run
    from scheduler_core.loop.scheduler import Scheduler

    events: list[dict[str, Any]] = []
    manifests = selectors.cluster_manifests(cluster)
    sched = Scheduler(
        profile.config,
        manifests,
        on_event=lambda ev: events.append(ev.to_dict()),
        registry=registry,
    )
    (drive or (lambda s: s.run_until_idle()))(sched)
    fields = {f.name for f in Run._meta.get_fields()}
    extra: dict[str, Any] = {"snapshot": manifests}
    if "started_by" in fields and user is not None:
        extra["started_by"] = user
    run = Run.objects.create(
        cluster=cluster,
        profile=profile,
        status=status,
        placements=sched.placements() if status == "succeeded" else {},
        **extra,
    )
    store_events(run, events)
    return run, sched, events


def store_events(run, events):
    """Store a run's events (dicts, from its first) as the run task does: cycles and events."""
    from playground.runs.execution.attempt import Recorder
    from playground.runs.storage.bulk import store_items
    from scheduler_core.record.events import event_from_dict

    recorder = Recorder()
    for payload in events:
        event = event_from_dict(payload)
        recorder.add(event, recorder.see(event))
    items = recorder.take()
    nodes = recorder.encoder.run_nodes
    store_items(run.pk, items, run_nodes=list(nodes) if nodes is not None else None)


def stored_events(run):
    """Every stored event of a run as dicts in seq order: cycle records decoded, small events."""
    from playground.models import RunCycle
    from playground.runs.storage.columns import decode_cycle
    from playground.runs.storage.packs import expand
    from playground.runs.storage.rebuilt import stored_record

    run.refresh_from_db()
    events = expand(run.events.order_by("seq").values_list("payload", flat=True))
    for cycle, data in RunCycle.objects.filter(run=run).values_list("cycle", "data"):
        # A cycle stored as a recipe is computed (and stored) as the run page's read would.
        events.extend(decode_cycle(stored_record(run, cycle, data), run.node_names))
    return sorted(events, key=lambda e: e["seq"])


def bulk_store(cluster, manifests):
    """Store nodes and pods straight into a cluster (bulk inserts, no import checks)."""
    from playground.models import Node, Pod

    rows: dict[str, list] = {"Node": [], "Pod": []}
    for manifest in manifests:
        model = Node if manifest["kind"] == "Node" else Pod
        row = model(cluster=cluster, manifest=manifest)
        row.sync_from_manifest()
        rows[manifest["kind"]].append(row)
    Node.objects.bulk_create(rows["Node"])
    Pod.objects.bulk_create(rows["Pod"])
    return cluster


def cluster_with(user, *objects, name="c1"):
    """A cluster of ``user`` holding the given manifests, imported as YAML."""
    import yaml

    from playground.clusters import services

    cluster = services.cluster_create(owner=user, name=name)
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )
    return cluster


def left_page(element):
    """A Selenium wait condition: the page ``element`` belongs to is gone (after a click that
    navigates). Besides the usual stale-element error, Chromium may answer that the node "does
    not belong to the document" while the next page loads: gone as well."""
    from selenium.common.exceptions import WebDriverException

    def gone(_driver):
        try:
            element.is_enabled()
        except WebDriverException:
            return True
        return False

    return gone
