"""Runs survive faults: broadcast failures, restarts (embedded and full stack), and one user
cannot take every runner."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from builders import make_node, make_pod
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from playground.clusters import services
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import services as runs
from playground.runs.execution import dispatch
from playground.runs.live import stream
from playground.runs.storage.packs import expand

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="c1")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all([make_node("n1"), make_pod("a"), make_pod("b")], sort_keys=False),
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


def _queued(user, cluster, profile, monkeypatch):
    """A started run whose task was never delivered."""
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    return run


def test_a_failing_channel_layer_does_not_fail_a_run(
    user, cluster, profile, monkeypatch, django_capture_on_commit_callbacks
):
    class BrokenLayer:
        async def group_send(self, group, message):
            raise ConnectionError("Redis is down")

    monkeypatch.setattr(stream, "get_channel_layer", lambda: BrokenLayer())
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    seqs = [e["seq"] for e in expand(run.events.order_by("seq").values_list("payload", flat=True))]
    for first, last in run.cycle_records.values_list("seq_first", "seq_last"):
        seqs.extend(range(first, last + 1))  # a cycle's record stands for its seq range
    assert sorted(seqs) == list(range(len(seqs))) and len(seqs) > 10


def test_embedded_start_fails_runs_left_by_the_previous_process(
    user, cluster, profile, monkeypatch
):
    """Even a fresh heartbeat: right after a crash, nobody else will finish these runs."""
    running = _queued(user, cluster, profile, monkeypatch)
    Run.objects.filter(pk=running.pk).update(
        status=Run.Status.RUNNING, heartbeat=timezone.now(), lease_token="dead"
    )
    pending = _queued(user, cluster, profile, monkeypatch)
    assert runs.run_recover_stale() == 2
    for run in (running, pending):
        run.refresh_from_db()
        assert run.status == Run.Status.FAILED
        assert run.error_message == "the server stopped before the run finished"


def test_full_stack_start_requeues_pending_runs_and_fails_none(
    user, cluster, profile, monkeypatch, settings
):
    pending = [_queued(user, cluster, profile, monkeypatch) for _ in range(3)]
    sent: list[int] = []
    monkeypatch.setattr(dispatch, "enqueue_run", sent.append)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    call_command("requeue_runs", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert sorted(sent) == sorted(r.pk for r in pending)
    assert set(Run.objects.values_list("status", flat=True)) == {Run.Status.PENDING}
    # A second delivery of a queued run is harmless: it runs once.
    for run_id in sent:
        runs.run_execute(run_id=run_id)
        runs.run_execute(run_id=run_id)
    for run in pending:
        run.refresh_from_db()
        assert run.status == Run.Status.SUCCEEDED and run.attempts == 1


def test_a_user_at_the_run_limit_waits_for_a_free_runner(
    user, cluster, profile, monkeypatch, settings, alice_client
):
    settings.PLAYGROUND_RUNS_PER_USER = 2
    busy = [_queued(user, cluster, profile, monkeypatch) for _ in range(2)]
    Run.objects.filter(pk__in=[r.pk for r in busy]).update(
        status=Run.Status.RUNNING, heartbeat=timezone.now()
    )
    third = _queued(user, cluster, profile, monkeypatch)
    with pytest.raises(runs.RunWaiting):
        runs.run_execute(run_id=third.pk)
    third.refresh_from_db()
    assert third.status == Run.Status.PENDING
    assert third.summary["waiting"].startswith("waiting for a free runner")
    page = alice_client.get(reverse("playground:run", args=[third.pk])).content.decode()
    assert "waiting for a free runner" in page
    data = alice_client.get(reverse("playground:run_events", args=[third.pk])).json()
    assert data["waiting"].startswith("waiting for a free runner")
    # Another user is not held up by alice's runs.
    Run.objects.filter(pk__in=[r.pk for r in busy]).update(status=Run.Status.SUCCEEDED)
    runs.run_execute(run_id=third.pk)
    third.refresh_from_db()
    assert third.status == Run.Status.SUCCEEDED and "waiting" not in third.summary


def test_another_user_is_not_held_up(user, other_user, cluster, profile, monkeypatch, settings):
    settings.PLAYGROUND_RUNS_PER_USER = 1
    mine = _queued(user, cluster, profile, monkeypatch)
    Run.objects.filter(pk=mine.pk).update(status=Run.Status.RUNNING, heartbeat=timezone.now())
    demo_profile = profile_services.profile_create(owner=other_user, name="b", config={})
    bobs_cluster = services.cluster_create(owner=other_user, name="b")
    services.cluster_import_yaml(
        cluster=bobs_cluster, user=other_user, text=yaml.safe_dump(make_node("n1"))
    )
    bobs = _queued(other_user, bobs_cluster, demo_profile, monkeypatch)
    runs.run_execute(run_id=bobs.pk)
    bobs.refresh_from_db()
    assert bobs.status == Run.Status.SUCCEEDED


def test_compose_redis_keeps_an_append_only_file():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert any(v.endswith(":/data") for v in compose["services"]["redis"]["volumes"])
    assert "requeue_runs" in compose["services"]["web"]["command"]


def test_lease_watchdog_requeues_only_runs_whose_heartbeat_stopped(
    user, cluster, profile, monkeypatch, settings, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    settings.PLAYGROUND_RUN_LEASE_SECONDS = 30
    dead, alive = (_queued(user, cluster, profile, monkeypatch) for _ in range(2))
    now = timezone.now()
    Run.objects.filter(pk=dead.pk).update(
        status=Run.Status.RUNNING, heartbeat=now - timedelta(seconds=31), lease_token="dead"
    )
    Run.objects.filter(pk=alive.pk).update(
        status=Run.Status.RUNNING, heartbeat=now, lease_token="alive"
    )
    sent: list[int] = []
    monkeypatch.setattr(dispatch, "enqueue_run", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.run_requeue_expired() == [dead.pk]
    assert sent == [dead.pk]
    assert runs.run_requeue_expired() == []  # the next watchdog finds nothing to do
    dead.refresh_from_db()
    alive.refresh_from_db()
    assert (dead.status, dead.lease_token) == (Run.Status.PENDING, "")
    assert (alive.status, alive.lease_token) == (Run.Status.RUNNING, "alive")
