"""charts: page data and Plotly figures built from real engine events, without a browser."""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_node, make_pod

from playground import demo
from playground.runs.panels import charts, overview, paging, step_text
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import in_tree_registry

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def _run(objects: list[dict[str, Any]], config: Any = None, **kw: Any) -> tuple[Scheduler, list]:
    events: list[dict[str, Any]] = []
    sched = Scheduler(config, objects, on_event=lambda e: events.append(e.to_dict()), **kw)
    sched.run_until_idle()
    return sched, events


@pytest.fixture(scope="module")
def mixed() -> tuple[Scheduler, list[dict[str, Any]]]:
    """Four nodes of different sizes, one tainted; two pods, one too big for anything."""
    return _run(
        [
            make_node("small", cpu="2", memory="4Gi"),
            make_node("big", cpu="16", memory="64Gi"),
            make_node("mid", cpu="8", memory="32Gi"),
            make_node("gpu", cpu="16", memory="64Gi", taints=[TAINT]),
            make_node("busy", cpu="8", memory="32Gi"),
            make_pod("running", cpu="6", memory="8Gi", node_name="busy"),
            make_pod("web", cpu="1", memory="1Gi"),
            make_pod("huge", cpu="64", memory="1Gi"),
        ]
    )


def _cycle_of(events: list[dict[str, Any]], pod: str) -> list[dict[str, Any]]:
    row = next(r for r in overview.timeline(events) if r["pod"] == pod)
    return charts.cycle_events(events, row["cycle"])


def test_timeline_has_one_row_per_cycle_with_result_node_and_binding(mixed):
    _, events = mixed
    rows = {r["pod"]: r for r in overview.timeline(events)}
    assert rows["default/web"]["result"] == "Scheduled"
    assert rows["default/web"]["binding"] == "Bound"
    assert rows["default/web"]["node"] == "big"
    assert rows["default/huge"]["result"] == "Unschedulable"
    assert rows["default/huge"]["binding"] == ""
    assert rows["default/huge"]["message"].startswith("0/5 nodes are available")


def test_filter_matrix_marks_the_first_rejector_and_keeps_the_fit_error(mixed):
    _, events = mixed
    matrix = charts.filter_matrix(_cycle_of(events, "default/huge"))
    rows = {r["node"]: r for r in matrix["rows"]}
    assert [r["node"] for r in matrix["rows"]] == ["small", "big", "mid", "gpu", "busy"]
    taint_col = matrix["plugins"].index("TaintToleration")
    fit_col = matrix["plugins"].index("NodeResourcesFit")
    assert rows["gpu"]["rejector"] == "TaintToleration"
    assert rows["gpu"]["cells"][taint_col]["code"] == "UnschedulableAndUnresolvable"
    assert rows["gpu"]["cells"][fit_col] is None  # not run after the first rejection
    assert rows["big"]["rejector"] == "NodeResourcesFit"
    assert rows["big"]["cells"][fit_col]["reasons"] == ["Insufficient cpu"]
    assert rows["big"]["cells"][fit_col]["code"] == rows["big"]["verdict"]
    end = next(e for e in _cycle_of(events, "default/huge") if e["type"] == "CycleEnd")
    assert matrix["message"] == end["message"]
    assert "untolerated taint" in matrix["message"]
    assert matrix["feasible"] == []


def test_score_table_values_are_the_score_events_in_each_mode(mixed):
    """The table the browser draws the heatmap and the combine bars from (score_figures.js,
    tested in tests/js/score_figures.test.mjs): one column per Score event, rows by total."""
    _, events = mixed
    cycle = _cycle_of(events, "default/web")
    scores = [e for e in cycle if e["type"] == "Score"]
    combine = next(e for e in cycle if e["type"] == "Combine")
    table = charts.score_table(cycle)
    assert table["plugins"] == [ev["plugin"] for ev in scores]
    assert table["weights"] == [ev["weight"] for ev in scores]
    for mode in charts.SCORE_MODES:
        for j, ev in enumerate(scores):
            expected = dict(zip(ev["nodes"], ev[mode], strict=True))
            assert {n: table["values"][mode][i][j] for i, n in enumerate(table["nodes"])} == (
                expected
            )
    totals = dict(zip(combine["nodes"], combine["totals"], strict=True))
    assert table["nodes"] == sorted(totals, key=lambda n: (-totals[n], n))
    assert table["totals"] == [totals[n] for n in table["nodes"]]
    assert table["nodes"][0] == combine["selected"]


