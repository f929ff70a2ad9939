"""Node sampling: numFeasibleNodesToFind, the rotating start index and the early-stopping walk."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.sampling import (
    RULE_FEW_NODES,
    RULE_NO_SCORING,
    RULE_PERCENTAGE,
    next_start_index,
    nodes_to_find,
    num_feasible_nodes_to_find,
)
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.events import (
    CycleStart,
    Event,
)
from scheduler_core.tools.case import CaseRun
from tests.builders import make_node, make_pod

TAINT = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]


# Translated from TestNumFeasibleNodesToFind (pkg/scheduler/schedule_one_test.go, v1.35).
@pytest.mark.parametrize(
    ("global_pct", "profile_pct", "num_nodes", "want"),
    [
        pytest.param(None, None, 10, 10, id="unset-under-50-nodes-is-all"),
        pytest.param(None, 40, 10, 10, id="profile-set-under-50-nodes-is-all"),
        pytest.param(None, None, 1000, 420, id="unset-1000-nodes-is-adaptive-42-percent"),
        pytest.param(None, 40, 1000, 400, id="profile-40-of-1000"),
        pytest.param(100, 40, 1000, 400, id="profile-wins-over-global"),
        pytest.param(40, None, 1000, 400, id="global-40-of-1000"),
        pytest.param(None, None, 6000, 300, id="adaptive-floors-at-5-percent"),
        pytest.param(None, 40, 6000, 2400, id="profile-40-of-6000"),
        # Beyond upstream's table: the edges of the rule.
        pytest.param(None, None, 99, 99, id="99-nodes-is-all"),
        pytest.param(50, 0, 1000, 420, id="profile-0-means-adaptive-not-global"),
        pytest.param(10, None, 500, 100, id="at-least-100"),
        pytest.param(None, None, 5000, 500, id="adaptive-10-percent-of-5000"),
        pytest.param(33, None, 1001, 330, id="rounds-down"),
    ],
)
def test_num_feasible_nodes_to_find(
    global_pct: int | None, profile_pct: int | None, num_nodes: int, want: int
) -> None:
    assert num_feasible_nodes_to_find(profile_pct, global_pct, num_nodes) == want


def test_nodes_to_find_explains_where_the_percentage_came_from() -> None:
    adaptive = nodes_to_find(None, 0, 500)
    assert (adaptive.rule, adaptive.source, adaptive.configured) == (RULE_PERCENTAGE, "global", 0)
    assert (adaptive.percentage, adaptive.adaptive, adaptive.count) == (46, True, 230)
    floored = nodes_to_find(10, 100, 500)
    assert (floored.source, floored.percentage, floored.minimum, floored.count) == (
        "profile",
        10,
        True,
        100,
    )
    assert nodes_to_find(None, None, 60).rule == RULE_FEW_NODES


@pytest.mark.parametrize(
    ("start", "processed", "num_all", "want"),
    [(0, 150, 500, 150), (450, 150, 500, 100), (499, 1, 500, 0), (3, 0, 10, 3)],
)
def test_next_start_index_moves_on_by_the_nodes_processed(
    start: int, processed: int, num_all: int, want: int
) -> None:
    assert next_start_index(start, processed, num_all) == want


def _case(
    nodes: list[dict[str, Any]],
    queue: list[dict[str, Any]],
    *,
    global_pct: int | None = None,
    profiles: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": profiles or [{"schedulerName": "default-scheduler"}],
    }
    if global_pct is not None:
        config["percentageOfNodesToScore"] = global_pct
    return {"name": "sampling", "sampling": True, "config": config, "nodes": nodes, "queue": queue}


def _records(case: dict[str, Any]) -> list[CycleRecord]:
    return [rec for _, rec in CaseRun(case).cycles()]


def _nodes(count: int, *, tainted: frozenset[int] | set[int] = frozenset()) -> list[dict[str, Any]]:
    return [make_node(f"n{i:03}", taints=TAINT if i in tainted else None) for i in range(count)]


def test_every_node_gets_its_turn_across_cycles() -> None:
    """Translated from TestFairEvaluationForNodes: the walk starts where the last one stopped."""
    num_all = 500
    nodes_to_find_ = 150  # 30% of 500, which does not divide 500
    pods = [make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(2 * (num_all // 150 + 1))]
    recs = _records(_case(_nodes(num_all), pods, global_pct=30))
    for i, rec in enumerate(recs):
        assert len(rec.feasible) == nodes_to_find_
        assert rec.start_index == i * nodes_to_find_ % num_all
        assert rec.next_start_index == (i + 1) * nodes_to_find_ % num_all
        # The walk passed one node more than it wanted: evaluated, dropped.
        assert len(rec.filter) == nodes_to_find_ + 1


def test_failed_nodes_count_and_the_walk_wraps_around() -> None:
    # 200 nodes, 100 wanted; every other node from 100 on is tainted.
    tainted = set(range(100, 200, 2))
    pods = [make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(2)]
    first, second = _records(_case(_nodes(200, tainted=tainted), pods, global_pct=50))
    assert first.start_index == 0
    # n100 fails, n101 is the 101st pass: evaluated and dropped.
    assert len(first.feasible) == 100 and len(first.filter) == 102
    assert "n101" in first.filter and "n101" not in first.feasible
    assert first.next_start_index == 101  # 100 found + 1 failed
    # From n101: 50 pass and 49 fail up to n199, then n000..n050 wrap round (50 + the extra).
    assert second.start_index == 101
    assert len(second.feasible) == 100
    assert sum(1 for st in second.filter.values() if not st.is_success()) == 49
    assert len(second.filter) == 99 + 51
    assert second.next_start_index == (101 + 100 + 49) % 200


def test_fewer_than_100_nodes_evaluates_every_node_and_still_moves_the_index() -> None:
    pods = [make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(2)]
    first, second = _records(_case(_nodes(60, tainted={3}), pods))
    assert len(first.filter) == 60 and len(first.feasible) == 59
    assert first.sampling is not None and first.sampling.rule == RULE_FEW_NODES
    assert second.start_index == 0  # 59 feasible + 1 failed = 60, modulo 60


def test_profile_without_score_plugins_wants_one_node() -> None:
    profile = {
        "schedulerName": "default-scheduler",
        "plugins": {
            "multiPoint": {"disabled": [{"name": "*"}]},
            "filter": {"enabled": [{"name": "TaintToleration"}]},
            "queueSort": {"enabled": [{"name": "PrioritySort"}]},
            "bind": {"enabled": [{"name": "DefaultBinder"}]},
        },
    }
    pods = [make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(2)]
    first, second = _records(_case(_nodes(300, tainted={0}), pods, profiles=[profile]))
    assert first.sampling is not None and first.sampling.rule == RULE_NO_SCORING
    assert first.feasible == ["n001"]
    assert sorted(first.filter) == ["n000", "n001", "n002"]  # n002 passed: the walk stops
    assert second.start_index == 2 and second.feasible == ["n002"]


def test_one_start_index_serves_every_profile() -> None:
    profiles = [
        {"schedulerName": "default-scheduler", "percentageOfNodesToScore": 50},
        {"schedulerName": "other", "percentageOfNodesToScore": 70},
    ]
    pods = [
        make_pod("a", cpu="1m", memory="1Ki"),
        make_pod("b", cpu="1m", memory="1Ki", schedulerName="other"),
        make_pod("c", cpu="1m", memory="1Ki"),
    ]
    recs = _records(_case(_nodes(300), pods, profiles=profiles))
    assert [r.start_index for r in recs] == [0, 150, (150 + 210) % 300]


def test_pre_filter_rejection_and_a_taken_nominated_node_leave_the_index() -> None:
    nodes = _nodes(300)
    pods = [
        make_pod("first", cpu="1m", memory="1Ki"),
        # NodeAffinity's PreFilter: no node is named "nowhere".
        make_pod(
            "rejected",
            cpu="1m",
            memory="1Ki",
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {
                                        "key": "metadata.name",
                                        "operator": "In",
                                        "values": ["nowhere"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
        ),
        {**make_pod("nominated", cpu="1m", memory="1Ki"), "status": {"nominatedNodeName": "n250"}},
        make_pod("last", cpu="1m", memory="1Ki"),
    ]
    first, rejected, nominated, last = _records(_case(nodes, pods))
    assert first.next_start_index == 144  # 48% of 300 (adaptive: 50 - 300/125)
    assert rejected.start_index == 144 and rejected.filter == {} and rejected.selected is None
    assert nominated.start_index == 144
    assert nominated.feasible == ["n250"] and list(nominated.filter) == ["n250"]
    assert nominated.nominated_node_taken
    assert last.start_index == 144


def test_failed_nominated_node_counts_among_the_processed_nodes() -> None:
    pods = [
        {**make_pod("nominated", cpu="1m", memory="1Ki"), "status": {"nominatedNodeName": "n299"}},
    ]
    (rec,) = _records(_case(_nodes(300, tainted={299}), pods))
    assert not rec.nominated_node_taken
    assert not rec.filter["n299"].is_success()
    assert len(rec.feasible) == 144
    assert rec.next_start_index == 145  # 144 found + the failed nominated node


def test_sampled_walk_matches_a_full_walk_over_the_same_nodes() -> None:
    """Windows sized by the pass rate give the verdicts a node-by-node walk would."""
    tainted = {i for i in range(1000) if i % 10 < 8}  # 20% pass
    pods = [make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(3)]
    full = _records({**_case(_nodes(1000, tainted=tainted), pods), "sampling": False})[0]
    sampled = _records(_case(_nodes(1000, tainted=tainted), pods, global_pct=10))
    wanted = 100
    order = sorted(full.filter)
    for rec in sampled:
        assert rec.start_index is not None
        walk = order[rec.start_index :] + order[: rec.start_index]
        passes = [n for n in walk if full.filter[n].is_success()]
        stop = walk.index(passes[wanted]) + 1
        assert sorted(rec.filter) == sorted(walk[:stop])
        assert sorted(rec.feasible) == sorted(passes[:wanted])


def test_the_scheduler_samples_by_default_and_explains_it_in_cycle_start() -> None:
    events: list[Event] = []
    objects = [*_nodes(500), *(make_pod(f"p{i}", cpu="1m", memory="1Ki") for i in range(2))]
    sched = Scheduler(None, objects, on_event=events.append)
    sched.run_until_idle()
    starts = [e for e in events if isinstance(e, CycleStart)]
    assert len(starts) == 2
    first, second = (s.sampling for s in starts)
    assert first is not None and second is not None
    # percentageOfNodesToScore unset: 50 - 500/125 = 46 %, so 230 of 500 wanted, 231 filtered.
    assert (first["configured"], first["source"], first["adaptive"]) == (0, "global", True)
    assert (first["percentage"], first["to_find"], first["candidates"]) == (46, 230, 500)
    assert (first["start_index"], first["evaluated"], first["next_start_index"]) == (0, 231, 230)
    assert second["start_index"] == 230
