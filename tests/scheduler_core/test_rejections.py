"""Rejections answers as the dict of the same statuses would, runs or not."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler_core.framework.rejections import Rejections, RowRejections
from scheduler_core.framework.status import Code, Status

FIT = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
TAINT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("untolerated taint",), "TaintToleration")
PORTS = Status(Code.UNSCHEDULABLE, ("ports",), "NodePorts")


def runs() -> Rejections:
    r = Rejections()
    r.add_run(["n1", "n4"], TAINT)
    r.add_run(["n2", "n3"], [FIT, PORTS])
    r.add_run([], FIT)  # nothing: no run
    return r


EXPECTED = {"n1": TAINT, "n4": TAINT, "n2": FIT, "n3": PORTS}


def test_runs_read_as_the_dict_in_insertion_order() -> None:
    r = runs()
    assert len(r) == 4 and bool(r)
    assert list(r) == list(EXPECTED)
    assert list(r.items()) == list(EXPECTED.items())
    assert list(r.values()) == list(EXPECTED.values())
    assert len(r.values()) == 4
    assert r == EXPECTED
    assert EXPECTED == r  # noqa: SIM300 (dict == Rejections: the reflected comparison)
    assert r.shared() == [TAINT, FIT, PORTS]
    assert not Rejections() and len(Rejections()) == 0


def test_lookups_read_the_runs_and_changes_by_name_make_the_dict() -> None:
    r = runs()
    assert r["n3"] is PORTS and r.get("n9") is None and "n4" in r and "n9" not in r
    assert r.get("n1", FIT) is TAINT and r.get("n9", FIT) is FIT
    with pytest.raises(KeyError):
        r["n9"]
    assert r.as_dict() == EXPECTED
    r = runs()
    r["n5"] = FIT
    del r["n1"]
    assert r.pop("n2") is FIT
    assert list(r.items()) == [("n4", TAINT), ("n3", PORTS), ("n5", FIT)]
    r.add_run(["n6"], PORTS)  # after the dict was made, runs go straight into it
    assert r.as_dict() == {"n4": TAINT, "n3": PORTS, "n5": FIT, "n6": PORTS}
    assert r.shared() == [TAINT, PORTS, FIT]


def test_update_takes_runs_over_and_a_name_twice_counts_once() -> None:
    into = Rejections()
    into.update(runs())
    assert into == EXPECTED and len(into) == 4
    again = Rejections()
    again.add_run(["n4", "n7"], FIT)  # n4 again, with a later status: the later one wins
    into.update(again)
    assert len(into) == 5
    assert into["n4"] is FIT and list(into)[-1] == "n7"
    plain = Rejections({"a": FIT})
    plain.update({"b": TAINT}, c=PORTS)
    assert plain == {"a": FIT, "b": TAINT, "c": PORTS}


def test_counts_and_names_where_read_the_runs_or_the_dict() -> None:
    r = runs()
    r.add_run(["n8"], TAINT)
    assert r.counts() == [(TAINT, 3), (FIT, 1), (PORTS, 1)]
    unschedulable = r.names_where(lambda st: st.code == Code.UNSCHEDULABLE)
    assert unschedulable == ["n2", "n3"]
    r["n2"] = TAINT  # now a dict
    assert r.counts() == [(TAINT, 4), (PORTS, 1)]
    assert r.names_where(lambda st: st.code == Code.UNSCHEDULABLE) == ["n3"]


def test_row_rejections_read_as_the_dict_of_positions() -> None:
    rows = RowRejections()
    rows.add_mask(np.array([False, True, False, True]), TAINT)
    rows.add_rows(np.array([2]), FIT)
    rows.add_mask(np.array([False, False, False, False]), PORTS)  # nothing: no run
    assert len(rows) == 3 and rows
    assert dict(rows) == {1: TAINT, 3: TAINT, 2: FIT}
    assert rows.get(2) is FIT and rows.get(0) is None and rows.get(0, "x") == "x"
    assert rows == {1: TAINT, 3: TAINT, 2: FIT}
    one = RowRejections()
    one.add_mask(np.bool_(True), PORTS)  # a batch of one's lanes are scalars
    assert one.get(0) is PORTS and one.get(1) is None
    none = RowRejections()
    none.add_mask(np.bool_(False), PORTS)
    assert not none and none.get(0, FIT) is FIT
