"""Every run explains itself: a replay takes the run's own inputs (script, custom plugins as
they were, users' answers at Permit, the clock's moves, extenders' answers) and reaches each
cycle as the run had it, never asking an extender again."""

from __future__ import annotations

import threading
import time

import pytest
import yaml
from builders import make_node, make_pod
from django.test import Client
from django.urls import reverse

from playground import plugins
from playground.clusters import services
from playground.custom_plugins.models import CustomPlugin
from playground.demo import demo_load
from playground.lessons.loader import lesson_by_slug
from playground.lessons.services import lesson_load
from playground.models import Cluster, Profile, Run, RunCycle, RunInput
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.execution.script import parse_script
from playground.runs.explain.replay import replay_whole
from tests.scheduler_core.extender_server import ExtenderServer

pytestmark = pytest.mark.django_db


def _cycles(run: Run) -> list[int]:
    return list(RunCycle.objects.filter(run=run).order_by("cycle").values_list("cycle", flat=True))


def _explain(client: Client, run: Run, cycle: int, **params: str):
    return client.get(reverse("playground:run_explain", args=[run.pk, cycle]), params)


def _every_cycle_explains(client: Client, run: Run) -> int:
    """Ask each cycle's outcome and each evaluated node; the replayed pod must be the run's."""
    asked = 0
    for cycle in _cycles(run):
        events = selectors.run_cycle_events(run=run, cycle=cycle)
        start = next(e for e in events if e["type"] == "CycleStart")
        if not start.get("profile"):
            continue
        for params in [{}] + [{"node": n} for n in start["nodes"]]:
            response = _explain(client, run, cycle, **params)
            assert response.status_code == 200, (cycle, params, response.json())
            assert all(e["pod"] == start["pod"] for e in response.json()["explanations"])
            asked += 1
    return asked


def _placements_replayed(run: Run) -> None:
    """Played again to its end, the run binds every pod where it did."""
    sched = replay_whole(run)
    got = {k: (o.node or None) for k, o in sched.outcomes.items() if k in run.placements}
    assert got == {k: v for k, v in run.placements.items() if k in got}
    assert set(got) == set(run.placements)


def test_lesson_12s_scripted_run_explains_cycle_3(client, user, django_capture_on_commit_callbacks):
    lesson = lesson_by_slug("scheduling-queue")
    cluster, profiles = lesson_load(lesson)
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(
            user=user, cluster=cluster, profile=profiles["default"], script=lesson.script
        )
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert 3 in _cycles(run)
    client.force_login(user)
    response = _explain(client, run, 3)
    assert response.status_code == 200, response.json()
    assert _every_cycle_explains(client, run) > 3
    _placements_replayed(run)


def test_a_pod_added_with_priority_after_cycle_0_is_replayed_at_its_point(
    client, user, django_capture_on_commit_callbacks
):
    demo_load()
    cluster = Cluster.objects.get(is_demo=True, name="Three zones")
    big = make_pod("big", cpu="1", priority=1000)
    script = parse_script([{"after_cycle": 0, "add_pod": big}])
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(
            user=user, cluster=cluster, profile=Profile.objects.get(name="Default"), script=script
        )
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    client.force_login(user)
    assert _every_cycle_explains(client, run) > 0
    _placements_replayed(run)


def test_custom_plugins_are_explained_as_the_run_resolved_them(
    client, user, django_capture_on_commit_callbacks
):
    demo_load()
    cluster = Cluster.objects.get(is_demo=True, name="Blinking lights")
    profile = Profile.objects.get(is_demo=True, name="Custom plugins")
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    stored = RunInput.objects.get(run=run, kind="plugins").data
    assert stored, "the run keeps the definitions it started with"
    # The definitions change (or go) after the run: its explanations do not.
    CustomPlugin.objects.filter(is_demo=True).delete()
    client.force_login(user)
    assert _every_cycle_explains(client, run) > 0
    _placements_replayed(run)


