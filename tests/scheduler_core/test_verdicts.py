"""A cycle's per-node results kept as the walk gives them and made into dicts when read."""

from __future__ import annotations

from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.record.verdicts import (
    FilterVerdicts,
    Totals,
    verdict_columns,
)

NODES = ["a", "b", "c", "d"]
TAINTED = Status(Code.UNSCHEDULABLE, ("untolerated taint",), "TaintToleration")


def test_filter_verdicts_read_as_the_dict_the_walk_would_have_filled() -> None:
    v = FilterVerdicts()
    v.add_passed(["c", "a"])
    v.add_statuses({"d": TAINTED})
    v.add_passed(["b"])
    assert list(v.items()) == [("c", SUCCESS), ("a", SUCCESS), ("d", TAINTED), ("b", SUCCESS)]
    assert len(v) == 4 and "d" in v and v.get("x") is None
    v["a"] = TAINTED  # written after it was read: the dict is changed in place
    v.add_passed(["e"])
    assert v.as_dict() == {"c": SUCCESS, "a": TAINTED, "d": TAINTED, "b": SUCCESS, "e": SUCCESS}


def test_verdict_columns_of_a_mixed_walk_and_of_an_all_passing_one() -> None:
    v = FilterVerdicts()
    v.add_passed(["b", "a"])
    v.add_statuses({"c": TAINTED})
    assert not v.all_passed(4)
    assert verdict_columns(v, NODES) == (
        ("Success", "Success", "Unschedulable", None),
        ((), (), ("untolerated taint",), None),
        (None, None, "TaintToleration", None),
    )
    every = FilterVerdicts()
    every.add_passed(NODES[2:])
    every.add_passed(NODES[:2])
    assert every.all_passed(4) and not every.all_passed(5)
    plain = dict(every.items())
    assert verdict_columns(every, NODES) == verdict_columns(plain, NODES)
    assert verdict_columns(every, NODES)[0] == ("Success",) * 4
    assert not FilterVerdicts() and verdict_columns(FilterVerdicts(), []) == ((), (), ())


def test_totals_from_a_column_read_as_a_dict_in_score_order() -> None:
    import numpy as np

    t = Totals(["b", "a"], np.array([7, 9], dtype=np.int64))
    assert len(t) == 2 and t.values_list() == [7, 9]
    assert dict(t) == {"b": 7, "a": 9} and t == {"a": 9, "b": 7}
    assert type(t["a"]) is int and list(t) == ["b", "a"]
    assert not Totals()


def test_score_events_carry_int_columns_that_read_as_plain_tuples() -> None:
    import json

    from scheduler_core.record.cycle_events import cycle_events
    from scheduler_core.record.event_columns import (
        IntColumn,
        NameColumn,
    )
    from scheduler_core.record.events import Score
    from scheduler_core.tools.case import CaseRun

    nodes = [
        {"metadata": {"name": f"n{i}"}, "status": {"allocatable": {"cpu": f"{i + 1}", "pods": "9"}}}
        for i in range(4)
    ]
    queue = [{"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}]
    queue[0]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "500m"}}
    _, rec = next(CaseRun({"nodes": nodes, "queue": queue}).cycles())
    events = cycle_events(rec, cycle=1, time=0.0, seq=0)
    scores = [e for e in events if isinstance(e, Score)]
    fit = next(e for e in scores if e.plugin == "NodeResourcesFit")
    assert isinstance(fit.raw, IntColumn) and fit.raw == tuple(fit.raw.array.tolist())
    assert len(set(fit.raw)) > 1  # the nodes differ in size: a real column
    weighted = next(e for e in scores if e.weight != 1)
    assert weighted.weighted == tuple(v * weighted.weight for v in weighted.normalized)
    assert json.loads(json.dumps(fit.to_dict()))["raw"] == list(fit.raw)
    assert all(type(v) is int for v in fit.to_dict()["raw"])
    # Score.nodes and Combine.top know their positions in the cycle's node order.
    combine = next(e for e in events if e.type == "Combine")
    for names in (fit.nodes, combine.nodes, combine.top):
        assert isinstance(names, NameColumn)
        assert [rec.nodes[i] for i in names.rows.tolist()] == list(names)


def test_the_row_positions_stand_for_the_verdicts_only_after_a_single_walk():
    from scheduler_core.framework.status import Code, Status
    from scheduler_core.record.verdicts import FilterVerdicts

    v = FilterVerdicts()
    v.start_walk()
    v.add_passed(["a", "b"], [0, 1])
    v.add_statuses({"c": Status(Code.UNSCHEDULABLE, ("no",), "P")})
    assert v.passed_rows() == [[0, 1]] and len(v) == 3
    # A second walk may pass a node the first rejected: the positions no longer tell.
    v.start_walk()
    v.add_passed(["c"], [2])
    assert v.passed_rows() is None
    assert len(v) == 3 and v["c"].is_success()
    w = FilterVerdicts()
    w.start_walk()
    w.add_passed(["a"], [0])
    w["a"] = Status(Code.UNSCHEDULABLE, ("extender",), "Extender")
    assert w.passed_rows() is None and len(w) == 1
