"""The cost bound of custom CEL plugins: what compiles, what is refused, and the budgets."""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_node, make_pod

from scheduler_core.custom.cel_cost import (
    CALL_LIMIT,
    CYCLE_BUDGET,
    RUN_BUDGET,
    Analysis,
    estimate,
    shape_of,
)
from scheduler_core.custom.cel_parse import CostError, parse
from scheduler_core.custom.examples import EXAMPLES
from scheduler_core.custom.plugin import (
    CelPluginError,
    CustomPluginSpec,
    Meter,
    compile_spec,
    registry_of,
)
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry

ZEROS = "[" + ",".join(["0"] * 301) + "]"
LITERAL_ATTACK = f"size(pod.name) >= 0 && {ZEROS}.map(x, {ZEROS}).size() > 0"
QUADRATIC_NORMALIZE = "size(scores.map(s, scores)) + score"


def _problem(point: str, source: str) -> str | None:
    normalize = "expression" if point == "normalizeScore" else "none"
    try:
        compile_spec(CustomPluginSpec("P", {point: source}, normalize=normalize))
    except CelPluginError as err:
        return err.errors[0]
    return None


def test_the_literal_list_attack_is_refused_at_compile_time() -> None:
    assert len(LITERAL_ATTACK) == 1249
    problem = _problem("filter", LITERAL_ATTACK) or ""
    at = LITERAL_ATTACK.index(".map(") + 2  # the column of "map": the costly comprehension
    assert problem.startswith(f"P filter: at 1:{at}: cost limit: ")
    assert "units per evaluation even with empty variables (limit 200,000)" in problem


def test_the_quadratic_normalize_is_refused_at_compile_time() -> None:
    problem = _problem("normalizeScore", QUADRATIC_NORMALIZE) or ""
    assert problem.startswith("P normalizeScore: at 1:13: cost limit: ")  # scores.map
    assert "units per evaluation on a 100-node cluster (limit 200,000)" in problem


@pytest.mark.parametrize(
    ("point", "source", "problem"),
    [
        pytest.param("filter", "true", None, id="literal"),
        pytest.param("score", '"l" in node.labels ? int(node.labels["l"]) : 0', None, id="label"),
        pytest.param("filter", "node.labels.all(k, k != '')", None, id="one-comprehension"),
        pytest.param("filter", "node.labels.map(a, [1].map(b, b)).size() > 0", None, id="nested"),
        pytest.param("filter", "size(node.pods) < 100", None, id="pods"),
        pytest.param("normalizeScore", "max - score", None, id="normalize-linear"),
        pytest.param("normalizeScore", "scores.filter(s, s > score).size()", None, id="filter"),
        pytest.param("queueSort", "a.priority > b.priority", None, id="queue-sort"),
        pytest.param("filter", "type(pod.name) == string", None, id="type-names"),
        pytest.param("filter", "[1, 2,].exists_one(x, x > 1) && has(pod.labels.a)", None, id="odd"),
        pytest.param("filter", "node.name.matches('^n[0-9]+$')", None, id="short-pattern"),
        pytest.param(
            "filter", "[1, 2, 3].exists(x, [4, 5].exists(y, x == y))", None, id="small-literals"
        ),
        pytest.param("filter", "x" * 2001, "longer than 2000", id="too-long"),
        pytest.param("filter", ZEROS + ".map(x, " + ZEROS + ").size() > 0", "empty", id="literal"),
        pytest.param(
            "filter",
            "node.pods.all(p, p.labels.all(k, k in node.labels))",
            "100-node cluster",
            id="pods-times-labels",
        ),
        pytest.param(
            "normalizeScore",
            "scores.map(s, scores.map(t, t)).size()",
            "100-node cluster",
            id="comprehension-over-comprehension",
        ),
        pytest.param(
            "filter",
            "[" + ",".join(['"' + "x" * 60 + '"'] * 25) + "].map(s, s + s + s + s).map("
            "t, [t, t, t, t, t, t, t, t].map(u, u + t)).size() > 0",
            "empty variables",
            id="string-growth",
        ),
        pytest.param("score", "foo(1)", "function foo() is not supported", id="unknown-function"),
        pytest.param("score", "x + 1", "unknown variable 'x'", id="unknown-variable"),
        pytest.param("filter", "Foo{a: 1}", "message construction", id="message"),
        pytest.param("filter", "node.name.matches('a{1000}')", "repeats at most", id="pattern"),
        pytest.param("filter", "node.name.matches(pod.name)", "string literal", id="dyn-pattern"),
        pytest.param(
            "filter", r"node.name.matches('\\w{20}')", "even with empty", id="unicode-class"
        ),
        pytest.param("filter", "node.name.matches('a{2,1000}')", "at most 20", id="upper-bound"),
        pytest.param("filter", "1 + " * 200 + "1 > 0", "operations deep", id="long-chain"),
    ],
)
def test_compile_time_table(point: str, source: str, problem: str | None) -> None:
    found = _problem(point, source)
    assert (problem in (found or "")) if problem else found is None, found


