"""Preemption's building blocks: Go's sort order, PDB violations and candidate choice."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.framework.preemption import (
    Candidate,
    Evaluator,
    filter_pods_with_pdb_violation,
    more_important_pod,
    sort_by_importance,
)
from scheduler_core.gosort import sort_slice
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)


@pytest.mark.parametrize(
    ("length", "expected_ids"),
    [
        # Outputs of Go's sort.Slice on the same input (published with the pdqsort behaviour):
        # equal elements stay in order up to 12 elements and are shuffled from 13 on. Longer
        # inputs also depend on breakPatterns' xorshift, whose shifts Go 1.24 changed
        # (golang/go#70144); kube-scheduler v1.35 is built with a Go after that change.
        (11, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1]),
        (12, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]),
        (13, [5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, -1]),
    ],
)
def test_sort_slice_matches_go(length: int, expected_ids: list[int]) -> None:
    notes = [(-1, "x")] + [(i, "test") for i in range(length - 1)]
    sort_slice(notes, lambda a, b: a[1] < b[1])
    assert [i for i, _ in notes] == expected_ids


def test_sort_slice_sorts_large_inputs() -> None:
    values = [(i * 7919) % 1000 for i in range(1000)]
    sort_slice(values, lambda a, b: a < b)
    assert values == sorted(values)


def _pod(
    name: str, priority: int = 0, start: str = "", labels: dict[str, str] | None = None
) -> Pod:
    raw: dict[str, Any] = {
        "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
        "spec": {"priority": priority, "containers": [{"name": "c"}]},
    }
    if start:
        raw["status"] = {"startTime": start}
    return Pod(raw)


def test_more_important_pod_orders_by_priority_then_start() -> None:
    assert more_important_pod(_pod("a", 10), _pod("b", 5))
    assert more_important_pod(
        _pod("a", start="2024-01-01T00:00:00Z"), _pod("b", start="2024-02-01T00:00:00Z")
    )
    assert not more_important_pod(
        _pod("a", start="2024-02-01T00:00:00Z"), _pod("b", start="2024-01-01T00:00:00Z")
    )
    # Not started: "now" is read for the first argument first, so it is always earlier.
    assert more_important_pod(_pod("a"), _pod("b")) and more_important_pod(_pod("b"), _pod("a"))


def test_sort_by_importance_puts_higher_priority_first() -> None:
    pods = [_pod("low", 1), _pod("high", 100), _pod("mid", 50)]
    sort_by_importance(pods)
    assert [p.name for p in pods] == ["high", "mid", "low"]


def _pdb(allowed: int, labels: dict[str, str]) -> KubeObject:
    return KubeObject(
        {
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {"selector": {"matchLabels": labels}},
            "status": {"disruptionsAllowed": allowed},
        }
    )


def test_pdb_violations_count_down_the_budget_in_order() -> None:
    pods = [_pod(f"web-{i}", labels={"app": "web"}) for i in range(3)] + [
        _pod("db", labels={"app": "db"})
    ]
    violating, ok = filter_pods_with_pdb_violation(pods, [_pdb(1, {"app": "web"})])
    assert [p.name for p in violating] == ["web-1", "web-2"]
    assert [p.name for p in ok] == ["web-0", "db"]


@pytest.mark.parametrize(
    ("candidates", "chosen"),
    [
        pytest.param(
            [Candidate("a", [_pod("x", 1)], 1), Candidate("b", [_pod("y", 1)], 0)],
            "b",
            id="fewest-pdb-violations",
        ),
        pytest.param(
            [Candidate("a", [_pod("x", 5)]), Candidate("b", [_pod("y", 1)])],
            "b",
            id="lowest-highest-victim-priority",
        ),
        pytest.param(
            [
                Candidate("a", [_pod("x", 5), _pod("x2", 4)]),
                Candidate("b", [_pod("y", 5), _pod("y2", 1)]),
            ],
            "b",
            id="smallest-priority-sum",
        ),
        pytest.param(
            [Candidate("a", [_pod("x", 5), _pod("x2", -3)]), Candidate("b", [_pod("y", 5)])],
            "b",
            id="fewest-victims-after-sum",
        ),
        pytest.param(
            [Candidate("b", [_pod("y", 5)]), Candidate("a", [_pod("x", 5)])],
            "a",
            id="remaining-tie-first-by-name",
        ),
    ],
)
def test_select_candidate(candidates: list[Candidate], chosen: str) -> None:
    best = Evaluator.select_candidate(candidates)
    assert best is not None and best.name == chosen
