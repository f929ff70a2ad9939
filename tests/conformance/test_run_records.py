"""A run stores each cycle from the engine's record; it must decode to exactly the cycle's events.

The events are what the charts, the step-through and the conformance fold read, so the record
written from the engine's columns (``records.encode_record``) is checked against the events
``cycle_events`` builds from the same record, over the whole conformance corpus (every plugin,
preemption, DRA, sampling) and over the large bench workloads with sampling on and off (where the
Filter verdict row comes from the walk's row positions).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from builders import make_node, make_pod

from playground import plugins
from playground.management.commands.bench_run import case_manifests
from playground.runs.storage.columns import CycleEncoder, decode_cycle, summary
from playground.runs.storage.records import encode_record
from scheduler_core.clock import SimulatedClock
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.cycle_events import (
    cycle_event_count,
    cycle_events,
)
from scheduler_core.record.verdicts import FilterVerdicts
from scheduler_core.tools.case import CaseRun

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
needs_shared = pytest.mark.skipif(
    not SHARED.is_dir() and not os.environ.get("CI"), reason="../shared is not beside this checkout"
)


class Checker:
    """Encodes each record, builds its events, and keeps what differs."""

    def __init__(self) -> None:
        self.encoder = CycleEncoder()
        self.cycles = 0
        self.row_paths = 0
        self.differ: list[str] = []

    def check(self, rec: CycleRecord, cycle: int, time: float, seq: int, where: str) -> None:
        data, row = encode_record(self.encoder, rec, cycle=cycle, time=time, seq=seq)
        events = cycle_events(rec, cycle=cycle, time=time, seq=seq)
        assert len(events) == cycle_event_count(rec)
        self.cycles += 1
        if isinstance(rec.filter, FilterVerdicts) and rec.filter.passed_rows() is not None:
            self.row_paths += 1
        decoded = decode_cycle(data, self.encoder.run_nodes)
        if decoded != [e.to_dict() for e in events]:
            wrong = next(
                (d["type"], e.type)
                for d, e in zip(decoded, events, strict=False)
                if d != e.to_dict()
            )
            self.differ.append(f"{where} cycle {cycle}: {wrong}")
        elif row != summary(events):
            self.differ.append(f"{where} cycle {cycle}: row {row} != {summary(events)}")


def test_a_small_run_with_rejections_ties_and_one_feasible_node_decodes_exactly() -> None:
    manifests: list[dict[str, Any]] = [
        make_node(f"n{i}", cpu=str(1 + i % 3), labels={"zone": f"z{i % 2}"}) for i in range(9)
    ]
    manifests += [
        make_pod("fits"),
        make_pod("big", cpu="3"),  # one node of 9 has room
        make_pod("huge", cpu="64"),  # none: Unschedulable, reasons with amounts
        make_pod("picky", nodeSelector={"zone": "z1"}),
    ]
    checker = Checker()
    Scheduler(
        {},
        manifests,
        on_cycle=lambda rec, cycle, t, seq: checker.check(rec, cycle, t, seq, "small"),
    ).run_until_idle()
    assert checker.cycles == 4
    assert checker.differ == []


def test_with_on_cycle_the_other_events_keep_their_numbers() -> None:
    manifests = [make_node("a"), make_node("b"), make_pod("p"), make_pod("q")]
    everything: list[Any] = []
    Scheduler({}, manifests, on_event=everything.append).run_until_idle()
    others: list[Any] = []
    cycles: list[tuple[int, int]] = []
    Scheduler(
        {},
        manifests,
        on_event=others.append,
        on_cycle=lambda rec, cycle, t, seq: cycles.append((seq, cycle_event_count(rec))),
    ).run_until_idle()
    in_cycles = {s for first, count in cycles for s in range(first, first + count)}
    assert [e.seq for e in others] == [e.seq for e in everything if e.seq not in in_cycles]
    assert [e.type for e in everything if e.seq in in_cycles][0] == "CycleStart"
    assert sorted(in_cycles | {e.seq for e in others}) == list(range(len(everything)))


@needs_shared
def test_every_conformance_cycle_decodes_to_its_events() -> None:
    checker = Checker()
    for path in sorted((SHARED / "conformance" / "cases").rglob("*.json")):
        case = json.loads(path.read_text())
        try:
            run = CaseRun(case)
        except SchedulerCoreError:
            continue
        checker.encoder = CycleEncoder()
        seq = 0
        for n, (_, rec) in enumerate(run.cycles(), start=1):
            checker.check(rec, n, 0.5 * n, seq, path.name)
            seq += cycle_event_count(rec)
    assert checker.cycles > 2000
    assert checker.differ == []


@needs_shared
@pytest.mark.parametrize("name", ["basic-500n-1000p", "mixed-2000n-1000p"])
@pytest.mark.parametrize("percentage", [100, 0])
def test_bench_cycles_decode_to_their_events(name: str, percentage: int) -> None:
    case = json.loads((SHARED / "bench" / f"{name}.json").read_text())
    config = {**(case.get("config") or {}), "percentageOfNodesToScore": percentage}
    checker = Checker()

    def on_cycle(rec: CycleRecord, cycle: int, t: float, seq: int) -> None:
        if cycle % 5 == 1:
            checker.check(rec, cycle, t, seq, name)

    Scheduler(
        config,
        case_manifests(case),
        clock=SimulatedClock(),
        on_cycle=on_cycle,
        registry=plugins.registry(),
        plugin_events=plugins.EVENTS_TO_REGISTER,
    ).run_until_idle(max_cycles=150)
    assert checker.cycles == 30
    assert checker.row_paths == 30  # the verdict row came from the walk's positions
    assert checker.differ == []
