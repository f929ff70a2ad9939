"""Classroom workflow: schedule one pending pod at a time, picked from the cluster's pod list."""

from __future__ import annotations

import pytest
from django.urls import reverse

from playground.clusters import services
from playground.lessons.loader import lesson_by_slug
from playground.lessons.services import lesson_load
from playground.models import Run

pytestmark = pytest.mark.django_db


def _cycle_pods(run):
    return list(run.cycle_records.order_by("seq_first").values_list("pod", flat=True))


def test_pods_are_scheduled_one_at_a_time_in_the_order_picked(
    alice_client, user, django_capture_on_commit_callbacks
):
    lesson = lesson_by_slug("scheduling-cycle")
    demo_cluster, profiles = lesson_load(lesson)
    cluster = services.cluster_copy(cluster=demo_cluster, owner=user)
    page = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert 'name="pod" value="default/report"' in page
    assert 'name="pod" value="default/checkout"' in page
    assert 'name="pod" value="default/cache"' not in page  # already bound

    url = reverse("playground:run_new", args=[cluster.pk])
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(url, {"profile": profiles["default"].pk, "pod": "default/report"})
    first = Run.objects.get()
    first.refresh_from_db()
    assert first.pod_keys == ["default/report"]
    assert _cycle_pods(first) == ["default/report"]

    # A run is a simulation: report is bound once its placement is applied, so the next pick
    # sees it bound and checkout is the only choice.
    assert cluster.pods.get(name="report").node_name == ""
    alice_client.post(reverse("playground:run_apply", args=[first.pk]))
    page = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert 'name="pod" value="default/report"' not in page
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(url, {"profile": profiles["default"].pk, "pod": "default/checkout"})
    second = Run.objects.latest("id")
    assert _cycle_pods(second) == ["default/checkout"]
    alice_client.post(reverse("playground:run_apply", args=[second.pk]))
    assert cluster.pods.get(name="checkout").node_name
