"""Command line: ``python -m scheduler_core simulate CLUSTER.yaml --config CONFIG.yaml``.

    simulate CLUSTER [--config CONFIG] [--events OUT.jsonl] [--json]

Schedules every pending pod of a cluster file (Kubernetes YAML or JSON: one object, several
documents, or a List) with the given KubeSchedulerConfiguration (default: a fresh
kube-scheduler's), then prints where each pod went or why it could not be placed. The file goes
through the playground import's pipeline first (``scheduler_core.workloads``): Deployments and
the other workloads get their ReplicaSets and pods, ResourceClaimTemplates their claims. An
older configuration or a legacy Policy given as CONFIG is brought forward to v1 first (the
changes are listed on stderr), as the playground's import does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from scheduler_core.bench import main as bench_main
from scheduler_core.config.migrate import V1, migrate, parse
from scheduler_core.conformance import main as conformance_main
from scheduler_core.dra import versions as dra_versions
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.workloads import PlanProblems, plan_objects


def load_manifests(path: str) -> list[dict[str, Any]]:
    """Read every object of a YAML or JSON file (multi-document and List aware)."""
    text = Path(path).read_text()
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as err:
        raise SystemExit(f"{path}: not valid YAML: {err}") from err
    out: list[dict[str, Any]] = []
    for d in docs:
        if not isinstance(d, dict):
            raise SystemExit(f"{path}: every document must be a Kubernetes object")
        kind = d.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(d.get("items"), list):
            items = d["items"]
            if not all(isinstance(item, dict) for item in items):
                raise SystemExit(f"{path}: every item of a {kind} must be a Kubernetes object")
            out += items
        else:
            out.append(d)
    return [_dra_v1(path, d) for d in out]


def _dra_v1(path: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """A DRA object of an older version as v1, as the playground's import converts it (said on
    stderr); any other object as it is."""
    if not dra_versions.is_older_dra(manifest):
        return manifest
    meta = manifest.get("metadata") or {}
    what = f"{manifest.get('kind')} {meta.get('name') if isinstance(meta, dict) else ''}"
    try:
        converted, source = dra_versions.to_v1(manifest)
    except dra_versions.ConversionError as err:
        raise SystemExit(f"{path}: {what}: {err}") from err
    print(f"cluster: {what}: converted from {source} to {dra_versions.V1}", file=sys.stderr)
    return converted


def expand_manifests(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The objects and what their controllers create, as the playground's import stores them."""
    return [item.manifest for item in plan_objects(objects).objects]


def _config(text: str) -> str | dict[str, Any]:
    """A v1 configuration as it is; an older one or a Policy brought forward, as the
    playground's import does, with its changes listed on stderr."""
    doc = parse(text)
    if doc.get("kind") != "Policy" and doc.get("apiVersion") in (None, V1):
        return text
    migration = migrate(doc)
    print(f"config: converted from {migration.source} to {V1}", file=sys.stderr)
    for change in migration.changes:
        print(f"config: - {change}", file=sys.stderr)
    return migration.config


def simulate(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core simulate")
    parser.add_argument("cluster", help="Kubernetes YAML/JSON with nodes, pods and other objects")
    parser.add_argument("--config", help="a KubeSchedulerConfiguration file")
    parser.add_argument("--events", help="write the event stream here as JSON lines")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    events_out = open(args.events, "w") if args.events else None  # noqa: SIM115
    try:
        config = _config(Path(args.config).read_text()) if args.config else None

        def on_event(ev: Any) -> None:
            if events_out is not None:
                events_out.write(json.dumps(ev.to_dict()) + "\n")

        objects = load_manifests(args.cluster)
        sched = Scheduler(config, expand_manifests(objects), on_event=on_event)
        sched.run_until_idle()
    except PlanProblems as err:
        for problem in err.problems:
            meta = objects[problem.source].get("metadata") or {}
            what = f"{objects[problem.source].get('kind')} {meta.get('name')}"
            print(f"error: {what}: {problem.path}: {problem.message}", file=sys.stderr)
        return 2
    except SchedulerCoreError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    finally:
        if events_out is not None:
            events_out.close()
    result = {
        key: {"node": o.node, "message": o.message, "attempts": o.attempts}
        for key, o in sched.outcomes.items()
        if o.attempts or o.node is None
    }
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    width = max((len(k) for k in result), default=10)
    for key in sorted(result):
        r = result[key]
        where = r["node"] if r["node"] else f"unschedulable: {r['message']}"
        print(f"{key:<{width}}  {where}")
    placed = sum(1 for r in result.values() if r["node"])
    print(f"{placed}/{len(result)} pods placed")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv[0] == "simulate":
        return simulate(argv[1:])
    if argv[0] == "conformance":
        return conformance_main(["conformance", *argv[1:]])
    if argv[0] == "bench":
        return bench_main(argv[1:])
    print(f"unknown command {argv[0]!r}\n\n{__doc__.strip()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
