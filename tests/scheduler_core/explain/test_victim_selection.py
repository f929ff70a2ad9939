"""Why this victim set: selectVictimsOnNode's steps on the chosen node, in the engine's order."""

from __future__ import annotations

from typing import Any

from scheduler_core.explain import at_cycle, explain_preemption
from tests.builders import make_node, make_pod


def _case(pods: list[Any], preemptor: Any) -> dict[str, Any]:
    return {
        "name": "t",
        "nodes": [make_node("n1", cpu="4", memory="16Gi")],
        "pods": pods,
        "queue": [preemptor],
    }


def test_victims_are_the_pods_that_could_not_be_put_back() -> None:
    pods = [
        make_pod("a", cpu="1", node_name="n1", priority=10),
        make_pod("b", cpu="1", node_name="n1", priority=5),
        make_pod("c", cpu="2", node_name="n1", priority=1),
    ]
    ex = at_cycle(_case(pods, make_pod("p", cpu="2", priority=100)), 1, explain_preemption)
    assert ex["value"] == {"nominatedNode": "n1", "victims": ["default/c"]}
    steps = ex["inputs"]["victimSelection"]
    assert [(s["step"], s.get("pod"), s["fits"]) for s in steps] == [
        ("remove", None, True),
        ("reprieve", "default/a", True),
        ("reprieve", "default/b", True),
        ("reprieve", "default/c", False),
    ]
    assert steps[0]["pods"] == ["default/a", "default/b", "default/c"]
    assert "default/b (priority 5) put back: the pod still fits, so default/b stays." in ex["text"]
    assert "default/c (priority 1) put back: the pod no longer fits" in ex["text"]


def test_pods_of_equal_or_higher_priority_are_never_removed() -> None:
    pods = [
        make_pod("same", cpu="2", node_name="n1", priority=100),
        make_pod("low", cpu="2", node_name="n1", priority=1),
    ]
    ex = at_cycle(_case(pods, make_pod("p", cpu="2", priority=100)), 1, explain_preemption)
    steps = ex["inputs"]["victimSelection"]
    assert steps[0]["pods"] == ["default/low"]
    assert ex["value"]["victims"] == ["default/low"]


def test_every_candidate_gets_its_walk_the_chosen_one_and_the_others() -> None:
    """n2's walk spares the pod n1 evicts: the other candidates' walks are kept too."""
    case = {
        "name": "t",
        "nodes": [make_node("n1", cpu="4", memory="16Gi"), make_node("n2", cpu="4", memory="16Gi")],
        "pods": [
            make_pod("a1", cpu="3", node_name="n1", priority=1),
            make_pod("b1", cpu="2", node_name="n2", priority=5),
            make_pod("b2", cpu="2", node_name="n2", priority=1),
        ],
        "queue": [make_pod("p", cpu="2", priority=100)],
    }
    ex = at_cycle(case, 1, explain_preemption)
    walks = ex["inputs"]["victimSelections"]
    assert sorted(walks) == sorted(c["node"] for c in ex["inputs"]["candidates"]) == ["n1", "n2"]
    chosen = ex["value"]["nominatedNode"]
    assert walks[chosen] == ex["inputs"]["victimSelection"]
    n2 = [(s["step"], s.get("pod"), s["fits"]) for s in walks["n2"]]
    assert n2 == [
        ("remove", None, True),
        ("reprieve", "default/b1", True),
        ("reprieve", "default/b2", False),
    ]


def test_a_tie_on_every_criterion_says_upstream_may_pick_another() -> None:
    """Issue 34 item 6: upstream's last resort is the first of a list its parallel dry runs
    fill in no fixed order; the page says so."""
    case = {
        "name": "t",
        "nodes": [make_node("n1", cpu="2"), make_node("n2", cpu="2")],
        "pods": [
            make_pod("a", cpu="2", node_name="n1", priority=1),
            make_pod("b", cpu="2", node_name="n2", priority=1),
        ],
        "queue": [make_pod("p", cpu="2", priority=100)],
    }
    ex = at_cycle(case, 1, explain_preemption)
    assert ex["value"]["nominatedNode"] == "n1"
    assert "the real scheduler may pick another of them" in ex["text"]