def test_winner_explanation_names_the_plugins_that_made_the_difference(mixed):
    _, events = mixed
    table = charts.score_table(_cycle_of(events, "default/web"))
    why = charts.winner_explanation(table)
    assert why["selected"] == "big"
    runner = why["runner_up"]
    i, k = table["nodes"].index("big"), table["nodes"].index(runner)
    assert sum(d["diff"] for d in why["diffs"]) == table["totals"][i] - table["totals"][k]
    margin = table["totals"][i] - table["totals"][k]
    assert why["margin"] == margin
    # Largest difference first, each named with its sign.
    assert [abs(d["diff"]) for d in why["diffs"]] == sorted(
        (abs(d["diff"]) for d in why["diffs"]), reverse=True
    )
    named = ", ".join(
        f"{d['plugin']} {'+' if d['diff'] > 0 else '−'}{abs(d['diff'])}" for d in why["diffs"]
    )
    assert why["text"].startswith(f"big won by {margin} over {runner} ")
    assert why["text"].endswith(f": {named}.")


def test_winner_explanation_lists_a_plugin_that_lost_ground_with_a_minus():
    table = {
        "selected": "a",
        "scored": True,
        "plugins": ["Fit", "Image"],
        "weights": [1, 1],
        "nodes": ["a", "b"],
        "top": ["a"],
        "totals": [100, 88],
        "values": {"weighted": [[70, 30], [30, 58]]},
    }
    why = charts.winner_explanation(table)
    assert why["text"] == "a won by 12 over b (100 to 88): Fit +40, Image −28."


def test_a_tie_is_explained_as_a_tie():
    _, events = _run([make_node("a"), make_node("b"), make_pod("p")])
    table = charts.score_table(charts.cycle_events(events, 1))
    why = charts.winner_explanation(table)
    assert why["ties"] == ["a", "b"]
    total = table["totals"][0]
    assert why["text"].startswith(f"2 nodes tied at {total}: a, b; picked a: ")
    assert "first tied node by name" in why["text"]


def _preemption_objects() -> list[dict[str, Any]]:
    return [
        make_node("n1", cpu="2"),
        make_pod("low", cpu="1500m", node_name="n1", priority=1),
        make_pod("urgent", cpu="1500m", priority=1000),
    ]


def test_preemption_lists_the_chosen_node_victims_and_nominated_pod():
    _, events = _run(_preemption_objects())
    first = charts.cycle_events(events, 1)
    pre = charts.preemption(first)
    assert pre["chosen"] == "n1"
    assert pre["victims"] == ["default/low"]
    assert pre["candidates"] == [{"node": "n1", "victims": ["default/low"]}]
    assert pre["nominated_pod"] == "default/urgent"
    assert overview.placements(events) == {"default/urgent": "n1"}


def test_preemption_not_helpful_is_said_under_default_preemptions_own_step():
    objects = [
        make_node("n1", cpu="2"),
        make_pod("low", cpu="1", node_name="n1", priority=1),
        make_pod("big", cpu="8", priority=10),
    ]
    _, events = _run(objects)
    cycle = charts.cycle_events(events, 1)
    post = next(e for e in cycle if e["type"] == "PostFilter")
    ours = [r for r in post["reasons"] if r.startswith("preemption: ")]
    assert ours and "not helpful" in ours[0]
    steps = [s for s in charts.steps(cycle) if s["point"] == "PostFilter"]
    mine = next(s for s in steps if s["plugin"] == "DefaultPreemption")
    assert mine["label"] == "PostFilter · DefaultPreemption"
    assert mine["why"].startswith("DefaultPreemption: preemption is not helpful")
    assert ours[0].rstrip(".") in mine["why"]
    # The other PostFilter plugins keep their own reasons, in the profile's order, first.
    others = [r for r in post["reasons"] if not r.startswith("preemption: ")]
    parts = charts.preemption(cycle)["by_plugin"]
    assert parts[-1] == {"plugin": "DefaultPreemption", "reasons": ours}
    assert [r for p in parts[:-1] for r in p["reasons"]] == others
    assert [s["plugin"] for s in steps] == [p["plugin"] for p in parts]


