"""A run's end says what happened: a run that keeps erroring is stopped as failed, a run whose
every cycle errored is not a success, and a long cycle keeps its lease and honours a cancel."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod
from django.urls import reverse

from playground.clusters import services
from playground.custom_plugins import services as plugin_services
from playground.models import Run, RunCommand, RunCycle
from playground.profiles import services as profile_services
from playground.runs import services as runs
from playground.runs.execution.attempt import Execution
from playground.runs.execution.midcycle import Interrupted, MidCycle
from playground.runs.execution.outcome import REPEATED_ERROR_CYCLES, ErrorTally, error_source
from scheduler_core.loop.cycle import CycleRecord

pytestmark = pytest.mark.django_db


def _setup(user, filter_expression: str, pods: int = 3):
    plugin_services.custom_plugin_save(
        owner=user, definition={"name": "MyFilter", "points": {"filter": filter_expression}}
    )
    cluster = services.cluster_create(owner=user, name="c")
    manifests = [make_node("n1"), *(make_pod(f"p{i}") for i in range(pods))]
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump_all(manifests))
    config = {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"filter": {"enabled": [{"name": "MyFilter"}]}},
            }
        ]
    }
    profile = profile_services.profile_create(owner=user, name="mine", config=config)
    return cluster, profile


def _run(capture, user, cluster, profile) -> Run:
    with capture(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    return run


def test_a_run_whose_cycles_all_end_in_the_same_error_is_stopped_as_failed(
    user, alice_client, django_capture_on_commit_callbacks
):
    cluster, profile = _setup(user, 'node.labels["nope"] == "x"')
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    assert run.status == Run.Status.FAILED
    assert run.error_message == (
        f"stopped after {REPEATED_ERROR_CYCLES} cycles: 0 of 3 pods bound, every cycle ended in "
        "an Error from MyFilter: custom plugin MyFilter filter expression: no such key: nope"
    )
    assert RunCycle.objects.filter(run=run).count() == REPEATED_ERROR_CYCLES  # not 650
    assert run.summary["scheduled"] == 0
    assert "no such key: nope" in run.summary["messages"]["default/p0"]
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'id="run-status" data-status="failed">failed<' in page
    assert "every cycle ended in an Error from MyFilter" in page


def test_a_succeeded_run_shows_its_note(user, alice_client, django_capture_on_commit_callbacks):
    cluster, profile = _setup(user, "true", pods=1)
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    assert run.status == Run.Status.SUCCEEDED and "note" not in run.summary
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert '<p id="run-note" class="help" hidden></p>' in page
    Run.objects.filter(pk=run.pk).update(summary={**run.summary, "note": "3 of 9 cycles ..."})
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert '<p id="run-note" class="help">3 of 9 cycles ...</p>' in page


def test_a_finished_run_whose_every_cycle_errored_is_failed_and_says_why(
    user, django_capture_on_commit_callbacks
):
    # Each pod's error names the pod: no streak of one message, so the run goes to its cap.
    cluster, profile = _setup(user, 'node.labels[pod.name] == "x"', pods=2)
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    assert run.status == Run.Status.FAILED
    assert run.error_message.startswith(
        "finished: 0 of 2 pods bound, every cycle ended in an Error from MyFilter: "
        "custom plugin MyFilter filter expression: no such key: p"
    )
    assert run.placements == {}


def test_a_pod_that_keeps_erroring_after_the_others_bound_stops_the_run(
    user, django_capture_on_commit_callbacks
):
    cluster, profile = _setup(user, 'pod.name == "p0" ? node.labels["nope"] == "x" : true', 2)
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    assert run.status == Run.Status.FAILED  # p0 errors 20 times in a row once p1 is bound
    assert run.error_message.startswith("stopped after ")
    assert "1 of 2 pods bound" in run.error_message
    assert "the last 20 cycles all ended in an Error from MyFilter" in run.error_message


def _record(error: bool, message: str = "") -> CycleRecord:
    return CycleRecord(pod="default/p", profile="default-scheduler", error=error, message=message)


def test_error_tally_counts_streaks_of_one_message_only() -> None:
    tally = ErrorTally()
    for _ in range(REPEATED_ERROR_CYCLES - 1):
        tally.see(_record(True, "a"))
    tally.see(_record(True, "b"))
    assert not tally.repeated
    for _ in range(REPEATED_ERROR_CYCLES - 1):
        tally.see(_record(True, "b"))
    assert tally.repeated and tally.every_cycle
    tally.see(_record(False))
    assert not tally.repeated and not tally.every_cycle
    assert tally.note() == (
        f"{2 * REPEATED_ERROR_CYCLES - 1} of {2 * REPEATED_ERROR_CYCLES} cycles ended in an "
        "Error; the last was an Error: b"
    )


@pytest.mark.parametrize(
    ("message", "source"),
    [
        ('running "F" filter plugin: boom', "an Error from F: boom"),
        ('running PreFilter plugin "P": boom', "an Error from P: boom"),
        ('running Score plugins: plugin "S" failed with: boom', "an Error from S: boom"),
        ("boom", "an Error: boom"),
    ],
)
def test_error_source_names_the_plugin(message: str, source: str) -> None:
    assert error_source(message) == source


def _running(user, monkeypatch, settings, lease: float) -> tuple[Run, MidCycle]:
    settings.PLAYGROUND_RUN_LEASE_SECONDS = lease
    cluster, profile = _setup(user, "true", pods=1)
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, lease_token="t1")
    from datetime import timedelta

    return run, MidCycle(run.pk, "t1", timedelta(seconds=lease))


def test_mid_cycle_checkpoint_renews_the_lease_and_stops_when_it_was_taken(
    user, monkeypatch, settings
):
    run, mid = _running(user, monkeypatch, settings, lease=0)
    Run.objects.filter(pk=run.pk).update(heartbeat=None)
    mid.checkpoint()
    assert Run.objects.get(pk=run.pk).heartbeat is not None
    Run.objects.filter(pk=run.pk).update(lease_token="t2")  # a second execution took it
    with pytest.raises(Interrupted) as stop:
        mid.checkpoint()
    assert stop.value.why == "lost"


def test_mid_cycle_checkpoint_honours_a_cancel(user, monkeypatch, settings):
    run, mid = _running(user, monkeypatch, settings, lease=30)
    RunCommand.objects.create(run_id=run.pk, kind=RunCommand.Kind.CANCEL)
    with pytest.raises(Interrupted) as stop:
        mid.checkpoint()
    assert stop.value.why == "cancelled"
    assert RunCommand.objects.get(run_id=run.pk).result == "cancelled"


def test_a_cancel_reaches_a_run_inside_its_first_cycle(
    user, monkeypatch, settings, django_capture_on_commit_callbacks
):
    """With the between-cycles poll off, only the custom plugin's checkpoint can see it."""
    monkeypatch.setattr(Execution, "poll_commands", lambda self, every: None)
    cluster, profile = _setup(user, "true", pods=1)
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    monkeypatch.setattr(Execution, "poll_commands", lambda self, every: None)
    RunCommand.objects.create(run_id=run.pk, kind=RunCommand.Kind.CANCEL)
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED
    assert RunCycle.objects.filter(run=run).count() == 0


