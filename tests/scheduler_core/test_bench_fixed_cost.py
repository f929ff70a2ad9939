"""``python -m scheduler_core.bench --fixed-cost``: a small synthetic cluster, the same each run."""

from __future__ import annotations

import json

import pytest

from scheduler_core import bench


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
