"""Schedule a large case and print how fast: ``python -m scheduler_core.bench CASE.json``.

    python -m scheduler_core.bench CASE.json [--placements OUT.json] [--check EXPECTED.json]
                                             [--percentage P] [--loop trace|v1.35]
                                             [--spread-list]
    python -m scheduler_core.bench --fixed-cost [N]

Takes the same decisions as the conformance path (scheduler_core.tools.case): every node evaluated,
unless ``--percentage`` turns node sampling on with that global percentageOfNodesToScore (0: the
adaptive default of a real scheduler, 50 - nodes/125 at least 5). Prints one JSON line last:
nodes, pods, scheduled, seconds, podsPerSecond, peakMemoryMiB (and mismatches with --check).

``--loop trace|v1.35`` schedules with the scheduling loop instead (the queue pops by priority
and queue time, backoff, the binding cycle; events not built) under the trace conventions' gates
or v1.35's defaults (asynchronous preemption, opportunistic batching), and adds ``cycles`` and
``batched``: the pods that took a batch's hint, the next node of the previous pod's ranking
(only an identical pod whose predecessor's node is now full does). ``--spread-list`` sets
PodTopologySpread's ``defaultingType: List`` in every profile: with the system defaults no
profile can sign a pod, so none batches. The loop's order is not the case's, so ``--check``
against a placements file made cycle by cycle compares different orders.

``--fixed-cost`` schedules N pods (default 1000) on a synthetic cluster of 50 nodes instead, where
the per-node work is small and a cycle's fixed cost (snapshot, the points' plugin calls, the
cycle record) dominates, and adds the time per cycle, microsecondsPerCycle.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import dataclass
from typing import Any

from scheduler_core.features import TRACE_FEATURES, Features
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.objects.api import Pod
from scheduler_core.tools.case import CaseRun, case_objects


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


def spread_as_listed(case: dict[str, Any]) -> dict[str, Any]:
    """The case with PodTopologySpread's ``defaultingType: List`` (no system default
    constraints) in every profile: the profiles that opportunistic batching can sign for."""
    config = dict(
        case.get("config")
        or {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    )
    args = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "PodTopologySpreadArgs",
        "defaultingType": "List",
    }
    profiles = []
    for profile in config.get("profiles") or [{"schedulerName": "default-scheduler"}]:
        others = [
            c for c in profile.get("pluginConfig") or () if c.get("name") != "PodTopologySpread"
        ]
        profiles.append(
            {**profile, "pluginConfig": [*others, {"name": "PodTopologySpread", "args": args}]}
        )
    config["profiles"] = profiles
    return {**case, "config": config}


@dataclass
class LoopResult:
    placements: dict[str, str | None]
    seconds: float
    cpu_seconds: float
    cycles: int = 0  # scheduling cycles that ran a profile
    batched: int = 0  # of them, pods that took a batch's hint (the previous ranking's next node)


def run_loop(case: dict[str, Any], features: Features) -> LoopResult:
    """Schedule the case's queue with the scheduling loop (queue order by QueueSort, backoff,
    preemption as ``features`` has it, opportunistic batching) to the end, every node evaluated
    unless the case samples; events are not built."""
    start = time.perf_counter()
    cpu_start = time.process_time()
    manifests = [
        *({"kind": "Node", **n} for n in case.get("nodes") or ()),
        *({"kind": "Pod", **p} for p in case.get("pods") or ()),
        *({"kind": "Pod", **p} for p in case.get("queue") or ()),
    ]
    result = LoopResult({}, 0.0, 0.0)

    def on_cycle(record: CycleRecord, cycle: int, now: float, seq: int) -> None:
        if record.profile is not None:
            result.cycles += 1
            result.batched += record.batch_hint is not None

    scheduler = Scheduler(
        case.get("config"),
        manifests,
        on_cycle=on_cycle,
        evaluate_all_nodes=not case.get("sampling"),
        objects=case_objects(case),
        features=features,
    )
    scheduler.run_until_idle()
    queued = {Pod(p).key for p in case.get("queue") or ()}
    result.placements = {k: v for k, v in scheduler.placements().items() if k in queued}
    result.cpu_seconds = time.process_time() - cpu_start
    result.seconds = time.perf_counter() - start
    return result


FIXED_COST_NODES = 50


def fixed_cost_case(pods: int, nodes: int = FIXED_COST_NODES) -> dict[str, Any]:
    """A small cluster shaped like the basic workloads (4 cpu, 32Gi, 110 pods a node over 3
    zones; pods of 100m / 500Mi), every node evaluated: deterministic, so runs compare."""

    def node(i: int) -> dict[str, Any]:
        name = f"node-{i:05d}"
        room = {"cpu": "4", "memory": "32Gi", "pods": "110"}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {
                    "kubernetes.io/hostname": name,
                    "topology.kubernetes.io/zone": f"zone-{i % 3}",
                },
            },
            "spec": {},
            "status": {
                "allocatable": room,
                "capacity": room,
                "conditions": [{"type": "Ready", "status": "True"}],
                "phase": "Running",
            },
        }

    def pod(i: int) -> dict[str, Any]:
        amounts = {"cpu": "100m", "memory": "500Mi"}
        container = {
            "name": "pause",
            "image": "registry.k8s.io/pause:3.10.1",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "resources": {"requests": amounts, "limits": amounts},
        }
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"pod-{i:05d}", "namespace": "default"},
            "spec": {"containers": [container], "schedulerName": "default-scheduler"},
        }

    return {
        "name": f"fixed-cost-{nodes}n-{pods}p",
        "config": {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "percentageOfNodesToScore": 100,
        },
        "nodes": [node(i) for i in range(nodes)],
        "pods": [],
        "queue": [pod(i) for i in range(pods)],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", nargs="?", help="the case to schedule (not with --fixed-cost)")
    parser.add_argument("--placements", help="write {namespace/pod: node or null} here")
    parser.add_argument("--check", help="compare with these expected placements")
    parser.add_argument(
        "--percentage",
        type=int,
        help="sample nodes with this global percentageOfNodesToScore (0 = adaptive)",
    )
    parser.add_argument(
        "--fixed-cost",
        type=int,
        nargs="?",
        const=1000,
        metavar="N",
        help=f"schedule N pods (default 1000) on a synthetic {FIXED_COST_NODES}-node cluster",
    )
    parser.add_argument(
        "--loop",
        choices=("trace", "v1.35"),
        help="schedule with the scheduling loop (queue order, backoff, batching) under the "
        "trace conventions' feature gates or v1.35's defaults, and count batched pods",
    )
    parser.add_argument(
        "--spread-list",
        action="store_true",
        help="PodTopologySpread defaultingType: List in every profile (so batching can sign)",
    )
    args = parser.parse_args(argv)
    if (args.case is None) == (args.fixed_cost is None):
        parser.error("give either a case or --fixed-cost")
    if args.fixed_cost is not None:
        case = fixed_cost_case(args.fixed_cost)
    else:
        with open(args.case) as f:
            case = json.load(f)
    if args.percentage is not None:
        case = with_sampling(case, args.percentage)
    if args.spread_list:
        case = spread_as_listed(case)
    loop: LoopResult | None = None
    if args.loop:
        loop = run_loop(case, TRACE_FEATURES if args.loop == "trace" else Features())
        placements, seconds, cpu_seconds = loop.placements, loop.seconds, loop.cpu_seconds
    else:
        placements, seconds, cr = run(case)
        cpu_seconds = cr.cpu_seconds
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
        "cpuSeconds": round(cpu_seconds, 3),
        "peakMemoryMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    if loop is not None:
        out.update(loop=args.loop, spreadList=args.spread_list, cycles=loop.cycles)
        out["batched"] = loop.batched
    if args.fixed_cost is not None and placements:
        out["microsecondsPerCycle"] = round(seconds / len(placements) * 1e6, 1)
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
