"""``manage.py bench_run CASE.json [--percentage N]``: how fast a run is, end to end.

Imports the bench case (``../shared/bench/*.json``: nodes, running pods, queued pods, a
configuration) into a throwaway cluster, runs it through the same path as the Run button
(``run_start``, the Celery task, cycle storage, broadcasts), times the run page and one cycle's
JSON with Django's test client, and times the engine alone on the same snapshot and
configuration. The last line printed is one JSON object:

    {"case", "nodes", "pods", "cycles", "engineSeconds", "runSeconds", "ratio",
     "engineCpuSeconds", "runCpuSeconds", "cpuRatio", "storedBytes", "evaluatedNodeCycles",
     "bytesPerNodeCycle", "pageSeconds", "cycleSeconds"}

``ratio`` is runSeconds / engineSeconds; ``cpuRatio`` the same in CPU seconds of this process,
which says more on a machine busy with other work.

``--percentage`` sets percentageOfNodesToScore (0: the adaptive default, 100: every node).
``--repeat N`` runs the case N times, each run followed by the engine alone, and reports the
fastest of each (a machine shared with other work slows some repetitions, never speeds one up).
``--nodes N`` grows or cuts the case to N nodes (copies of its nodes, renamed ``NAME-cK``) and
``--queue N`` keeps its first N queued pods: a bigger cluster than any shared case, run quickly,
e.g. ``--nodes 15000 --queue 50`` on basic-5000n-1000p for the run page at 15,000 nodes.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Sum
from django.test import Client
from django.urls import reverse

from playground import plugins
from playground.clusters.services import cluster_create_from_yaml
from playground.models import Run, RunCycle, RunEvent
from playground.profiles.services import profile_create
from playground.runs import services as run_services
from playground.runs.gates import run_features
from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.features import V1_35_DEFAULTS, Features
from scheduler_core.loop.scheduler import Scheduler

BENCH_USER = "bench"


def case_manifests(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's objects as one cluster: nodes, the pods already running, the queued pods."""
    kinds = ("pvcs", "pvs", "storageClasses", "pdbs", "namespaces")
    others = [m for key in kinds for m in case.get(key) or ()]
    return [*case.get("nodes", ()), *others, *(case.get("pods") or ()), *case.get("queue", ())]


