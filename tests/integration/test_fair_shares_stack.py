"""Fair shares in the full stack: a worker does not hold a run whose owner has their share of
the workers running; it takes another owner's run instead."""

from __future__ import annotations

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
