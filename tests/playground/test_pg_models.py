"""Models keep their indexed columns in step with the manifest and enforce their invariants."""

import gc

import pytest
from builders import make_node, make_pod
from django.contrib import admin
from django.db import IntegrityError, transaction

from playground import models
from playground.inputs import jsontext

pytestmark = pytest.mark.django_db


@pytest.fixture
def cluster(user):
    return models.Cluster.objects.create(owner=user, name="c")


def test_pod_indexed_fields_follow_the_manifest(cluster):
    pod = models.Pod.objects.create(
        cluster=cluster, manifest=make_pod("p", namespace="ns", node_name="n1")
    )
    assert (pod.name, pod.namespace, pod.node_name, pod.phase) == ("p", "ns", "n1", "Running")
    pod.manifest["spec"].pop("nodeName")
    pod.manifest["status"]["phase"] = "Pending"
    pod.save()
    pod.refresh_from_db()
    assert (pod.node_name, pod.phase) == ("", "Pending")


def test_pod_without_namespace_is_in_default(cluster):
    manifest = make_pod("p")
    del manifest["metadata"]["namespace"]
    assert models.Pod.objects.create(cluster=cluster, manifest=manifest).namespace == "default"


def test_node_names_are_unique_per_cluster(cluster, user):
    models.Node.objects.create(cluster=cluster, manifest=make_node("n1"))
    other = models.Cluster.objects.create(owner=user, name="other")
    models.Node.objects.create(cluster=other, manifest=make_node("n1"))
    with pytest.raises(IntegrityError), transaction.atomic():
        models.Node.objects.create(cluster=cluster, manifest=make_node("n1"))


def test_kube_object_is_indexed_by_kind_and_namespace(cluster):
    obj = models.KubeObject.objects.create(
        cluster=cluster,
        manifest={
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "db"},
        },
    )
    assert (obj.kind, obj.api_version, obj.namespace, obj.name) == (
        "PersistentVolumeClaim",
        "v1",
        "db",
        "data",
    )


def test_a_cluster_without_owner_must_be_a_demo():
    with pytest.raises(IntegrityError), transaction.atomic():
        models.Cluster.objects.create(name="orphan")
    assert models.Cluster.objects.create(name="demo", is_demo=True).owner is None


def test_run_event_seq_is_unique_per_run(cluster, user):
    profile = models.Profile.objects.create(owner=user, name="p", config={})
    run = models.Run.objects.create(cluster=cluster, profile=profile)
    assert run.status == models.Run.Status.PENDING
    models.RunEvent.objects.create(run=run, seq=1, type="CycleStart", payload={"pod": "a"})
    with pytest.raises(IntegrityError), transaction.atomic():
        models.RunEvent.objects.create(run=run, seq=1, type="CycleEnd")


def test_every_model_is_in_the_admin():
    for model in (
        models.Cluster,
        models.Node,
        models.Pod,
        models.KubeObject,
        models.Profile,
        models.Run,
        models.RunEvent,
    ):
        assert admin.site.is_registered(model)


def test_admin_pages_render(admin_client, cluster):
    models.Node.objects.create(cluster=cluster, manifest=make_node("n1"))
    for name in ("cluster", "node", "pod", "kubeobject", "profile", "run", "runevent"):
        assert admin_client.get(f"/admin/playground/{name}/").status_code == 200


def test_a_runs_snapshot_is_a_row_of_its_own_that_run_updates_leave_alone(
    cluster, user, django_assert_num_queries, monkeypatch
):
    profile = models.Profile.objects.create(owner=user, name="p", config={})
    manifests = [make_node("n1"), make_pod("a")]
    run = models.Run.objects.create(cluster=cluster, profile=profile, snapshot=manifests)
    assert models.RunSnapshot.objects.get(run=run).manifests == manifests
    fresh = models.Run.objects.get(pk=run.pk)
    collecting: list[bool] = []  # read with the collector off (a million objects, no garbage)
    real_loads = jsontext.loads
    monkeypatch.setattr(
        jsontext, "loads", lambda s: collecting.append(gc.isenabled()) or real_loads(s)
    )
    with django_assert_num_queries(1):  # read when first asked, then kept
        assert fresh.snapshot == manifests and fresh.snapshot == manifests
    assert collecting == [False] and gc.isenabled()
    monkeypatch.undo()
    with django_assert_num_queries(1):  # the heartbeat's update writes the run's row alone
        fresh.status = models.Run.Status.RUNNING
        fresh.save(update_fields=["status"])
    fresh.snapshot = [make_node("n2")]  # assigned: stored with the next save
    fresh.save(update_fields=["status"])
    fresh.refresh_from_db()
    assert fresh.snapshot == [make_node("n2")]
    other = models.Run.objects.create(cluster=cluster, profile=profile)
    assert other.snapshot == [] and not models.RunSnapshot.objects.filter(run=other).exists()
    run.delete()
    assert not models.RunSnapshot.objects.filter(run_id=run.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_runs_snapshot_to_its_own_row(user):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        ("playground", "0010_run_rows_indexed_by_their_keys"),
        (
            "playground",
            "0011_run_snapshot_row",
        ),
    )
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    cluster = old.get_model("playground", "Cluster").objects.create(owner_id=user.pk, name="c")
    profile = old.get_model("playground", "Profile").objects.create(
        owner_id=user.pk, name="p", config={}
    )
    OldRun = old.get_model("playground", "Run")
    full = OldRun.objects.create(cluster=cluster, profile=profile, snapshot=[make_node("n1")])
    empty = OldRun.objects.create(cluster=cluster, profile=profile)
    executor = MigrationExecutor(connection)
    executor.migrate([after])
    try:
        # Read through the migrated state: today's Run has columns later migrations add.
        snapshots = executor.loader.project_state([after]).apps.get_model(
            "playground", "RunSnapshot"
        )
        stored = dict(snapshots.objects.values_list("run_id", "manifests"))
        assert stored[full.pk] == [make_node("n1")]
        assert stored.get(empty.pk, []) == []
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