@pytest.mark.django_db(transaction=True)
def test_a_run_a_user_answered_at_permit_replays_the_answers_and_the_waits(
    client, user, monkeypatch, settings
):
    settings.PLAYGROUND_PERMIT_MAX_WAIT_SECONDS = 1
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    cluster = services.cluster_create(owner=user, name="gate")
    gated = []
    for name in ("ok", "no", "late"):
        pod = make_pod(name)
        pod["metadata"]["annotations"] = {plugins.REQUIRE_APPROVAL: "true"}
        gated.append(pod)
    objects = [make_node("n1"), *gated, make_pod("free")]
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump_all(objects))
    profile = profile_services.profile_create(
        owner=user,
        name="gate",
        config={
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "plugins": {"permit": {"enabled": [{"name": "ApprovalGate"}]}},
                }
            ],
        },
    )
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    worker = threading.Thread(target=runs.run_execute, kwargs={"run_id": run.pk})
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while len(selectors.run_waiting_pods(Run.objects.get(pk=run.pk))) < 3:
            assert time.monotonic() < deadline, "the pods never waited"
            time.sleep(0.05)
        runs.run_command(run_id=run.pk, command={"command": "allow", "pod": "default/ok"})
        runs.run_command(run_id=run.pk, command={"command": "reject", "pod": "default/no"})
    finally:
        worker.join(timeout=20)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    kinds = set(RunInput.objects.filter(run=run).values_list("kind", flat=True))
    assert {"command", "advance"} <= kinds
    assert run.placements["default/ok"] == "n1" and run.placements["default/late"] is None
    _placements_replayed(run)
    client.force_login(user)
    assert _every_cycle_explains(client, run) > 0


def test_an_extender_is_never_asked_again_to_explain(
    client, user, settings, django_capture_on_commit_callbacks
):
    settings.EXTENDER_ALLOWED_HOSTS = ["127.0.0.1"]
    cluster = services.cluster_create(owner=user, name="ext")
    objects = [make_node("n1"), make_node("n2"), make_node("n3"), make_pod("p"), make_pod("q")]
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump_all(objects))
    with ExtenderServer(priorities={"n1": 7, "n2": 3}) as srv:
        srv.behaviour.passes = lambda name: name != "n3"
        config = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler"}],
            "extenders": [
                {
                    "urlPrefix": srv.url,
                    "filterVerb": "filter",
                    "prioritizeVerb": "prioritize",
                    "weight": 2,
                }
            ],
        }
        profile = profile_services.profile_create(owner=user, name="ext", config=config)
        with django_capture_on_commit_callbacks(execute=True):
            run = runs.run_start(user=user, cluster=cluster, profile=profile)
        run.refresh_from_db()
        assert run.status == Run.Status.SUCCEEDED, run.error_message
        asked = len(srv.verbs())
        client.force_login(user)
        assert _every_cycle_explains(client, run) > 0
        body = _explain(client, run, 1, node="n1", plugin=f"Extender:{srv.url}").json()
        assert [e["value"] for e in body["explanations"]] == [7, 70, 140]
        assert len(srv.verbs()) == asked, "an explanation asked the extender again"
        _placements_replayed(run)


def test_a_victim_bound_by_the_run_shows_when(client, user, django_capture_on_commit_callbacks):
    cluster = services.cluster_create(owner=user, name="one node")
    objects = [make_node("n1", cpu="2"), make_pod("low", cpu="2")]
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump_all(objects))
    high = make_pod("high", cpu="2", priority=1000)
    profile = profile_services.profile_create(
        owner=user, name="default", config={"profiles": [{"schedulerName": "default-scheduler"}]}
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(
            user=user,
            cluster=cluster,
            profile=profile,
            script=parse_script([{"after_cycle": 1, "add_pod": high}]),
        )
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    client.force_login(user)
    body = _explain(client, run, 2).json()
    [preemption] = body["explanations"]
    [victim] = [v for c in preemption["inputs"]["candidates"] for v in c["victims"]]
    assert victim["pod"] == "default/low"
    assert victim["startTime"] is None and victim["boundAt"] == 0.0
