"""The large workloads place every pod where the real kube-scheduler v1.35 placed it.

No timing is asserted here (speed is measured by `python -m scheduler_core.bench`); this only
guards the decisions of the fast paths on 500 to 5,000 nodes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from scheduler_core.bench import run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ratchet import SHARED  # noqa: E402

BENCH = SHARED / "bench"
WORKLOADS = ["basic-500n-1000p", "basic-5000n-1000p", "affinity-5000n-1000p", "mixed-2000n-1000p"]


@pytest.mark.skipif(
    not BENCH.is_dir() and not os.environ.get("CI"), reason="../shared/bench is not here"
)
@pytest.mark.parametrize("name", WORKLOADS)
def test_workload_placements_match_the_real_scheduler(name: str) -> None:
    case = json.loads((BENCH / f"{name}.json").read_text())
    expected = json.loads((BENCH / f"{name}.placements.json").read_text())
    placements, _, _ = run(case)
    wrong = {k: (v, placements.get(k)) for k, v in expected.items() if placements.get(k) != v}
    assert len(placements) == len(expected)
    assert wrong == {}
