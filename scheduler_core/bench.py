"""Schedule a large case and print how fast: ``python -m scheduler_core.bench CASE.json``.

    python -m scheduler_core.bench CASE.json [--placements OUT.json] [--check EXPECTED.json]
                                             [--percentage P]

Takes the same decisions as the conformance path (scheduler_core.tools.case): every node evaluated,
unless ``--percentage`` turns node sampling on with that global percentageOfNodesToScore (0: the
adaptive default of a real scheduler, 50 - nodes/125 at least 5). Prints one JSON line last:
nodes, pods, scheduled, seconds, podsPerSecond, peakMemoryMiB (and mismatches with --check).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

from scheduler_core.tools.case import CaseRun


def run(case: dict[str, Any]) -> tuple[dict[str, str | None], float, CaseRun]:
    start = time.perf_counter()
    cpu_start = time.process_time()
    cr = CaseRun(case)
    placements: dict[str, str | None] = {}
    for pod, rec in cr.cycles():
        placements[pod.key] = rec.selected
    cr.cpu_seconds = time.process_time() - cpu_start
    return placements, time.perf_counter() - start, cr


def with_sampling(case: dict[str, Any], percentage: int) -> dict[str, Any]:
    """The case with node sampling on and the global percentageOfNodesToScore set."""
    config = dict(
        case.get("config")
        or {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    )
    config["percentageOfNodesToScore"] = percentage
    return {**case, "config": config, "sampling": True}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case")
    parser.add_argument("--placements", help="write {namespace/pod: node or null} here")
    parser.add_argument("--check", help="compare with these expected placements")
    parser.add_argument(
        "--percentage",
        type=int,
        help="sample nodes with this global percentageOfNodesToScore (0 = adaptive)",
    )
    args = parser.parse_args(argv)
    with open(args.case) as f:
        case = json.load(f)
    if args.percentage is not None:
        case = with_sampling(case, args.percentage)
    placements, seconds, cr = run(case)
    if args.placements:
        with open(args.placements, "w") as f:
            json.dump(placements, f, indent=1, sort_keys=True)
    out: dict[str, Any] = {
        "case": case.get("name", args.case),
        "percentage": args.percentage,
        "nodes": len(case.get("nodes") or ()),
        "pods": len(placements),
        "scheduled": sum(1 for v in placements.values() if v is not None),
        "seconds": round(seconds, 3),
        "podsPerSecond": round(len(placements) / seconds, 1) if seconds > 0 else None,
        # CPU time of this process: steadier than wall time on a machine doing other work.
        "cpuSeconds": round(cr.cpu_seconds, 3),
        "peakMemoryMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    status = 0
    if args.check:
        with open(args.check) as f:
            expected = json.load(f)
        wrong = sorted(k for k in expected if placements.get(k, "<missing>") != expected[k])
        out["mismatches"] = len(wrong)
        for k in wrong[:10]:
            print(f"mismatch {k}: expected {expected[k]}, got {placements.get(k)}", file=sys.stderr)
        status = 1 if wrong else 0
    print(json.dumps(out))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
