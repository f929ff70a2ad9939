"""A run's feature gates: stored with it, chosen on its form, shown on its page, run by the
engine."""

from __future__ import annotations

import importlib
import re

import pytest
import yaml
from builders import make_node, make_pod
from django.urls import reverse

from playground.clusters import services
from playground.models import Run, RunCycle
from playground.profiles import services as profile_services
from playground.runs import gates, selectors
from playground.runs import services as runs
from playground.runs.explain.replay import replay_to_cycle, replay_whole
from playground.runs.http.forms import FeatureGatesForm
from playground.runs.storage import rebuilt
from scheduler_core.features import GATE_NAMES, TRACE_FEATURES, V1_35_DEFAULTS, Features

pytestmark = pytest.mark.django_db

# PodTopologySpread without default constraints signs pods: the profile batches.
BATCHING = {
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}],
        }
    ]
}
NO_BATCHING = {**V1_35_DEFAULTS.to_gates(), "OpportunisticBatching": False}


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="twins")
    # Four alike pods, each filling a node: after the first, each one's previous node is full.
    objects = [make_node(f"n{i}", cpu="2") for i in range(4)]
    objects += [make_pod(f"p{i}", cpu="2") for i in range(4)]
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="batching", config=BATCHING)


def _run(capture, **kwargs) -> Run:
    with capture(execute=True):
        run = runs.run_start(**kwargs)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    return run


def _rows(run: Run) -> list[tuple[str, str, int]]:
    return list(
        RunCycle.objects.filter(run=run)
        .order_by("seq_first")
        .values_list("pod", "node", "evaluated")
    )


# -- the model and its migration -----------------------------------------------------------------


def test_a_new_run_has_every_gate_at_v1_35s_default(cluster, profile, user):
    run = Run.objects.create(cluster=cluster, profile=profile)
    assert run.feature_gates == V1_35_DEFAULTS.to_gates()
    assert set(run.feature_gates) == set(GATE_NAMES)
    assert gates.run_features(run) == V1_35_DEFAULTS


def test_the_migration_gives_existing_runs_the_trace_gates_and_new_ones_v1_35s():
    migration = importlib.import_module("playground.migrations.0021_run_feature_gates").Migration
    added, altered = migration.operations
    assert added.field.default() == TRACE_FEATURES.to_gates()
    assert altered.field.default() == V1_35_DEFAULTS.to_gates()
    assert Features.from_gates(added.field.default()) == TRACE_FEATURES


def test_gates_differing_names_only_the_gates_set_otherwise():
    assert gates.gates_differing(V1_35_DEFAULTS.to_gates()) == []
    assert gates.gates_differing(TRACE_FEATURES.to_gates()) == [
        ("SchedulerAsyncPreemption", False),
        ("OpportunisticBatching", False),
    ]


# -- the form -----------------------------------------------------------------------------------


def _post(**gates_on: bool) -> dict[str, str]:
    data = {"gate-shown": "1"}
    data.update({f"gate-{name}": "on" for name, on in gates_on.items() if on})
    return data


def test_the_form_starts_at_v1_35s_defaults_and_marks_alpha_gates():
    form = FeatureGatesForm()
    assert {f.label: f.initial for f, _ in form.rows()} == V1_35_DEFAULTS.to_gates()
    assert {f.label for f, alpha in form.rows() if alpha} == {"GenericWorkload", "GangScheduling"}
    assert all(f.help_text for f, _ in form.rows())
    # A POST whose form did not show the fieldset keeps v1.35's defaults.
    assert FeatureGatesForm({"profile": "1"}).chosen() == V1_35_DEFAULTS


def test_the_form_reads_unchecked_boxes_as_off():
    chosen = FeatureGatesForm(
        _post(**{**V1_35_DEFAULTS.to_gates(), "OpportunisticBatching": False})
    )
    assert chosen.chosen() == Features(opportunistic_batching=False)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"gate-OpportunisticBatching": "maybe"}, "OpportunisticBatching", "on or off"),
        ({"gate-Nonsense": "on"}, "__all__", "Nonsense is not a feature gate"),
        ({"gate-GangScheduling": "on"}, "GangScheduling", "GenericWorkload"),
    ],
)
def test_invalid_gates_are_refused_naming_the_field(data, field, words):
    form = FeatureGatesForm({"gate-shown": "1", **data})
    assert form.chosen() is None
    assert words in " ".join(form.errors[field])
    assert (field if field != "__all__" else "feature gates") in form.problems()


def test_the_run_button_refuses_invalid_gates_and_stores_nothing(alice_client, cluster, profile):
    before = Run.objects.count()
    response = alice_client.post(
        reverse("playground:run_new", args=[cluster.pk]),
        {"profile": profile.pk, "gate-shown": "1", "gate-OpportunisticBatching": "maybe"},
        follow=True,
    )
    assert Run.objects.count() == before
    assert "OpportunisticBatching: must be on or off" in response.content.decode()


def test_the_cluster_page_shows_the_gates_fieldset(alice_client, cluster, profile):
    page = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert 'id="feature-gates"' in page
    for name in GATE_NAMES:
        assert f'name="gate-{name}"' in page
    assert re.search(r'name="gate-OpportunisticBatching"[^>]* checked', page)
    assert not re.search(r'name="gate-GangScheduling"[^>]* checked', page)


