"""A lesson's profile may enable the playground's shipped custom plugins (lesson 20)."""

from __future__ import annotations

import pytest

from playground.custom_plugins.models import CustomPlugin
from playground.lessons import checks, loader
from playground.lessons.services import lesson_runs

pytestmark = pytest.mark.django_db


def test_a_lesson_runs_the_shipped_custom_plugins_without_leaving_them_behind():
    lesson = loader.lesson_by_slug("writing-a-plugin")
    assert lesson is not None
    assert not CustomPlugin.objects.exists()  # no demo content loaded
    run = lesson_runs(lesson=lesson)["default"]
    reject = lesson.question("reject-maintenance")
    assert reject is not None and checks.engine_answer(run, reject) == "MaintenanceFilter"
    score = lesson.question("normalized-node-4")
    assert score is not None and checks.engine_answer(run, score) == 50
    assert not CustomPlugin.objects.exists()  # the check's scratch content is rolled back
