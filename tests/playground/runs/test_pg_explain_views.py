"""HTTP: a stored run's decisions explained, recomputed by replaying the run."""

from __future__ import annotations

import pytest
from builders import make_node, make_pod, record_run
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster, Profile, RunCommand
from playground.profiles import services as profile_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def recorded():
    demo_load()
    cluster = Cluster.objects.get(name="Three zones")
    run, _, events = record_run(cluster, Profile.objects.get(name="Default"))
    return run, events


def _url(run, cycle):
    return reverse("playground:run_explain", args=[run.pk, cycle])


def test_a_score_explanation_gives_the_value_the_run_recorded(client, recorded):
    run, events = recorded
    combine = next(e for e in events if e["type"] == "Combine" and e["cycle"] == 2)
    node = combine["selected"]
    body = client.get(_url(run, 2), {"node": node, "plugin": "NodeResourcesFit"}).json()
    score = next(
        e
        for e in events
        if e["type"] == "Score" and e["cycle"] == 2 and e["plugin"] == "NodeResourcesFit"
    )
    explained = {ex["point"]: ex for ex in body["explanations"]}
    assert explained["Score"]["value"] == score["raw"][score["nodes"].index(node)]
    assert explained["Score"]["formula"].startswith("cpu: (")
    assert explained["Filter"]["value"] == {"code": "Success", "reasons": []}
    assert explained["Score"]["pod"] == combine["pod"]


def test_without_a_node_the_selection_is_explained(client, recorded):
    run, events = recorded
    combine = next(e for e in events if e["type"] == "Combine" and e["cycle"] == 3)
    body = client.get(_url(run, 3)).json()
    (ex,) = body["explanations"]
    assert ex["point"] == "Combine"
    assert ex["value"]["selected"] == combine["selected"]
    assert list(ex["value"]["top"]) == list(combine["top"])


def test_unknown_cycle_node_or_run_is_404(client, recorded, other_user):
    run, _ = recorded
    assert client.get(_url(run, 99)).status_code == 404
    missing = client.get(_url(run, 1), {"node": "no-such-node"})
    assert missing.status_code == 404
    assert "no-such-node" in missing.json()["error"]
    cluster = services.cluster_create(owner=other_user, name="bob's")
    services.node_save(cluster=cluster, user=other_user, manifest=make_node("n1"))
    services.pod_save(cluster=cluster, user=other_user, manifest=make_pod("p1"))
    profile = profile_services.profile_create(
        owner=other_user, name="bp", config={"profiles": [{"schedulerName": "default-scheduler"}]}
    )
    bobs, _, _ = record_run(cluster, profile, user=other_user)
    assert client.get(_url(bobs, 1)).status_code == 404


def test_a_run_a_user_steered_at_permit_is_not_replayed(client, recorded):
    run, _ = recorded
    RunCommand.objects.create(run=run, kind=RunCommand.Kind.ALLOW, pod="default/x")
    response = client.get(_url(run, 1))
    assert response.status_code == 409
    assert "Permit" in response.json()["error"]