def scaled_nodes(nodes: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """``count`` nodes: the case's own first, then copies with distinct names and hostnames."""
    out = list(nodes[:count])
    if not nodes:
        return out
    for i in range(len(out), count):
        node = copy.deepcopy(nodes[i % len(nodes)])
        name = f"{node['metadata']['name']}-c{i // len(nodes)}"
        node["metadata"]["name"] = name
        labels = node["metadata"].get("labels") or {}
        if "kubernetes.io/hostname" in labels:
            labels["kubernetes.io/hostname"] = name
        out.append(node)
    return out


def engine_seconds(
    config: dict[str, Any], manifests: list[dict[str, Any]], features: Features = V1_35_DEFAULTS
) -> tuple[float, float]:
    """The engine alone (wall and CPU seconds): the same snapshot, configuration and feature
    gates, nothing listening, so no event is built, stored or sent."""
    started, cpu = time.perf_counter(), time.process_time()
    Scheduler(
        load_config(config, features=features),
        manifests,
        clock=SimulatedClock(),
        registry=plugins.registry(),
        plugin_events=plugins.EVENTS_TO_REGISTER,
        features=features,
    ).run_until_idle()
    return time.perf_counter() - started, time.process_time() - cpu


def stored_bytes(run: Run) -> int:
    records = RunCycle.objects.filter(run=run).values_list("data", flat=True).iterator()
    payloads = RunEvent.objects.filter(run=run).values_list("payload", flat=True).iterator()
    return sum(len(bytes(d)) for d in records) + sum(
        len(json.dumps(p, separators=(",", ":"))) for p in payloads
    )


def timed_get(client: Client, url: str) -> float:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise CommandError(f"GET {url} answered {response.status_code}")
    return elapsed


class Command(BaseCommand):
    help = __doc__.splitlines()[0] if __doc__ else ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("case", help="a bench case (JSON), e.g. ../shared/bench/NAME.json")
        parser.add_argument("--percentage", type=int, default=None, help="0-100")
        parser.add_argument("--keep", action="store_true", help="keep the cluster and the run")
        parser.add_argument("--repeat", type=int, default=1, help="runs to time (the best counts)")
        parser.add_argument("--nodes", type=int, default=None, help="copy or cut nodes to N")
        parser.add_argument("--queue", type=int, default=None, help="keep the first N queued pods")

    def handle(self, *args: Any, **options: Any) -> None:
        with open(options["case"]) as f:
            case = json.load(f)
        config = dict(case.get("config") or {})
        if options["percentage"] is not None:
            config["percentageOfNodesToScore"] = options["percentage"]
        if options["nodes"] is not None:
            case["nodes"] = scaled_nodes(case.get("nodes") or [], options["nodes"])
        if options["queue"] is not None:
            case["queue"] = (case.get("queue") or [])[: options["queue"]]
        manifests = case_manifests(case)
        user = get_user_model().objects.get_or_create(username=BENCH_USER)[0]
        name = f"bench {case.get('name', options['case'])} {time.strftime('%H:%M:%S')}"

        started = time.perf_counter()
        cluster, _ = cluster_create_from_yaml(
            owner=user,
            name=name,
            text=json.dumps({"apiVersion": "v1", "kind": "List", "items": manifests}),
            limit=None,
        )
        self.stderr.write(
            f"imported {len(manifests)} objects in {time.perf_counter() - started:.2f} s"
        )
        profile = profile_create(owner=user, name=name, config=config)
        try:
            timings = []
            for _ in range(max(1, options["repeat"])):
                run, run_seconds, run_cpu = self._run(user, cluster, profile)
                timings.append(
                    (
                        run_seconds,
                        run_cpu,
                        *engine_seconds(run.config, run.snapshot, run_features(run)),
                    )
                )
            run_seconds, run_cpu, engine, engine_cpu = (
                min(t[i] for t in timings) for i in range(4)
            )
            # This machine is shared: CPU seconds say more than wall seconds when it is busy.
            self.stderr.write(
                f"cpu seconds: engine {engine_cpu:.3f}, run {run_cpu:.3f} "
                f"(ratio {run_cpu / engine_cpu:.2f})"
            )
            client = Client()
            client.force_login(user)
            page = timed_get(client, reverse("playground:run", args=[run.pk]))
            numbers = list(
                RunCycle.objects.filter(run=run)
                .order_by("seq_first")
                .values_list("cycle", flat=True)
            ) or [1]
            # The first cycle's JSON warms the process up; the middle one's is timed.
            timed_get(client, reverse("playground:run_cycle", args=[run.pk, numbers[0]]))
            middle = numbers[len(numbers) // 2]
            cycle = timed_get(client, reverse("playground:run_cycle", args=[run.pk, middle]))
            evaluated = RunCycle.objects.filter(run=run).aggregate(n=Sum("evaluated"))["n"] or 0
            size = stored_bytes(run)
            result = {
                "case": case.get("name", options["case"]),
                "nodes": len(case.get("nodes") or ()),
                "pods": len(case.get("queue") or ()),
                "cycles": RunCycle.objects.filter(run=run).count(),
                "engineSeconds": round(engine, 3),
                "runSeconds": round(run_seconds, 3),
                "ratio": round(run_seconds / engine, 2) if engine else None,
                "engineCpuSeconds": round(engine_cpu, 3),
                "runCpuSeconds": round(run_cpu, 3),
                "cpuRatio": round(run_cpu / engine_cpu, 2) if engine_cpu else None,
                "storedBytes": size,
                "evaluatedNodeCycles": evaluated,
                "bytesPerNodeCycle": round(size / evaluated, 2) if evaluated else None,
                "pageSeconds": round(page, 3),
                "cycleSeconds": round(cycle, 3),
            }
            if options["keep"]:
                self.stderr.write(f"kept cluster {cluster.pk} and run {run.pk}")
        finally:
            if not options["keep"]:
                cluster.delete()
                profile.delete()
        self.stdout.write(json.dumps(result))

    @staticmethod
    def _run(user: Any, cluster: Any, profile: Any) -> tuple[Run, float, float]:
        """One run through the Run button's path: the run, its wall and CPU seconds."""
        started, cpu = time.perf_counter(), time.process_time()
        run = run_services.run_start(user=user, cluster=cluster, profile=profile)
        run_seconds = time.perf_counter() - started  # the eager task ran on commit
        run_cpu = time.process_time() - cpu
        run.refresh_from_db()
        if run.status != Run.Status.SUCCEEDED:
            raise CommandError(f"run {run.pk} ended {run.status}: {run.error_message}")
        return run, run_seconds, run_cpu
