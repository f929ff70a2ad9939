"""``python -m scheduler_core.bench --fixed-cost``: a small synthetic cluster, the same each run."""

from __future__ import annotations

import json

import pytest

from scheduler_core import bench
from scheduler_core.features import TRACE_FEATURES, Features


def test_fixed_cost_case_is_deterministic_and_small() -> None:
    case = bench.fixed_cost_case(20)
    assert case == bench.fixed_cost_case(20)
    assert len(case["nodes"]) == bench.FIXED_COST_NODES
    assert len(case["queue"]) == 20


def test_fixed_cost_prints_the_time_per_cycle(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--fixed-cost", "30"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["nodes"] == bench.FIXED_COST_NODES
    assert out["pods"] == out["scheduled"] == 30
    assert out["microsecondsPerCycle"] > 0


def test_a_case_or_fixed_cost_not_both() -> None:
    with pytest.raises(SystemExit):
        bench.main([])
    with pytest.raises(SystemExit):
        bench.main(["x.json", "--fixed-cost"])


def _one_pod_a_node(pods: int, nodes: int) -> dict:
    """Nodes of 4 CPUs and pods of 3: each node takes one pod, so the node a pod took is full
    for the next, identical pod."""
    case = bench.fixed_cost_case(pods, nodes)
    for pod in case["queue"]:
        amounts = {"cpu": "3", "memory": "500Mi"}
        pod["spec"]["containers"][0]["resources"] = {"requests": amounts, "limits": amounts}
    return case


def test_the_loop_counts_pods_that_took_a_batchs_hint() -> None:
    """Under v1.35's gates, an identical pod whose predecessor's node is now full takes the next
    node of the predecessor's ranking: every pod after the first, once PodTopologySpread's
    system defaults (which cannot sign a pod) are off. Under the trace gates, none."""
    case = bench.spread_as_listed(_one_pod_a_node(5, 6))
    batched = bench.run_loop(case, Features())
    assert batched.cycles == 5 and batched.batched == 4
    assert sorted(batched.placements.values()) == sorted(set(batched.placements.values()))
    assert bench.run_loop(case, TRACE_FEATURES).batched == 0
    # With the system defaults, the default profile cannot sign: no batch.
    assert bench.run_loop(_one_pod_a_node(5, 6), Features()).batched == 0


def test_loop_mode_prints_its_gates_and_the_batched_count(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(_one_pod_a_node(4, 5)))
    assert bench.main([str(path), "--loop", "v1.35", "--spread-list"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert (out["loop"], out["spreadList"], out["cycles"], out["batched"]) == ("v1.35", True, 4, 3)
    assert out["pods"] == out["scheduled"] == 4
