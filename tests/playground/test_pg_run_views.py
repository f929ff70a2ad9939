"""HTTP: the run page and its JSON, starting runs and what-ifs, Permit decisions, permissions."""

from __future__ import annotations

import pytest
from builders import make_node, make_pod, record_run
from django.test import Client
from django.urls import reverse

from playground import services
from playground.models import Cluster, Profile, Run, RunCommand

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    services.demo_load()
    return Cluster.objects.get(name="Three zones"), Profile.objects.get(name="Default")


@pytest.fixture
def recorded(demo):
    cluster, profile = demo
    run, _, events = record_run(cluster, profile)
    return run, events


def test_run_page_lists_every_cycle(client, recorded):
    run, events = recorded
    response = client.get(reverse("playground:run", args=[run.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    cycles = [e for e in events if e["type"] == "CycleStart"]
    assert len(cycles) == 6
    for ev in cycles:
        assert f'data-cycle="{ev["cycle"]}"' in html
    assert 'id="run-config"' in html
    assert "plotly.min.js" in html


def test_events_json_returns_the_events_after_a_seq(client, recorded):
    run, events = recorded
    url = reverse("playground:run_events", args=[run.pk])
    body = client.get(url, {"after": 10}).json()
    assert body["status"] == "succeeded"
    assert body["terminal"] is True
    assert [e["seq"] for e in body["events"]] == [e["seq"] for e in events if e["seq"] > 10]
    assert len(client.get(url).json()["events"]) == len(events)


def test_cycle_json_heatmap_is_the_score_events(client, recorded):
    run, events = recorded
    scores = [e for e in events if e["type"] == "Score" and e["cycle"] == 2]
    body = client.get(reverse("playground:run_cycle", args=[run.pk, 2]), {"mode": "raw"}).json()
    heat = body["heatmap"]["data"][0]
    for j, ev in enumerate(scores):
        assert {n: heat["z"][i][j] for i, n in enumerate(heat["y"])} == dict(
            zip(ev["nodes"], ev["raw"], strict=True)
        )
    assert [s["seq"] for s in body["steps"]][0] == body["steps"][0]["seq"]
    assert body["binding_state"] == "Bound"
    assert client.get(reverse("playground:run_cycle", args=[run.pk, 99])).status_code == 404


def test_usage_json_counts_the_placed_pods(client, recorded):
    run, events = recorded
    body = client.get(reverse("playground:run_usage", args=[run.pk])).json()
    rows = body["usage"]["rows"]
    assert sum(r["pods"]["before"] for r in rows) == 0
    assert sum(r["pods"]["after"] for r in rows) == 6
    assert set(body["figures"]) == {"cpu", "memory", "pods"}


@pytest.fixture
def bobs_run(other_user):
    cluster = services.cluster_create(owner=other_user, name="bob's")
    services.node_save(cluster=cluster, user=other_user, manifest=make_node("n1"))
    services.pod_save(cluster=cluster, user=other_user, manifest=make_pod("p1"))
    profile = services.profile_create(
        owner=other_user, name="bp", config={"profiles": [{"schedulerName": "default-scheduler"}]}
    )
    run, _, _ = record_run(cluster, profile, status="running", user=other_user)
    return run


@pytest.mark.parametrize(
    "name,args,method",
    [
        ("playground:run", [], "get"),
        ("playground:run_events", [], "get"),
        ("playground:run_cycle", [1], "get"),
        ("playground:run_usage", [], "get"),
        ("playground:run_permit", [], "post"),
        ("playground:run_cancel", [], "post"),
    ],
)
def test_another_users_run_is_a_404(alice_client, bobs_run, name, args, method):
    url = reverse(name, args=[bobs_run.pk, *args])
    response = getattr(alice_client, method)(url, {"pod": "default/p1", "decision": "allow"})
    assert response.status_code == 404
    assert not RunCommand.objects.exists()
    assert Run.objects.get(pk=bobs_run.pk).status == "running"


def test_compare_of_another_users_runs_is_a_404(alice_client, bobs_run):
    url = reverse("playground:compare", args=[bobs_run.pk, bobs_run.pk])
    assert alice_client.get(url).status_code == 404


def test_cluster_page_offers_a_run_form_with_profiles(alice_client, demo):
    cluster, profile = demo
    html = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert 'id="run-form"' in html
    assert f'<option value="{profile.pk}">Default</option>' in html


def test_starting_a_run_redirects_to_its_page_and_runs_it(
    alice_client, demo, django_capture_on_commit_callbacks
):
    cluster, profile = demo
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("playground:run_new", args=[cluster.pk]), {"profile": profile.pk}
        )
    run = Run.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("playground:run", args=[run.pk])
    run.refresh_from_db()
    assert run.status == "succeeded"
    body = alice_client.get(reverse("playground:run_events", args=[run.pk])).json()
    assert sum(1 for e in body["events"] if e["type"] == "CycleStart") == 6


def test_starting_needs_a_login_and_a_profile(alice_client, demo):
    cluster, profile = demo
    url = reverse("playground:run_new", args=[cluster.pk])
    assert Client().post(url, {"profile": profile.pk}).status_code == 302  # to the login page
    assert alice_client.post(url, {}).status_code == 400
    assert not Run.objects.exists()


def test_what_if_starts_two_runs_and_shows_them_side_by_side(
    alice_client, demo, django_capture_on_commit_callbacks
):
    cluster, default = demo
    packing = Profile.objects.get(name="Bin-packing")
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("playground:run_new", args=[cluster.pk]),
            {"profile": default.pk, "profile_b": packing.pk},
        )
    a, b = Run.objects.order_by("id")
    assert response.url == reverse("playground:compare", args=[a.pk, b.pk])
    html = alice_client.get(response.url).content.decode()
    assert "Bin-packing" in html
    assert html.count('<tr data-pod="default/web-') == 6
    assert 'id="compare-figures"' in html


def test_permit_decision_is_queued_for_a_running_run(alice_client, user, demo):
    cluster, profile = demo
    run, _, _ = record_run(cluster, profile, status="running", user=user)
    url = reverse("playground:run_permit", args=[run.pk])
    response = alice_client.post(url, {"pod": "default/gang-0", "decision": "allow"})
    assert response.status_code == 200
    command = RunCommand.objects.get()
    assert (command.kind, command.pod) == ("allow", "default/gang-0")
    assert alice_client.post(url, {"pod": "default/x", "decision": "maybe"}).status_code == 400
    run.status = "succeeded"
    run.save()
    assert alice_client.post(url, {"pod": "default/x", "decision": "reject"}).status_code == 409
