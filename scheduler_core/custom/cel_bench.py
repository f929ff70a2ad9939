"""``python -m scheduler_core.custom.cel_bench [--search SECONDS]``: time per cost unit of CEL.

Not part of the engine (it reads the wall clock): it evaluates a table of expressions, cheap and
costly, compares each time with ``cel_cost``'s bound and prints nanoseconds per unit, the
largest last. With ``--search``, it also generates random expressions (comprehensions over
literals, variables and each other, concatenation, ``in``) for that long, evaluates those the
bound accepts and prints the six with the most nanoseconds per unit: an expression far above
the table's largest would be one the bound underestimates. The budgets in ``cel_cost`` are
stated from these numbers.
"""

from __future__ import annotations

import contextlib
import random
import sys
import time
from typing import Any

import cel

from scheduler_core.custom.cel_cost import CALL_LIMIT, Analysis

_ZEROS = "[" + ",".join(["0"] * 200) + "]"
_NODE: dict[str, Any] = {
    "name": "n1",
    "labels": {f"example.com/k{i}": "v" * 30 for i in range(200)},
    "pods": [
        {"name": f"p{i}", "namespace": "default", "labels": {"app": "web", "tier": "a"}}
        for i in range(110)
    ],
}
_VALUES: dict[str, Any] = {
    "node": _NODE,
    "pod": {"name": "web-0", "labels": {"app": "web"}},
    "scores": list(range(300)),
    "score": 3,
    "state": {"preFilter": "x" * 1000},
}
_NAMES = tuple(_VALUES)
EXPRESSIONS = (
    f"{_ZEROS}.map(x, x + 1).size() > 0",
    f"{_ZEROS}.filter(x, x == 0).size() > 0",
    f"{_ZEROS}.all(x, x == 0)",
    f"{_ZEROS}.map(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).size() > 0",
    "scores.map(x, x + 1).size()",
    "scores.filter(t, t > score).size()",
    "scores.exists(x, scores.exists(y, y == x + 1000))",
    "size(scores.map(x, scores)) + score",
    "node.labels.all(k, node.labels[k] != '')",
    "node.pods.map(p, p.labels).size()",
    "node.pods.filter(p, p.labels.exists(k, k == 'app')).size()",
    "node.pods.all(p, p.labels.all(k, k in node.labels))",
    "size(node.labels) > 3",
    "size(node.pods) < 100",
    "state.preFilter + state.preFilter + state.preFilter == state.preFilter",
    "scores.map(x, state.preFilter).size()",
    "scores.map(x, [x, x, x]).map(y, y + y).size()",
    "state.preFilter.matches('(x|y)+z')",
    "scores.exists(x, x in scores)",
)


def measure(source: str) -> tuple[float, int]:
    """(seconds of one evaluation, the bound in units) of ``source`` over the table's values."""
    analysis = Analysis(source, _NAMES, limit=False)  # costly rows are measured too
    units = analysis.cost(_VALUES)
    program = cel.compile(source)
    variables = analysis.variables(_VALUES)
    runs = 1 if units > 50 * CALL_LIMIT else 3
    best = float("inf")
    for _ in range(runs):  # the least: a busy machine adds pauses, not work
        started = time.perf_counter()
        program.execute(variables)
        best = min(best, time.perf_counter() - started)
    return best, units


_SEARCH_VALUES: dict[str, Any] = {
    "l": list(range(60)),
    "s": "x" * 200,
    "m": {f"k{i}": "v" * 20 for i in range(40)},
    "n": 7,
}


def _collection(rng: random.Random, depth: int, bound: frozenset[str]) -> str:
    items = ",".join(rng.choice(["0", "'ab'", "n"]) for _ in range(rng.choice([3, 10, 30, 60])))
    options = ["l", "m", f"[{items}]"]
    if depth > 0:
        v = rng.choice("xyz")
        inner = bound | {v}
        options += [
            f"{_collection(rng, depth - 1, bound)}.map({v}, {_value(rng, depth - 1, inner)})",
            f"{_collection(rng, depth - 1, bound)}.filter({v}, {_test(rng, depth - 1, inner)})",
            f"({_collection(rng, depth - 1, bound)} + {_collection(rng, depth - 1, bound)})",
        ]
    return rng.choice(options)


