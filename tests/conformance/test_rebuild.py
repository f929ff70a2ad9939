"""A cycle computed again from the run's start plus the bindings before it is the cycle the run had.

The playground stores a cycle of a plain run (``scheduler_core.rebuild``) as a recipe and computes
its per-node detail when it is first read, so the rebuilt cycle must give exactly the events the
run's own cycle gave: checked on every cycle of the conformance corpus that the watch lets through
(run the way the playground runs them: Scheduler, queue, binding cycle) and on bench cycles with
sampling on and off. The watch itself must close the prefix on whatever changes more than a
binding.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from builders import make_node, make_pod
from test_run_records import SHARED, needs_shared

from playground import plugins
from playground.management.commands.bench_run import case_manifests
from playground.runs.storage.columns import CycleEncoder
from playground.runs.storage.records import encode_record, recipe_row
from scheduler_core.clock import SimulatedClock
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.cycle_events import (
    cycle_events,
    cycle_result,
)
from scheduler_core.record.events import Event
from scheduler_core.tools.rebuild import (
    PrefixWatch,
    RebuildError,
    eligible,
    rebuild_cycle,
)

OPTIONS: Mapping[str, Any] = {
    "registry": plugins.registry(),
    "plugin_events": plugins.EVENTS_TO_REGISTER,
}


class Followed:
    """A run as the playground's execution follows it: the watch, and each rebuildable cycle
    with the bindings before it."""

    def __init__(self, config: Any, manifests: Sequence[Mapping[str, Any]], **kw: Any) -> None:
        self.config, self.manifests = config, manifests
        self.watch = PrefixWatch()
        self.bound: list[tuple[str, str]] = []
        self.rebuildable: list[tuple[list[tuple[str, str]], CycleRecord, int, float, int, int]] = []
        self.cycles = 0
        self.rows_differ: list[str] = []
        self.encoder = CycleEncoder()
        self.sched = Scheduler(
            config,
            manifests,
            clock=SimulatedClock(),
            on_event=self.on_event,
            on_cycle=self.on_cycle,
            **OPTIONS,
        )
        self.watch.attach(self.sched, enabled=eligible(self.sched, plugins.registry()))

    def on_event(self, event: Event) -> None:
        self.watch.see_event(event)

    def on_cycle(self, rec: CycleRecord, cycle: int, now: float, seq: int) -> None:
        self.cycles += 1
        start = self.watch.see_cycle(rec)
        if start is not None:
            self.rebuildable.append((list(self.bound), rec, cycle, now, seq, start))
            # The row noted without encoding is the encoded record's row.
            noted = recipe_row(self.encoder, rec, cycle=cycle, seq=seq)
            _, row = encode_record(self.encoder, rec, cycle=cycle, time=now, seq=seq)
            if noted != row:
                self.rows_differ.append(f"cycle {cycle}: {noted} != {row}")
        if cycle_result(rec) == "Scheduled":
            self.bound.append((rec.pod, str(rec.selected)))

    def differences(self, where: str, every: int = 1) -> list[str]:
        out = []
        for bound, rec, cycle, now, seq, start in self.rebuildable[::every]:
            again = rebuild_cycle(
                self.config,
                self.manifests,
                bound,
                rec.pod,
                start,
                rec.snapshot_changes,
                clock=SimulatedClock(),
                **OPTIONS,
            )
            had = [e.to_dict() for e in cycle_events(rec, cycle=cycle, time=now, seq=seq)]
            got = [e.to_dict() for e in cycle_events(again, cycle=cycle, time=now, seq=seq)]
            if had != got:
                out.append(f"{where} cycle {cycle}")
        return out


@needs_shared
def test_every_rebuildable_conformance_cycle_is_the_cycle_the_run_had() -> None:
    rebuilt, differ = 0, []
    for path in sorted((SHARED / "conformance" / "cases").rglob("*.json")):
        case = json.loads(path.read_text())
        try:
            run = Followed(case.get("config") or {}, case_manifests(case))
            run.sched.run_until_idle(max_cycles=2000)
        except SchedulerCoreError:
            continue
        differ += run.differences(path.name) + run.rows_differ
        rebuilt += len(run.rebuildable)
    assert rebuilt > 1000  # most of the corpus is plain runs; the rest must stop the prefix
    assert differ == []


@needs_shared
@pytest.mark.parametrize("percentage", [100, 0])
def test_bench_cycles_rebuild_with_sampling_on_and_off(percentage: int) -> None:
    case = json.loads((SHARED / "bench" / "basic-500n-1000p.json").read_text())
    config = {**(case.get("config") or {}), "percentageOfNodesToScore": percentage}
    run = Followed(config, case_manifests(case))
    run.sched.run_until_idle(max_cycles=300)
    assert len(run.rebuildable) == 300  # the whole run is plain bindings
    assert len({start for *_, start in run.rebuildable}) > 1 or percentage == 100
    assert run.differences("basic-500n", every=37) == []
    assert run.rows_differ == []


def _small(*extra: dict[str, Any], config: Any = None) -> Followed:
    manifests = [make_node("n1", cpu="2"), make_node("n2", cpu="2"), *extra]
    run = Followed(config or {}, manifests)
    run.sched.run_until_idle()
    return run


def test_a_preemption_ends_the_prefix_after_its_cycle() -> None:
    low = [make_pod(f"low{i}", node_name=f"n{i}", cpu="2", priority=0) for i in (1, 2)]
    first = make_pod("first", cpu=None, priority=200)  # fits, and goes first
    run = _small(*low, first, make_pod("high", cpu="2", priority=100))
    # The preemption deletes its victim inside high's cycle: from then on nothing rebuilds.
    assert [rec.pod for _, rec, *_ in run.rebuildable] == ["default/first"]
    assert run.cycles > 1
    assert run.differences("preemption") == []


def test_a_permit_wait_ends_the_prefix() -> None:
    config = {"profiles": [{"plugins": {"permit": {"enabled": [{"name": "ApprovalGate"}]}}}]}
    gated = make_pod("gated")
    gated["metadata"]["annotations"] = {plugins.REQUIRE_APPROVAL: "true"}
    run = _small(make_pod("free"), gated, make_pod("after"), config=config)
    pods = [rec.pod for _, rec, *_ in run.rebuildable]
    assert "default/free" in pods and "default/after" not in pods


def test_runs_with_claims_or_extenders_start_closed() -> None:
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {"resources": {"requests": {"storage": "1Gi"}}},
    }
    assert _small(pvc, make_pod("p")).rebuildable == []
    extender = {"extenders": [{"urlPrefix": "http://127.0.0.1:9/", "filterVerb": "filter"}]}
    sched = Scheduler(extender, [make_node("n1")], **OPTIONS)
    assert not eligible(sched, plugins.registry())
    assert eligible(Scheduler({}, [make_node("n1")], **OPTIONS), plugins.registry())
    assert not eligible(Scheduler({}, [make_node("n1")], **OPTIONS), ["PrioritySort"])


def test_a_pod_bound_twice_or_unknown_is_refused() -> None:
    manifests = [make_node("n1"), make_pod("p"), make_pod("q")]
    with pytest.raises(RebuildError, match="bound twice"):
        rebuild_cycle({}, manifests, [("default/p", "n1"), ("default/p", "n1")], "default/q", 0)
    with pytest.raises(RebuildError, match="not in the run"):
        rebuild_cycle({}, manifests, [("default/r", "n1")], "default/q", 0)
    with pytest.raises(RebuildError, match="not pending"):
        rebuild_cycle({}, manifests, [("default/p", "n1")], "default/p", 0)


def test_sampling_start_index_is_the_one_before_the_cycle() -> None:
    nodes = [make_node(f"n{i:03}") for i in range(120)]
    config = {"percentageOfNodesToScore": 10}
    run = Followed(config, [*nodes, *(make_pod(f"p{i}") for i in range(4))])
    run.sched.run_until_idle()
    starts = [start for *_, start in run.rebuildable]
    assert starts[0] == 0 and len(set(starts)) == 4  # each cycle starts where the last ended
    assert run.differences("sampling") == []
