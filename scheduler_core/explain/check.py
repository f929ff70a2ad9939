"""The explanations checked against the engine: every Filter verdict and Score of every cycle.

For each case of a directory whose trace the engine reproduces, each cycle is replayed and every
explanation's value is compared with what the engine recorded in that cycle: each Filter
plugin's verdict on each node it ran on, each Score plugin's raw score and NormalizeScore on each
scored node, the totals, the selection and PreFilter's preemption choice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.explain.context import CycleContext, observing
from scheduler_core.explain.filters import explain_filter
from scheduler_core.explain.framework_steps import (
    explain_normalize,
    explain_selection,
    explain_total,
)
from scheduler_core.explain.preemption import explain_preemption
from scheduler_core.explain.scores import explain_score
from scheduler_core.extenders.extender import EXTENDER_NAME
from scheduler_core.framework.status import Code, Status
from scheduler_core.tools.case import CaseRun

# The parts of a trace cycle that must equal the expected trace for a case to be checked.
_COMPARED: tuple[str, ...] = (
    "filter",
    "feasible",
    "postFilter",
    "scores",
    "totals",
    "top",
    "selected",
)


@dataclass(slots=True)
class CheckResult:
    """How many explained values equal the engine's, the ones that differ, the cases skipped."""

    reproduced: int = 0
    differ: list[str] = field(default_factory=list)
    cases: int = 0
    skipped: list[str] = field(default_factory=list)
    covered: set[tuple[str, str]] = field(default_factory=set)  # (point, plugin)

    def add(self, other: CheckResult) -> None:
        self.reproduced += other.reproduced
        self.differ.extend(other.differ)
        self.cases += other.cases
        self.skipped.extend(other.skipped)
        self.covered |= other.covered


def check_cycle(ctx: CycleContext, out: CheckResult, where: str = "") -> None:
    """Compare every explanation of one cycle with the engine's record of it."""
    rec = ctx.record
    at = f"{where}cycle {ctx.cycle}"

    def same(what: str, point: str, plugin: str, got: Any, want: Any) -> None:
        if got == want:
            out.reproduced += 1
            out.covered.add((point, plugin))
        else:
            out.differ.append(f"{at} {what}: explained {got!r}, engine {want!r}")

    order = [
        pl.name for pl in ctx.fwk.filter_plugins if pl.name not in ctx.state.skip_filter_plugins
    ]
    for node, status in rec.filter.items():
        if status.plugin == EXTENDER_NAME:
            continue
        for name in order:
            ex = explain_filter(ctx, name, node)
            want = _verdict(status) if name == status.plugin else {"code": "Success", "reasons": []}
            same(f"Filter {name} on {node}", "Filter", name, ex["value"], want)
            if name == status.plugin:
                break
    for ps in rec.scores:
        if ps.name.startswith(EXTENDER_NAME):
            continue
        raw = []
        for i, node in enumerate(rec.scored_nodes):
            ex = explain_score(ctx, ps.name, node)
            raw.append(ex["value"])
            same(f"Score {ps.name} on {node}", "Score", ps.name, ex["value"], ps.raw[i])
        for i, node in enumerate(rec.scored_nodes):
            ex = explain_normalize(ctx, ps.name, node, raw)
            same(
                f"NormalizeScore {ps.name} on {node}",
                "NormalizeScore",
                ps.name,
                ex["value"],
                ps.normalized[i],
            )
    # A cycle whose Score failed keeps its plugins' scores but has no totals.
    if rec.totals and not any(ps.name.startswith(EXTENDER_NAME) for ps in rec.scores):
        for node in rec.scored_nodes:
            same(
                f"total of {node}",
                "Combine",
                "",
                explain_total(ctx, node)["value"],
                rec.totals[node],
            )
    if rec.feasible and rec.scored_nodes and rec.selected is not None:
        ex = explain_selection(ctx)
        same("selection", "Combine", "", ex["value"], {"top": rec.top, "selected": rec.selected})
    if rec.post_filter_status is not None:
        ex = explain_preemption(ctx)
        pfr = rec.post_filter
        want = {
            "nominatedNode": (pfr.nominated_node_name or None) if pfr else None,
            "victims": sorted(pfr.victims) if pfr else [],
        }
        if ex["value"] is not None:
            same("PostFilter", "PostFilter", ex["plugin"] or "", ex["value"], want)


def _verdict(status: Status) -> dict[str, Any]:
    """A node's status as its plugin gave it (an Error without the framework's prefix)."""
    prefix = f'running "{status.plugin}" filter plugin: '
    reasons = [r.removeprefix(prefix) if status.code == Code.ERROR else r for r in status.reasons]
    return {"code": status.code.upstream, "reasons": reasons}


def check_case(case: dict[str, Any], expected: dict[str, Any] | None, name: str) -> CheckResult:
    """Check one case; skipped (counted in ``skipped``) when the engine does not reproduce it."""
    result = CheckResult()
    try:
        run = CaseRun(case)
    except SchedulerCoreError:
        # A configuration the real scheduler refuses too has no cycle to explain.
        if expected is not None and "error" in expected:
            result.cases = 1
        else:
            result.skipped.append(name)
        return result
    cycle_result = CheckResult()
    records = []

    def observe(ctx: CycleContext) -> None:
        check_cycle(ctx, cycle_result, f"{name} ")

    for _, rec in run.cycles(observing(observe)):
        records.append(rec.to_dict())
    if expected is not None and not _matches(records, expected):
        result.skipped.append(name)
        return result
    result.add(cycle_result)
    result.cases = 1
    return result


def _matches(records: Sequence[dict[str, Any]], expected: dict[str, Any]) -> bool:
    cycles = expected.get("cycles")
    if not isinstance(cycles, list) or len(cycles) != len(records):
        return False
    for got, want in zip(records, cycles, strict=True):
        for key in _COMPARED:
            if key in want and key in got and _plain(got[key]) != _plain(want[key]):
                return False
    return True


def _plain(value: Any) -> Any:
    """JSON-equal form; no victims is the same as [] or null (as compare.py has it)."""
    plain = json.loads(json.dumps(value))
    if isinstance(plain, dict) and plain.get("victims") == []:
        plain["victims"] = None
    return plain


def case_files(root: Path, exclude: Iterable[str] = ()) -> list[Path]:
    """The case files under ``root`` (not traces), sorted, without the excluded folders.

    An excluded name matches a folder at any depth (``dra`` leaves out ``preemption/dra`` too).
    """
    skip = {e.strip("/") for e in exclude}
    out = []
    for path in sorted(root.rglob("*.json")):
        if path.name.endswith(".trace.json"):
            continue
        rel = path.relative_to(root)
        folders = rel.parts[:-1]
        if any(f in skip for f in folders) or any(rel.as_posix().startswith(e + "/") for e in skip):
            continue
        out.append(path)
    return out


def check_paths(paths: Iterable[Path], root: Path | None = None) -> CheckResult:
    total = CheckResult()
    for path in paths:
        case = json.loads(path.read_text())
        trace = path.with_name(path.name[: -len(".json")] + ".trace.json")
        expected = json.loads(trace.read_text()) if trace.exists() else None
        name = path.relative_to(root).as_posix() if root else path.name
        total.add(check_case(case, expected, name))
    return total