def test_shipped_examples_compile() -> None:
    for spec in EXAMPLES:
        compile_spec(spec)


def test_a_map_of_a_variable_to_itself_grows_with_the_cube_of_its_size() -> None:
    tree = parse("l.map(x, l).size() > 0")
    small = estimate(tree, "", {"l": shape_of(list(range(10)))})
    big = estimate(tree, "", {"l": shape_of(list(range(100)))})
    # |l| lists of |l|, and the accumulator copied at each of the |l| steps.
    assert 500 * small < big < 1000 * small


def test_map_of_a_map_result_knows_its_inner_lists() -> None:
    source = "l.map(x, [x, x]).map(y, y + y).size()"
    result = Analysis(source, ["l"]).cost({"l": list(range(50))})
    assert result > estimate(parse("l.map(x, x).size()"), "", {"l": shape_of(list(range(50)))})


def test_unsupported_syntax_is_a_cost_error_with_its_offset() -> None:
    with pytest.raises(CostError) as err:
        parse("a.?b")
    assert err.value.offset == 2


def _config(name: str, point: str = "multiPoint") -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {point: {"enabled": [{"name": name}]}},
            }
        ],
    }


def test_a_call_over_the_limit_at_evaluation_is_an_error_and_is_not_made() -> None:
    spec = CustomPluginSpec("Wide", {"filter": "node.labels.all(k, node.labels[k] != '')"})
    labels = {f"example.com/k{i}": "v" for i in range(300)}
    meter = Meter()
    sched = Scheduler(
        _config("Wide"),
        [make_node("n1", labels=labels), make_pod("p")],
        registry=in_tree_registry().merged(registry_of([spec], meter)),
    )
    sched.run_until_idle(max_cycles=1)
    message = sched.outcomes["default/p"].message or ""
    assert "custom plugin Wide filter expression: cost limit exceeded" in message
    assert meter.spent == 0


def test_the_cycle_budget_stops_a_cycle_of_many_affordable_calls() -> None:
    # Each call fits the limit, but 120 nodes' calls do not fit one cycle's budget.
    source = "pod.name != '' && " + ZEROS + ".map(x, x).size() < 0"  # rejects: all nodes
    spec = CustomPluginSpec("Busy", {"filter": source})
    meter = Meter()
    nodes = [make_node(f"n{i}") for i in range(120)]
    sched = Scheduler(
        _config("Busy"),
        [*nodes, make_pod("p")],
        registry=in_tree_registry().merged(registry_of([spec], meter)),
    )
    sched.run_until_idle(max_cycles=1)
    message = sched.outcomes["default/p"].message or ""
    assert f"the cycle's cost budget ({CYCLE_BUDGET:,} units) is spent" in message
    assert 0 < meter.spent <= CYCLE_BUDGET


