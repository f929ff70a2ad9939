"""The step-through's order: upstream's extension points, the scheduling cycle before binding."""

from __future__ import annotations

import yaml

from playground import demo
from playground.runs.panels import charts
from scheduler_core.loop.scheduler import Scheduler


def _demo_events(name):
    text = next(t for n, _, t in demo.CLUSTERS if n == name)
    events = []
    sched = Scheduler(
        None,
        [m for m in yaml.safe_load_all(text) if m],
        on_event=lambda e: events.append(e.to_dict()),
    )
    sched.run_until_idle()
    return events


def test_the_cycle_end_step_comes_after_reserve_and_before_the_binding_cycle():
    events = _demo_events("Preemption scenario")
    cycle = charts.cycle_events(events, 2)
    steps = charts.steps(cycle)
    points = [s["point"] for s in steps]
    assert points[points.index("Combine") :] == [
        "Combine",
        "Reserve",
        "Reserve",
        "CycleEnd",
        "PreBind",
        "PreBind",
        "Bind",
    ]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert sorted(s["seq"] for s in steps) == [e["seq"] for e in cycle]


def test_a_permit_answer_after_a_wait_stays_in_the_binding_cycle():
    head = {"cycle": 1, "pod": "default/gang-0", "time": 0.0}
    kinds = [
        ("CycleStart", {}),
        ("Combine", {"selected": "n1", "top": ["n1"]}),
        ("CycleEnd", {"result": "Scheduled", "node": "n1"}),
        ("Reserve", {"plugin": "VolumeBinding", "code": "Success", "node": "n1"}),
        ("Permit", {"plugin": "ApprovalGate", "code": "Wait", "node": "n1", "timeout": 30}),
        ("Permit", {"plugin": "ApprovalGate", "code": "Success", "node": "n1"}),
        ("Bind", {"plugin": "DefaultBinder", "code": "Success", "node": "n1"}),
    ]
    events = [{"type": t, "seq": i, **head, **extra} for i, (t, extra) in enumerate(kinds)]
    steps = charts.steps(events)
    assert [(s["point"], s["code"]) for s in steps] == [
        ("CycleStart", None),
        ("Combine", None),
        ("Reserve", "Success"),
        ("Permit", "Wait"),
        ("CycleEnd", None),
        ("Permit", "Success"),
        ("Bind", "Success"),
    ]
