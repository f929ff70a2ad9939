"""The object pipeline shared by simulate and the import: controllers, claims, names."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from scheduler_core.__main__ import main
from scheduler_core.workloads import ClusterState, PlanProblems, plan_objects
from scheduler_core.workloads.naming import MAX_GENERATE_PREFIX, random_suffix

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}


def deployment(name: str, replicas: int, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, **meta},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}
                    ]
                },
            },
        },
    }


DRA_FILE = (Path(__file__).parent / "claim_template_cluster.yaml").read_text()


def _kinds(objects: Any) -> list[str]:
    return [o.manifest["kind"] for o in objects]


def test_a_deployment_becomes_its_replica_set_and_pods_owned_in_turn() -> None:
    plan = plan_objects([NODE, deployment("web", 3)])
    assert _kinds(plan.objects) == ["Node", "Deployment", "ReplicaSet", "Pod", "Pod", "Pod"]
    assert plan.generated == 4
    rs = plan.objects[2].manifest
    pods = [o.manifest for o in plan.objects[3:]]
    assert {p["metadata"]["ownerReferences"][0]["name"] for p in pods} == {rs["metadata"]["name"]}
    assert all(p["metadata"]["name"].startswith(rs["metadata"]["name"] + "-") for p in pods)
    assert all(o.source == 1 and o.generated for o in plan.objects[2:])


# Names whose 1,000 first-choice suffixes clash with this template (the f1, n0, n5 and
# n11 clashed with theirs): the suffix scheme must move on instead of refusing the file.
@pytest.mark.parametrize("name", ["w4", "w19", "w111"])
def test_a_thousand_replicas_never_share_a_name(name: str) -> None:
    plan = plan_objects([deployment(name, 1000)])
    pods = [o.manifest for o in plan.objects if o.manifest["kind"] == "Pod"]
    assert len({p["metadata"]["name"] for p in pods}) == 1000
    uid = plan.objects[1].manifest["metadata"]["uid"]
    firsts = Counter(random_suffix(uid, str(i)) for i in range(1000))
    assert max(firsts.values()) > 1


def test_generated_names_avoid_objects_of_the_input_and_the_cluster() -> None:
    first = plan_objects([deployment("web", 2)]).objects
    rs_name, pod_name = (o.manifest["metadata"]["name"] for o in first[1:3])
    explicit_pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    plan = plan_objects(
        [deployment("web", 2), explicit_pod],
        cluster=ClusterState(keys={("ReplicaSet", "default", rs_name)}),
    )
    names = [o.manifest["metadata"]["name"] for o in plan.objects]
    assert len(names) == len(set(names))
    new_rs = plan.objects[1].manifest
    assert new_rs["metadata"]["name"] != rs_name
    assert new_rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"] == (
        new_rs["metadata"]["name"].removeprefix("web-")
    )


def test_long_prefixes_are_cut_as_generate_name_cuts_them() -> None:
    plan = plan_objects([deployment("w" * 60, 1)])
    pod = plan.objects[-1].manifest["metadata"]["name"]
    assert len(pod) == MAX_GENERATE_PREFIX + 5


def test_an_explicit_name_given_twice_and_one_already_stored_are_refused() -> None:
    with pytest.raises(PlanProblems) as caught:
        plan_objects(
            [NODE, NODE, deployment("web", 1)],
            cluster=ClusterState(keys={("Deployment", "default", "web")}),
        )
    assert [(p.source, p.path, p.message) for p in caught.value.problems] == [
        (1, "metadata.name", "Node n1 is given twice"),
        (2, "metadata.name", "Deployment default/web already exists in the cluster"),
    ]


@pytest.mark.parametrize(
    ("spec", "path", "message"),
    [
        (
            {"replicas": "3"},
            "spec.replicas",
            "Invalid value: '3': must be greater than or equal to 0",
        ),
        (
            {"replicas": -1},
            "spec.replicas",
            "Invalid value: -1: must be greater than or equal to 0",
        ),
        ({"template": 5}, "spec.template", "Required value: a pod template"),
    ],
)
def test_a_controller_that_cannot_be_expanded_is_refused_naming_the_field(
    spec: dict[str, Any], path: str, message: str
) -> None:
    bad = deployment("web", 1)
    bad["spec"].update(spec)
    with pytest.raises(PlanProblems) as caught:
        plan_objects([bad])
    assert (path, message) in [(p.path, p.message) for p in caught.value.problems]


def test_the_generated_count_is_capped_naming_the_workload() -> None:
    with pytest.raises(PlanProblems) as caught:
        plan_objects([NODE, deployment("web", 10)], max_generated=5)
    (problem,) = caught.value.problems
    assert (problem.source, problem.path) == (1, "spec")
    assert "more than 5 objects" in problem.message


def test_a_pod_naming_a_claim_template_gets_its_claim_and_status() -> None:
    objects = list(yaml.safe_load_all(DRA_FILE))
    plan = plan_objects(objects)
    claim = plan.objects[-1].manifest
    pod = plan.objects[-2].manifest
    assert claim["kind"] == "ResourceClaim" and plan.generated == 1
    assert claim["metadata"]["name"].startswith("trainer-gpu-")
    assert pod["status"]["resourceClaimStatuses"] == [
        {"name": "gpu", "resourceClaimName": claim["metadata"]["name"]}
    ]


def _simulate(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    assert main(["simulate", str(path), "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_simulate_places_the_pods_of_a_deployment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _simulate(tmp_path, yaml.safe_dump_all([NODE, deployment("web", 3)]), capsys)
    assert len(result) == 3
    assert {r["node"] for r in result.values()} == {"n1"}


def test_simulate_tries_a_pod_whose_claim_comes_from_a_template(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _simulate(tmp_path, DRA_FILE, capsys)
    assert result["default/trainer"]["node"] == "gpu-1"


def test_simulate_reports_a_refused_file_naming_the_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, NODE]))
    assert main(["simulate", str(path)]) == 2
    assert "error: Node n1: metadata.name: Node n1 is given twice" in capsys.readouterr().err


def test_plan_refuses_bad_names_and_labels_with_the_import_s_messages() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "Web_1", "labels": {"app": "a b"}},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }
    bad_template = deployment("web", 1)
    bad_template["spec"]["template"]["metadata"]["labels"] = {"-app": "web"}
    with pytest.raises(PlanProblems) as caught:
        plan_objects([NODE, pod, bad_template])
    assert [(p.source, p.path, p.message) for p in caught.value.problems] == [
        (
            1,
            "metadata.name",
            "Invalid value: 'Web_1': a lowercase RFC 1123 subdomain must consist of lower case "
            "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character",
        ),
        (
            1,
            "metadata.labels.app",
            "Invalid value: 'a b': a valid label must be an empty string or consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character",
        ),
        (
            2,
            "spec.template.metadata.labels.-app",
            "Invalid value: '-app': name part must consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character",
        ),
    ]


def test_simulate_brings_an_older_config_forward_as_the_import_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = Path(__file__).parents[1] / "config/migrate_corpus"
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, deployment("web", 2)]))
    config = str(corpus / "policy-kubernetes-examples-tabs.json")
    assert main(["simulate", str(path), "--config", config, "--json"]) == 0
    out = capsys.readouterr()
    assert {r["node"] for r in json.loads(out.out).values()} == {"n1"}
    assert "config: converted from the legacy Policy" in out.err
    assert "VolumeRestrictions enabled at preFilter too" in out.err
