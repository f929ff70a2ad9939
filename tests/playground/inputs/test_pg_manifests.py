"""Parsing manifests with line numbers, unknown kinds/fields, and controller expansion."""

import json

import pytest
import yaml
from builders import make_deployment, make_node, make_pod

from playground.clusters import controllers
from playground.inputs import manifests
from playground.inputs.manifests import ManifestProblems


def _yaml(*objs):
    return yaml.safe_dump_all(objs, sort_keys=False)


def test_multi_document_yaml_gives_every_object_in_order():
    parsed = manifests.parse_documents(_yaml(make_node("a"), make_node("b"), make_pod("p")))
    assert [(o.kind, o.name) for o in parsed.objects] == [
        ("Node", "a"),
        ("Node", "b"),
        ("Pod", "p"),
    ]
    assert parsed.warnings == []


def test_kubectl_list_output_is_unwrapped():
    text = _yaml(
        {
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"resourceVersion": ""},
            "items": [make_node("a"), make_pod("p", node_name="a")],
        }
    )
    parsed = manifests.parse_documents(text)
    assert [o.name for o in parsed.objects] == ["a", "p"]


def test_json_input_is_accepted():
    parsed = manifests.parse_documents(json.dumps(make_pod("j")))
    assert parsed.objects[0].manifest == make_pod("j")


def test_timestamps_stay_strings():
    pod = make_pod("t")
    pod["metadata"]["creationTimestamp"] = "2024-05-01T10:00:00Z"
    text = _yaml(pod).replace("'2024-05-01T10:00:00Z'", "2024-05-01T10:00:00Z")
    parsed = manifests.parse_documents(text)
    assert parsed.objects[0].manifest["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"


def test_broken_yaml_names_the_line():
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: [unclosed\n"
    with pytest.raises(ManifestProblems) as info:
        manifests.parse_documents(text)
    assert info.value.problems[0].line is not None
    assert "invalid YAML" in info.value.problems[0].message


def test_unknown_kind_is_reported_and_skipped():
    text = _yaml(
        make_node("a"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    )
    parsed = manifests.parse_documents(text)
    assert [o.kind for o in parsed.objects] == ["Node"]
    assert len(parsed.warnings) == 1
    assert "ConfigMap" in parsed.warnings[0].message
    assert parsed.warnings[0].document == 2


def test_unknown_fields_are_reported_and_kept():
    pod = make_pod("p")
    pod["spec"]["nodeSelectr"] = {"a": "b"}
    parsed = manifests.parse_documents(_yaml(pod))
    assert [w.path for w in parsed.warnings] == ["spec.nodeSelectr"]
    assert parsed.objects[0].manifest["spec"]["nodeSelectr"] == {"a": "b"}


def test_bad_quantity_names_field_and_line():
    pod = make_pod("p", cpu="lots")
    text = _yaml(pod)
    parsed = manifests.parse_documents(text)
    problems = manifests.check_object(parsed.objects[0])
    assert [p.path for p in problems] == ["spec.containers[0].resources.requests.cpu"]
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if "cpu: lots" in t)
    assert problems[0].line == line


def test_invalid_label_is_reported():
    node = make_node("a", labels={"bad key!": "x"})
    problems = manifests.check_object(manifests.parse_documents(_yaml(node)).objects[0])
    assert problems and problems[0].path == "metadata.labels.bad key!"


def test_deployment_expands_to_replicaset_and_owned_pods():
    deployment = make_deployment("web", replicas=3)
    children = controllers.expand_controller(deployment, nodes=[])
    rs, pods = children[0], children[1:]
    assert rs["kind"] == "ReplicaSet"
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["metadata"]["name"] == f"web-{pod_hash}"
    assert rs["metadata"]["ownerReferences"][0]["uid"] == deployment["metadata"]["uid"]
    assert len(pods) == 3
    assert len({p["metadata"]["name"] for p in pods}) == 3
    for pod in pods:
        assert pod["metadata"]["name"].startswith(f"web-{pod_hash}-")
        assert pod["metadata"]["labels"] == {"app": "web", "pod-template-hash": pod_hash}
        owner = pod["metadata"]["ownerReferences"][0]
        assert (owner["kind"], owner["name"], owner["controller"]) == (
            "ReplicaSet",
            rs["metadata"]["name"],
            True,
        )


def test_expansion_is_deterministic():
    first = controllers.expand_controller(make_deployment("web"), nodes=[])
    second = controllers.expand_controller(make_deployment("web"), nodes=[])
    assert first == second


def test_statefulset_pods_are_numbered_with_claims():
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "data"},
        "spec": {
            "replicas": 2,
            "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "pg"}]},
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "data"},
                    "spec": {"resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    }
    children = controllers.expand_controller(sts, nodes=[])
    pods = [c for c in children if c["kind"] == "Pod"]
    pvcs = [c for c in children if c["kind"] == "PersistentVolumeClaim"]
    assert [p["metadata"]["name"] for p in pods] == ["db-0", "db-1"]
    assert [p["metadata"]["name"] for p in pvcs] == ["data-db-0", "data-db-1"]
    assert pods[1]["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == "1"
    assert pods[0]["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}
    ]


def test_daemonset_gets_one_pod_per_eligible_node():
    nodes = [
        make_node("a", labels={"role": "worker"}),
        make_node(
            "b",
            labels={"role": "worker"},
            taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
        ),
        make_node("c", labels={"role": "infra"}),
        make_node(
            "d",
            labels={"role": "worker"},
            taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
        ),
    ]
    ds = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {
                    "nodeSelector": {"role": "worker"},
                    "containers": [{"name": "a", "image": "agent"}],
                },
            },
        },
    }
    pods = controllers.expand_controller(ds, nodes=nodes)
    required = [
        p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        for p in pods
    ]
    pinned = [r["nodeSelectorTerms"][0]["matchFields"][0]["values"][0] for r in required]
    assert pinned == ["a", "d"]
    assert all(p["metadata"]["namespace"] == "kube-system" for p in pods)


def test_job_creates_parallelism_pods_with_job_labels():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "spec": {
            "parallelism": 3,
            "completions": 2,
            "template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}},
        },
    }
    pods = controllers.expand_controller(job, nodes=[])
    assert len(pods) == 2
    assert pods[0]["metadata"]["labels"]["job-name"] == "pi"
    assert pods[0]["spec"]["restartPolicy"] == "Never"


def test_csi_node_and_driver_are_read_as_the_objects_node_volume_limits_needs():
    text = """
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-3}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-3, allocatable: {count: 1}}]}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true}
"""
    parsed = manifests.parse_documents(text)
    assert [o.kind for o in parsed.objects] == ["CSINode", "CSIDriver"] and not parsed.warnings
    assert [o.namespace for o in parsed.objects] == ["", ""]
    assert all(manifests.check_object(o) == [] for o in parsed.objects)
