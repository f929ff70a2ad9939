"""A copy of a cluster is told apart from its original: a demo copied on a user's first change
(an edit, or applying a run's placements) is named "<demo> (copy)" in the user's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster

pytestmark = pytest.mark.django_db


def test_a_demo_copied_on_first_change_is_named_as_a_copy(user):
    demo_load()
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    copy = services.writable_cluster(cluster=demo, user=user)
    assert copy.pk != demo.pk and copy.copied_from_id == demo.pk
    assert copy.name == "Three zones (copy)"
    # the user's own cluster is changed in place, never copied again
    assert services.writable_cluster(cluster=copy, user=user).pk == copy.pk


def test_a_chinese_reader_s_copy_is_named_in_chinese(user):
    demo_load()
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    with translation.override("zh-hans"):
        copy = services.cluster_copy(cluster=demo, owner=user)
        shown = translation.gettext("Three zones")
    assert shown != "Three zones" and copy.name == f"{shown}（副本）"
