"""Explain a decision, or check every explanation against the engine.

    python -m scheduler_core.explain CASE.json --cycle N --node X [--plugin P] [--json]
    python -m scheduler_core.explain --check DIR [--exclude SUBDIR ...] [-v]

The check prints one line per difference (with -v, also the skipped cases) and ends with
``explain: N reproduced, M differ``; it exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.explain.api import at_cycle, explain_node
from scheduler_core.explain.check import case_files, check_paths


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core.explain")
    parser.add_argument("case", nargs="?", help="a case file (conformance/FORMAT.md)")
    parser.add_argument("--cycle", type=int, help="the cycle, from 1")
    parser.add_argument("--node")
    parser.add_argument("--plugin")
    parser.add_argument("--json", action="store_true", help="print the explanations as JSON")
    parser.add_argument("--check", metavar="DIR", help="check every case under DIR")
    parser.add_argument("--exclude", action="append", default=[], metavar="SUBDIR")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        return _check(Path(args.check), args.exclude, args.verbose)
    if not args.case or args.cycle is None or not args.node:
        parser.error("give CASE.json --cycle N --node X, or --check DIR")
    case = json.loads(Path(args.case).read_text())
    try:
        found = at_cycle(case, args.cycle, lambda ctx: explain_node(ctx, args.node, args.plugin))
    except SchedulerCoreError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(found, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for ex in found:
        where = " ".join(str(x) for x in (ex["point"], ex["plugin"]) if x)
        print(f"[{where}] {ex['text']}")
        if ex["formula"]:
            print(f"    {ex['formula']}")
    return 0


def _check(root: Path, exclude: list[str], verbose: bool) -> int:
    started = time.perf_counter()
    result = check_paths(case_files(root, exclude), root)
    for line in result.differ:
        print(line)
    if verbose:
        for name in result.skipped:
            print(f"skipped (the engine does not reproduce its trace): {name}")
    points = sorted({f"{p} {pl}".strip() for p, pl in result.covered})
    print(f"covered: {', '.join(points)}")
    print(
        f"{result.cases} cases checked, {len(result.skipped)} skipped, "
        f"{time.perf_counter() - started:.1f}s"
    )
    print(f"explain: {result.reproduced} reproduced, {len(result.differ)} differ")
    return 1 if result.differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
