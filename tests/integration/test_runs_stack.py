"""Runs through the real pieces: HTTP -> daphne -> Redis broker -> Celery worker -> Redis
channel layer -> daphne -> websocket client; a worker killed mid-run; embedded mode."""

from __future__ import annotations

import http.client
import json
import secrets
import time
from urllib.parse import urlencode, urlparse

import pytest
import yaml
from builders import bulk_store, make_node, make_pod
from django.test import Client
from stack import stored_seqs

from playground import demo
from playground.clusters import services
from playground.models import Pod, Run, RunCycle, RunEvent
from playground.profiles import services as profile_services
from playground.runs.refs import run_ref
from playground.runs.storage.packs import expand

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TIMEOUT = 30


class Browser:
    """Just enough of a browser: a session cookie, a CSRF token, POSTs and websockets."""

    def __init__(self, base: str, user) -> None:
        client = Client()
        client.force_login(user)
        self.base = base
        self.csrf = secrets.token_hex(16)  # 32 characters, as Django's unmasked secret
        self.cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={self.csrf}"

    def post(self, path: str, data: dict[str, str]) -> http.client.HTTPResponse:
        url = urlparse(self.base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
        body = urlencode({**data, "csrfmiddlewaretoken": self.csrf})
        conn.request(
            "POST",
            path,
            body=body,
            headers={
                "Cookie": self.cookie,
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": self.base + "/",
            },
        )
        return conn.getresponse()

    def start_run(self, cluster, profile) -> int:
        response = self.post(f"/clusters/{cluster.pk}/run", {"profile": str(profile.pk)})
        location = response.getheader("Location") or ""
        assert response.status == 302 and "/runs/" in location, (response.status, location)
        return int(location.rstrip("/").split("/")[-1].split(".")[0])

    def websocket(self, run_id: int, after: int | None = None):
        from websockets.sync.client import connect

        query = "" if after is None else f"?after={after}"
        url = self.base.replace("http://", "ws://") + f"/ws/runs/{run_ref(run_id)}/{query}"
        return connect(
            url,
            additional_headers={"Cookie": self.cookie, "Origin": self.base},
            open_timeout=TIMEOUT,
            max_size=None,
        )


def _until_finished(ws, timeout: float = TIMEOUT) -> list[dict]:
    messages = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=TIMEOUT))
        messages.extend(message["messages"] if message["kind"] == "batch" else [message])
        if message["kind"] == "finished":
            return messages
    raise AssertionError("no finished message")


