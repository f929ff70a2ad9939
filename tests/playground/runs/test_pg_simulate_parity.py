"""One file, two ways in: ``simulate`` places every pod exactly as the playground's import and
run do, because both expand the file through ``scheduler_core.workloads``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from playground.clusters import services
from playground.profiles import services as profile_services
from playground.runs import services as runs
from scheduler_core.__main__ import main

pytestmark = pytest.mark.django_db

CLAIM_TEMPLATE_FILE = (
    Path(__file__).parents[2] / "scheduler_core/workloads/claim_template_cluster.yaml"
)

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "110"}}
"""

WORKLOADS = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: postgres, resources: {requests: {cpu: "1"}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]
"""


def _simulated(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    assert main(["simulate", str(path), "--json"]) == 0
    return {key: r["node"] for key, r in json.loads(capsys.readouterr().out).items()}


def _imported(user: Any, text: str, capture: Any) -> dict[str, Any]:
    cluster, _ = services.cluster_create_from_yaml(owner=user, name="parity", text=text)
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with capture(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    return dict(run.placements)


@pytest.mark.parametrize("name", ["workloads", "claim-template"])
def test_simulate_places_every_pod_as_the_import_and_run_do(
    name: str,
    user: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    django_capture_on_commit_callbacks: Any,
) -> None:
    text = NODES + WORKLOADS if name == "workloads" else CLAIM_TEMPLATE_FILE.read_text()
    simulated = _simulated(tmp_path, text, capsys)
    imported = _imported(user, text, django_capture_on_commit_callbacks)
    assert simulated == imported
    assert simulated and all(simulated.values()), simulated
    if name == "claim-template":
        assert simulated == {"default/trainer": "gpu-1"}
    else:
        assert len(simulated) == 4 + 2 + 2
        assert yaml.safe_load(NODES.split("---")[0])["metadata"]["name"] in simulated.values()


def test_a_thousand_replica_deployment_whose_first_names_clash_imports(user: Any) -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "w4"},  # its first-choice pod names clash (test_pipeline.py)
        "spec": {
            "replicas": 1000,
            "selector": {"matchLabels": {"app": "w4"}},
            "template": {
                "metadata": {"labels": {"app": "w4"}},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}
                    ]
                },
            },
        },
    }
    cluster, report = services.cluster_create_from_yaml(
        owner=user, name="big", text=yaml.safe_dump(deployment)
    )
    assert report.generated == 1001
    assert cluster.pods.count() == 1000
    assert cluster.pods.values("name").distinct().count() == 1000


BAD_FILES = {
    "containers-not-a-list": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: 5}\n"
    ),
    "bad-quantity": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: c, image: x, resources: {requests: {cpu: abc}}}\n"
    ),
    "bad-replicas": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: -1\n"
        "  template: {spec: {containers: [{name: c, image: x}]}}\n"
    ),
    "bad-taint": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
        "spec: {taints: [{key: a, effect: Never}]}\n"
    ),
    # Names and labels (scheduler_core.workloads.syntax): the DNS-1123 name, the label key's
    # name part and prefix, the label value, the namespace, a workload template's labels.
    "bad-pod-name": (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: Web_1}\n"
        "spec: {containers: [{name: c, image: x}]}\n"
    ),
    "bad-labels": (
        "apiVersion: v1\nkind: Pod\n"
        "metadata: {name: p, namespace: Prod, labels: {-app: web, Example.com/team: a b}}\n"
        "spec: {containers: [{name: c, image: x}]}\n"
    ),
    "bad-node-label": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {zone: " + "z" * 64 + "}}\n"
    ),
    "bad-template-label": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
        "  template:\n    metadata: {labels: {app: web!}}\n"
        "    spec: {containers: [{name: c, image: x}]}\n"
    ),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_simulate_refuses_a_bad_file_with_the_import_s_message(
    name: str, user: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = BAD_FILES[name]
    with pytest.raises(services.ManifestProblems) as caught:
        services.cluster_create_from_yaml(owner=user, name="bad", text=text)
    web = [f"{p.path}: {p.message}" for p in caught.value.problems]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["simulate", str(path)]) == 2
    printed = [line.split(": ", 2)[2] for line in capsys.readouterr().err.splitlines()]
    assert printed == web
