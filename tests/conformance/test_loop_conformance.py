"""Every loop case on the loop ratchet list reproduces the real kube-scheduler loop's outcomes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loop_ratchet  # noqa: E402

pytestmark = pytest.mark.skipif(
    not loop_ratchet.LOOP_CASES.is_dir() and not os.environ.get("CI"),
    reason="the loop corpus (../shared/conformance/loop) is not beside this checkout",
)


def test_loop_ratchet_lists_only_existing_cases() -> None:
    assert loop_ratchet.LOOP_CASES.is_dir(), f"missing {loop_ratchet.LOOP_CASES}"
    listed = loop_ratchet.listed_loop_cases()
    assert listed, "the loop ratchet is empty"
    assert sorted(set(listed) - set(loop_ratchet.loop_cases())) == []


@pytest.mark.parametrize("case", loop_ratchet.listed_loop_cases())
def test_loop_case_matches_expected_outcome(case: str) -> None:
    diffs = loop_ratchet.loop_diffs(case)
    assert diffs == [], "\n".join(diffs[:20])


def test_loop_cli_prints_the_expected_outcome() -> None:
    """`python -m scheduler_core.conformance loop CASE.json` prints the expected outcome."""
    case = loop_ratchet.listed_loop_cases()[0]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "scheduler_core.conformance",
            "loop",
            str(loop_ratchet.LOOP_CASES / case),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=loop_ratchet.ROOT,
    )
    diff = loop_ratchet.load_run_loop().diff_outcomes(
        loop_ratchet.expected_outcome(case), json.loads(proc.stdout)
    )
    assert diff == []


def test_a_wrong_outcome_is_a_difference() -> None:
    """The comparison the ratchet relies on sees a changed placement."""
    case = loop_ratchet.listed_loop_cases()[0]
    expected = loop_ratchet.expected_outcome(case)
    changed = json.loads(json.dumps(expected))
    pods = changed["outcomes"][0]["pods"]
    key = sorted(pods)[0]
    pods[key] = {"state": "pending"} if pods[key].get("state") != "pending" else {"state": "bound"}
    assert loop_ratchet.load_run_loop().diff_outcomes(expected, changed) != []