class _WaitAtPermit:
    name = "Gate"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        if pod.labels.get("gate") == "yes":
            return Status(Code.WAIT), 30.0
        return SUCCESS, 0.0


GATE_CONFIG = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"permit": {"enabled": [{"name": "Gate"}]}},
        }
    ],
}


def _gated() -> tuple[Scheduler, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    sched = Scheduler(
        GATE_CONFIG,
        [make_node("n1"), make_pod("g", labels={"gate": "yes"})],
        on_event=lambda e: events.append(e.to_dict()),
        registry=in_tree_registry().merged(Registry({"Gate": lambda args, h: _WaitAtPermit()})),
    )
    sched.schedule_one()
    return sched, events


def test_a_pod_waiting_at_permit_shows_its_timeout_until_allowed():
    sched, events = _gated()
    assert overview.waiting_pods(events) == [
        {
            "pod": "default/g",
            "node": "n1",
            "since": 0.0,
            "plugins": [{"plugin": "Gate", "timeout": 30.0, "deadline": 30.0}],
            "deadline": 30.0,
        }
    ]
    assert overview.timeline(events)[0]["binding"] == "Waiting"
    sched.allow_waiting_pod("default/g")
    assert overview.waiting_pods(events) == []
    detail = charts.cycle_detail(events, 1)
    assert [(b["point"], b["code"]) for b in detail["binding"] if b["point"] == "Permit"] == [
        ("Permit", "Wait"),
        ("Permit", "Success"),
    ]
    assert detail["binding_state"] == "Bound"


def test_a_rejected_waiting_pod_unreserves():
    sched, events = _gated()
    sched.reject_waiting_pod("default/g", "Gate", "no")
    assert overview.waiting_pods(events) == []
    assert overview.timeline(events)[0]["binding"] == "Rejected"
    assert "Unreserve" in [b["point"] for b in charts.cycle_detail(events, 1)["binding"]]


def test_a_chosen_node_is_not_called_scheduled_before_reserve_and_permit():
    """Issue 34 item 3: upstream's scheduling cycle runs Reserve and Permit after the choice;
    a Permit rejection ends it there (Unreserve, no binding cycle)."""
    sched, events = _gated()
    sched.reject_waiting_pod("default/g", "Gate", "no")
    steps = charts.steps([e for e in events if e.get("cycle") == 1])
    end = next(s for s in steps if s["point"] == "CycleEnd")
    assert "binding cycle follows" not in end["why"]
    assert "Reserve and Permit come next" in end["why"]
    assert overview.timeline(events)[0]["binding"] == "Rejected"


def test_queue_state_follows_queue_events_with_remaining_backoff():
    events: list[dict[str, Any]] = []
    sched = Scheduler(
        None,
        [make_node("n1", cpu="1"), make_pod("big", cpu="2"), make_pod("ok", cpu="100m")],
        on_event=lambda e: events.append(e.to_dict()),
    )
    assert {r["pod"] for r in overview.queue_state(events)["active"]} == {
        "default/big",
        "default/ok",
    }
    sched.schedule_one()
    sched.schedule_one()
    q = overview.queue_state(events)
    assert q["active"] == []
    parked = q["backoff"] + q["unschedulable"]
    assert [r["pod"] for r in parked] == ["default/big"]
    if q["backoff"]:
        assert q["backoff"][0]["remaining"] == pytest.approx(q["backoff"][0]["until"])
    before_any_pop = min(e["seq"] for e in events if e["type"] == "Pop") - 1
    assert len(overview.queue_state(events, upto=before_any_pop)["active"]) == 2


def _queues(q):
    """What the queue view shows, keyed the way the engine's pending_pods() reports it."""
    return {
        "active": sorted(r["pod"] for r in q["active"]),
        "backoff": {r["pod"]: (r["until"], sorted(r.get("plugins", []))) for r in q["backoff"]},
        "unschedulable": {r["pod"]: sorted(r["plugins"]) for r in q["unschedulable"]},
        "gated": {r["pod"]: r["plugin"] for r in q["gated"]},
    }


def test_queue_state_agrees_with_the_engines_queue():
    """Parked pods keep the plugins that rejected them, however they got where they are."""
    events: list[dict[str, Any]] = []
    gated = make_pod("gated")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    sched = Scheduler(
        None,
        [
            make_node("n1", cpu="2"),
            make_pod("small", cpu="1"),
            make_pod("huge", cpu="8"),
            make_pod("picky", nodeSelector={"disk": "ssd"}),
            gated,
        ],
        on_event=lambda e: events.append(e.to_dict()),
    )
    sched.run_until_idle()
    pending = sched.queue.pending_pods()
    q = _queues(overview.queue_state(events))
    assert q["unschedulable"] == {
        "default/huge": ["NodeResourcesFit"],
        "default/picky": ["NodeAffinity"],
    }
    assert q["unschedulable"] == {r["pod"]: r["plugins"] for r in pending["unschedulable"]}
    assert q["gated"] == {"default/gated": "SchedulingGates"}
    assert q["gated"] == {r["pod"]: r["plugin"] for r in pending["gated"]}
    assert (q["active"], q["backoff"]) == ([], {})

    sched.add_node(make_node("n2", cpu="16", labels={"disk": "ssd"}))  # both may fit now
    pending = sched.queue.pending_pods()
    state = overview.queue_state(events)
    q = _queues(state)
    until = {r["pod"]: r["until"] for r in pending["backoff"]}
    assert q["backoff"] == {
        "default/huge": (until["default/huge"], ["NodeResourcesFit"]),
        "default/picky": (until["default/picky"], ["NodeAffinity"]),
    }
    assert [r["remaining"] for r in state["backoff"]] == [
        until[r["pod"]] - sched.clock.now() for r in state["backoff"]
    ]
    assert q["unschedulable"] == {}


def test_steps_walk_every_event_of_the_cycle_with_an_explanation(mixed):
    _, events = mixed
    cycle = _cycle_of(events, "default/huge")
    steps = charts.steps(cycle)
    # Every event gives a step; NormalizeScore and a PostFilter split per plugin add steps.
    assert sorted({s["seq"] for s in steps}) == [e["seq"] for e in cycle]
    assert all(s["help"] for s in steps)
    taint = next(s for s in steps if s["point"] == "Filter" and s["plugin"] == "TaintToleration")
    assert taint["why"].startswith("TaintToleration rejected 1 node: gpu:")
    assert "taint" in taint["plugin_help"]
    verdict = next(s for s in steps if s["label"] == "Filter verdict")
    assert verdict["why"] == "0 nodes feasible out of 5 evaluated."


def test_cluster_usage_counts_requests_before_and_after():
    nodes = [{"name": "n1", "cpu": 2000, "memory": 4 << 30, "pods": 10}]
    pods = [
        {"pod": "default/old", "node": "n1", "cpu": 500, "memory": 1 << 30},
        {"pod": "default/new", "node": "", "cpu": 1000, "memory": 1 << 30},
    ]
    events = [{"type": "Bind", "seq": 0, "pod": "default/new", "node": "n1", "code": "Success"}]
    usage = overview.cluster_usage(nodes, pods, events)
    cpu = usage["rows"][0]["cpu"]
    assert (cpu["before"], cpu["after"], cpu["after_pct"]) == (500, 1500, 75.0)
    assert usage["rows"][0]["pods"]["after"] == 2
    fig = overview.usage_figure(usage, resource="cpu")
    assert [t["x"] for t in fig["data"]] == [[25.0], [75.0]]
    assert [t["y"] for t in fig["data"]] == [["n1"], ["n1"]]


def test_the_three_usage_charts_draw_the_same_nodes_past_their_limit():
    # n0..n5: n1 full of CPU, n2 of memory, n3 of pods; the others light. Each chart used to
    # keep its own fullest nodes; all three now keep the fullest by any resource.
    nodes = [{"name": f"n{i}", "cpu": 1000, "memory": 1000, "pods": 10} for i in range(6)]
    pods = [
        {"pod": "default/cpu", "node": "n1", "cpu": 900, "memory": 0},
        {"pod": "default/mem", "node": "n2", "cpu": 0, "memory": 900},
        *({"pod": f"default/p{i}", "node": "n3", "cpu": 0, "memory": 0} for i in range(9)),
        {"pod": "default/light", "node": "n5", "cpu": 100, "memory": 100},
    ]
    usage = overview.cluster_usage(nodes, pods, [])
    assert overview.shown_nodes(usage, top_n=3) == {"n1", "n2", "n3"}
    drawn = {
        res: overview.usage_figure(usage, resource=res, top_n=3)["data"][0]["y"]
        for res in overview.USAGE_RESOURCES
    }
    assert drawn["cpu"] == drawn["memory"] == drawn["pods"]
    assert drawn["cpu"] == ["n1", "n2", "n3", "the other 3 (mean)"]


def test_compare_lines_up_placements_of_two_profiles():
    objects = [make_node("a", cpu="4"), make_node("b", cpu="8"), make_pod("p", cpu="1")]
    spread = None
    pack = next(config for name, _, config in demo.PROFILES if name == "Bin-packing")
    _, events_a = _run(objects, spread)
    _, events_b = _run(objects, pack)
    result = overview.compare(events_a, events_b)
    assert result["rows"] == [
        {"pod": "default/p", "a": "b", "b": "a", "same": False, "cycle_a": 1, "cycle_b": 1}
    ]
    assert result["differ"] == 1


@pytest.mark.parametrize(
    "point",
    [
        "PreFilter",
        "Filter",
        "PostFilter",
        "PreScore",
        "Score",
        "NormalizeScore",
        "Reserve",
        "Permit",
        "PreBind",
        "Bind",
        "PostBind",
        "Unreserve",
    ],
)
def test_every_extension_point_has_an_explanation(point):
    assert len(charts.POINT_HELP[point]) > 40


def test_steps_put_normalize_score_after_every_score_and_before_the_weighted_sum(mixed):
    _, events = mixed
    cycle = _cycle_of(events, "default/web")
    steps = charts.steps(cycle)
    points = [s["point"] for s in steps]
    scores = [e for e in cycle if e["type"] == "Score"]
    first_score, last_score = points.index("Score"), len(points) - 1 - points[::-1].index("Score")
    normalize = [i for i, p in enumerate(points) if p == "NormalizeScore"]
    assert max(i for i, p in enumerate(points) if p == "PreScore") < first_score
    assert normalize == list(range(last_score + 1, last_score + 1 + len(scores)))
    assert points[normalize[-1] + 1] == "Combine"
    assert [steps[i]["plugin"] for i in normalize] == [e["plugin"] for e in scores]
    taint = next(
        s for s in steps if s["point"] == "NormalizeScore" and s["plugin"] == "TaintToleration"
    )
    assert "reversed" in taint["why"]
    fit = next(e for e in scores if e["plugin"] == "NodeResourcesFit")
    fit_step = next(
        s for s in steps if s["point"] == "NormalizeScore" and s["plugin"] == "NodeResourcesFit"
    )
    assert fit_step["why"].startswith("NodeResourcesFit has no NormalizeScore")
    assert f"raw {min(fit['raw'])}..{max(fit['raw'])}" in fit_step["why"]


def test_normalize_summary_states_each_plugins_rule_and_ranges(mixed):
    _, events = mixed
    detail = charts.cycle_detail(events, _cycle_of(events, "default/web")[0]["cycle"])
    rows = {r["plugin"]: r for r in detail["normalize"]}
    scores = {e["plugin"]: e for e in _cycle_of(events, "default/web") if e["type"] == "Score"}
    assert set(rows) == set(scores)
    assert rows["TaintToleration"]["kind"] == "reverse"
    assert rows["NodeResourcesFit"]["kind"] == "none"
    for plugin, ev in scores.items():
        row = rows[plugin]
        assert (row["raw_min"], row["raw_max"]) == (min(ev["raw"]), max(ev["raw"]))
        assert (row["normalized_min"], row["normalized_max"]) == (
            min(ev["normalized"]),
            max(ev["normalized"]),
        )
        i = ev["nodes"].index("big")
        assert row["example"] == {
            "node": "big",
            "raw": ev["raw"][i],
            "normalized": ev["normalized"][i],
            "weighted": ev["weighted"][i],
        }


def _score(plugin: str, weight: int, nodes: list[str], raw: list[int], norm: list[int]) -> dict:
    return {
        "type": "Score",
        "plugin": plugin,
        "weight": weight,
        "nodes": nodes,
        "raw": raw,
        "normalized": norm,
        "weighted": [v * weight for v in norm],
    }


def test_the_score_table_is_the_same_whether_the_plugins_list_the_nodes_alike_or_not():
    nodes = ["n3", "n1", "n2"]
    a = _score("A", 2, nodes, [5, 7, 7], [50, 100, 100])
    b = _score("B", 1, nodes, [1, 0, 3], [30, 0, 100])
    combine = {"type": "Combine", "nodes": nodes, "totals": [130, 200, 300], "top": ["n2"]}
    alike = charts.score_table([a, b, combine])
    assert alike["nodes"] == ["n2", "n1", "n3"]
    assert alike["values"]["weighted"] == [[200, 100], [200, 0], [100, 30]]
    assert alike["totals"] == [300, 200, 130]
    order = [2, 0, 1]  # B lists the same nodes in another order
    shuffled = _score(
        "B",
        1,
        [nodes[i] for i in order],
        [b["raw"][i] for i in order],
        [b["normalized"][i] for i in order],
    )
    assert charts.score_table([a, shuffled, combine]) == alike
    # Without Combine's totals, the weighted columns add up.
    assert charts.score_table([a, shuffled])["totals"] == [300, 200, 130]


def test_the_score_step_names_the_highest_raw_node_first_in_order_among_equals():
    ev = _score("A", 1, ["b", "ab", "a", "c"], [3, 9, 9, 1], [0, 0, 0, 0])
    assert "highest raw: ab (9)" in step_text.why(ev, ev["nodes"])


def test_a_tie_of_many_nodes_names_ten_and_counts_the_rest():
    nodes = [make_node(f"node-{i:02d}") for i in range(46)]
    _, events = _run([*nodes, make_pod("p")])
    table = charts.score_table(charts.cycle_events(events, 1))
    why = charts.winner_explanation(table)
    assert len(why["ties"]) == 46
    named = ", ".join(f"node-{i:02d}" for i in range(10))
    assert f": {named} and 36 more; picked node-00: " in why["text"]
    assert "node-10" not in why["text"]


def test_a_pod_no_profile_serves_is_not_queued_not_running():
    """Issue 34 item 3: upstream never queues a pod whose schedulerName no profile has; the
    timeline said 'Running' with no node."""
    from playground.runs.storage.columns import summary_message

    _, events = _run([make_node("n1"), make_pod("a", schedulerName="other")])
    [row] = overview.timeline(events)
    assert row["result"] == charts.NOT_QUEUED and row["node"] is None
    detail = charts.cycle_detail(events, 1)
    assert detail["result"] == "NotQueued"
    assert "never queues a pod no profile serves" in detail["note"]
    stored = {"seq_first": 0, "seq_last": 1, "cycle": 1, "pod": "default/a", "result": ""}
    stored |= {"node": "", "feasible": 0, "evaluated": 0, "message": ""}
    assert summary_message(1, {**stored, "profile": ""})["result"] == "NotQueued"
    assert summary_message(1, {**stored, "profile": "default-scheduler"})["result"] == "Running"


def test_dynamic_resources_no_new_claims_is_said_in_words(mixed):
    """Issue 34 item 7: every failing pod without claims shows upstream's 'no new claims to
    deallocate' from DynamicResources' PostFilter; the step says what that means."""
    _, events = mixed
    steps = charts.steps(_cycle_of(events, "default/huge"))
    dra = next(s for s in steps if s["point"] == "PostFilter" and s["plugin"] == "DynamicResources")
    assert "no new claims to deallocate" in dra["why"]
    assert "this pod has no such claim" in dra["why"]


@pytest.fixture(scope="module")
def sampled() -> list[dict[str, Any]]:
    """150 nodes listed out of name order, some tainted, some too small: the adaptive default
    stops Filter's walk short, so rows are rejected, passed, dropped and not evaluated."""
    nodes = [
        make_node(f"n{i}", cpu="1" if i % 5 == 0 else "4", taints=[TAINT] if i % 7 == 0 else None)
        for i in (*range(75, 150), *range(75))
    ]
    pods = [make_pod(f"p{i}", cpu="2") for i in range(3)] + [make_pod("huge", cpu="64")]
    return _run([*nodes, *pods])[1]


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"size": "20"},
        {"size": "20", "fpage": "3"},
        {"fsort": "name", "size": "30", "fpage": "1"},
        {"fsort": "rejected", "size": "40"},
        {"fq": "N1", "fsort": "name"},
        {"fq": "nothing"},
    ],
    ids=["busiest", "small-pages", "asked-page", "by-name", "rejected-first", "search", "none"],
)
def test_the_filter_page_read_from_columns_is_the_page_of_the_whole_matrix(sampled, query):
    params = paging.PageParams.from_query(query)
    for cycle in (1, 4):
        evs = charts.cycle_events(sampled, cycle)
        lazy = charts.filter_matrix(evs, lazy_rows=True)
        assert isinstance(lazy["rows"], charts.FilterRows)
        whole = charts.filter_matrix(evs)
        assert list(lazy["rows"]) == whole["rows"] and lazy["rows"][-2:] == whole["rows"][-2:]
        assert paging.filter_page(lazy, params) == paging.filter_page(whole, params)
    rows = charts.filter_matrix(charts.cycle_events(sampled, 1))["rows"]
    assert {r["verdict"] for r in rows} == {None, "Success", "UnschedulableAndUnresolvable"}
    assert {r["rejector"] for r in rows} == {None, "NodeResourcesFit", "TaintToleration"}
    assert any(r["dropped"] for r in rows)