def test_an_execution_that_lost_its_lease_mid_cycle_stops_and_writes_nothing(
    user, monkeypatch, settings
):
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 0  # every checkpoint renews
    cluster, profile = _setup(user, "true", pods=1)
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    checkpoint = MidCycle.checkpoint

    def taken_over(self: MidCycle) -> None:
        Run.objects.filter(pk=self.run_id).update(lease_token="second")
        checkpoint(self)

    monkeypatch.setattr(MidCycle, "checkpoint", taken_over)
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert (run.status, run.lease_token) == (Run.Status.RUNNING, "second")
    assert RunCycle.objects.filter(run=run).count() == 0 and run.placements == {}


def test_each_extender_call_starts_at_the_checkpoint() -> None:
    from playground.runs.execution.midcycle import checkpoint_extender_calls

    calls: list[str] = []

    class Extender:
        name = "e"

        def filter(self, pod, nodes):
            calls.append("filter")
            return nodes

        def bind(self, pod, node):
            calls.append("bind")

    extender = Extender()
    checkpoint_extender_calls([extender], lambda: calls.append("checkpoint"))
    assert extender.filter("p", ["n1"]) == ["n1"]
    extender.bind("p", "n1")
    assert calls == ["checkpoint", "filter", "checkpoint", "bind"]
