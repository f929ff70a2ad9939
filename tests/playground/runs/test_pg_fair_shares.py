"""Fair shares of the runners: one owner's runs cannot keep another's from starting, and an
owner's pending and running runs of every kind count against one limit."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
import yaml
from builders import make_node, make_pod
from django.db import close_old_connections
from django.urls import reverse
from django.utils import timezone
from test_pg_runs import APPROVAL_PROFILE

from config.celery import app
from playground import plugins
from playground.clusters import services
from playground.lessons.loader import course
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import services as runs
from playground.runs import try_change
from playground.runs.execution import dispatch, limits, tasks
from playground.runs.execution.runners import RunnerPool
from playground.runs.execution.script import parse_script

pytestmark = pytest.mark.django_db


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
def plain(user):
    return profile_services.profile_create(owner=user, name="plain", config={})


@pytest.fixture
def gate(user):
    return profile_services.profile_create(owner=user, name="gate", config=APPROVAL_PROFILE)


def _queued(cluster, profile, owner, *, user=None):
    """A started run whose task was never delivered."""
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        return runs.run_start(user=user, cluster=cluster, profile=profile, owner=owner)


def _running(run):
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, heartbeat=timezone.now())
    return run


def _waits(run, message):
    with pytest.raises(runs.RunWaiting):
        runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.PENDING
    assert run.summary["waiting"] == message


def _succeeds(run):
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message


# --- who owns a run -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "owner"),
    [
        ("10.0.0.7", "addr:10.0.0.7"),
        ("2001:db8:1:2::1", "addr:2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::9", "addr:2001:db8:1:2::/64"),  # one host's /64 is one owner
        ("::ffff:10.0.0.7", "addr:10.0.0.7"),
        ("", "anonymous"),
        ("not an address", "anonymous"),
    ],
)
def test_an_anonymous_visitor_is_owner_by_address(address, owner):
    assert limits.owner_key(user=None, address=address) == owner


def test_a_user_owns_their_runs_wherever_they_come_from(user, cluster, plain):
    assert limits.owner_key(user=user, address="10.0.0.7") == f"user:{user.pk}"
    run = _queued(cluster, plain, None, user=user)
    assert run.owner_key == f"user:{user.pk}"


def test_a_run_that_can_wait_is_one_with_a_permit_plugin_or_an_extender(user, cluster, settings):
    settings.EXTENDER_ALLOWED_HOSTS = ["127.0.0.1:9"]
    extender = {**APPROVAL_PROFILE, "profiles": [{"schedulerName": "default-scheduler"}]}
    extender["extenders"] = [{"urlPrefix": "http://127.0.0.1:9", "filterVerb": "filter"}]
    kinds = {"plain": {}, "gate": APPROVAL_PROFILE, "extender": extender}
    found = {}
    for name, config in kinds.items():
        profile = profile_services.profile_create(owner=user, name=name, config=config)
        found[name] = _queued(cluster, profile, "addr:10.0.0.1").can_wait
    assert found == {"plain": False, "gate": True, "extender": True}


# --- who may start -------------------------------------------------------------------------------


def test_one_owner_runs_at_most_half_the_runners_and_another_starts(cluster, plain, settings):
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 4
    settings.PLAYGROUND_RUNS_PER_USER = 10
    for _ in range(2):
        _running(_queued(cluster, plain, "addr:10.0.0.1"))
    third = _queued(cluster, plain, "addr:10.0.0.1")
    _waits(
        third,
        "waiting for a free runner: 2 of your runs are running, and one owner runs at most 2 "
        "at once (of 4 runners)",
    )
    _succeeds(_queued(cluster, plain, "addr:10.0.0.2"))


def test_runs_that_can_wait_leave_a_runner_to_runs_that_cannot(cluster, plain, gate, settings):
    """Four owners with one approval run each (the gate's pods wait for a user): the fourth
    gate run waits, and a run without a gate still starts at once."""
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 4
    for i in range(3):
        _running(_queued(cluster, gate, f"addr:10.0.0.{i}"))
    fourth = _queued(cluster, gate, "addr:10.0.0.9")
    _waits(
        fourth,
        "waiting for a free runner: 3 runners hold runs that can wait at Permit or on an "
        "extender, the most they may (the other 1 is kept for runs that cannot)",
    )
    _succeeds(_queued(cluster, plain, "addr:10.0.0.9"))


def test_a_celery_task_over_its_owners_share_gives_its_slot_back_with_a_countdown(
    cluster, plain, settings, monkeypatch
):
    """Full stack: the task does not hold the worker; it is retried after a countdown."""
    settings.PLAYGROUND_WORKER_SLOTS = 2  # an owner's share: 1
    monkeypatch.setattr(limits, "embedded", lambda: False)
    _running(_queued(cluster, plain, "user:77"))
    mine = _queued(cluster, plain, "user:77")

    class Retried(Exception):
        pass

    countdowns = []

    def retry(countdown, **_):
        countdowns.append(countdown)
        return Retried()

    monkeypatch.setattr(tasks.execute_run, "retry", retry)
    tasks.execute_run.push_request(is_eager=False, id="task-1", hostname="w1")
    try:
        with pytest.raises(Retried):
            tasks.execute_run.run(mine.pk)
    finally:
        tasks.execute_run.pop_request()
    assert countdowns == [runs.WAITING_RETRY_SECONDS]
    mine.refresh_from_db()
    assert mine.status == Run.Status.PENDING
    assert mine.summary["waiting"].startswith("waiting for a free runner: 1 of your runs is")
    # Another owner's task starts in a free slot.
    _succeeds(_queued(cluster, plain, "user:78"))


# --- the embedded pool: who goes first -------------------------------------------------------


class _FakeRuns:
    """Stands in for executing a run: notes the start, then holds the runner until released."""

    def __init__(self):
        self.started: list[int] = []
        self.release: dict[int, threading.Event] = {}
        self.lock = threading.Lock()
        self.closing = False

    def __call__(self, claim, on_idle=None):
        run = claim[0]
        with self.lock:
            self.started.append(run.pk)
            event = self.release.setdefault(run.pk, threading.Event())
            if self.closing:
                event.set()
        try:
            event.wait(timeout=60)
            Run.objects.filter(pk=run.pk).update(status=Run.Status.SUCCEEDED, lease_token="")
        finally:
            close_old_connections()

    def done(self, run):
        with self.lock:
            self.release.setdefault(run.pk, threading.Event()).set()

    def release_all(self):
        with self.lock:
            self.closing = True
            for event in self.release.values():
                event.set()


@contextmanager
def _pool(monkeypatch, *, fake_runs=True):
    fake = _FakeRuns()
    if fake_runs:
        monkeypatch.setattr(runs, "run_execute_claimed", fake)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    pool = RunnerPool(loop)
    try:
        yield pool, fake
    finally:
        fake.release_all()
        for run in Run.objects.filter(status__in=[Run.Status.PENDING, Run.Status.RUNNING]):
            runs.run_cancel(run_id=run.pk)
        deadline = time.monotonic() + 30
        while (pool.running() or pool.in_flight) and time.monotonic() < deadline:
            time.sleep(0.05)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        pool.close()


def _until(predicate, what):
    """Wait for the pool to settle into the state ``predicate`` checks (no timing asserted)."""
    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def _noted(run):
    return bool(Run.objects.get(pk=run.pk).summary.get("waiting"))


@pytest.mark.django_db(transaction=True)
def test_the_pool_starts_a_run_of_an_owner_under_their_share_before_older_ones(
    cluster, plain, settings, monkeypatch
):
    """Four runners, an owner's share two. Alice queues four slow runs: two start, two wait.
    Bob's run starts at once beside them; when a runner frees, Dave's run (no run of his
    running) goes before Alice's older one (she has one running), which comes next."""
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 4
    settings.PLAYGROUND_RUNS_PER_USER = 4
    with _pool(monkeypatch) as (pool, fake):
        alice = [_queued(cluster, plain, "addr:10.0.0.1") for _ in range(4)]
        for run in alice:
            pool.submit(run.pk)
        _until(lambda: len(fake.started) == 2 and all(map(_noted, alice[2:])), "alice waits")
        assert set(fake.started) == {alice[0].pk, alice[1].pk}
        assert (
            Run.objects.get(pk=alice[2].pk)
            .summary["waiting"]
            .startswith("waiting for a free runner: 2 of your runs are running")
        )

        bob = _queued(cluster, plain, "addr:10.0.0.2")
        pool.submit(bob.pk)
        _until(lambda: bob.pk in fake.started, "bob's run starts")
        carol = _queued(cluster, plain, "addr:10.0.0.3")
        pool.submit(carol.pk)
        _until(lambda: carol.pk in fake.started, "carol's run starts")
        dave = _queued(cluster, plain, "addr:10.0.0.4")
        pool.submit(dave.pk)
        _until(lambda: _noted(dave), "dave waits")
        assert Run.objects.get(pk=dave.pk).summary["waiting"] == (
            "waiting for a free runner: all 4 runners are busy"
        )

        fake.done(alice[0])  # alice now has one run going: under her share, like dave
        _until(lambda: len(fake.started) == 5, "a waiting run starts")
        assert fake.started[-1] == dave.pk
        assert set(pool.waiting()) == {alice[2].pk, alice[3].pk}

        fake.done(carol)
        _until(lambda: len(fake.started) == 6, "alice's next run starts")
        assert fake.started[-1] == alice[2].pk
        assert pool.waiting() == [alice[3].pk]


@pytest.mark.django_db(transaction=True)
def test_runs_waiting_at_permit_for_their_users_leave_their_runners_to_others(
    cluster, plain, settings, monkeypatch
):
    """Two runners: four owners' approval runs all start and wait for their users (a class on
    the binding-cycle lesson), and a fifth owner's run still starts and finishes."""
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 2
    settings.PLAYGROUND_PERMIT_MAX_WAIT_SECONDS = 600
    gated = make_pod("g")
    gated["metadata"]["annotations"] = {plugins.REQUIRE_APPROVAL: "true"}
    gate_cluster = services.cluster_create(owner=cluster.owner, name="gated")
    services.cluster_import_yaml(
        cluster=gate_cluster,
        user=cluster.owner,
        text=yaml.safe_dump_all([make_node("n1"), gated], sort_keys=False),
    )
    gate = profile_services.profile_create(
        owner=cluster.owner, name="gate", config=APPROVAL_PROFILE
    )
    with _pool(monkeypatch, fake_runs=False) as (pool, _):
        waiting = [_queued(gate_cluster, gate, f"addr:10.0.1.{i}") for i in range(4)]
        for run in waiting:
            pool.submit(run.pk)
        _until(
            lambda: Run.objects.filter(pk__in=[r.pk for r in waiting], idle=True).count() == 4,
            "every approval run waits for its user",
        )
        assert not pool.waiting()
        other = _queued(cluster, plain, "addr:10.0.1.9")
        pool.submit(other.pk)
        _until(lambda: Run.objects.get(pk=other.pk).is_terminal, "the other run finishes")
        assert Run.objects.get(pk=other.pk).status == Run.Status.SUCCEEDED
        # An answer wakes a waiting run: it binds its pod and ends.
        runs.run_decide_permit(run_id=waiting[0].pk, pod_key="default/g", allow=True)
        _until(lambda: Run.objects.get(pk=waiting[0].pk).is_terminal, "the allowed run ends")
        finished = Run.objects.get(pk=waiting[0].pk)
        assert (finished.status, finished.placements) == (Run.Status.SUCCEEDED, {"default/g": "n1"})


def test_the_server_keeps_a_bounded_number_of_runs_waiting_at_permit(cluster, gate, settings):
    settings.PLAYGROUND_IDLE_RUNS = 2
    for i in range(2):
        run = _running(_queued(cluster, gate, f"addr:10.0.2.{i}"))
        Run.objects.filter(pk=run.pk).update(idle=True)
    _waits(
        _queued(cluster, gate, "addr:10.0.2.9"),
        "waiting for a free runner: 2 runs wait at Permit for their users, the most the server "
        "keeps waiting at once",
    )


# --- what may be queued --------------------------------------------------------------------------


def test_queued_runs_of_every_kind_count_against_one_limit(
    user, cluster, plain, settings, alice_client
):
    """Plain runs, compares, runs with changes and tried changes all count; a refusal says
    which limit, how many runs are running and waiting, and what to do."""
    settings.PLAYGROUND_QUEUED_RUNS_PER_USER = 5
    finished = _queued(cluster, plain, None, user=user)
    _succeeds(finished)
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        _running(runs.run_start(user=user, cluster=cluster, profile=plain))
        runs.run_compare_start(user=user, cluster=cluster, profile_a=plain, profile_b=plain)
        step = parse_script([{"after_cycle": 1, "delete_pod": "default/b"}])
        runs.run_start(user=user, cluster=cluster, profile=plain, script=step)
        with pytest.raises(runs.RunRefused) as refused:
            runs.run_compare_start(user=user, cluster=cluster, profile_a=plain, profile_b=plain)
        assert str(refused.value) == (
            "cannot start 2 runs: you have 1 running and 3 waiting to start, and at most 5 may "
            "be running or waiting at once (runs, compares, lesson runs, runs with changes and "
            "tried changes all count). Wait for one to finish, or cancel one from its page."
        )
        change = try_change.ProfileChange(kind="weight", plugin="NodeResourcesFit", weight=3)
        tried = try_change.run_try_change(user=user, run=finished, change=change)
        assert tried.owner_key == f"user:{user.pk}"
        with pytest.raises(try_change.ChangeInvalid, match="you have 1 running and 4 waiting"):
            try_change.run_try_change(user=user, run=finished, change=change)
        response = alice_client.post(
            reverse("playground:run_new", args=[cluster.pk]), {"profile": plain.pk}
        )
    assert response.status_code == 302
    page = alice_client.get(response["Location"]).content.decode()
    assert "cannot start a run: you have 1 running and 4 waiting to start" in page
    mine = Run.objects.filter(owner_key=f"user:{user.pk}")
    assert mine.filter(status__in=["pending", "running"]).count() == 5
    # Another owner is not counted with alice.
    _queued(cluster, plain, "addr:10.0.0.5")


def test_an_anonymous_visitors_lesson_runs_count_by_address(client, settings):
    settings.PLAYGROUND_QUEUED_RUNS_PER_USER = 2
    lesson = course()[10]  # the binding cycle: each visitor's run is their own (not shared)
    url = reverse("playground:lesson_run", args=[lesson.slug])
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        for _ in range(2):
            assert client.post(url, {"profile": "default"}).status_code == 302
        refused = client.post(url, {"profile": "default"})
        other = client.post(url, {"profile": "default"}, REMOTE_ADDR="10.0.0.8")
    assert refused.status_code == 302 and "#run-frame-box" not in refused["Location"]
    page = client.get(refused["Location"]).content.decode()
    assert "cannot start a run: you have 0 running and 2 waiting to start" in page
    assert other["Location"].endswith("#run-frame-box")
    assert Run.objects.filter(owner_key="addr:127.0.0.1").count() == 2
    assert Run.objects.filter(owner_key="addr:10.0.0.8").count() == 1


# --- runs that would hold a runner for long ----------------------------------------------------


def test_an_extender_that_never_answers_fails_the_run_once_its_budget_is_spent(
    user, cluster, settings
):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)  # connections are accepted by the kernel and never answered
    port = listener.getsockname()[1]
    try:
        settings.EXTENDER_ALLOWED_HOSTS = [f"127.0.0.1:{port}"]
        settings.PLAYGROUND_EXTENDER_RUN_BUDGET_SECONDS = 0.5
        config = {
            **APPROVAL_PROFILE,
            "profiles": [{"schedulerName": "default-scheduler"}],
            "extenders": [
                {
                    "urlPrefix": f"http://127.0.0.1:{port}",
                    "filterVerb": "filter",
                    "httpTimeout": "200ms",
                }
            ],
        }
        profile = profile_services.profile_create(owner=user, name="silent", config=config)
        run = _queued(cluster, profile, None, user=user)
        runs.run_execute(run_id=run.pk)
    finally:
        listener.close()
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert re.fullmatch(
        rf"ExtenderBudgetExceeded: the extender at http://127\.0\.0\.1:{port}/filter did not "
        r"answer within 0\.2 s in (\d+) calls \(\d+\.\d s in all, more than a run's extender "
        r"budget of 0\.5 s\)",
        run.error_message,
    ), run.error_message


