"""Cycles whose per-node detail is computed when first read, not while the run executes.

While a run is a plain sequence of bindings from its snapshot (``scheduler_core.rebuild``), a
cycle's row stores, instead of its record, a recipe: the start index and the simulated time
the cycle began with. The first read of that cycle (``stored_record``) sets a scheduler up on the
run's snapshot with the pods of the earlier Scheduled cycles bound where they went, runs the
cycle's pod, checks the outcome against the row, and stores the record in the row's place, so
later reads (and the stream, the charts, the step-through) see an ordinary record. The run
itself then costs little more than the engine: no per-node column is built while it runs.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final

import orjson

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.tools.rebuild import (
    RebuildError,
    rebuild_cycle,
)

from ... import plugins
from ...models import Run, RunCycle
from ..gates import run_features
from .columns import CycleEncoder
from .records import encode_record

RECIPE: Final = b"RB1"  # a row's data that starts so is a recipe (records start with zstd's magic)
SCHEDULED: Final = "Scheduled"

# The snapshots of the last runs whose recipes were read, by the run's id and creation time (a
# deleted run's id can be given again). Stepping through a run reads one recipe per step, and
# parsing its snapshot was 0.05-0.09 s of each at 15,000 nodes (33 MB of objects, so only a
# couple are kept). A run's snapshot never changes once stored, and the engine only reads it.
_SNAPSHOTS: OrderedDict[tuple[int, Any], list[dict[str, Any]]] = OrderedDict()
_SNAPSHOTS_KEPT: Final = 2


def recipe(start_index: int, time: float, changes: Any = None) -> bytes:
    """A cycle's recipe: its start index and time, and the cache's changes its snapshot took
    in (the run saw them; a cycle computed alone would not)."""
    got: dict[str, Any] = {"start": start_index, "time": time}
    if changes is not None:
        got["changes"] = changes
    return RECIPE + orjson.dumps(got)


def is_recipe(data: bytes | memoryview) -> bool:
    return bytes(data[: len(RECIPE)]) == RECIPE


def stored_record(run: Run, cycle: int, data: bytes | memoryview) -> bytes:
    """The cycle's record: ``data`` itself, or, for a recipe, the record computed and stored."""
    if not is_recipe(data):
        return bytes(data)
    row = RunCycle.objects.filter(run=run, cycle=cycle).values().first()
    if row is None:
        raise RebuildError(f"run {run.pk} has no cycle {cycle}")
    got = orjson.loads(bytes(data)[len(RECIPE) :])
    bound = list(
        RunCycle.objects.filter(run=run, seq_first__lt=row["seq_first"], result=SCHEDULED)
        .order_by("seq_first")
        .values_list("pod", "node")
    )
    try:
        features = run_features(run)  # batching on or off: a cycle with a hint is no recipe
        rec = rebuild_cycle(
            load_config(run.config, features=features),
            _snapshot(run),
            bound,
            row["pod"],
            int(got["start"]),
            got.get("changes"),
            clock=SimulatedClock(),
            registry=plugins.registry(),
            plugin_events=plugins.EVENTS_TO_REGISTER,
            features=features,
        )
    except SchedulerCoreError as err:
        raise RebuildError(f"cycle {cycle} of run {run.pk} could not be set up: {err}") from err
    nodes = run.node_names
    if nodes is None:
        nodes = Run.objects.filter(pk=run.pk).values_list("node_names", flat=True).first()
    record, summary = encode_record(
        CycleEncoder(nodes), rec, cycle=cycle, time=float(got["time"]), seq=row["seq_first"]
    )
    _check(row, summary)
    # The count of evaluated nodes, noted cheaply while the run went, is now exact.
    RunCycle.objects.filter(pk=row["id"]).update(data=record, evaluated=summary["evaluated"])
    return record


def _snapshot(run: Run) -> list[dict[str, Any]]:
    """The run's snapshot, read once for the last few runs (``_SNAPSHOTS``)."""
    key = (run.pk, run.created)
    found = _SNAPSHOTS.get(key)
    if found is None:
        found = _SNAPSHOTS[key] = run.snapshot or []
        while len(_SNAPSHOTS) > _SNAPSHOTS_KEPT:
            _SNAPSHOTS.popitem(last=False)
    _SNAPSHOTS.move_to_end(key)
    return found


_CHECKED: Final = ("pod", "seq_last", "result", "node", "feasible", "message")


def _check(stored: dict[str, Any], computed: dict[str, Any]) -> None:
    """The computed cycle must end as the run's did: anything else is a bug, never shown."""
    for name in _CHECKED:
        if stored[name] != computed[name]:
            raise RebuildError(
                f"cycle {stored['cycle']} computed again differs from the run's in {name}: "
                f"{computed[name]!r}, the run had {stored[name]!r}"
            )