def _value(rng: random.Random, depth: int, bound: frozenset[str]) -> str:
    options = ["n", "s", "1", "'q'", *sorted(bound)]
    if depth > 0:
        options += [
            _collection(rng, depth - 1, bound),
            f"({_value(rng, depth - 1, bound)} + {_value(rng, depth - 1, bound)})",
            f"size({_collection(rng, depth - 1, bound)})",
            f"[{_value(rng, depth - 1, bound)}, {_value(rng, depth - 1, bound)}]",
        ]
    return rng.choice(options)


def _test(rng: random.Random, depth: int, bound: frozenset[str]) -> str:
    options = ["true"]
    if depth > 0:
        v = rng.choice("xyz")
        inner = bound | {v}
        options += [
            f"{_value(rng, depth - 1, bound)} == {_value(rng, depth - 1, bound)}",
            f"{_value(rng, depth - 1, bound)} in {_collection(rng, depth - 1, bound)}",
            f"{_collection(rng, depth - 1, bound)}.exists({v}, {_test(rng, depth - 1, inner)})",
            f"{_collection(rng, depth - 1, bound)}.all({v}, {_test(rng, depth - 1, inner)})",
        ]
    return rng.choice(options)


def search(seconds: float, seed: int = 1) -> list[tuple[float, float, int, str]]:
    """(ns per unit, seconds, units, source) of random accepted expressions, worst first."""
    from scheduler_core.custom.cel_parse import CostError

    rng = random.Random(seed)
    rows = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        source = f"size({_collection(rng, rng.randint(1, 4), frozenset())}) >= 0"
        try:
            program = cel.compile(source)
            analysis = Analysis(source, _SEARCH_VALUES, limit=False)
            units = analysis.cost(_SEARCH_VALUES)
        except (CostError, ValueError, RuntimeError):
            continue
        if len(source) > 2000 or units > CALL_LIMIT:
            continue
        variables = analysis.variables(_SEARCH_VALUES)
        best = float("inf")
        for _ in range(5):  # the least of five: a busy machine adds pauses, not work
            started = time.perf_counter()
            with contextlib.suppress(Exception):  # a failing evaluation is measured too
                program.execute(variables)
            best = min(best, time.perf_counter() - started)
        if best >= 0.0005:
            rows.append((best * 1e9 / units, best, units, source))
    return sorted(rows, reverse=True)


def main() -> int:
    rows = [(*measure(source), source) for source in EXPRESSIONS]
    rows.sort(key=lambda r: r[0] * 1e9 / r[1])
    for seconds, units, source in rows:
        print(
            f"{seconds * 1e3:10.2f} ms {units:>12,} units {seconds * 1e9 / units:7.1f} ns/unit  "
            f"{source[:60]}"
        )
    if "--search" in sys.argv:
        seconds = float(sys.argv[sys.argv.index("--search") + 1])
        found = search(seconds)
        print(f"search: {len(found)} accepted expressions taking 0.5 ms or more")
        for per_unit, took, units, source in found[:6]:
            print(
                f"{took * 1e3:10.2f} ms {units:>12,} units {per_unit:7.1f} ns/unit  {source[:60]}"
            )
        rows += [(took, units, source) for _, took, units, source in found[:1]]
    worst = max(rows, key=lambda r: r[0] / r[1])
    print(
        f"largest: {worst[0] * 1e9 / worst[1]:.1f} ns/unit; a call at the limit "
        f"({CALL_LIMIT:,} units) takes at most {worst[0] / worst[1] * CALL_LIMIT * 1e3:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
