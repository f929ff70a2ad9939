"""The compare page's data: configuration diff, nodes side by side, aligned heatmaps, summary."""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_node, make_pod

from playground import demo
from playground.runs import try_change
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


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", ("weight 5", "disabled")), ("zh-hans", ("权重 5", "禁用"))],
)
def test_the_config_diff_of_two_runs_says_its_plugin_values_in_the_readers_language(language, said):
    from django.utils import translation

    with translation.override(language):
        out = compare.config_diff_of_runs(PROFILES["Default"], PROFILES["Bin-packing"])
    rows = {r["field"]: (r["a"], r["b_said"]) for r in out["rows"]}
    assert rows["plugins.score.enabled.NodeResourcesFit"] == ("—", said[0])
    assert rows["plugins.score.disabled.NodeResourcesBalancedAllocation"] == ("—", said[1])
    # the field's own values stay as the configuration writes them
    assert rows["pluginConfig.NodeResourcesFit.scoringStrategy.type"][1] == "MostAllocated"


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
    moved = [r for r in rows if not r["same"]]
    assert len(moved) == 1
    [r] = moved
    assert text == (
        f"Under B, 1 pod went somewhere else ({r['pod']}: {r['a']} → {r['b']}); A used 2 nodes, "
        "B 1 node."
    )
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


def _summary_rows():
    return [
        {"pod": "web", "a": "node-1", "b": "node-4", "same": False},
        {"pod": "db", "a": "node-2", "b": "node-2", "same": True},
        {"pod": "batch", "a": None, "b": "node-2", "same": False},
    ]


USED_TWO = {"rows": [{"pods": {"after": 1}}, {"pods": {"after": 1}}]}
USED_ONE = {"rows": [{"pods": {"after": 3}}, {"pods": {"after": 0}}]}


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            try_change.ProfileChange("weight", "TaintToleration", 5),
            "TaintToleration's Score weight set to 5",
        ),
        (
            try_change.ProfileChange("strategy", "NodeResourcesFit", strategy="MostAllocated"),
            "NodeResourcesFit's scoringStrategy.type LeastAllocated → MostAllocated",
        ),
        (try_change.ProfileChange("disable", "TaintToleration"), "TaintToleration disabled"),
    ],
)
def test_the_summary_says_what_a_tried_change_changed_and_what_it_did(change, said):
    base = {"profiles": [{"schedulerName": "default-scheduler"}]}
    config = compare.config_diff_of_runs(base, try_change.changed_config(base, change))
    text = compare.summary(
        "Lesson 03", "Lesson 03 · try", USED_TWO, USED_ONE, _summary_rows(), config
    )
    assert text == (
        f"B (Lesson 03 · try) is A (Lesson 03) with one difference: {said}. Under B, 2 pods "
        "went somewhere else (web: node-1 → node-4, batch: unscheduled → node-2); A used 2 "
        "nodes, B 1 node; pods left unscheduled: 1 under A, 0 under B."
    )


def test_the_summary_of_two_runs_of_one_configuration_says_no_pod_moved():
    config = {"rows": []}
    rows = [r for r in _summary_rows() if r["same"]]
    assert compare.summary("Default", "Default", USED_TWO, USED_TWO, rows, config) == (
        "A (Default) and B (Default) run the same scheduler configuration. No pod moved: every "
        "pod went to the same node under both."
    )


def test_the_summary_names_a_few_moved_pods_and_counts_the_rest():
    rows = [{"pod": f"p{i}", "a": "n1", "b": "n2", "same": False} for i in range(5)]
    text = compare.summary("A", "B", USED_TWO, USED_ONE, rows)
    assert "(p0: n1 → n2, p1: n1 → n2, p2: n1 → n2, 2 more)" in text


def test_the_summary_reads_in_chinese():
    from django.utils import translation

    base = {"profiles": [{"schedulerName": "default-scheduler"}]}
    change = try_change.ProfileChange("weight", "TaintToleration", 5)
    config = compare.config_diff_of_runs(base, try_change.changed_config(base, change))
    with translation.override("zh-hans"):
        text = compare.summary("Lesson 03", "试一下", USED_TWO, USED_ONE, _summary_rows(), config)
    assert text == (
        "B（试一下）与A（Lesson 03）只有一处不同：TaintToleration 的 Score 权重设为 5。"
        "在 B 下，有 2 个 Pod 去了别的节点（web：node-1 → node-4、batch：未调度 → node-2）；"
        "A 用了 2 个节点，B 用了 1 个节点；未调度的 Pod：A 下 1 个，B 下 0 个。"
    )
