"""paging.score_page: each plugin's three columns, and a sort by the one the browser names."""

from __future__ import annotations

from typing import Any

from builders import make_node, make_pod

from playground.runs.panels import charts, paging
from scheduler_core.loop.scheduler import Scheduler


def _soft(n: int) -> list[dict[str, str]]:
    return [{"key": f"t{i}", "value": "x", "effect": "PreferNoSchedule"} for i in range(n)]


def _table() -> dict[str, Any]:
    """Three nodes with 0, 1 and 2 untolerated PreferNoSchedule taints: TaintToleration's raw
    score counts them, its normalized score reverses that order."""
    events: list[dict[str, Any]] = []
    objects = [
        make_node("none", cpu="4"),
        make_node("one", cpu="4", taints=_soft(1)),
        make_node("two", cpu="4", taints=_soft(2)),
        make_pod("p", cpu="1"),
    ]
    Scheduler(None, objects, on_event=lambda e: events.append(e.to_dict())).run_until_idle()
    return charts.score_table(charts.cycle_events(events, 1))


def _sorted_by(table: dict[str, Any], query: dict[str, str]) -> dict[str, Any]:
    return paging.score_page(table, paging.PageParams.from_query(query))["table"]


def test_a_sort_by_a_plugin_reads_the_column_smode_names():
    table = _table()
    by_raw = _sorted_by(table, {"ssort": "TaintToleration", "smode": "raw", "sdir": "desc"})
    by_weighted = _sorted_by(
        table, {"ssort": "TaintToleration", "smode": "weighted", "sdir": "desc"}
    )
    assert by_raw["nodes"] == ["two", "one", "none"]
    assert by_weighted["nodes"] == ["none", "one", "two"]
    assert (by_raw["sort"], by_raw["sort_mode"]) == ("TaintToleration", "raw")
    # The page carries the three columns of its rows, whatever the sort.
    j = table["plugins"].index("TaintToleration")
    assert [row[j] for row in by_raw["values"]["raw"]] == [2, 1, 0]
    assert [row[j] for row in by_raw["values"]["normalized"]] == [0, 50, 100]
    weight = table["weights"][j]
    assert [row[j] for row in by_raw["values"]["weighted"]] == [0, 50 * weight, 100 * weight]


def test_smode_defaults_to_the_heatmap_mode_and_refuses_unknown_modes():
    assert paging.PageParams.from_query({"mode": "raw"}).score_mode == "raw"
    assert paging.PageParams.from_query({"smode": "bogus"}).score_mode == "weighted"
