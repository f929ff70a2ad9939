"""A lesson states the feature gates its runs need (lesson 21: the alpha GenericWorkload and
GangScheduling): the check's run, the shared run's key and a learner's run all use them."""

from __future__ import annotations

import dataclasses
import shutil
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from playground.lessons import checks, loader, services
from playground.models import Run
from playground.runs.gates import v1_35_gates
from scheduler_core.features import V1_35_DEFAULTS

pytestmark = pytest.mark.django_db

GANG = "gang-scheduling"


@pytest.fixture
def no_tasks():
    """Runs stay pending: no task is queued after commit."""
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        yield


def test_a_lesson_reads_its_feature_gates_over_v1_35s_defaults():
    lesson = loader.lesson_by_slug(GANG)
    assert lesson is not None
    assert lesson.feature_gates == {"GenericWorkload": True, "GangScheduling": True}
    assert lesson.features == dataclasses.replace(
        V1_35_DEFAULTS, generic_workload=True, gang_scheduling=True
    )
    assert loader.course()[0].features == V1_35_DEFAULTS  # a lesson that states none


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("{NoSuchGate: true}", "01-bad/lesson.yaml.feature_gates.NoSuchGate: unknown feature gate"),
        ("{GangScheduling: yes please}", "lesson.yaml.feature_gates.GangScheduling: must be true"),
        ("[GangScheduling]", "lesson.yaml.feature_gates: must be a mapping"),
    ],
)
def test_a_bad_feature_gate_is_refused_naming_the_field(tmp_path, gates, message):
    lesson_dir = tmp_path / "01-bad"
    shutil.copytree(loader.course()[0].path, lesson_dir)
    meta = lesson_dir / "lesson.yaml"
    meta.write_text(meta.read_text() + f"feature_gates: {gates}\n")
    with pytest.raises(loader.LessonError, match=message):
        loader.load_lesson(lesson_dir)


def test_the_shared_runs_key_holds_the_lessons_gates():
    lesson = loader.course()[0]
    same = dataclasses.replace(lesson, feature_gates={"GangScheduling": False})  # the default
    gang = dataclasses.replace(lesson, feature_gates={"GangScheduling": True})
    assert services._digest(same, "default") == services._digest(lesson, "default")
    assert services._digest(gang, "default") != services._digest(lesson, "default")


def test_the_lessons_check_runs_under_its_gates():
    lesson = loader.lesson_by_slug(GANG)
    run = services.lesson_runs(lesson=lesson)["default"]
    permits = {(e["pod"], e["code"]) for e in run.events if e["type"] == "Permit"}
    assert ("default/train-2", "Wait") in permits
    gated = [e["pod"] for e in run.events if (e.get("details") or {}).get("queue") == "gated"]
    assert "default/sweep-0" in gated
    # The same inputs under v1.35's defaults have no gang: GangScheduling is not in the profile.
    snapshot, configs = services.lesson_inputs(lesson=lesson)
    plain = checks.run_lesson(snapshot, configs["default"], lesson.script)
    assert not [e for e in plain.events if e.get("plugin") == "GangScheduling"]


def test_a_lessons_run_is_started_with_its_gates(no_tasks):
    response = Client().post(reverse("playground:lesson_run", args=[GANG]), {"profile": "default"})
    assert response.status_code == 302
    run = Run.objects.get()
    assert run.feature_gates == {**v1_35_gates(), "GenericWorkload": True, "GangScheduling": True}
