"""The score-weight check of NewFramework, including upstream's int64 wrap on negative weights."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.config import load_config
from scheduler_core.framework.interfaces import MAX_TOTAL_SCORE
from scheduler_core.framework.runtime import Framework, ScoreWeightOverflowError
from scheduler_core.framework.score_weights import first_overflow, int64
from scheduler_core.plugins import in_tree_registry


def _framework(score: list[dict[str, Any]], multi_point: list[dict[str, Any]] | None = None):
    plugins: dict[str, Any] = {"score": {"enabled": score}}
    if multi_point is not None:
        plugins["multiPoint"] = {"enabled": multi_point}
    config = load_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
        }
    )
    return Framework(config.profiles[0], in_tree_registry())


def test_int64_wraps_like_go() -> None:
    assert int64(MAX_TOTAL_SCORE + 1) == -(2**63)
    assert int64(MAX_TOTAL_SCORE - (-300)) == -(2**63) + 299
    assert int64(-5) == -5


@pytest.mark.parametrize(
    ("weights", "refused"),
    [
        pytest.param([("A", 1), ("B", 2)], None, id="positive-weights-pass"),
        pytest.param([("A", 1), ("B", -1)], None, id="negative-last-passes"),
        pytest.param([("A", 5), ("B", -1), ("C", 3)], None, id="total-stays-positive-passes"),
        pytest.param([("A", -1), ("B", 1)], "B", id="negative-first-wraps-the-next"),
        pytest.param([("A", 1), ("B", -3), ("C", 1)], "C", id="total-below-zero-wraps-the-next"),
        pytest.param([("A", -1)], None, id="lone-negative-passes"),
        pytest.param([("A", 0), ("B", -1), ("C", 1)], None, id="zero-counts-as-one"),
    ],
)
def test_first_overflow_follows_order(weights: list[tuple[str, int]], refused: str | None) -> None:
    found = first_overflow(weights)
    assert (found.plugin if found else None) == refused


def test_overflow_reports_running_total_and_wrapped_headroom() -> None:
    found = first_overflow([("A", 2), ("B", -5), ("C", 7)])
    assert found is not None
    assert (found.plugin, found.weight, found.running_total) == ("C", 7, -300)
    assert found.headroom == -(2**63) + 299
    assert found.wrapped


def test_framework_refuses_negative_weight_before_another_score_plugin() -> None:
    with pytest.raises(
        ScoreWeightOverflowError, match="total score of Score plugins could overflow"
    ):
        _framework(
            [{"name": "TaintToleration", "weight": -2}, {"name": "NodeAffinity", "weight": 5}]
        )


def test_framework_accepts_the_same_weights_in_the_other_order() -> None:
    """The default multiPoint plugins come after the score list, so the total must stay >= 0."""
    fwk = _framework(
        [{"name": "NodeAffinity", "weight": 5}, {"name": "TaintToleration", "weight": -2}]
    )
    assert fwk.score_weights["NodeAffinity"] == 5
    assert fwk.score_weights["TaintToleration"] == -2


def test_negative_weight_refused_by_the_default_multi_point_plugins_after_it() -> None:
    with pytest.raises(ScoreWeightOverflowError) as err:
        _framework([{"name": "TaintToleration", "weight": -1}])
    assert err.value.overflow.running_total == -100
