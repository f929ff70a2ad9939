"""Run a conformance case and print its trace (see ../shared/conformance/FORMAT.md).

    python -m scheduler_core.conformance CASE.json

``trace_case(case)`` does the same in process and returns the trace as a dict.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from scheduler_core.case import CaseRun

FORMAT = 1


def trace_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """Schedule the case's queue, one cycle per pod in order, and return the trace."""
    run = CaseRun(case)
    cycles = [rec.to_dict() for _, rec in run.cycles()]
    return {"format": FORMAT, "case": case.get("name", ""), "cycles": cycles}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        case = json.load(f)
    json.dump(trace_case(case), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
