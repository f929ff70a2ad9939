"""The `device` question kind: which devices a ResourceClaim got in a cycle (lesson 16)."""

from __future__ import annotations

import dataclasses

import pytest

from playground.lessons import checks, loader
from playground.lessons.services import lesson_runs, lessons_check
from playground.lessons.spoilers import told_before_asked

pytestmark = pytest.mark.django_db


def _lesson():
    lesson = loader.lesson_by_slug("dynamic-resources")
    assert lesson is not None
    return lesson


def test_a_device_question_reads_the_claims_allocation_in_its_cycle():
    lesson = _lesson()
    run = lesson_runs(lesson=lesson)["default"]
    q = lesson.question("device-batch")
    assert q is not None and q.answer_type == "names"
    assert checks.engine_answer(run, q) == ["node-1/gpu-1"]
    two = dataclasses.replace(q, params={"cycle": 2, "claim": "default/trainer-gpus"})
    assert checks.engine_answer(run, two) == ["node-2/gpu-0", "node-2/gpu-1"]
    other = dataclasses.replace(q, params={"cycle": 2, "claim": "batch-gpu"})
    assert checks.engine_answer(run, other) == []  # batch-gpu is allocated in cycle 3 only


def test_a_wrong_device_fails_the_check_and_the_link_must_show_the_allocation():
    lesson = _lesson()
    q = lesson.question("device-batch")
    assert q is not None
    wrong = dataclasses.replace(q, answer="node-1/gpu-0")
    badlink = dataclasses.replace(q, id="badlink", show=loader.RunPointer(cycle=3, point="Score"))
    broken = dataclasses.replace(lesson, questions=(wrong, badlink))
    [(_, failures)] = lessons_check([broken])
    messages = {f.question: f.message for f in failures if not f.language or f.language == "en"}
    assert "the engine gives" in messages[wrong.id]
    assert messages["badlink"].startswith(
        "show: Score, but the answer is shown at DeviceAllocation"
    )


def test_a_step_that_names_the_device_before_the_question_tells():
    lesson = _lesson()
    q = lesson.question("device-batch")
    assert q is not None and told_before_asked(lesson, q) is None
    steps = list(lesson.steps)
    steps[4] = dataclasses.replace(steps[4], body=steps[4].body + "\n\nbatch gets node-1/gpu-1.")
    told = told_before_asked(dataclasses.replace(lesson, steps=tuple(steps)), q)
    assert told is not None and "node-1/gpu-1" in told.sentence
