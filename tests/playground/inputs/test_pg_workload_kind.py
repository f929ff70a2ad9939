"""Workload (scheduling.k8s.io/v1alpha1) imports and exports like the other kinds; a bad one is
refused with the field named, and nothing of the input is stored."""

from __future__ import annotations

import pytest
import yaml

from playground.clusters import selectors, services
from playground.inputs.manifests import ManifestProblems

pytestmark = pytest.mark.django_db

GANG = """\
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: train, namespace: default}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: train}
  podGroups:
  - name: workers
    policy: {gang: {minCount: 3}}
  - name: driver
    policy: {basic: {}}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: default}
spec:
  workloadRef: {name: train, podGroup: workers}
  containers: [{name: c, image: busybox}]
"""


def _docs(text):
    return [d for d in yaml.safe_load_all(text) if d]


def test_a_workload_round_trips_through_import_and_export(user):
    cluster, report = services.cluster_create_from_yaml(owner=user, name="gang", text=GANG)
    assert report.counts == {"Workload": 1, "Pod": 1}
    assert not [w for w in report.warnings if "unknown field" in str(w)]
    exported = _docs(selectors.cluster_export_yaml(cluster))
    workload = next(d for d in exported if d["kind"] == "Workload")
    assert workload["apiVersion"] == "scheduling.k8s.io/v1alpha1"
    assert workload["spec"]["podGroups"][0] == {
        "name": "workers",
        "policy": {"gang": {"minCount": 3}},
    }
    # The Workload exports before the pods that name it, and imports back the same.
    kinds = [d["kind"] for d in exported]
    assert kinds.index("Workload") < kinds.index("Pod")
    again, _ = services.cluster_create_from_yaml(
        owner=user, name="again", text=selectors.cluster_export_yaml(cluster)
    )
    assert _docs(selectors.cluster_export_yaml(again)) == exported


@pytest.mark.parametrize(
    ("spec", "path", "words"),
    [
        ({}, "spec.podGroups", "Required value"),
        ({"podGroups": "workers"}, "spec.podGroups", "must be a list"),
        ({"podGroups": [{"name": "w", "policy": {"gang": {}}}]}, "minCount", "Required"),
        (
            {"podGroups": [{"name": "w", "policy": {"gang": {"minCount": "three"}}}]},
            "spec.podGroups[0].policy.gang.minCount",
            "must be an integer",
        ),
        (
            {"podGroups": [{"name": "w", "policy": {"gang": {"minCount": 0}}}]},
            "spec.podGroups[0].policy.gang.minCount",
            "greater than zero",
        ),
        ({"podGroups": [{"name": "w", "policy": {}}]}, "spec.podGroups[0].policy", "exactly one"),
        (
            {"podGroups": [{"name": "W_1", "policy": {"basic": {}}}]},
            "spec.podGroups[0].name",
            "RFC 1123",
        ),
        (
            {"podGroups": [{"name": "w", "policy": {"basic": {}}}] * 2},
            "spec.podGroups[1].name",
            "Duplicate",
        ),
    ],
)
def test_a_bad_workload_is_refused_naming_the_field(user, spec, path, words):
    bad = yaml.safe_dump(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "train", "namespace": "default"},
            "spec": spec,
        }
    )
    text = GANG.split("---\n")[1] + "---\n" + bad
    cluster = services.cluster_create(owner=user, name="bad")
    with pytest.raises(ManifestProblems) as err:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    messages = [str(p) for p in err.value.problems]
    assert any(path in m and words in m for m in messages), messages
    assert not cluster.pods.exists()
    assert not cluster.kube_objects.exists()


def test_a_pods_bad_workload_ref_names_the_field(user):
    text = GANG.replace("podGroup: workers", "podGroup: Workers_1")
    cluster = services.cluster_create(owner=user, name="bad-ref")
    with pytest.raises(ManifestProblems) as err:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert any("spec.workloadRef.podGroup" in str(p) for p in err.value.problems)
    assert not cluster.kube_objects.exists()
