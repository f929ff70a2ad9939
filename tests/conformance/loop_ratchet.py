"""The loop ratchet: the committed list of loop cases whose outcomes the engine reproduces.

    python tests/conformance/loop_ratchet.py            # what passes now vs. the list
    python tests/conformance/loop_ratchet.py --update   # add newly passing cases to the list

Like the cycle ratchet (ratchet.py), the list only grows: the suite requires every listed case to
keep passing, and --update never removes an entry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ratchet import ROOT, SHARED  # noqa: E402

LOOP_CASES = SHARED / "conformance" / "loop"
LOOP_PASSING = Path(__file__).resolve().parent / "passing_loop.txt"
_HEADER = "# Loop cases that must keep passing (tests/conformance/loop_ratchet.py --update).\n"


def load_run_loop() -> Any:
    """Import the loop corpus' own runner and comparison (shared/conformance/run_loop.py)."""
    sys.path.insert(0, str(SHARED / "conformance"))
    try:
        import run_loop
    finally:
        sys.path.pop(0)
    return run_loop


def loop_cases() -> list[str]:
    """Every loop case with an expected outcome, as paths relative to loop/."""
    return [
        str(p.relative_to(LOOP_CASES))
        for p in sorted(LOOP_CASES.rglob("*.json"))
        if not p.name.endswith(".outcome.json") and p.with_name(p.stem + ".outcome.json").exists()
    ]


def listed_loop_cases() -> list[str]:
    if not LOOP_PASSING.exists():
        return []
    lines = (line.strip() for line in LOOP_PASSING.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def expected_outcome(name: str) -> Any:
    path = LOOP_CASES / name
    return json.loads(path.with_name(path.stem + ".outcome.json").read_text())


def loop_diffs(name: str) -> list[str]:
    """Run one loop case in process; its differences from the expected outcome."""
    from scheduler_core.conformance import loop_case

    try:
        actual = loop_case(json.loads((LOOP_CASES / name).read_text()))
    except Exception as exc:  # a crash is a difference too
        return [f"raised {type(exc).__name__}: {exc}"]
    diffs: list[str] = load_run_loop().diff_outcomes(
        expected_outcome(name), json.loads(json.dumps(actual))
    )
    return diffs


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    cases = loop_cases()
    passing = {c for c in cases if not loop_diffs(c)}
    old = set(listed_loop_cases())
    lost = sorted(old - passing)
    print(
        f"{len(passing)}/{len(cases)} loop cases pass; listed {len(old)}; new {len(passing - old)}"
    )
    for c in lost:
        print(f"REGRESSION {c}")
    if "--update" in argv:
        merged = sorted(old | passing)
        LOOP_PASSING.write_text(_HEADER + "".join(f"{c}\n" for c in merged))
        print(f"wrote {LOOP_PASSING} ({len(merged)} cases)")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
