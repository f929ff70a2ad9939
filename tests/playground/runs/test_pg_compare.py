"""The compare page's data: configuration diff, nodes side by side, aligned heatmaps, summary."""

from __future__ import annotations

from typing import Any

from builders import make_node, make_pod

from playground import demo
from playground.runs.panels import charts, compare, overview
from scheduler_core.loop.scheduler import Scheduler

PROFILES = {name: config for name, _, config in demo.PROFILES}


def _run(objects: list[dict[str, Any]], config: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    Scheduler(config, objects, on_event=lambda e: events.append(e.to_dict())).run_until_idle()
    return events


def _usage(objects: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, Any]:
    nodes = [
        {"name": o["metadata"]["name"], "cpu": 4000, "memory": 8 << 30, "pods": 110}
        for o in objects
        if o["kind"] == "Node"
    ]
    pods = [
        {"pod": f"default/{o['metadata']['name']}", "node": "", "cpu": 1000, "memory": 1 << 30}
        for o in objects
        if o["kind"] == "Pod"
    ]
    return overview.cluster_usage(nodes, pods, events)


def test_config_diff_lists_only_the_effective_fields_that_differ():
    default = compare.effective_config(PROFILES["Default"])
    packing = compare.effective_config(PROFILES["Bin-packing"])
    rows = {r["field"]: (r["a"], r["b"]) for r in compare.config_diff(default, packing)}
    assert rows == {
        "plugins.score.enabled.NodeResourcesFit": ("—", "weight 5"),
        "plugins.score.disabled.NodeResourcesBalancedAllocation": ("—", "disabled"),
        "pluginConfig.NodeResourcesFit.scoringStrategy.type": ("LeastAllocated", "MostAllocated"),
    }
    assert compare.config_diff(default, compare.effective_config({})) == []


def test_config_diff_of_an_unreadable_configuration_says_so():
    out = compare.config_diff_of_runs(PROFILES["Default"], {"profiles": "nope"})
    assert out["rows"] == []
    assert out["error"].startswith("configuration not readable")


def test_nodes_side_by_side_keep_the_cluster_order_and_drop_idle_nodes():
    objects = [
        make_node("n3", cpu="4"),
        make_node("n1", cpu="4"),
        make_node("n2", cpu="4"),
        make_pod("p1", cpu="1"),
        make_pod("p2", cpu="1"),
    ]
    events_a = _run(objects, PROFILES["Default"])
    events_b = _run(objects, PROFILES["Bin-packing"])
    usage_a, usage_b = _usage(objects, events_a), _usage(objects, events_b)
    nodes = compare.node_rows(usage_a, usage_b)
    place_a, place_b = overview.placements(events_a), overview.placements(events_b)
    used = set(place_a.values()) | set(place_b.values())
    # Equal nodes: the default spreads the two pods, bin-packing stacks them.
    assert (len(set(place_a.values())), len(set(place_b.values()))) == (2, 1)
    assert [r["node"] for r in nodes["rows"]] == [n for n in ("n3", "n1", "n2") if n in used]
    assert nodes["idle"] == 3 - len(used)
    for r in nodes["rows"]:
        assert r["pods"]["a"] == list(place_a.values()).count(r["node"])
        assert r["pods"]["b"] == list(place_b.values()).count(r["node"])
    rows = overview.compare(events_a, events_b)["rows"]
    text = compare.summary("Default", "Bin-packing", usage_a, usage_b, rows)
    differ = sum(1 for r in rows if not r["same"])
    pods = f"{differ} pod{'' if differ == 1 else 's'}"
    assert text == f"Default used 2 nodes, Bin-packing 1; {pods} placed differently."
    assert differ >= 1
    figure = compare.pods_per_node_figure(nodes, "Default", "Bin-packing")
    assert [t["y"] for t in figure["data"]] == [[r["node"] for r in nodes["rows"]]] * 2


def test_aligned_heatmaps_share_rows_and_columns():
    objects = [make_node("a", cpu="4"), make_node("b", cpu="8"), make_pod("p", cpu="1")]
    tables = [
        charts.score_table(charts.cycle_events(_run(objects, PROFILES[name]), 1))
        for name in ("Default", "Bin-packing")
    ]
    assert tables[0]["nodes"] != tables[1]["nodes"]  # each sorted by its own totals
    heat_a, heat_b = compare.aligned_heatmaps(tables[0], tables[1])
    ta, tb = heat_a["table"], heat_b["table"]
    assert ta["nodes"] == tb["nodes"] == tables[0]["nodes"]
    assert ta["plugins"] == tb["plugins"]
    # Bin-packing does not score NodeResourcesBalancedAllocation: an empty column there.
    j = tb["plugins"].index("NodeResourcesBalancedAllocation")
    assert tb["weights"][j] == 0
    assert [row[j] for row in tb["values"]["weighted"]] == [None, None]
    for aligned, table in ((ta, tables[0]), (tb, tables[1])):
        for i, node in enumerate(aligned["nodes"]):
            k = table["nodes"].index(node)
            for j, plugin in enumerate(aligned["plugins"]):
                if plugin in table["plugins"]:
                    col = table["plugins"].index(plugin)
                    got = aligned["values"]["weighted"][i][j]
                    assert got == table["values"]["weighted"][k][col]


def test_pods_per_node_figure_past_its_limit_draws_the_nodes_that_differ_most():
    def row(name, a, b):
        return {"node": name, "pods": {"a": a, "b": b}}

    nodes = {"rows": [row("n1", 1, 1), row("n2", 0, 3), row("n3", 2, 2), row("n4", 2, 0)]}
    figure = compare.pods_per_node_figure(nodes, "A", "B", limit=2)
    assert [t["y"] for t in figure["data"]] == [["n2", "n4"]] * 2
    assert [t["x"] for t in figure["data"]] == [[0, 2], [3, 0]]
    assert figure["layout"]["title"]["text"].endswith("the 2 nodes that differ most, of 4")
