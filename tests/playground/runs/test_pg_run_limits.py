"""Per-user limits on Permit waits: runs that can wait at Permit, and how long a pod waits."""

from __future__ import annotations

import threading

import pytest
import yaml
from builders import make_node, make_pod
from django.urls import reverse
from django.utils import timezone
from test_pg_runs import APPROVAL_PROFILE, _gated

from playground import plugins
from playground.clusters import services
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import services as runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="gate")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all([make_node("n1"), _gated("a"), make_pod("b")], sort_keys=False),
    )
    return cluster


@pytest.fixture
def gate(user):
    return profile_services.profile_create(owner=user, name="gate", config=APPROVAL_PROFILE)


@pytest.fixture
def plain(user):
    return profile_services.profile_create(owner=user, name="plain", config={})


def _queued(user, cluster, profile, monkeypatch):
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    return run


def _running(run):
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, heartbeat=timezone.now())


def _waits(run, message):
    """The run does not start, and its summary says why."""
    with pytest.raises(runs.RunWaiting):
        runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.PENDING
    assert run.summary["waiting"].startswith(message)


def test_a_second_run_that_can_wait_at_permit_waits_for_the_first(
    user, other_user, cluster, gate, plain, monkeypatch, settings, alice_client
):
    settings.PLAYGROUND_RUNS_PER_USER = 2
    settings.PLAYGROUND_PERMIT_RUNS_PER_USER = 1
    first = _queued(user, cluster, gate, monkeypatch)
    _running(first)
    second = _queued(user, cluster, gate, monkeypatch)
    message = (
        "waiting: you already have 1 run that can wait at Permit or on an extender (at most 1)"
    )
    _waits(second, message)
    page = alice_client.get(reverse("playground:run", args=[second.pk])).content.decode()
    assert "you already have 1 run that can wait at Permit" in page
    data = alice_client.get(reverse("playground:run_events", args=[second.pk])).json()
    assert data["waiting"].startswith(message)

    # A run without a Permit plugin still has a runner (one of alice's two is free).
    other = _queued(user, cluster, plain, monkeypatch)
    runs.run_execute(run_id=other.pk)
    other.refresh_from_db()
    assert other.status == Run.Status.SUCCEEDED
    # Another user's approval run is not held up by alice's.
    bobs_cluster = services.cluster_create(owner=other_user, name="b")
    services.cluster_import_yaml(
        cluster=bobs_cluster, user=other_user, text=yaml.safe_dump(make_node("n1"))
    )
    bobs_gate = profile_services.profile_create(owner=other_user, name="g", config=APPROVAL_PROFILE)
    bobs = _queued(other_user, bobs_cluster, bobs_gate, monkeypatch)
    runs.run_execute(run_id=bobs.pk)
    assert Run.objects.get(pk=bobs.pk).status == Run.Status.SUCCEEDED

    # When alice's first approval run ends, the second one starts.
    Run.objects.filter(pk=first.pk).update(status=Run.Status.CANCELLED)
    monkeypatch.setattr(plugins, "DEFAULT_TIMEOUT_SECONDS", 0.2)
    runs.run_execute(run_id=second.pk)
    second.refresh_from_db()
    assert second.status == Run.Status.SUCCEEDED and "waiting" not in second.summary


def test_the_permit_limit_follows_its_setting(user, cluster, gate, monkeypatch, settings):
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 8  # an owner's share: 4, and at most 3 of theirs
    settings.PLAYGROUND_RUNS_PER_USER = 3
    settings.PLAYGROUND_PERMIT_RUNS_PER_USER = 2
    for _ in range(2):
        _running(_queued(user, cluster, gate, monkeypatch))
    third = _queued(user, cluster, gate, monkeypatch)
    _waits(
        third,
        "waiting: you already have 2 runs that can wait at Permit or on an extender (at most 2)",
    )


def test_embedded_runs_wait_while_every_runner_is_busy(
    user, other_user, cluster, plain, monkeypatch, settings
):
    """Embedded, the server's runner threads are shared: when all run, a run waits, and says so
    (alice is under her own limit: bob's runs take the runners)."""
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 2
    bobs_cluster = services.cluster_create(owner=other_user, name="b")
    bobs_profile = profile_services.profile_create(owner=other_user, name="p", config={})
    for _ in range(2):
        _running(_queued(other_user, bobs_cluster, bobs_profile, monkeypatch))
    mine = _queued(user, cluster, plain, monkeypatch)
    _waits(mine, "waiting for a free runner: all 2 runners are busy")
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 3
    runs.run_execute(run_id=mine.pk)
    assert Run.objects.get(pk=mine.pk).status == Run.Status.SUCCEEDED


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [("3600", 30.0), ("1e400", 30.0), ("10", 10.0), (None, 30.0)],
)
def test_an_approval_waits_at_most_the_playground_cap(settings, annotation, expected):
    settings.PLAYGROUND_PERMIT_MAX_WAIT_SECONDS = 30
    annotations = {plugins.REQUIRE_APPROVAL: "true"}
    if annotation is not None:
        annotations[plugins.APPROVAL_TIMEOUT] = annotation
    assert plugins.approval_timeout(annotations) == expected


@pytest.mark.django_db(transaction=True)
def test_a_plugin_asking_for_a_long_wait_is_cut_to_the_cap(
    user, cluster, gate, monkeypatch, settings
):
    """A Permit plugin asks for 15 minutes; the run rejects the pod after the 1 s cap."""
    settings.PLAYGROUND_PERMIT_MAX_WAIT_SECONDS = 1
    run = _queued(user, cluster, gate, monkeypatch)
    monkeypatch.setattr(plugins, "approval_timeout", lambda annotations: 900.0)
    worker = threading.Thread(target=runs.run_execute, kwargs={"run_id": run.pk})
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the pod still waits at Permit"
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.placements == {"default/a": None, "default/b": "n1"}
    assert (
        "rejected due to timeout after waiting 1s at plugin ApprovalGate"
        in run.summary["messages"]["default/a"]
    )
    wait = run.events.get(type="Permit", payload__code="Wait")
    assert wait.payload["timeout"] in (900, 900.0, "15m0s")
