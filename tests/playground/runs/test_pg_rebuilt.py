"""Cycles of a plain run are stored as recipes and computed, exactly, when first read."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.clusters import services
from playground.models import Run, RunCycle
from playground.profiles import services as profile_services
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.execution import attempt as execution
from playground.runs.execution.script import parse_script
from playground.runs.storage import rebuilt
from scheduler_core.tools.rebuild import RebuildError

pytestmark = pytest.mark.django_db


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="plain")
    objects = [make_node(f"n{i}", cpu="4", labels={"zone": f"z{i % 2}"}) for i in range(5)]
    objects += [make_pod("running", node_name="n0", cpu="3")]
    objects += [make_pod(f"p{i}", cpu="1") for i in range(6)] + [make_pod("huge", cpu="64")]
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


def _run(capture, **kwargs) -> Run:
    with capture(execute=True):
        run = runs.run_start(**kwargs)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    return run


def _data(run: Run) -> list[bytes]:
    return [bytes(d) for d in RunCycle.objects.filter(run=run).values_list("data", flat=True)]


def test_a_plain_run_stores_recipes_that_read_as_the_stored_records(
    cluster, profile, user, django_capture_on_commit_callbacks, monkeypatch
):
    run = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert all(rebuilt.is_recipe(d) for d in _data(run))
    # The same run storing every record as it goes (the watch never opens).
    monkeypatch.setattr(execution, "eligible", lambda sched, names: False)
    stored = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert not any(rebuilt.is_recipe(d) for d in _data(stored))
    summaries = ["cycle", "pod", "result", "node", "feasible", "evaluated", "message"]
    rows = list(RunCycle.objects.filter(run=run).order_by("seq_first").values(*summaries))
    assert rows == list(
        RunCycle.objects.filter(run=stored).order_by("seq_first").values(*summaries)
    )
    assert rows[-1]["result"] == "Unschedulable"
    for row in reversed(rows):  # the last first: every earlier binding is set up
        events = selectors.run_cycle_events(run=run, cycle=row["cycle"])
        assert events == selectors.run_cycle_events(run=stored, cycle=row["cycle"])
        assert {"Filter", "Score", "CycleEnd"} & {e["type"] for e in events}
    # The changes each cycle's snapshot took in come from the run (kept in the recipe): the
    # second cycle's is the first pod, assumed and confirmed on its node.
    start = selectors.run_cycle_events(run=run, cycle=rows[1]["cycle"])[0]
    assert start["type"] == "CycleStart"
    assert [tuple(c) for c in start["snapshot_changes"]] == [
        (rows[0]["node"], "pod assumed", rows[0]["pod"]),
        (rows[0]["node"], "pod confirmed", rows[0]["pod"]),
    ]
    # Each read stored the record in the recipe's place: the next read decodes it.
    assert not any(rebuilt.is_recipe(d) for d in _data(run))
    assert _data(run) == _data(stored)


def test_a_recipe_that_does_not_give_the_runs_outcome_is_refused(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    first = RunCycle.objects.filter(run=run).order_by("seq_first").first()
    RunCycle.objects.filter(pk=first.pk).update(node="elsewhere")
    with pytest.raises(RebuildError, match="differs from the run's in node"):
        selectors.run_cycle_events(run=run, cycle=first.cycle)
    assert rebuilt.is_recipe(RunCycle.objects.get(pk=first.pk).data)  # nothing stored


def test_a_run_with_a_script_stores_every_record(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    script = parse_script([{"after_cycle": 3, "remove_node": "n4"}])
    run = _run(
        django_capture_on_commit_callbacks,
        user=user,
        cluster=cluster,
        profile=profile,
        script=script,
    )
    assert _data(run) and not any(rebuilt.is_recipe(d) for d in _data(run))


def test_a_runs_snapshot_is_read_once_for_all_its_recipes(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    cycles = list(RunCycle.objects.filter(run=run).values_list("cycle", flat=True))
    rebuilt._SNAPSHOTS.clear()
    with CaptureQueriesContext(connection) as queries:
        for cycle in cycles:  # each request reads its own Run row
            selectors.run_cycle_events(run=Run.objects.get(pk=run.pk), cycle=cycle)
    assert len(cycles) > 2 and not any(rebuilt.is_recipe(d) for d in _data(run))
    assert sum("runsnapshot" in q["sql"].lower() for q in queries) == 1
