"""Runs: start, execute (eager Celery), idempotence, take-over, cancel, failure, Permit."""

from __future__ import annotations

import threading
import time

import pytest
import yaml
from builders import make_node, make_pod, stored_events
from django.utils import timezone

from playground import demo, plugins
from playground.clusters import services
from playground.demo import demo_load
from playground.models import (
    Cluster,
    Pod,
    Profile,
    Run,
    RunCommand,
    RunCycle,
    RunEvent,
    RunSnapshot,
)
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.execution import attempt as execution
from playground.runs.execution import handoff
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import Code
from scheduler_core.objects.api import Pod as EnginePod

pytestmark = pytest.mark.django_db

APPROVAL_PROFILE = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"permit": {"enabled": [{"name": "ApprovalGate"}]}},
        }
    ],
}


def _import(cluster, user, *objects):
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="c1")
    _import(
        cluster,
        user,
        make_node("n1", cpu="2"),
        make_node("n2", cpu="2"),
        make_pod("running", node_name="n1", cpu="1"),
        make_pod("a", cpu="1"),
        make_pod("b", cpu="1"),
        make_pod("huge", cpu="64"),
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


def _start(django_capture_on_commit_callbacks, **kwargs):
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(**kwargs)
    run.refresh_from_db()
    return run


def _seqs(run):
    return [e["seq"] for e in stored_events(run)]


def _types(run):
    return [e["type"] for e in stored_events(run)]


def test_run_schedules_stores_every_event_and_leaves_the_cluster_alone(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.started_by == user and run.attempts == 1
    seqs = _seqs(run)
    assert seqs == list(range(len(seqs))) and len(seqs) > 20
    # One row per scheduling cycle (CycleStart .. CycleEnd), the small events as rows.
    cycles = list(RunCycle.objects.filter(run=run).order_by("seq_first"))
    assert [c.pod for c in cycles] == ["default/a", "default/b", "default/huge"]
    assert not run.events.filter(type__in=["CycleStart", "Filter", "Score", "CycleEnd"]).exists()
    huge = cycles[2]
    assert (huge.result, huge.node, huge.feasible) == ("Unschedulable", "", 0)
    assert "Insufficient cpu" in huge.message
    assert run.placements["default/huge"] is None
    assert {run.placements["default/a"], run.placements["default/b"]} <= {"n1", "n2"}
    assert run.summary["total"] == 3 and run.summary["scheduled"] == 2
    assert "Insufficient cpu" in run.summary["messages"]["default/huge"]
    # A run is a simulation: the cluster's pods are still pending.
    assert not Pod.objects.filter(cluster=cluster, name__in=["a", "b", "huge"]).exclude(
        node_name=""
    )
    envelopes = selectors.run_event_messages(run_id=run.pk, after=huge.seq_first - 1)
    assert envelopes[0]["kind"] == "cycle" and envelopes[0]["pod"] == "default/huge"
    assert [e["seq"] for e in envelopes[1:]] == list(range(huge.seq_last + 1, len(seqs)))


def test_apply_placements_binds_the_pods_once(
    cluster, profile, user, other_user, django_capture_on_commit_callbacks
):
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    with pytest.raises(runs.RunCommandRefused):
        runs.run_apply_placements(run=run, user=other_user)
    applied_to, counts = runs.run_apply_placements(run=run, user=user)
    assert applied_to == cluster and counts == {"bound": 2, "deleted": 0, "claims": 0}
    a = Pod.objects.get(cluster=cluster, name="a")
    assert a.node_name == run.placements["default/a"]
    assert a.manifest["spec"]["nodeName"] == a.node_name
    assert Pod.objects.get(cluster=cluster, name="huge").node_name == ""
    with pytest.raises(runs.RunCommandRefused, match="applied already"):
        runs.run_apply_placements(run=run, user=user)


def test_a_second_delivery_changes_nothing(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    before = (_seqs(run), run.finished, run.placements)
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert (_seqs(run), run.finished, run.placements) == before
    assert run.attempts == 1


def test_an_embedded_run_uses_the_snapshot_handed_over_else_the_stored_one(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    """Tasks run in this process: the execution takes the list run_start stored instead of
    reading it back; a run whose snapshot was not handed over reads the stored one."""
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        handed = runs.run_start(user=user, cluster=cluster, profile=profile)
    RunSnapshot.objects.filter(run=handed).update(manifests=[])  # what a read would find now
    for callback in callbacks:
        callback()
    handed.refresh_from_db()
    assert handed.placements == {"default/a": "n2", "default/b": "n1", "default/huge": None}

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        stored = runs.run_start(user=user, cluster=cluster, profile=profile)
    handoff.forget_all()  # as in a worker process, which has nothing handed over
    RunSnapshot.objects.filter(run=stored).update(manifests=[make_node("n9"), make_pod("z")])
    for callback in callbacks:
        callback()
    stored.refresh_from_db()
    assert stored.placements == {"default/z": "n9"}


def test_the_collector_skips_the_engine_state_during_the_cycles_only(
    cluster, profile, user, django_capture_on_commit_callbacks, monkeypatch
):
    import gc

    frozen: list[int] = []
    on_cycle = execution.Execution.on_cycle

    def noting(self, *args):
        frozen.append(gc.get_freeze_count())
        return on_cycle(self, *args)

    monkeypatch.setattr(execution.Execution, "on_cycle", noting)
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert run.status == Run.Status.SUCCEEDED
    assert frozen and min(frozen) > 1000  # the engine's objects, frozen for every cycle
    assert gc.get_freeze_count() == 0


def test_a_run_builds_envelopes_only_when_someone_watches(
    cluster, profile, user, django_capture_on_commit_callbacks, monkeypatch
):
    """Embedded, nobody in the run's group: flushes store and send nothing; a consumer that
    has joined the group gets every stored seq once, and the progress."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from playground.runs.live import stream

    sent: list[list[dict]] = []
    real_broadcast = execution.broadcast_many

    def spying(run_id, messages):
        sent.append(list(messages))
        real_broadcast(run_id, messages)

    monkeypatch.setattr(execution, "broadcast_many", spying)
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert run.status == Run.Status.SUCCEEDED and RunEvent.objects.filter(run=run).exists()
    assert [[m["kind"] for m in batch] for batch in sent] == [["finished"]]
    assert not stream.watched(run.pk)

    layer = get_channel_layer()
    sent.clear()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        watched = runs.run_start(user=user, cluster=cluster, profile=profile)
    async_to_sync(layer.group_add)(stream.run_group(watched.pk), "watcher")
    try:
        assert stream.watched(watched.pk)
        for callback in callbacks:
            callback()
    finally:
        async_to_sync(layer.group_discard)(stream.run_group(watched.pk), "watcher")
    envelopes = [m for batch in sent for m in batch]
    seqs = [
        s
        for m in envelopes
        if m["kind"] in stream.SEQ_KINDS
        for s in range(m["seq"], stream.last_seq_of(m) + 1)
    ]
    assert seqs == list(range(len(_types(watched))))
    assert any(m["kind"] == "progress" for m in envelopes)
    assert envelopes[-1]["kind"] == "finished"


def test_pod_keys_pick_the_pods_to_schedule(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _start(
        django_capture_on_commit_callbacks,
        user=user,
        cluster=cluster,
        profile=profile,
        pod_keys=["default/b"],
    )
    assert run.placements.keys() == {"default/b"}
    assert Pod.objects.get(cluster=cluster, name="a").node_name == ""
    with pytest.raises(runs.RunInvalid, match="default/running"):
        runs.run_start(user=user, cluster=cluster, profile=profile, pod_keys=["default/running"])


def test_demo_cluster_runs_keep_placements_in_the_run(user, django_capture_on_commit_callbacks):
    demo_load()
    demo_cluster = Cluster.objects.get(is_demo=True, name="Three zones")
    default = Profile.objects.get(is_demo=True, name="Default")
    run = _start(
        django_capture_on_commit_callbacks, user=None, cluster=demo_cluster, profile=default
    )
    assert run.status == Run.Status.SUCCEEDED and not run.write_back
    assert all(run.placements.values())
    assert not demo_cluster.pods.exclude(node_name="").exists()


def test_a_broken_snapshot_fails_the_run_with_its_message(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    Run.objects.filter(pk=run.pk).update(config={"profiles": "not a list"})
    for callback in callbacks:
        callback()
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert run.error_message and run.finished is not None
    assert Pod.objects.filter(cluster=cluster).exclude(node_name="").count() == 1


def test_cancelling_a_pending_run_stops_it_before_it_starts(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    runs.run_cancel(run_id=run.pk)
    for callback in callbacks:
        callback()
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and not run.events.exists()
    with pytest.raises(runs.RunCommandRefused):
        runs.run_decide_permit(run_id=run.pk, pod_key="default/a", allow=True)


def test_a_live_execution_makes_a_second_one_wait(cluster, profile, user):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, heartbeat=timezone.now(), lease_token="other", attempts=1
    )
    with pytest.raises(runs.RunBusy):
        runs.run_execute(run_id=run.pk)


class _Crash(BaseException):
    """Stands in for a worker killed mid-run: nothing in the run catches it."""


def test_a_take_over_after_a_crash_resumes_without_duplicates(
    cluster, profile, user, monkeypatch, settings
):
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    reference = runs.run_start(user=user, cluster=cluster, profile=profile)
    runs.run_execute(run_id=reference.pk)
    reference.refresh_from_db()
    expected = _types(reference)

    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.setattr(execution, "BATCH_ITEMS", 3)
    monkeypatch.setattr(execution, "watched", lambda run_id: True)  # flushes broadcast
    flushes = {"n": 0}
    real_broadcast = execution.broadcast_many

    def crash_on_third(run_id, messages):
        flushes["n"] += 1
        if flushes["n"] == 3:
            raise _Crash
        real_broadcast(run_id, messages)

    monkeypatch.setattr(execution, "broadcast_many", crash_on_third)
    with pytest.raises(_Crash):
        runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    assert 0 < len(_seqs(run)) < len(expected)
    assert RunCycle.objects.filter(run=run).exists()  # a take-over replays past stored cycles

    monkeypatch.setattr(execution, "broadcast_many", real_broadcast)
    with pytest.raises(runs.RunBusy):  # the lease is still fresh
        runs.run_execute(run_id=run.pk)
    Run.objects.filter(pk=run.pk).update(heartbeat=timezone.now() - timezone.timedelta(hours=1))
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED and run.attempts == 2
    assert _types(run) == expected
    assert _seqs(run) == list(range(len(expected)))
    assert run.placements == reference.placements


def test_a_run_that_keeps_losing_its_worker_fails(cluster, profile, user, monkeypatch):
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, heartbeat=None, attempts=runs.MAX_ATTEMPTS
    )
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "gave up" in run.error_message


def test_compare_starts_two_runs_that_leave_the_cluster_alone(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    other = profile_services.profile_create(owner=user, name="b", config=APPROVAL_PROFILE)
    with django_capture_on_commit_callbacks(execute=True):
        a, b = runs.run_compare_start(
            user=user, cluster=cluster, profile_a=profile, profile_b=other
        )
    a.refresh_from_db()
    b.refresh_from_db()
    assert (a.compare_with_id, b.compare_with_id) == (b.pk, a.pk)
    assert a.status == b.status == Run.Status.SUCCEEDED
    assert Pod.objects.filter(cluster=cluster).exclude(node_name="").count() == 1


def test_run_visibility_follows_the_cluster(cluster, profile, user, other_user):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    assert selectors.run_get(user=user, run_id=run.pk) == run
    from django.http import Http404

    with pytest.raises(Http404):
        selectors.run_get(user=other_user, run_id=run.pk)
    assert selectors.run_may_command(user=user, run=run)
    assert not selectors.run_may_command(user=other_user, run=run)


# -- ApprovalGate ---------------------------------------------------------------------------


def _engine_pod(annotations):
    manifest = make_pod("p")
    manifest["metadata"]["annotations"] = annotations
    return EnginePod(manifest)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param({}, (Code.SUCCESS, 0.0), id="no-annotation-passes"),
        pytest.param({plugins.REQUIRE_APPROVAL: "false"}, (Code.SUCCESS, 0.0), id="false-passes"),
        pytest.param({plugins.REQUIRE_APPROVAL: "true"}, (Code.WAIT, 120.0), id="waits-120s"),
        pytest.param(
            {plugins.REQUIRE_APPROVAL: "true", plugins.APPROVAL_TIMEOUT: "15"},
            (Code.WAIT, 15.0),
            id="timeout-annotation",
        ),
        pytest.param(
            {plugins.REQUIRE_APPROVAL: "true", plugins.APPROVAL_TIMEOUT: "soon"},
            (Code.WAIT, 120.0),
            id="bad-timeout-uses-default",
        ),
    ],
)
def test_approval_gate_permit(annotations, expected):
    status, timeout = plugins.ApprovalGate().permit(CycleState(), _engine_pod(annotations), "n1")
    assert (status.code, timeout) == expected


def test_approval_demo_profile_is_valid_and_loaded():
    demo_load()
    profile = Profile.objects.get(is_demo=True, name="Approval gate")
    assert profile.config["profiles"][0]["plugins"]["permit"]["enabled"] == [
        {"name": "ApprovalGate"}
    ]
    assert Cluster.objects.filter(is_demo=True, name="Approval gate").exists()


def test_large_demo_cluster_is_deterministic_and_created_once():
    assert demo.large_cluster_manifests() == demo.large_cluster_manifests()
    cluster = demo.ensure_large_cluster()
    assert (cluster.nodes.count(), cluster.pods.count()) == (500, 300)
    zones = {
        n.manifest["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in cluster.nodes.all()
    }
    assert len(zones) == 3
    assert demo.ensure_large_cluster().pk == cluster.pk
    assert cluster.pods.count() == 300


def _gated(name, timeout=None):
    annotations = {plugins.REQUIRE_APPROVAL: "true"}
    if timeout is not None:
        annotations[plugins.APPROVAL_TIMEOUT] = str(timeout)
    pod = make_pod(name)
    pod["metadata"]["annotations"] = annotations
    return pod


def _wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.mark.django_db(transaction=True)
def test_permit_waits_for_users_and_times_out_in_real_time(user, monkeypatch):
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    cluster = services.cluster_create(owner=user, name="gate")
    _import(
        cluster,
        user,
        make_node("n1"),
        _gated("ok"),
        _gated("no"),
        _gated("late", 1),
        make_pod("free"),
    )
    profile = profile_services.profile_create(owner=user, name="gate", config=APPROVAL_PROFILE)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    worker = threading.Thread(target=runs.run_execute, kwargs={"run_id": run.pk})
    worker.start()
    try:
        _wait_for(lambda: len(selectors.run_waiting_pods(Run.objects.get(pk=run.pk))) == 3)
        waiting = selectors.run_waiting_pods(Run.objects.get(pk=run.pk))
        assert {w["pod"] for w in waiting} == {"default/ok", "default/no", "default/late"}
        assert {w["plugin"] for w in waiting} == {"ApprovalGate"}
        runs.run_command(run_id=run.pk, command={"command": "allow", "pod": "default/ok"})
        runs.run_command(run_id=run.pk, command={"command": "reject", "pod": "default/no"})
    finally:
        worker.join(timeout=15)
    assert not worker.is_alive()
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.placements == {
        "default/ok": "n1",
        "default/no": None,
        "default/late": None,
        "default/free": "n1",
    }
    assert run.summary["messages"]["default/no"] == "0/1 nodes are available: 1 rejected by a user."
    assert (
        "rejected due to timeout after waiting 1s at plugin ApprovalGate"
        in (run.summary["messages"]["default/late"])
    )
    assert set(RunCommand.objects.filter(run=run).values_list("result", flat=True)) == {
        "allowed",
        "rejected",
    }
    assert RunEvent.objects.filter(run=run, type="Permit", payload__code="Wait").count() == 3


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_a_run_waiting_at_permit(user, monkeypatch):
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    cluster = services.cluster_create(owner=user, name="gate")
    _import(cluster, user, make_node("n1"), _gated("ok"), make_pod("free"))
    profile = profile_services.profile_create(owner=user, name="gate", config=APPROVAL_PROFILE)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    worker = threading.Thread(target=runs.run_execute, kwargs={"run_id": run.pk})
    worker.start()
    try:
        _wait_for(lambda: selectors.run_waiting_pods(Run.objects.get(pk=run.pk)))
        ack = runs.run_command(run_id=run.pk, command={"command": "cancel"})
        assert ack["command"] == "cancel"
    finally:
        worker.join(timeout=10)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert not Pod.objects.filter(cluster=cluster).exclude(node_name="").exists()
    with pytest.raises(runs.RunCommandRefused):
        runs.run_command(run_id=run.pk, command={"command": "jump"})
