"""A gang that cannot complete: its members wait at Permit for each other, not for a user, so
the run's simulated clock jumps to the gang's timeout; no real minute is spent waiting."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node

from playground.clusters import services as cluster_services
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.execution import attempt
from scheduler_core.features import Features

pytestmark = pytest.mark.django_db

WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1alpha1",
    "kind": "Workload",
    "metadata": {"name": "train", "namespace": "default"},
    "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 3}}}]},
}


def _member(name):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "workloadRef": {"name": "train", "podGroup": "workers"},
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "3"}}}],
        },
    }


def test_members_of_a_gang_that_cannot_form_time_out_on_the_simulated_clock(
    user, django_capture_on_commit_callbacks, monkeypatch
):
    def no_real_wait(seconds):
        raise AssertionError(f"the run waited {seconds} s of real time for a gang")

    monkeypatch.setattr(attempt.time, "sleep", no_real_wait)
    cluster = cluster_services.cluster_create(owner=user, name="gang")
    objects = [make_node("n1", cpu="4"), make_node("n2", cpu="4"), WORKLOAD]
    objects += [_member(f"w{i}") for i in range(3)]  # three of 3 CPUs on two nodes of 4
    cluster_services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects)
    )
    profile = profile_services.profile_create(owner=user, name="default", config={})
    gates = Features.from_gates({"GenericWorkload": True, "GangScheduling": True})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile, features=gates)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert all(node is None for node in (run.placements or {}).values())
    events = selectors.run_events(run=run)
    waits = [e for e in events if e["type"] == "Permit" and e.get("code") == "Wait"]
    undone = [e for e in events if e["type"] == "Unreserve"]
    assert len(waits) >= 2 and undone
    # The gang's 5 minutes passed on the run's clock.
    assert min(e["time"] for e in undone) >= min(e["time"] for e in waits) + 300
