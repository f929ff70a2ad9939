"""Fixtures of the live class tests: a lesson class (lesson 7) and a run class (a finished run)."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod

from playground.clusters import services as cluster_services
from playground.lessons.loader import lesson_by_slug
from playground.profiles import services as profile_services
from playground.runs import services as runs


@pytest.fixture
def lesson7():
    lesson = lesson_by_slug("scoring")
    assert lesson is not None
    return lesson


@pytest.fixture
def lesson_class(user, lesson7):
    from playground.classes import services

    return services.class_open(lecturer=user, lesson=lesson7)


@pytest.fixture
def finished_run(user, django_capture_on_commit_callbacks):
    """A run of three nodes and two pods, executed to the end."""
    from playground.models import Run

    cluster = cluster_services.cluster_create(owner=user, name="c1")
    cluster_services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all(
            [make_node("n1"), make_node("n2"), make_node("n3"), make_pod("a"), make_pod("b")]
        ),
    )
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=False):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED
    return run