def test_the_run_button_stores_the_gates_asked_for(
    alice_client, cluster, profile, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            reverse("playground:run_new", args=[cluster.pk]),
            {"profile": profile.pk, **_post(**NO_BATCHING)},
        )
    run = Run.objects.latest("id")
    assert response.status_code == 302
    assert run.feature_gates == NO_BATCHING
    # The run page states them.
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'data-gate="OpportunisticBatching"' in page
    assert "every other gate as v1.35 ships it" in page


def test_the_run_page_of_a_run_at_v1_35s_defaults_says_so(
    alice_client, cluster, profile, user, django_capture_on_commit_callbacks
):
    run = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert "Feature gates: as v1.35 ships them." in page


def test_run_with_changes_refuses_invalid_gates(alice_client, cluster, profile):
    response = alice_client.post(
        reverse("playground:run_with_changes", args=[cluster.pk]),
        {
            "profile": profile.pk,
            "step-TOTAL_FORMS": "0",
            "step-INITIAL_FORMS": "0",
            "gate-shown": "1",
            "gate-GangScheduling": "on",
        },
    )
    assert response.status_code == 400
    assert not Run.objects.exists()
    assert "needs GenericWorkload on" in response.content.decode()


# -- the engine runs with them -------------------------------------------------------------------


def test_opportunistic_batching_on_takes_the_next_node_unscored_and_off_scores_every_node(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    on = _run(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    off = _run(
        django_capture_on_commit_callbacks,
        user=user,
        cluster=cluster,
        profile=profile,
        features=Features.from_gates(NO_BATCHING),
    )
    assert off.feature_gates == NO_BATCHING
    # On: each pod after the first takes the next node of the first cycle's ranking, evaluating
    # that node alone. Off: each cycle filters every node.
    assert [(pod, node, n) for pod, node, n in _rows(on)] == [
        ("default/p0", "n0", 4),
        ("default/p1", "n1", 1),
        ("default/p2", "n2", 1),
        ("default/p3", "n3", 1),
    ]
    assert [n for _, _, n in _rows(off)] == [4, 4, 4, 4]
    # A cycle that took a batch's hint stores its record (the hint came from the cycle before);
    # the others are recipes, computed again exactly under the run's gates.
    data = dict(RunCycle.objects.filter(run=on).values_list("cycle", "data"))
    assert [rebuilt.is_recipe(d) for _, d in sorted(data.items())] == [True, False, False, False]
    for run in (on, off):
        for cycle in sorted(data, reverse=True):
            assert selectors.run_cycle_events(run=run, cycle=cycle)


def test_try_a_change_keeps_the_runs_gates(
    cluster, profile, user, django_capture_on_commit_callbacks
):
    from playground.runs import try_change

    run = _run(
        django_capture_on_commit_callbacks,
        user=user,
        cluster=cluster,
        profile=profile,
        features=Features.from_gates(NO_BATCHING),
    )
    change = try_change.ProfileChange(kind="weight", plugin="NodeResourcesFit", weight=5)
    with django_capture_on_commit_callbacks(execute=True):
        new = try_change.run_try_change(user=user, run=run, change=change)
    new.refresh_from_db()
    assert new.feature_gates == NO_BATCHING
    assert [n for _, _, n in _rows(new)] == [4, 4, 4, 4]


def test_async_preemption_on_lands_the_preemptor_a_cycle_later_with_the_same_victims(
    user, django_capture_on_commit_callbacks
):
    cluster = services.cluster_create(owner=user, name="full")
    objects = [make_node("n1", cpu="4")]
    objects += [make_pod(f"low-{i}", cpu="2", node_name="n1", priority=100) for i in (1, 2)]
    objects += [make_pod("urgent", cpu="3", priority=100000)]
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(objects, sort_keys=False)
    )
    profile = profile_services.profile_create(owner=user, name="default", config={})
    runs_by_gates = {}
    for features in (V1_35_DEFAULTS, TRACE_FEATURES):
        runs_by_gates[features] = _run(
            django_capture_on_commit_callbacks,
            user=user,
            cluster=cluster,
            profile=profile,
            features=features,
        )
    on, off = runs_by_gates[V1_35_DEFAULTS], runs_by_gates[TRACE_FEATURES]
    for run in (on, off):
        assert run.placements["default/urgent"] == "n1"
        assert sorted(run.summary["preempted"]) == ["default/low-1", "default/low-2"]
    # Off: the victims go within cycle 1 and urgent lands in cycle 2. On: they go one at a time
    # after it, and cycle 2 finds a victim still terminating.
    assert [r[1] for r in _rows(off)] == ["", "n1"]
    assert [r[1] for r in _rows(on)] == ["", "", "n1"]
    deletes = [e for e in selectors.run_events(run=on) if e["type"] == "Delete"]
    assert [e["pod"] for e in deletes] == ["default/low-1", "default/low-2"]
    for run in (on, off):  # every cycle reads back (a recipe computed under the run's gates)
        for cycle in RunCycle.objects.filter(run=run).values_list("cycle", flat=True):
            assert selectors.run_cycle_events(run=run, cycle=cycle)
    # Explaining the run plays it again under its gates: it ends as the run did.
    for run in (on, off):
        sched = replay_whole(run)
        assert {k: o.node for k, o in sched.outcomes.items() if k == "default/urgent"} == {
            "default/urgent": "n1"
        }
        assert sched.features == gates.run_features(run)
    assert replay_to_cycle(on, 2, lambda ctx: ctx.record.selected) is None
