"""Management commands: load_demo is idempotent; migrations match the models."""

from io import StringIO

import pytest
from django.core.management import call_command

from playground.lessons.loader import course
from playground.models import Cluster, Profile

pytestmark = pytest.mark.django_db


def test_load_demo_twice_gives_the_same_content():
    out = StringIO()
    call_command("load_demo", stdout=out)
    first = {c.name: (c.pk, c.nodes.count(), c.pods.count()) for c in Cluster.objects.all()}
    call_command("load_demo", stdout=out)
    second = {c.name: (c.pk, c.nodes.count(), c.pods.count()) for c in Cluster.objects.all()}
    assert first == second
    lesson_clusters = {lesson.cluster_name for lesson in course()}
    assert set(first) - lesson_clusters == {
        "Three zones",
        "GPU pool behind taints",
        "Preemption scenario",
        "Gang scheduling",
        "Approval gate",
        "Blinking lights",
        "GPU pool with DRA",
        "Large cluster (500 nodes)",
    }
    assert {p.name for p in Profile.objects.filter(is_demo=True)} >= {
        "Bin-packing",
        "Spread everything",
    }
    assert lesson_clusters <= set(first)
    assert "8 clusters" in out.getvalue()
    assert f"{len(course())} lessons" in out.getvalue()


def test_demo_gpu_nodes_are_tainted_and_only_the_trainer_tolerates():
    call_command("load_demo", stdout=StringIO())
    cluster = Cluster.objects.get(name="GPU pool behind taints")
    gpu = [n for n in cluster.nodes.all() if n.name.startswith("gpu-")]
    assert gpu and all(n.manifest["spec"]["taints"][0]["key"] == "nvidia.com/gpu" for n in gpu)
    tolerating = [p.name for p in cluster.pods.all() if p.manifest["spec"].get("tolerations")]
    assert tolerating == ["trainer"]


def test_no_missing_migrations():
    call_command("makemigrations", "playground", "--check", "--dry-run", stdout=StringIO())