def _wait_for(predicate, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.fixture
def small_cluster(user):
    cluster = services.cluster_create(owner=user, name="stack")
    objects = [make_node(f"n{i}") for i in range(1, 4)] + [make_pod(f"p{i}") for i in range(8)]
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


def _event_seqs(messages):
    """The seqs the stream stood for, in order: a cycle summary covers its seq..last."""
    return [
        s
        for m in messages
        if m["kind"] in ("event", "cycle")
        for s in range(m["seq"], m.get("last", m["seq"]) + 1)
    ]


def test_a_run_started_over_http_reaches_the_websocket_in_order(
    live_asgi, celery_worker, small_cluster, profile, user
):
    browser = Browser(live_asgi, user)
    run_id = browser.start_run(small_cluster, profile)
    with browser.websocket(run_id) as ws:
        messages = _until_finished(ws)
    seqs = _event_seqs(messages)
    assert seqs == list(range(len(seqs))) and len(seqs) > 50
    assert messages[-1]["status"] == "succeeded" and messages[-1]["seq"] == len(seqs)
    stored = expand(
        RunEvent.objects.filter(run_id=run_id).order_by("seq").values_list("payload", flat=True)
    )
    assert [m["event"] for m in messages if m["kind"] == "event"] == stored
    cycles = list(RunCycle.objects.filter(run_id=run_id).order_by("seq_first"))
    assert [(m["cycle"], m["pod"]) for m in messages if m["kind"] == "cycle"] == [
        (c.cycle, c.pod) for c in cycles
    ]
    assert len(cycles) == 8
    # A run is a simulation: the cluster's pods stay pending.
    assert Pod.objects.filter(cluster=small_cluster, node_name="").count() == 8

    middle = [m for m in messages if m["kind"] in ("event", "cycle")][len(messages) // 3]
    k = middle.get("last", middle["seq"])  # what a client holds ends with a whole envelope
    with browser.websocket(run_id, after=k) as ws:
        again = _until_finished(ws)
    assert _event_seqs(again) == list(range(k + 1, len(seqs)))
    assert again[-1] == messages[-1]


def _big_cluster(user, nodes: int, pods: int):
    cluster = services.cluster_create(owner=user, name="big")
    return bulk_store(cluster, demo.large_cluster_manifests(nodes=nodes, pods=pods))


def test_a_worker_killed_mid_run_leaves_it_to_a_retry_without_half_written_placements(
    live_asgi, start_worker, user, profile
):
    cluster = _big_cluster(user, nodes=300, pods=400)
    first = start_worker()
    browser = Browser(live_asgi, user)
    run_id = browser.start_run(cluster, profile)
    _wait_for(lambda: RunCycle.objects.filter(run_id=run_id).count() > 20)
    first.kill()
    run = Run.objects.get(pk=run_id)
    stored_at_kill = run.cycle_records.count()
    assert run.status == Run.Status.RUNNING
    assert stored_at_kill < 400, "the run finished before the worker was killed"
    assert not Pod.objects.filter(cluster=cluster).exclude(node_name="").exists()

    with browser.websocket(run_id) as ws:
        time.sleep(2.2)  # past the broker's visibility timeout and the run's lease
        start_worker()
        messages = _until_finished(ws)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.attempts == 2
    seqs = _event_seqs(messages)
    assert seqs == list(range(len(seqs))) == stored_seqs(run_id)
    assert not Pod.objects.filter(cluster=cluster).exclude(node_name="").exists()
    assert run.summary["scheduled"] == 400 == sum(1 for v in run.placements.values() if v)


def test_embedded_mode_serves_a_run_with_no_external_service(
    embedded_asgi, small_cluster, profile, user
):
    browser = Browser(embedded_asgi, user)
    run_id = browser.start_run(small_cluster, profile)
    with browser.websocket(run_id) as ws:
        messages = _until_finished(ws)
    seqs = _event_seqs(messages)
    assert seqs == list(range(len(seqs))) and messages[-1]["status"] == "succeeded"


def test_fifty_websocket_readers_in_embedded_mode_all_get_every_event_once_in_order(
    embedded_asgi, user, profile
):
    """Every reader completes its handshake and gets the whole run, each event once, in order:
    20 readers from the start, 20 joining mid-run (catch-up racing live batches), 10 after the
    end (catch-up only). The run is 1,000 nodes x 300 pods: about 11,000 events per reader."""
    from concurrent.futures import ThreadPoolExecutor

    nodes, pods = 1000, 300
    cluster = _big_cluster(user, nodes=nodes, pods=pods)
    browser = Browser(embedded_asgi, user)
    started = time.monotonic()
    run_id = browser.start_run(cluster, profile)

    def read(_: int) -> list[int]:
        with browser.websocket(run_id) as ws:  # open_timeout: the handshake within 30 s
            return _event_seqs(_until_finished(ws, timeout=120))

    with ThreadPoolExecutor(max_workers=50) as pool:
        early = [pool.submit(read, i) for i in range(20)]
        _wait_for(lambda: RunCycle.objects.filter(run_id=run_id).count() > pods // 3, timeout=60)
        assert not Run.objects.get(pk=run_id).is_terminal, "the run ended before mid-run readers"
        middle = [pool.submit(read, i) for i in range(20)]
        _wait_for(lambda: Run.objects.get(pk=run_id).is_terminal, timeout=120)
        late = [pool.submit(read, i) for i in range(10)]
        results = [f.result() for f in early + middle + late]
    elapsed = time.monotonic() - started
    run = Run.objects.get(pk=run_id)
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    stored = stored_seqs(run_id)
    assert stored == list(range(len(stored))) and len(stored) > 20 * pods
    assert [r == stored for r in results] == [True] * 50
    print(f"\n50 readers, {nodes} nodes x {pods} pods, {len(stored)} events: {elapsed:.1f} s")


def test_a_websocket_idle_longer_than_redis_read_timeout_stays_open(
    live_asgi, start_worker, small_cluster, profile, user
):
    """Nothing to read for 7 s (no worker yet) must not kill the consumer (redis-py's 5 s)."""
    browser = Browser(live_asgi, user)
    run_id = browser.start_run(small_cluster, profile)
    with browser.websocket(run_id) as ws:
        time.sleep(7)
        start_worker()
        messages = _until_finished(ws)
    seqs = _event_seqs(messages)
    assert seqs == list(range(len(seqs))) and messages[-1]["status"] == "succeeded"


def test_a_killed_workers_run_is_taken_over_by_lease_not_visibility_timeout(
    live_asgi, start_worker, user, profile
):
    """With compose's hour-long visibility timeout, the other worker's lease watchdog resumes
    the run within 90 s, with every event once."""
    cluster = _big_cluster(user, nodes=300, pods=400)
    first = start_worker(CELERY_VISIBILITY_TIMEOUT="3600")
    browser = Browser(live_asgi, user)
    run_id = browser.start_run(cluster, profile)
    _wait_for(lambda: len(stored_seqs(run_id)) > 500)
    first.kill()
    run = Run.objects.get(pk=run_id)
    assert run.status == Run.Status.RUNNING, "the run finished before the worker was killed"
    # The broker keeps the dead worker's message for an hour: only the watchdog can help.
    start_worker(CELERY_VISIBILITY_TIMEOUT="3600")
    killed_at = time.monotonic()
    _wait_for(lambda: Run.objects.get(pk=run_id).is_terminal, timeout=90)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    took = time.monotonic() - killed_at
    assert took < 90
    print(f"\nkill -9 mid-run: the other worker finished the run {took:.1f} s later")
    seqs = stored_seqs(run_id)
    assert seqs == list(range(len(seqs)))
    assert run.summary["scheduled"] == 400