def test_a_take_over_stops_the_execution_that_held_the_lease(
    user, cluster, plain, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """The lease ran out (a cycle longer than the lease): the old execution's task is revoked
    and its process killed before the run is queued again, so the two never run together."""
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 30
    run = _queued(cluster, plain, None, user=user)
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        heartbeat=timezone.now() - timedelta(seconds=31),
        lease_token="old",
        holder="w1|4242|task-7",
        attempts=1,
    )
    revoked, sent = [], []
    monkeypatch.setattr(app.control, "revoke", lambda *a, **kw: revoked.append((a, kw)))
    monkeypatch.setattr(dispatch, "enqueue_run", sent.append)
    app.conf.task_always_eager = False  # the full stack's watchdog
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert runs.run_requeue_expired() == [run.pk]
    finally:
        app.conf.task_always_eager = True
    assert revoked == [(("task-7",), {"terminate": True, "signal": "SIGKILL"})]
    assert sent == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.lease_token, run.holder) == (Run.Status.PENDING, "", "")

    runs.run_claim(run_id=run.pk, holder="w2|99|task-8")
    assert Run.objects.get(pk=run.pk).holder == "w2|99|task-8"
    Run.objects.filter(pk=run.pk).update(status=Run.Status.PENDING, attempts=3)
    assert runs.run_claim(run_id=run.pk) is None
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert run.error_message == (
        "gave up after 3 attempts: each one stopped renewing the run's lease for 30 s (its "
        "worker stopped, or one cycle took longer than that)"
    )


def test_every_way_of_starting_a_run_goes_through_run_submit():
    """Runs are stored in two places, each of which queues them through run_submit (the one
    place that counts the owner's runs); nothing else hands a run to a worker."""
    root = Path(__file__).resolve().parents[3] / "playground"
    sources = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.py")}
    creators = sorted(p for p, text in sources.items() if "Run.objects.create(" in text)
    assert creators == ["runs/services.py", "runs/try_change.py"]
    assert all("run_submit(runs=" in sources[p] for p in creators)
    enqueuers = sorted(  # a package's map (its __init__ docstring) names it without calling it
        p for p, text in sources.items() if "enqueue_run" in text and not p.endswith("__init__.py")
    )
    # recovery.py hands runs already stored (and counted) to a worker again, pending ones only;
    # dispatch.py is the name services call, tasks.py the function behind it.
    assert enqueuers == [
        "runs/execution/dispatch.py",
        "runs/execution/recovery.py",
        "runs/execution/tasks.py",
        "runs/services.py",
    ]
    services_source = sources["runs/services.py"]
    assert services_source.count("partial(dispatch.enqueue_run, run.pk)") == 1  # in run_submit
    assert "Run.objects.create(" not in sources["runs/execution/recovery.py"]
