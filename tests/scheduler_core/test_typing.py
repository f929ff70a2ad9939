"""The engine type-checks: mypy (strict for scheduler_core, per pyproject.toml) reports nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_scheduler_core_passes_mypy_strict(tmp_path: Path) -> None:
    # A private cache keeps the run independent of other mypy runs in the same tree.
    cmd = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")]
    out = subprocess.run(
        [*cmd, "scheduler_core"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, f"mypy found errors:\n{out.stdout}{out.stderr}"