def test_the_run_budget_stops_later_cycles() -> None:
    spec = CustomPluginSpec("Busy", {"filter": "pod.name != '' && " + ZEROS + ".all(x, x == 0)"})
    meter = Meter(spent=RUN_BUDGET - CALL_LIMIT)
    sched = Scheduler(
        _config("Busy"),
        [make_node("n1"), *(make_pod(f"p{i}") for i in range(60))],
        registry=in_tree_registry().merged(registry_of([spec], meter)),
    )
    sched.run_until_idle(max_cycles=70)
    messages = {o.message for o in sched.outcomes.values() if o.node is None}
    assert any(
        f"the run's cost budget ({RUN_BUDGET:,} units) is spent" in (m or "") for m in messages
    )
    assert meter.spent <= RUN_BUDGET


class _Stop(BaseException):
    pass


def test_the_checkpoint_runs_before_each_evaluation_and_may_stop_the_engine() -> None:
    calls: list[int] = []

    def checkpoint() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise _Stop

    spec = CustomPluginSpec("Note", {"filter": "pod.name != node.name"})
    meter = Meter(checkpoint=checkpoint)
    nodes = [make_node(f"n{i}") for i in range(5)]
    sched = Scheduler(
        _config("Note"),
        [*nodes, make_pod("p")],
        registry=in_tree_registry().merged(registry_of([spec], meter)),
    )
    with pytest.raises(_Stop):
        sched.run_until_idle(max_cycles=1)
    assert len(calls) == 3


def test_a_node_is_measured_again_once_pods_were_added_to_it() -> None:
    spec = CustomPluginSpec("Pods", {"filter": "node.pods.all(p, p.name != '')"})
    sched = Scheduler(
        _config("Pods"),
        [make_node("n1"), *(make_pod(f"p{i}") for i in range(3))],
        registry=in_tree_registry().merged(registry_of([spec])),
    )
    sched.run_until_idle(max_cycles=10)
    plugin = sched.frameworks["default-scheduler"].plugins["Pods"]
    info, generation, node, value, shape = plugin._nodes[("filter", "n1")]
    assert node is info.node
    assert [p["name"] for p in value["pods"]] == ["p0", "p1"]  # the third pod's cycle saw two
    assert generation == info.generation - 1 and shape.field("pods").n == 2


def test_dra_selectors_are_bounded_at_compile_time_and_before_each_call() -> None:
    from scheduler_core.dra.cel_env import CelError, compile_selector
    from scheduler_core.dra.types import Attribute, Device

    attack = compile_selector(f"{ZEROS}.map(x, {ZEROS}).size() > 0")
    assert attack.error is not None and "even with empty variables" in attack.error
    fine = 'device.capacity["g.example.com"].memory.compareTo(quantity("10Gi")) >= 0'
    assert compile_selector(fine).error is None
    pairs = compile_selector(
        'device.attributes["a.example.com"].all(k, '
        'device.attributes["a.example.com"].all(j, j != k || true))'
    )
    assert pairs.error is None  # 8 attributes per domain on the reference device
    small = Device("d", (("a.example.com/x", Attribute("string", "v")),), ())
    assert pairs.matches("drv", small) is True
    wide = Device(
        "d", tuple((f"a.example.com/k{i}", Attribute("string", "v")) for i in range(500)), ()
    )
    with pytest.raises(CelError, match=r"cost limit exceeded \("):
        pairs.matches("drv", wide)


def test_a_node_whose_labels_changed_is_read_again() -> None:
    from scheduler_core.record.events import Score

    spec = CustomPluginSpec("Lbl", {"score": 'size(pod.name) + ("l" in node.labels ? 50 : 0)'})
    events: list[Any] = []
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Lbl"}]},
                    "score": {"disabled": [{"name": "*"}], "enabled": [{"name": "Lbl"}]},
                },
            }
        ],
    }
    sched = Scheduler(
        config,
        [make_node("n1"), make_node("n2"), make_pod("a")],
        on_event=events.append,
        registry=in_tree_registry().merged(registry_of([spec])),
    )
    sched.run_until_idle(max_cycles=1)
    sched.set_node_labels("n1", {"l": "yes"})
    sched.add_pod(make_pod("b"))
    sched.run_until_idle(max_cycles=1)
    scores = [dict(zip(e.nodes, e.raw, strict=True)) for e in events if isinstance(e, Score)]
    assert scores == [{"n1": 1, "n2": 1}, {"n1": 51, "n2": 1}]
