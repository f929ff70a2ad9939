"""Table tests for the keyed heap and the clocks the queue runs on."""

from __future__ import annotations

import pytest

from scheduler_core.clock import Clock, RealClock, SimulatedClock
from scheduler_core.queue import Heap

Item = tuple[str, int]


def _heap() -> Heap[Item]:
    return Heap(lambda it: it[0], lambda a, b: a[1] < b[1])


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        pytest.param([("a", 3), ("b", 1), ("c", 2)], ["b", "c", "a"], id="by_less"),
        pytest.param(
            [("a", 1), ("b", 1), ("c", 1), ("d", 1)],
            ["a", "b", "c", "d"],
            id="ties_in_insertion_order",
        ),
        pytest.param(
            [("x", 2), ("a", 1), ("y", 2), ("b", 1), ("z", 2)],
            ["a", "b", "x", "y", "z"],
            id="ties_within_levels",
        ),
        pytest.param([], [], id="empty"),
    ],
)
def test_heap_pops_in_order(items: list[Item], expected: list[str]) -> None:
    h = _heap()
    for it in items:
        h.add_or_update(it)
    assert [it[0] for it in h.ordered()] == expected
    popped = []
    while (it := h.pop()) is not None:
        popped.append(it[0])
    assert popped == expected
    assert len(h) == 0 and h.peek() is None


def test_heap_update_keeps_arrival_number_and_resorts() -> None:
    h = _heap()
    for it in [("a", 1), ("b", 1), ("c", 1)]:
        h.add_or_update(it)
    h.add_or_update(("a", 1))  # same key, same rank: still first among equals
    h.add_or_update(("c", 0))
    assert [it[0] for it in h.ordered()] == ["c", "a", "b"]
    assert h.get("c") == ("c", 0) and "c" in h and "z" not in h


def test_heap_delete_anywhere() -> None:
    h = _heap()
    for i, k in enumerate("abcdefg"):
        h.add_or_update((k, i % 3))
    assert h.delete("d") and not h.delete("d")
    assert h.delete("a")
    assert [it[0] for it in h.ordered()] == ["g", "b", "e", "c", "f"]
    assert [h.pop() for _ in range(5)] == [("g", 0), ("b", 1), ("e", 1), ("c", 2), ("f", 2)]


def test_simulated_clock_moves_only_forward() -> None:
    c = SimulatedClock()
    assert c.now() == 0.0
    c.advance(1.5)
    c.set(4.0)
    assert c.now() == 4.0
    with pytest.raises(ValueError):
        c.set(3.0)
    with pytest.raises(ValueError):
        c.advance(-1)
    assert SimulatedClock(10).now() == 10.0
    assert isinstance(c, Clock)


def test_real_clock_is_monotonic() -> None:
    c = RealClock()
    a, b = c.now(), c.now()
    assert b >= a
    assert isinstance(c, Clock)
