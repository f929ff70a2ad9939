"""Feature gates: v1.35's defaults, the traces' set, and reading a featureGates mapping."""

from __future__ import annotations

import pytest

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.features import TRACE_FEATURES, V1_35_DEFAULTS, Features


def test_v1_35_defaults_turn_on_the_beta_gates_and_leave_gang_scheduling_off() -> None:
    gates = V1_35_DEFAULTS.to_gates()
    assert gates == {
        "SchedulerAsyncPreemption": True,
        "OpportunisticBatching": True,
        "SchedulerPopFromBackoffQ": True,
        "NominatedNodeNameForExpectation": True,
        "ClearingNominatedNodeNameAfterBinding": True,
        "SchedulerAsyncAPICalls": False,
        "GenericWorkload": False,
        "GangScheduling": False,
    }


def test_trace_features_turn_off_async_preemption_and_batching_only() -> None:
    changed = {k for k, v in TRACE_FEATURES.to_gates().items() if V1_35_DEFAULTS.to_gates()[k] != v}
    assert changed == {"SchedulerAsyncPreemption", "OpportunisticBatching"}


def test_from_gates_sets_the_named_gates_over_the_defaults() -> None:
    features = Features.from_gates({"GangScheduling": True, "GenericWorkload": True})
    assert features.gang_scheduling and features.generic_workload
    assert features.scheduler_async_preemption


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ({"NoSuchGate": True}, "featureGates.NoSuchGate: unknown feature gate"),
        ({"GangScheduling": "yes"}, "featureGates.GangScheduling: must be true or false"),
    ],
    ids=["unknown-name", "not-a-boolean"],
)
def test_from_gates_names_the_bad_field(gates: dict[str, object], message: str) -> None:
    with pytest.raises(SchedulerCoreError, match=message):
        Features.from_gates(gates)


def test_loop_case_with_an_unknown_gate_is_an_error_naming_it() -> None:
    from scheduler_core.tools.loop_case import loop_case

    out = loop_case({"name": "x", "featureGates": {"Nope": True}, "nodes": [], "queue": []})
    assert out["error"] == "featureGates.Nope: unknown feature gate"


def test_the_trace_mode_runs_under_the_trace_gates_and_a_case_may_set_more() -> None:
    from scheduler_core.tools.case import CaseRun

    plain = CaseRun({"name": "t", "nodes": [], "queue": []})
    assert plain.features == TRACE_FEATURES
    gang = CaseRun({"name": "t", "featureGates": {"GangScheduling": True}})
    assert gang.features.gang_scheduling and not gang.features.scheduler_async_preemption
    enabled = [p.name for p in gang.config.profiles[0].plugins.multi_point.enabled]
    assert enabled[-1] == "GangScheduling"
