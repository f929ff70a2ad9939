"""The conformance ratchet: the committed list of corpus cases the engine reproduces exactly.

    python tests/conformance/ratchet.py            # show what passes now vs. the list
    python tests/conformance/ratchet.py --update   # add newly passing cases to the list

The list only grows: the test suite requires every listed case to keep passing, and --update never
removes an entry (a listed case that fails is a regression to fix, not to delist).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CASES = SHARED / "conformance" / "cases"
PASSING = Path(__file__).resolve().parent / "passing.txt"


def load_compare() -> Any:
    """Import the corpus' own comparison (shared/conformance/compare.py)."""
    sys.path.insert(0, str(SHARED / "conformance"))
    try:
        import compare
    finally:
        sys.path.pop(0)
    return compare


def all_cases() -> list[str]:
    """Every case under the corpus that has an expected trace, as paths relative to cases/."""
    out = []
    for path in sorted(CASES.rglob("*.json")):
        if path.name.endswith(".trace.json"):
            continue
        if path.with_name(path.stem + ".trace.json").exists():
            out.append(str(path.relative_to(CASES)))
    return out


def listed() -> list[str]:
    if not PASSING.exists():
        return []
    return [
        line.strip()
        for line in PASSING.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]


def diff_case(name: str) -> list[str]:
    """Run one case in process and return its differences from the expected trace."""
    from scheduler_core.conformance import trace_case

    compare = load_compare()
    case_path = CASES / name
    expected = json.loads(case_path.with_name(case_path.stem + ".trace.json").read_text())
    try:
        actual = trace_case(json.loads(case_path.read_text()))
    except Exception as exc:  # a crash is a difference too
        return [f"raised {type(exc).__name__}: {exc}"]
    diffs: list[str] = compare.diff_traces(expected, json.loads(json.dumps(actual)))
    return diffs


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    cases = all_cases()
    passing = [c for c in cases if not diff_case(c)]
    old = listed()
    regressions = sorted(set(old) - set(passing))
    new = sorted(set(passing) - set(old))
    print(f"{len(passing)}/{len(cases)} cases pass; listed {len(old)}; new {len(new)}")
    for c in regressions:
        print(f"REGRESSION {c}")
    if "--update" in argv:
        merged = sorted(set(old) | set(passing))
        PASSING.write_text(
            "# Conformance cases that must keep passing (tests/conformance/ratchet.py --update).\n"
            + "".join(f"{c}\n" for c in merged)
        )
        print(f"wrote {PASSING} ({len(merged)} cases)")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
