"""The package's public API: what ``from scheduler_core import ...`` offers, and that it works."""

from __future__ import annotations

from builders import make_node, make_pod

import scheduler_core
from scheduler_core import Event, Scheduler, in_tree_registry, load_config, trace_case


def test_every_public_name_is_importable_from_the_package() -> None:
    assert sorted(scheduler_core.__all__) == scheduler_core.__all__
    for name in scheduler_core.__all__:
        assert getattr(scheduler_core, name) is not None, name


def test_a_scheduler_built_from_manifests_places_a_pod() -> None:
    events: list[Event] = []
    sched = Scheduler(
        load_config(None),
        [make_node("n1", cpu="2"), make_pod("p", cpu="1")],
        on_event=events.append,
        registry=in_tree_registry(),
    )
    sched.run_until_idle()
    assert sched.placements() == {"default/p": "n1"}
    assert any(type(e).__name__ == "Bind" for e in events)


def test_trace_case_reports_a_configuration_the_scheduler_refuses() -> None:
    case = {"name": "bad", "config": {"percentageOfNodesToScore": 101}, "nodes": [], "queue": []}
    trace = trace_case(case)
    assert trace["case"] == "bad"
    assert "percentageOfNodesToScore" in trace["error"]
