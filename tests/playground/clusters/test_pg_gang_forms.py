"""Gang scheduling through the forms: "Add a workload" as a Workload (a gang of minCount) makes
the Workload and its pods; a pod's "Workload and pod group" is its spec.workloadRef."""

from __future__ import annotations

import pytest
from django.urls import reverse

from playground.clusters import services

pytestmark = pytest.mark.django_db

FORM = {
    "namespace": "default",
    "c0_name": "w",
    "c0_image": "trainer:1",
    "c0_cpu_request": "3",
    "mode": "form",
    "manifest_yaml": "",
}


def test_a_workload_of_kind_gang_makes_the_workload_and_pods_that_name_it(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    url = reverse("playground:workload_new", args=[cluster.pk])
    form = {**FORM, "name": "train", "replicas": "3", "workload_kind": "Workload", "min_count": "2"}
    assert alice_client.post(url, form).status_code == 302
    workload = cluster.kube_objects.get(kind="Workload")
    groups = workload.manifest["spec"]["podGroups"]
    assert groups == [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]
    pods = {p.name: p.manifest for p in cluster.pods.all()}
    assert sorted(pods) == ["train-0", "train-1", "train-2"]
    assert all(
        m["spec"]["workloadRef"] == {"name": "train", "podGroup": "workers"} for m in pods.values()
    )


def test_min_count_defaults_to_every_pod(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    url = reverse("playground:workload_new", args=[cluster.pk])
    form = {**FORM, "name": "sweep", "replicas": "4", "workload_kind": "Workload"}
    assert alice_client.post(url, form).status_code == 302
    gang = cluster.kube_objects.get(kind="Workload").manifest["spec"]["podGroups"][0]
    assert gang["policy"]["gang"]["minCount"] == 4


def test_a_bad_gang_name_is_refused_by_field_and_nothing_is_stored(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    url = reverse("playground:workload_new", args=[cluster.pk])
    form = {**FORM, "name": "Train_X", "replicas": "2", "workload_kind": "Workload"}
    response = alice_client.post(url, form)
    assert response.status_code == 200
    assert 'class="field has-error" data-field="name"' in response.content.decode()
    assert not cluster.kube_objects.exists() and not cluster.pods.exists()


def test_a_pods_workload_and_pod_group_round_trip_through_the_form(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    url = reverse("playground:pod_new", args=[cluster.pk])
    form = {**FORM, "name": "w0", "workload_ref": "train/workers"}
    assert alice_client.post(url, form).status_code == 302
    pod = cluster.pods.get(name="w0")
    assert pod.manifest["spec"]["workloadRef"] == {"name": "train", "podGroup": "workers"}
    edit = alice_client.get(reverse("playground:pod_edit", args=[cluster.pk, "default", "w0"]))
    assert 'value="train/workers"' in edit.content.decode()


@pytest.mark.parametrize("text", ["train", "train/", "/workers", "a/b/c"])
def test_a_workload_ref_needs_both_names(alice_client, user, text):
    cluster = services.cluster_create(owner=user, name="c")
    url = reverse("playground:pod_new", args=[cluster.pk])
    response = alice_client.post(url, {**FORM, "name": "w0", "workload_ref": text})
    assert response.status_code == 200
    assert "WORKLOAD/POD_GROUP" in response.content.decode()
    assert not cluster.pods.exists()
