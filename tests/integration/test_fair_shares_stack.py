"""Fair shares in the full stack: a worker does not hold a run whose owner has their share of
the workers running; it takes another owner's run instead."""

from __future__ import annotations

import socket
import threading
import time
from unittest import mock

import pytest
import yaml
from builders import make_node, make_pod
from test_runs_stack import Browser, _wait_for

from playground import plugins
from playground.clusters import services
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import services as runs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

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


def _cluster(owner, name, *pods):
    cluster = services.cluster_create(owner=owner, name=name)
    services.cluster_import_yaml(
        cluster=cluster,
        user=owner,
        text=yaml.safe_dump_all([make_node("n1"), *pods], sort_keys=False),
    )
    return cluster


def test_an_owner_at_their_share_of_the_workers_waits_and_another_owners_run_goes_first(
    live_asgi, start_worker, user, other_user
):
    """Two workers, an owner's share one: alice's approval run holds a worker while its pod
    waits; her second run is put back with a countdown, so bob's run takes the other worker and
    finishes while hers waits; once her first run ends, the second one runs too."""
    for _ in range(2):
        start_worker(PLAYGROUND_WORKER_SLOTS="2", PLAYGROUND_PERMIT_MAX_WAIT_SECONDS="600")
    gated = make_pod("g")
    gated["metadata"]["annotations"] = {plugins.REQUIRE_APPROVAL: "true"}
    gate_cluster = _cluster(user, "gate", gated)
    gate = profile_services.profile_create(owner=user, name="gate", config=APPROVAL_PROFILE)
    plain = profile_services.profile_create(owner=user, name="plain", config={})
    alice = Browser(live_asgi, user)

    first = alice.start_run(gate_cluster, gate)
    _wait_for(lambda: Run.objects.get(pk=first).idle, timeout=60)  # its pod waits at Permit
    second = alice.start_run(_cluster(user, "a", make_pod("a")), plain)
    _wait_for(lambda: "waiting" in Run.objects.get(pk=second).summary, timeout=60)

    bobs_profile = profile_services.profile_create(owner=other_user, name="p", config={})
    bob = Browser(live_asgi, other_user).start_run(
        _cluster(other_user, "b", make_pod("b")), bobs_profile
    )
    _wait_for(lambda: Run.objects.get(pk=bob).is_terminal, timeout=60)
    assert Run.objects.get(pk=bob).status == Run.Status.SUCCEEDED
    waiting = Run.objects.get(pk=second)
    assert waiting.status == Run.Status.PENDING
    assert waiting.summary["waiting"] == (
        "waiting for a free runner: 1 of your runs is running, and one owner runs at most 1 at "
        "once (of 2 runners)"
    )

    runs.run_decide_permit(run_id=first, pod_key="default/g", allow=True)
    _wait_for(lambda: Run.objects.get(pk=second).is_terminal, timeout=60)
    assert [Run.objects.get(pk=pk).status for pk in (first, second)] == [
        Run.Status.SUCCEEDED,
        Run.Status.SUCCEEDED,
    ]


class _SilentExtender:
    """A listener that accepts connections and never answers; notes when each one opens and
    when its client goes away (a killed process closes its sockets)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.spans: list[list[float | None]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            span: list[float | None] = [time.monotonic(), None]
            with self.lock:
                self.spans.append(span)
            threading.Thread(target=self._watch, args=(conn, span), daemon=True).start()

    @staticmethod
    def _watch(conn: socket.socket, span: list[float | None]) -> None:
        with conn:
            while conn.recv(65536):
                pass
        span[1] = time.monotonic()

    def most_at_once(self) -> int:
        with self.lock:
            spans = [(opened, closed or float("inf")) for opened, closed in self.spans]
        return max((sum(1 for o, c in spans if o <= t < c) for t, _ in spans), default=0)


def test_a_take_over_kills_the_execution_whose_cycle_outlived_the_lease(
    stack_urls, start_worker, user, settings
):
    """Each cycle waits 10 s on an extender that never answers, the lease is 1.5 s: each
    take-over kills the execution it replaces (prefork), so no two executions ever wait on
    the extender at once, and after three attempts the run fails saying why."""
    from test_runs_faults import _send

    extender = _SilentExtender()
    allowed = f"127.0.0.1:{extender.port}"
    settings.EXTENDER_ALLOWED_HOSTS = [allowed]
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"}],
        "extenders": [
            {"urlPrefix": f"http://{allowed}", "filterVerb": "filter", "httpTimeout": "10s"}
        ],
    }
    profile = profile_services.profile_create(owner=user, name="silent", config=config)
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        run = runs.run_start(user=user, cluster=_cluster(user, "x", make_pod("x")), profile=profile)
    for _ in range(2):  # a take-over finds a free worker at once
        start_worker(pool="prefork", EXTENDER_ALLOWED_HOSTS=allowed)
    _send(stack_urls["broker"], run.pk)
    _wait_for(lambda: Run.objects.get(pk=run.pk).is_terminal, timeout=90)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert run.error_message == (
        "gave up after 3 attempts: each one stopped renewing the run's lease for 1.5 s (its "
        "worker stopped, or one cycle took longer than that)"
    )
    assert len(extender.spans) == 3
    assert extender.most_at_once() == 1
    extender.sock.close()
