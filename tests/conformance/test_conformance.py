"""Every case on the ratchet list reproduces the real kube-scheduler's trace exactly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ratchet  # noqa: E402

pytestmark = pytest.mark.skipif(
    not ratchet.CASES.is_dir() and not os.environ.get("CI"),
    reason="the conformance corpus (../shared/conformance/cases) is not beside this checkout",
)


def test_corpus_is_present() -> None:
    """The corpus must be there: in CI a missing corpus is a failure, not a skip."""
    assert ratchet.CASES.is_dir(), f"missing {ratchet.CASES}"
    assert len(ratchet.all_cases()) > 0


def test_ratchet_lists_only_existing_cases() -> None:
    missing = sorted(set(ratchet.listed()) - set(ratchet.all_cases()))
    assert missing == []


def test_ratchet_is_not_empty() -> None:
    assert len(ratchet.listed()) > 0


@pytest.mark.parametrize("case", ratchet.listed())
def test_case_matches_expected_trace(case: str) -> None:
    diffs = ratchet.diff_case(case)
    assert diffs == [], "\n".join(diffs[:20])


def test_cli_prints_the_same_trace_as_in_process() -> None:
    """`python -m scheduler_core.conformance CASE.json` prints the expected trace."""
    case = ratchet.listed()[0]
    path = ratchet.CASES / case
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler_core.conformance", str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ratchet.ROOT,
    )
    expected = json.loads(path.with_name(path.stem + ".trace.json").read_text())
    compare = ratchet.load_compare()
    assert compare.diff_traces(expected, json.loads(proc.stdout)) == []
