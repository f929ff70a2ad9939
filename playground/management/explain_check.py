"""`manage.py explain_runs --check`: every kind of run the playground makes, explained cell by cell.

It builds runs as users make them (every demo cluster under every demo profile, every lesson's
run, runs with a script of cluster changes of each kind at several points, "after cycle 0"
included), then asks the explanation view the run page uses (``explain.json``) for every filter
and score cell of every cycle, for every node's whole set of steps and for the cycle's own
outcome (selection or preemption). An answer other than 200 with explanations, or an explanation
whose value disagrees with the number the page shows in that cell, is a failure.

Runs that wait at Permit for a user (the approval gate) are answered as a user would: each
waiting pod is allowed, or every second one rejected, from another thread while the run goes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from django.contrib.auth import get_user_model
from django.db import close_old_connections
from django.test import Client
from django.urls import reverse

from .. import demo
from ..lessons.loader import load_course
from ..models import Cluster, Node, Pod, Profile, Run, RunCycle
from ..runs import selectors
from ..runs.execution.script import parse_script
from ..runs.services import run_decide_permit, run_start

if TYPE_CHECKING:
    from scheduler_core.features import Features

CHECK_USER: Final = "explain-check"
# Nodes asked about per cycle when a cycle has more: the selected one, the first rejected by
# each plugin, the first scored ones and the last (each cell asks for a replay of the run).
SAMPLE_NODES: Final = 12
PERMIT_ANSWER_SECONDS: Final = 60.0


@dataclass
class Report:
    runs: int = 0
    cells: int = 0
    failures: list[str] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        return len(self.failures)

    def line(self) -> str:
        return (
            f"explain runs: {self.cells} cells in {self.runs} runs explained, {self.failed} failed"
        )


@dataclass(frozen=True)
class RunSpec:
    """One run to build: a cluster and profile by name, an optional script and the feature
    gates (None: v1.35's)."""

    kind: str
    cluster: str
    profile: str
    script: tuple[dict[str, Any], ...] = ()
    label: str = ""
    features: Features | None = None


def _checker() -> Any:
    user, _ = get_user_model().objects.get_or_create(username=CHECK_USER)
    return user


def _permit_answerer(run_id: int, stop: threading.Event) -> None:
    """Answer the run's Permit waits as a user would: allow, and reject every second pod."""

    answered: set[str] = set()
    deadline = time.monotonic() + PERMIT_ANSWER_SECONDS
    try:
        while not stop.is_set() and time.monotonic() < deadline:
            run = Run.objects.filter(pk=run_id).first()
            if run is None or run.is_terminal:
                return
            for waiting in selectors.run_waiting_pods(run):
                pod = waiting["pod"]
                if pod in answered:
                    continue
                answered.add(pod)
                allow = len(answered) % 2 == 1
                run_decide_permit(run_id=run_id, pod_key=pod, allow=allow, plugin=waiting["plugin"])
            time.sleep(0.05)
    finally:
        close_old_connections()


def build_run(spec: RunSpec, *, owner: str) -> Run:
    """Start the run ``spec`` describes and return it finished (runs here go eagerly)."""

    cluster = Cluster.objects.filter(is_demo=True, name=spec.cluster).first()
    profile = Profile.objects.filter(is_demo=True, name=spec.profile).first()
    if cluster is None or profile is None:
        raise LookupError(f"no demo cluster {spec.cluster!r} or profile {spec.profile!r}")
    script = parse_script(list(spec.script)) if spec.script else ()
    stop = threading.Event()
    holder: dict[str, Run] = {}

    def start() -> None:
        try:
            holder["run"] = run_start(
                user=_checker(),
                cluster=cluster,
                profile=profile,
                label=spec.label or spec.kind,
                script=script,
                owner=owner,
                features=spec.features,
            )
        finally:
            close_old_connections()

    worker = threading.Thread(target=start, name="explain-check-run")
    worker.start()
    answerer: threading.Thread | None = None
    while worker.is_alive():
        worker.join(0.05)
        if answerer is None:
            latest = Run.objects.filter(label=spec.label or spec.kind).order_by("-pk").first()
            if latest is not None and latest.status == Run.Status.RUNNING:
                answerer = threading.Thread(
                    target=_permit_answerer, args=(latest.pk, stop), daemon=True
                )
                answerer.start()
    stop.set()
    if answerer is not None:
        answerer.join(5)
    run = holder["run"]
    run.refresh_from_db()
    return run


def _cells(events: list[dict[str, Any]], nodes: list[str]) -> Iterator[tuple[str, str | None, Any]]:
    """(node, plugin, shown value) of every filter and score cell of one cycle."""
    for e in events:
        if e["type"] == "Filter":
            for i, code in enumerate(e.get("codes") or []):
                if code is None or code == "":
                    continue
                plugin = e["plugin"] or ((e.get("rejector") or [None] * len(nodes))[i] or "")
                if plugin:
                    yield nodes[i], plugin, code
        elif e["type"] == "Score":
            for node, raw in zip(e.get("nodes") or [], e.get("raw") or [], strict=False):
                yield node, e["plugin"], raw


def _sample(
    nodes: list[str], cells: list[tuple[str, str | None, Any]], chosen: str | None
) -> set[str]:
    if len(nodes) <= SAMPLE_NODES:
        return set(nodes)
    keep: set[str] = {nodes[0], nodes[-1]}
    if chosen:
        keep.add(chosen)
    seen: set[tuple[str | None, Any]] = set()
    for node, plugin, value in cells:
        if (plugin, value) not in seen and len(keep) < SAMPLE_NODES:
            seen.add((plugin, value))
            keep.add(node)
    return keep


Check = Callable[[list[dict[str, Any]]], str]


def _ask(
    client: Client, report: Report, url: str, params: dict[str, str], where: str, check: Check
) -> None:
    """One explanation request, as the page makes it; a failure is noted with ``where``."""
    report.cells += 1
    response = client.get(url, params)
    if response.status_code != 200:
        is_json = response.get("Content-Type", "").startswith("application/json")
        error = response.json().get("error", "") if is_json else ""
        report.failures.append(f"{where}: {response.status_code} {error}")
        return
    found = response.json().get("explanations") or []
    problem = check(found) if found else "no explanation"
    if problem:
        report.failures.append(f"{where}: {problem}")


def check_run(client: Client, run: Run, report: Report, *, kind: str) -> None:
    """Ask the explanation of every cell and step of every cycle of ``run``."""
    report.runs += 1
    report.kinds[kind] = report.kinds.get(kind, 0) + 1
    # A run that finished with every cycle in an Error (a lesson shows one on purpose) is failed,
    # not succeeded, yet every cycle is recorded: its cycles are explained like any other run's.
    finished = run.status == Run.Status.FAILED and (run.error_message or "").startswith("finished:")
    if run.status != Run.Status.SUCCEEDED and not finished:
        report.failures.append(
            f"{kind} run {run.pk} ({run.label}): {run.status} {run.error_message}"
        )
        return
    cycles = list(
        RunCycle.objects.filter(run=run).order_by("cycle").values_list("cycle", flat=True)
    )
    for cycle in cycles:
        events = selectors.run_cycle_events(run=run, cycle=cycle)
        start = next((e for e in events if e["type"] == "CycleStart"), None)
        if start is None or not start.get("profile"):
            continue  # a pod for no profile of the run: nothing to explain
        nodes = list(start.get("nodes") or run.node_names or [])
        end = next((e for e in events if e["type"] == "CycleEnd"), {})
        cells = list(_cells(events, nodes))
        asked = _sample(nodes, cells, end.get("node"))
        url = reverse("playground:run_explain", args=[run.pk, cycle])
        where = f"{kind} run {run.pk} ({run.label}) cycle {cycle}"

        def ask(
            params: dict[str, str], what: str, check: Check, url: str = url, where: str = where
        ) -> None:
            _ask(client, report, url, params, f"{where} {what}", check)

        ask({}, "outcome", lambda found: "")
        by_node: dict[str, list[tuple[str, Any]]] = {}
        for node, plugin, value in cells:
            if node in asked and plugin:
                by_node.setdefault(node, []).append((plugin, value))
        for node in sorted(asked):
            mine = by_node.get(node, [])
            ask({"node": node}, f"node {node}", lambda found, mine=mine: _agree(found, mine))
        # Cell by cell too (the page asks so when a cell is clicked), on one node a cycle.
        first = next(iter(sorted(by_node)), "")
        for plugin, value in by_node.get(first, []) if first else []:
            ask(
                {"node": first, "plugin": plugin},
                f"{plugin} on {first}",
                lambda found, own=[(plugin, value)]: _agree(found, own),
            )


def _agree(found: list[dict[str, Any]], cells: list[tuple[str, Any]]) -> str:
    """'' when every (plugin, shown value) has an explanation that gives the same value."""
    for plugin, value in cells:
        own = [e for e in found if e.get("plugin") == plugin]
        if not own:
            return f"no explanation names {plugin}"
        score = next((e for e in own if e.get("point") == "Score"), None)
        if score is not None and isinstance(value, int) and score.get("value") != value:
            return f"{plugin}: the page shows {value}, the explanation {score.get('value')}"
        verdict = next((e for e in own if e.get("point") == "Filter"), None)
        shown = verdict.get("value") if verdict is not None else None
        if (
            isinstance(value, str)
            and isinstance(shown, dict)
            and shown.get("code") not in (value, None)
            and verdict is not None
            and verdict.get("ran", True)
        ):
            return f"{plugin}: the page shows {value}, the explanation {shown}"
    return ""


# The suite's subset: one run of each kind that needs more than a plain replay.
FAST: Final = (
    "check: lesson 12 / default",  # a script of cluster changes, the queue's hints
    "check: lesson 13 / default",  # an extender (the sample, served in process)
    "check: lesson 11 / default",  # Permit waits and timeouts
    "check: Blinking lights / Custom plugins",  # CEL custom plugins
    "check: Approval gate / Approval gate",  # users' answers at Permit
    "check: Preemption scenario / Default",  # preemption
    "check: GPU pool with DRA / Default",  # DRA devices
    "check: pod added with priority after cycle 0",
)


def specs(*, fast: bool = False) -> list[RunSpec]:
    """Every run the check builds (see the module docstring); ``fast``: the suite's subset."""
    every = _all_specs()
    return [s for s in every if s.label in FAST] if fast else every


def _all_specs() -> list[RunSpec]:
    out: list[RunSpec] = []
    demo_clusters = [name for name, _, _ in demo.CLUSTERS]
    profiles = [name for name, _, _ in demo.PROFILES]
    for cluster in demo_clusters:
        for profile in profiles:
            out.append(RunSpec("demo", cluster, profile, label=f"check: {cluster} / {profile}"))
    for lesson in load_course():
        for name in lesson.profiles:
            out.append(
                RunSpec(
                    "lesson",
                    lesson.cluster_name,
                    lesson.profile_name(name),
                    tuple(s.to_dict() for s in lesson.script),
                    label=f"check: lesson {lesson.number} / {name}",
                    features=lesson.features,
                )
            )
    out.extend(scripted_specs())
    return out


def scripted_specs() -> list[RunSpec]:
    """Runs of the three-zone cluster with one change of each kind at several points."""
    cluster = demo.CLUSTERS[0][0]
    stored = Cluster.objects.get(is_demo=True, name=cluster)
    first_node = (
        Node.objects.filter(cluster=stored).order_by("name").values_list("name", flat=True)[0]
    )
    pending = Pod.objects.filter(cluster=stored, node_name="").order_by("name").last()
    assert pending is not None, f"{cluster} has no pending pod"
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "late-node", "labels": {"topology.kubernetes.io/zone": "zone-a"}},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {
            "priority": 1000,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        },
    }
    changes: list[tuple[str, dict[str, Any]]] = [
        ("node added", {"add_node": node}),
        ("pod added with priority", {"add_pod": pod}),
        ("labels changed", {"set_labels": {"node": first_node, "labels": {"tier": "changed"}}}),
        (
            "taints changed",
            {
                "set_taints": {
                    "node": first_node,
                    "taints": [{"key": "maintenance", "value": "true", "effect": "NoSchedule"}],
                }
            },
        ),
        ("pod deleted", {"delete_pod": f"{pending.namespace}/{pending.name}"}),
    ]
    out = []
    for after in (0, 1, 3):
        for what, change in changes:
            out.append(
                RunSpec(
                    "scripted",
                    cluster,
                    "Default",
                    ({"after_cycle": after, **change},),
                    label=f"check: {what} after cycle {after}",
                )
            )
    return out
