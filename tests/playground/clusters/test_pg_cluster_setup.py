"""The cluster page shows each node's and pod's setup in short form, without opening a form."""

from __future__ import annotations

import pytest
from builders import bulk_store, make_node, make_pod
from django.urls import reverse

from playground.clusters import selectors, services, setup_text
from playground.models import Cluster

pytestmark = pytest.mark.django_db


def _gpu_pod():
    pod = make_pod("trainer", cpu="1", memory="2Gi")
    pod["spec"].update(
        {
            "priority": 1000,
            "tolerations": [
                {"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
                {"operator": "Exists"},
            ],
            "nodeSelector": {"pool": "gpu"},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a", "b"]}
                                ]
                            }
                        ]
                    }
                },
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": "trainer"}},
                            "topologyKey": "kubernetes.io/hostname",
                        }
                    ]
                },
            },
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": {"app": "trainer"}},
                }
            ],
        }
    )
    return pod


def test_a_pods_rules_read_as_short_lines():
    setup = setup_text.pod_setup(_gpu_pod())
    assert setup["priority"] == 1000
    assert setup["rules"] == [
        ("tolerates", "gpu=true:NoSchedule"),
        ("tolerates", "every taint (any effect)"),
        ("node selector", "pool=gpu"),
        ("node affinity", "zone In (a, b)"),
        ("pod anti-affinity", "away from pods app=trainer per hostname"),
        ("spread", "max skew 1 per zone, ScheduleAnyway, pods app=trainer"),
    ]


@pytest.mark.parametrize(
    ("status", "node", "phase", "implied"),
    [
        ({}, "", "Pending", True),
        ({}, "n1", "Running", True),
        ({"phase": "Succeeded"}, "n1", "Succeeded", False),
    ],
    ids=["no-phase-no-node-is-pending", "no-phase-on-a-node-is-running", "a-set-phase-is-kept"],
)
def test_a_pod_without_a_phase_shows_the_one_the_api_server_would(status, node, phase, implied):
    pod = make_pod("p")
    pod.pop("status", None)
    if status:
        pod["status"] = status
    if node:
        pod["spec"]["nodeName"] = node
    setup = setup_text.pod_setup(pod)
    assert (setup["phase"], setup["phase_implied"]) == (phase, implied)


def test_odd_shapes_are_left_out_not_raised():
    pod = {"spec": {"tolerations": "x", "affinity": [], "topologySpreadConstraints": [3]}}
    assert setup_text.pod_setup(pod)["rules"] == []
    assert setup_text.node_usage({"cpu": "lots"}, [pod]) == []


def test_usage_is_what_the_nodes_pods_request_of_its_allocatable(user):
    node = make_node("n1", cpu="4", memory="8Gi", pods="10")
    node["spec"]["taints"] = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    bound = [make_pod(f"p{i}", cpu="500m", memory="1Gi", node_name="n1") for i in range(2)]
    cluster = services.cluster_create(owner=user, name="Setup")
    bulk_store(cluster, [node, *bound, make_pod("pending")])
    row = selectors.node_page(cluster).rows[0]
    assert row["taint_texts"] == ["gpu=true:NoSchedule"]
    assert [(u["resource"], u["percent"]) for u in row["usage"]] == [
        ("cpu", 25),
        ("memory", 25),
        ("pods", 20),
    ]
    assert row["usage"][0]["text"] == "cpu 1 of 4 (25%)"
    assert row["usage"][1]["text"] == "memory 2Gi of 8Gi (25%)"


def test_the_cluster_page_shows_taints_tolerations_and_a_signup_to_run(client, user):
    node = make_node("gpu-1")
    node["spec"]["taints"] = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    cluster = Cluster.objects.create(owner=None, name="Demo GPUs", is_demo=True)
    bulk_store(cluster, [node, _gpu_pod()])
    page = client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert "gpu=true:NoSchedule" in page  # the node's taint
    assert "<em>tolerates</em> gpu=true:NoSchedule" in page  # the pod's toleration
    assert "Sign up to run this cluster" in page
    assert "Run</button>" not in page
