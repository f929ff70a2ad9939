"""Run a conformance case and print its trace (see ../shared/conformance/FORMAT.md).

    python -m scheduler_core.conformance CASE.json
    python -m scheduler_core.conformance loop CASE.json

``trace_case(case)`` does the same in process and returns the trace as a dict; the ``loop`` form
runs a loop case ("Loop cases") through the scheduling loop and prints its outcomes, as
``loop_case(case)`` returns them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.record.cycle_events import (
    cycle_events,
    fold_cycle,
)
from scheduler_core.tools.case import CaseRun
from scheduler_core.tools.loop_case import loop_case

__all__ = ["FORMAT", "loop_case", "main", "trace_case"]

FORMAT = 1


def trace_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """Schedule the case's queue, one cycle per pod in order, and return the trace.

    Each cycle's trace is folded from the events the cycle emitted, so the trace checks the
    same records the playground stores and draws.
    """
    try:
        run = CaseRun(case)
    except SchedulerCoreError as err:
        # The real scheduler refuses to start with this configuration.
        return {"format": FORMAT, "case": case.get("name", ""), "error": str(err)}
    cycles = []
    seq = 0
    for n, (_, rec) in enumerate(run.cycles(), start=1):
        events = cycle_events(rec, cycle=n, time=0.0, seq=seq)
        seq += len(events)
        cycles.append(fold_cycle(events))
    return {"format": FORMAT, "case": case.get("name", ""), "cycles": cycles}


def main(argv: list[str]) -> int:
    args = argv[1:]
    run = trace_case
    if len(args) == 2 and args[0] == "loop":
        run, args = loop_case, args[1:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(args[0]) as f:
        case = json.load(f)
    json.dump(run(case), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
