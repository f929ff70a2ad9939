"""``python -m scheduler_core.plugins.cel_bench``: time per cost unit of custom CEL expressions.

Not part of the engine (it reads the wall clock): it evaluates a table of expressions, cheap and
costly, compares each time with ``cel_cost``'s bound and prints nanoseconds per unit, the
largest last. The budgets in ``cel_cost`` are stated from this number.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import cel

from scheduler_core.plugins.cel_cost import CALL_LIMIT, Analysis

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
    runs = 1 if units > 50 * CALL_LIMIT else 5
    started = time.perf_counter()
    for _ in range(runs):
        program.execute(variables)
    return (time.perf_counter() - started) / runs, units


def main() -> int:
    rows = [(*measure(source), source) for source in EXPRESSIONS]
    rows.sort(key=lambda r: r[0] * 1e9 / r[1])
    for seconds, units, source in rows:
        print(
            f"{seconds * 1e3:10.2f} ms {units:>12,} units {seconds * 1e9 / units:7.1f} ns/unit  "
            f"{source[:60]}"
        )
    worst = rows[-1]
    print(
        f"largest: {worst[0] * 1e9 / worst[1]:.1f} ns/unit; a call at the limit "
        f"({CALL_LIMIT:,} units) takes at most {worst[0] / worst[1] * CALL_LIMIT * 1e3:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
