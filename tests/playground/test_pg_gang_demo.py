"""The "Gang scheduling" demo cluster: with GenericWorkload and GangScheduling on, train's three
members wait at Permit and then bind together; sweep, one member short of its
minCount, stays gated before the queue."""

from __future__ import annotations

import pytest

from playground.clusters import services
from playground.demo import content
from playground.models import Run
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs import services as runs
from scheduler_core.features import V1_35_DEFAULTS, Features

pytestmark = pytest.mark.django_db

GANG_ON = Features.from_gates({"GenericWorkload": True, "GangScheduling": True}, V1_35_DEFAULTS)


def test_the_gang_demo_binds_one_gang_together_and_gates_the_other(
    user, django_capture_on_commit_callbacks
):
    name, _, text = next(c for c in content.CLUSTERS if c[0] == "Gang scheduling")
    cluster, report = services.cluster_create_from_yaml(owner=user, name=name, text=text)
    assert report.counts["Workload"] == 2
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile, features=GANG_ON)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    placements = run.placements or {}
    assert all(placements.get(f"default/train-{i}") for i in range(3))
    assert not any(placements.get(f"default/sweep-{i}") for i in range(2))
    events = selectors.run_events(run=run, limit=400)
    permits = [(e["pod"], e.get("code")) for e in events if e["type"] == "Permit"]
    assert ("default/train-2", "Wait") in permits or ("default/train-0", "Wait") in permits
    assert not [e for e in events if e["type"] == "CycleStart" and "sweep" in e["pod"]]