def test_the_score_table_ranks_by_total_then_name_and_sums_up_the_rest():
    nodes = ["n2", "n10", "ab", "n1", "a", "n3"]
    a = _score("A", 2, nodes, [5, 7, 7, 1, 7, 0], [50, 100, 100, 10, 100, 0])
    b = _score("B", 1, nodes, [1, 0, 3, 3, 0, 2], [30, 0, 100, 100, 0, 60])
    totals = dict(zip(nodes, (130, 200, 300, 120, 200, 60), strict=True))
    combine = {"type": "Combine", "nodes": nodes, "totals": list(totals.values()), "top": ["ab"]}
    table = charts.score_table([a, b, combine])
    ranked = sorted(nodes, key=lambda n: (-totals[n], n))
    assert table["nodes"] == ranked == ["ab", "a", "n10", "n2", "n1", "n3"]
    assert table["totals"] == [totals[n] for n in ranked]
    at = {n: nodes.index(n) for n in nodes}
    for mode in charts.SCORE_MODES:
        assert table["values"][mode] == [[a[mode][at[n]], b[mode][at[n]]] for n in ranked]
    rest = paging.score_page(table, paging.PageParams.from_query({"top": "2"}))["rest"]
    assert rest == {"count": 4, "mean": [80.0, 47.5], "mean_total": 127.5, "max_total": 200}
