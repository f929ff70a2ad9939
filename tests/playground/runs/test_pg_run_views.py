"""HTTP: the run page and its JSON, starting runs and what-ifs, Permit decisions, permissions."""

from __future__ import annotations

import gc
import importlib

import pytest
from builders import make_node, make_pod, record_run, stored_events
from django.apps import apps
from django.test import Client
from django.urls import reverse

from playground import plugins
from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster, Profile, Run, RunCommand, RunCycle, RunEvent
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs.execution import attempt as execution
from playground.runs.panels import paging
from playground.runs.services import EventCycles

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    demo_load()
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


def _covered(envelopes):
    """The seqs the envelopes stand for, in order (a cycle summary covers seq..last)."""
    return [s for m in envelopes for s in range(m["seq"], m.get("last", m["seq"]) + 1)]


def test_events_json_returns_summaries_and_small_events_after_a_seq(client, recorded):
    run, events = recorded
    url = reverse("playground:run_events", args=[run.pk])
    first_cycle = next(e for e in events if e["type"] == "CycleEnd")
    after = first_cycle["seq"]
    body = client.get(url, {"after": after}).json()
    assert body["status"] == "succeeded"
    assert body["terminal"] is True and body["more"] is False
    assert _covered(body["messages"]) == [e["seq"] for e in events if e["seq"] > after]
    cycles = [m for m in body["messages"] if m["kind"] == "cycle"]
    assert [m["cycle"] for m in cycles] == [2, 3, 4, 5, 6]
    assert all("event" not in m and "nodes" not in m for m in cycles)  # never per-node detail
    everything = client.get(url).json()["messages"]
    assert _covered(everything) == [e["seq"] for e in events]


def test_cycles_json_pages_and_searches_the_cycle_list(client, recorded):
    run, events = recorded
    url = reverse("playground:run_cycles", args=[run.pk])
    body = client.get(url, {"offset": 2, "limit": 3}).json()
    assert body["count"] == 6 and [c["cycle"] for c in body["cycles"]] == [3, 4, 5]
    pod = next(e["pod"] for e in events if e["type"] == "CycleStart" and e["cycle"] == 4)
    found = client.get(url, {"q": pod.split("/")[1]}).json()
    assert [c["pod"] for c in found["cycles"]] == [pod] * found["count"]


def test_cycle_json_score_table_is_the_score_events(client, recorded):
    run, events = recorded
    scores = [e for e in events if e["type"] == "Score" and e["cycle"] == 2]
    body = client.get(reverse("playground:run_cycle", args=[run.pk, 2]), {"mode": "raw"}).json()
    table = body["scores"]
    assert scores and table["plugins"] == [ev["plugin"] for ev in scores]
    for j, ev in enumerate(scores):
        assert {n: table["values"]["raw"][i][j] for i, n in enumerate(table["nodes"])} == dict(
            zip(ev["nodes"], ev["raw"], strict=True)
        )
    # the figures are drawn in the browser from this table, never built on the server
    assert "heatmap" not in body and "combine" not in body
    assert [s["seq"] for s in body["steps"]][0] == body["steps"][0]["seq"]
    assert body["binding_state"] == "Bound"
    assert client.get(reverse("playground:run_cycle", args=[run.pk, 99])).status_code == 404


def test_cycle_json_builds_its_panels_with_the_collector_off_and_turns_it_back_on(
    client, recorded, monkeypatch
):
    run, _ = recorded
    seen: list[bool] = []
    real = paging.cycle_page
    monkeypatch.setattr(paging, "cycle_page", lambda *a: seen.append(gc.isenabled()) or real(*a))
    assert gc.isenabled()
    assert client.get(reverse("playground:run_cycle", args=[run.pk, 2])).status_code == 200
    assert seen == [False] and gc.isenabled()
    assert client.get(reverse("playground:run_cycle", args=[run.pk, 99])).status_code == 404
    assert seen == [False, False] and gc.isenabled()


def test_usage_json_counts_the_placed_pods(client, recorded):
    run, events = recorded
    body = client.get(reverse("playground:run_usage", args=[run.pk])).json()
    rows = body["usage"]["rows"]
    assert sum(r["pods"]["before"] for r in rows) == 0
    assert sum(r["pods"]["after"] for r in rows) == 6
    # Allocatable pods is a count: one pod on a node of 110 is 0.9 %, not a rounding error.
    placed = next(r for r in rows if r["pods"]["after"])
    assert placed["pods"]["allocatable"] == 110
    assert placed["pods"]["after_pct"] == round(100 * placed["pods"]["after"] / 110, 1)
    assert set(body["figures"]) == {"cpu", "memory", "pods"}


