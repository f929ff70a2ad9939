"""The InterPodAffinity Filter explanation names the pods behind its counts (issue 32 item 8):
the matching pods of each required term in the node's domain, and the existing pods whose
required anti-affinity covers the node."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain import at_cycle, explain_filter
from tests.builders import make_node, make_pod

WEB = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}


def _filter(pods: list[Any], preemptor: Any, node: str) -> Any:
    case = {"name": "t", "nodes": [make_node("n1"), make_node("n2")], "pods": pods}
    case["queue"] = [preemptor]
    return at_cycle(case, 1, lambda ctx: explain_filter(ctx, "InterPodAffinity", node))


def test_a_required_anti_affinity_term_names_the_pods_it_matches() -> None:
    pods = [
        make_pod("w1", node_name="n1", labels={"app": "web"}),
        make_pod("w2", node_name="n1", labels={"app": "web"}),
        make_pod("db", node_name="n1", labels={"app": "db"}),
    ]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [WEB]}}
    ex = _filter(pods, make_pod("p", affinity=anti), "n1")
    [row] = ex["inputs"]["requiredAntiAffinity"]
    assert row["matchingPods"] == 2 and row["pods"] == ["default/w1", "default/w2"]
    assert "kubernetes.io/hostname=n1 has 2 (default/w1, default/w2)" in ex["text"]
    clear = _filter(pods, make_pod("p", affinity=anti), "n2")["inputs"]["requiredAntiAffinity"]
    assert "pods" not in clear[0]  # nothing matches on n2


def test_an_existing_pods_anti_affinity_names_that_pod() -> None:
    guard = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [WEB]}}
    pods = [make_pod("guard", node_name="n1", affinity=guard), make_pod("x", node_name="n1")]
    ex = _filter(pods, make_pod("p", labels={"app": "web"}), "n1")
    [row] = ex["inputs"]["existingAntiAffinity"]
    assert row["holders"] == ["default/guard"]
    assert "kubernetes.io/hostname=n1 (default/guard)" in ex["text"]