@pytest.fixture
def bobs_run(other_user):
    cluster = services.cluster_create(owner=other_user, name="bob's")
    services.node_save(cluster=cluster, user=other_user, manifest=make_node("n1"))
    services.pod_save(cluster=cluster, user=other_user, manifest=make_pod("p1"))
    profile = profile_services.profile_create(
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
    assert sum(1 for m in body["messages"] if m["kind"] == "cycle") == 6
    assert _by_pod_span(stored_events(run), 3) == selectors.run_cycle_events(run=run, cycle=3)


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
    every_pod = html.split('id="placements"')[1].split("</table>")[0]
    assert every_pod.count('<tr data-pod="default/web-') == 6
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


def _by_pod_span(events, cycle):
    """One cycle's events the slow way: its pod's events from its CycleStart to the next one."""
    start = next(e for e in events if e["type"] == "CycleStart" and e["cycle"] == cycle)
    out = []
    for e in events:
        if e["seq"] < start["seq"] or e["pod"] != start["pod"]:
            continue
        if e["type"] == "CycleStart" and e["seq"] > start["seq"]:
            break
        out.append(e)
    return out


@pytest.fixture
def approved_late():
    """A run of the approval demo where gang-0 is allowed only after the other pods' cycles."""
    demo_load()
    cluster = Cluster.objects.get(name="Approval gate")
    profile = Profile.objects.get(name="Approval gate")

    def drive(sched):
        sched.run_until_idle(max_cycles=4)  # the simulated clock would time the waits out
        sched.allow_waiting_pod("default/gang-0")
        sched.run_until_idle(max_cycles=1)

    run, _, events = record_run(cluster, profile, registry=plugins.registry(), drive=drive)
    return run, events


def test_event_cycles_follow_each_pods_latest_cycle():
    cycles_of = EventCycles()
    seen = [
        cycles_of.see(t, pod, c)
        for t, pod, c in [
            ("Enqueue", "a", 0),
            ("CycleStart", "a", 1),
            ("Permit", "a", 1),
            ("CycleStart", "b", 2),
            ("Bind", "a", 2),
            ("CycleStart", "a", 3),
            ("Unschedulable", "a", 3),
            ("Backoff", "b", 3),
        ]
    ]
    assert seen == [None, 1, 1, 2, 1, 3, 3, 2]


def test_cycle_events_keep_a_late_binding_cycle_with_its_pod(client, approved_late):
    run, events = approved_late
    start = next(e for e in events if e["type"] == "CycleStart" and e["pod"] == "default/gang-0")
    bind = next(e for e in events if e["type"] == "Bind" and e["pod"] == "default/gang-0")
    assert bind["cycle"] != start["cycle"]  # bound under a later cycle's number
    cycles = [e["cycle"] for e in events if e["type"] == "CycleStart"]
    for cycle in cycles:
        assert selectors.run_cycle_events(run=run, cycle=cycle) == _by_pod_span(events, cycle)
    assert selectors.run_cycle_events(run=run, cycle=max(cycles) + 1) == []
    body = client.get(reverse("playground:run_cycle", args=[run.pk, start["cycle"]])).json()
    assert body["binding_state"] == "Bound"


def _store_the_old_way(run, events):
    """Every event a RunEvent row, as runs were stored before cycle records."""
    RunCycle.objects.filter(run=run).delete()
    RunEvent.objects.filter(run=run).delete()
    RunEvent.objects.bulk_create(
        RunEvent(run=run, seq=e["seq"], type=e["type"], payload=e) for e in events
    )


def test_migration_fills_the_cycle_of_stored_events(approved_late):
    run, events = approved_late
    cycles_of = EventCycles()
    expected = {e["seq"]: cycles_of.see(e["type"], e["pod"], e["cycle"]) for e in events}
    _store_the_old_way(run, events)
    migration = importlib.import_module("playground.migrations.0003_runevent_cycle")
    migration.fill_cycles(apps, None)
    assert dict(RunEvent.objects.filter(run=run).values_list("seq", "cycle")) == expected
    assert None in expected.values()  # Enqueue before a pod's first cycle belongs to none


def test_migration_turns_old_runs_into_cycle_records(approved_late):
    run, events = approved_late
    before = {
        c: selectors.run_cycle_events(run=run, cycle=c)
        for c in RunCycle.objects.filter(run=run).values_list("cycle", flat=True)
    }
    _store_the_old_way(run, events)
    importlib.import_module("playground.migrations.0003_runevent_cycle").fill_cycles(apps, None)
    migration = importlib.import_module("playground.migrations.0007_run_cycles_from_events")
    migration.events_to_cycles(apps, None)
    run.refresh_from_db()
    assert not RunEvent.objects.filter(run=run, type__in=["CycleStart", "Filter"]).exists()
    assert {c: selectors.run_cycle_events(run=run, cycle=c) for c in before} == before
    assert stored_events(run) == events


class _WorkerKilled(BaseException):
    """A worker killed mid-run: nothing in the run catches it."""


def test_a_take_over_fills_the_cycles_of_the_events_it_stores(user, demo, monkeypatch):
    from django.utils import timezone

    from playground.runs import services as runs

    cluster, profile = demo
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    monkeypatch.setattr(execution, "BATCH_ITEMS", 4)
    monkeypatch.setattr(execution, "watched", lambda run_id: True)  # flushes broadcast
    real_broadcast = execution.broadcast_many
    flushes = []

    def crash_on_fourth(run_id, messages):
        flushes.append(run_id)
        if len(flushes) == 4:
            raise _WorkerKilled
        real_broadcast(run_id, messages)

    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.setattr(execution, "broadcast_many", crash_on_fourth)
    with pytest.raises(_WorkerKilled):
        runs.run_execute(run_id=run.pk)
    assert 0 < RunEvent.objects.filter(run=run).count() < 50
    monkeypatch.setattr(execution, "broadcast_many", real_broadcast)
    Run.objects.filter(pk=run.pk).update(heartbeat=timezone.now() - timezone.timedelta(hours=1))
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "succeeded" and run.attempts == 2
    cycles_of = EventCycles()
    expected = {
        e["seq"]: cycles_of.see(e["type"], e["pod"], e["cycle"]) for e in stored_events(run)
    }
    rows = dict(RunEvent.objects.filter(run=run).values_list("seq", "cycle"))
    assert rows == {seq: expected[seq] for seq in rows}
