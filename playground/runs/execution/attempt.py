"""Executing a run: the engine on a simulated clock, the cycle records, the commands, the end.

An execution buffers what the engine emits and, every ``FLUSH_SECONDS`` or ``BATCH_ITEMS``
items (or ``BATCH_BYTES`` of cycle records), stores it in one transaction that also renews the
lease, then broadcasts it. The engine hands each scheduling cycle over as its record
(``Scheduler.on_cycle``: the cycle's events, CycleStart .. CycleEnd, are numbered but never
built), which becomes one ``RunCycle`` row with the per-node detail as columns
(``records.encode_record``) and one ``cycle`` summary on the stream; every other event (queue
actions, the binding cycle, Permit) is stored in ``RunEvent`` rows (several to a row: ``packs``)
and sent as an ``event`` envelope. Together
they cover every seq once, in order. (A run stored from events, as the tests' ``store_events``
does, gives the same rows: ``Recorder.add``.) While the run is a plain sequence of bindings
(``scheduler_core.rebuild.PrefixWatch``), a cycle's row holds a recipe instead of its columns,
and its detail is computed when first read (``rebuilt``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from scheduler_core.clock import SimulatedClock
from scheduler_core.config import load_config
from scheduler_core.custom.plugin import Meter
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.extender import extenders_from_config
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.events import Event
from scheduler_core.tools.gcpause import existing_objects_frozen
from scheduler_core.tools.rebuild import PrefixWatch, eligible

from ... import engine, plugins
from ...custom_plugins.services import custom_specs_for, registry_with
from ...models import Node, Pod, Run, RunCommand, RunCycle, RunEvent, RunInput
from ..gates import run_features
from ..live.stream import broadcast_many, finished_message, progress_message, watched
from ..panels.charts import CYCLE_TYPES
from ..said import SAID, Said, with_said
from ..selectors import stored_last_seq
from ..storage.bulk import BATCH_BYTES, BATCH_ITEMS, Item, item_last_seq, item_messages, store_items
from ..storage.columns import CycleEncoder, summary
from ..storage.packs import PACK, PACK_MAX, UNPACKED, expand
from ..storage.rebuilt import recipe
from ..storage.records import encode_record, recipe_row
from . import sample_extender
from .limits import permit_max_wait_seconds
from .midcycle import Interrupted, MidCycle, checkpoint_extender_calls
from .outcome import ErrorTally
from .script import ScriptError, ScriptPlayer, parse_script
from .script import pod_key as script_pod_key
from .tape import (
    COMMAND,
    PERMIT_CAP,
    PLUGINS,
    TapeRecorder,
    apply_command,
    cap_permit_waits,
    waits_for_a_user,
)

FLUSH_SECONDS: Final = 0.25  # longest time an event waits in the buffer
COMMAND_POLL_SECONDS: Final = 0.25  # how often a busy run looks for commands
PERMIT_POLL_SECONDS: Final = 0.1  # how often a run with pods waiting at Permit looks
_IN_CYCLE: Final = "<cycle>"  # replay marker: a seq inside a stored cycle record


class LostLease(Exception):
    """Another execution took the run over (or it was finished elsewhere): stop, write nothing."""


class Cancelled(Exception):
    pass


def lease() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "PLAYGROUND_RUN_LEASE_SECONDS", 30)))


def pod_key(manifest: dict[str, Any]) -> str:
    meta = manifest.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def is_bound(manifest: dict[str, Any]) -> bool:
    return bool((manifest.get("spec") or {}).get("nodeName"))


class EventCycles:
    """The scheduling cycle each event of a run belongs to: the value stored in ``RunEvent.cycle``.

    An event belongs to its pod's latest CycleStart, so a cycle's rows are its scheduling events,
    the pod's queue events after it and its binding cycle, even when a Permit wait made the
    binding events come later under another cycle's number. A pod's events before its first
    cycle belong to none (None). Feed every event of the run once, in seq order.
    """

    def __init__(self) -> None:
        self._latest: dict[str, int] = {}

    def see(self, type_: str, pod: str, cycle: int) -> int | None:
        if type_ == "CycleStart":
            self._latest[pod] = cycle
        return self._latest.get(pod)


class Recorder:
    """Turns a run's events, fed in seq order, into what is stored: cycle rows and small events.

    The engine emits a scheduling cycle's events together, so a cycle is complete when the next
    event that is not part of it arrives (or at ``close``).
    """

    def __init__(self, run_nodes: list[str] | None = None) -> None:
        self.encoder = CycleEncoder(run_nodes)
        self.cycles_of = EventCycles()
        self.group: list[Event] = []
        self.items: list[Item] = []
        self.bytes = 0  # of the cycle records in items
        self.pack: list[dict[str, Any]] | None = None  # the last item's, while it may grow
        self.pack_owner: int | None = None

    def full(self) -> bool:
        return len(self.items) >= BATCH_ITEMS or self.bytes >= BATCH_BYTES

    def see(self, event: Event) -> int | None:
        """Note the event's pod and cycle (also for replayed events); returns its owner cycle."""
        return self.cycles_of.see(event.type, event.pod, event.cycle)

    def add(self, event: Event, owner: int | None) -> None:
        if event.type == "CycleStart":
            self.close()
            self.group, self.pack = [event], None  # a pack does not span a cycle
        elif self.group and event.type in CYCLE_TYPES and event.cycle == self.group[0].cycle:
            self.group.append(event)
        else:
            self.close()
            # The payload is JSON-encoded by orjson (stored and streamed): tuples need no copy.
            fields = event.fields()
            pack = self.pack
            if event.type in UNPACKED:
                self._append(("event", fields, owner))
            elif pack is not None and self.pack_owner == owner and len(pack) < PACK_MAX:
                pack.append(fields)
            else:
                self._append(("pack", [fields], owner))

    def _append(self, item: Item) -> None:
        """Every item goes through here: a pack may only grow while it is the last item."""
        self.items.append(item)
        if item[0] == "pack":
            self.pack, self.pack_owner = item[1], item[2]
        else:
            self.pack = None

    def add_record(
        self, rec: CycleRecord, cycle: int, time: float, seq: int, rebuild_from: int | None = None
    ) -> None:
        """A scheduling cycle handed over as the engine's record (``Scheduler.on_cycle``);
        with ``rebuild_from`` (its start index), stored as a recipe, computed when first read."""
        self.close()
        if rebuild_from is not None:
            row = recipe_row(self.encoder, rec, cycle=cycle, seq=seq)
            row["data"] = recipe(rebuild_from, time, rec.snapshot_changes)
        else:
            data, row = encode_record(self.encoder, rec, cycle=cycle, time=time, seq=seq)
            row["data"] = data
        self.bytes += len(row["data"])
        self._append(("cycle", row, None))

    def close(self) -> None:
        if not self.group:
            return
        group, self.group = self.group, []
        row = summary(group)
        row["data"] = self.encoder.encode(group)
        self.bytes += len(row["data"])
        self._append(("cycle", row, None))

    def take(self) -> list[Item]:
        self.close()
        items, self.items, self.bytes, self.pack = self.items, [], 0, None
        return items

    def drop(self) -> None:
        self.items, self.group, self.bytes, self.pack = [], [], 0, None


class Execution:
    """One attempt at a run: the engine, the buffer of records and the command loop."""

    def __init__(self, run: Run, token: str, stored_upto: int, *, resuming: bool = True) -> None:
        self.run = run
        self.run_id = run.pk
        self.token = token
        self.stored_upto = stored_upto
        self.last_seq = stored_upto
        self.recorder = Recorder(run.node_names)
        self.watch = PrefixWatch()  # while it is clean, cycles are stored as recipes
        self.nodes_saved = bool(run.node_names)
        self.last_flush = time.monotonic()
        self.last_poll = 0.0
        self.mid_cycle = MidCycle(self.run_id, token, lease())
        self.errors = ErrorTally()
        self.failure = ""  # why the run was stopped as failed, once it was
        self.snapshot: list[dict[str, Any]] = list(run.snapshot or [])
        self.pending = [
            pod_key(m) for m in self.snapshot if m.get("kind") == "Pod" and not is_bound(m)
        ]
        self.bound = [pod_key(m) for m in self.snapshot if m.get("kind") == "Pod" and is_bound(m)]
        self.replayed: dict[int, str] = {}
        self.tape = TapeRecorder()
        if stored_upto >= 0 and resuming:
            self._check_replayable()
        self.clock = SimulatedClock()
        self.sched: Scheduler | None = None
        self.cycles = 0
        self.stopped_early = False
        # Told when the run starts or stops waiting for users at Permit (limits.IdleMark).
        self.on_idle: Callable[[bool], None] = lambda idle: None
        self.last_progress: tuple[int, int] | None = None
        steps = parse_script(run.script or [])
        self.script = ScriptPlayer(steps)
        # Pods the script adds are scheduled too; those it deletes were not preempted.
        self.pending += [
            pod_key(s.value) for s in steps if s.action == "add_pod" and not is_bound(s.value)
        ]
        self.deleted = {script_pod_key(str(s.value)) for s in steps if s.action == "delete_pod"}

    # -- resuming ---------------------------------------------------------------------------------

    def _check_replayable(self) -> None:
        if self.run.commands.filter(kind__in=["allow", "reject", "change"]).exists():
            raise RuntimeError(
                "the worker stopped after a user answered a pod waiting at Permit or changed "
                "the cluster; those commands cannot be replayed"
            )
        rows = RunEvent.objects.filter(run_id=self.run_id)
        self.replayed = dict(rows.exclude(type=PACK).values_list("seq", "type"))
        packed = rows.filter(type=PACK).values_list("payload", flat=True)
        self.replayed.update((e["seq"], e["type"]) for e in expand(packed))
        ranges = RunCycle.objects.filter(run_id=self.run_id).values_list("seq_first", "seq_last")
        for first, last in ranges:
            self.replayed[first] = "CycleStart"
            for seq in range(first + 1, last + 1):
                self.replayed[seq] = _IN_CYCLE

    # -- events -----------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        self.watch.see_event(event)
        owner = self.recorder.see(event)
        if event.seq <= self.stored_upto:
            stored = self.replayed.get(event.seq)
            if stored != event.type and not (stored == _IN_CYCLE and event.type in CYCLE_TYPES):
                raise RuntimeError(
                    f"replay diverged at seq {event.seq}: stored {stored!r}, engine {event.type!r}"
                )
            return
        self.recorder.add(event, owner)
        if self.recorder.full():
            self.flush()

    def on_cycle(self, rec: CycleRecord, cycle: int, now: float, seq: int) -> None:
        self.recorder.cycles_of.see("CycleStart", rec.pod, cycle)
        self.errors.see(rec)
        rebuild_from = self.watch.see_cycle(rec)
        if rec.batch_hint:  # a batch's hint comes from the cycle before: it is never rebuilt
            rebuild_from = None
        if seq <= self.stored_upto:
            if self.replayed.get(seq) != "CycleStart":
                raise RuntimeError(
                    f"replay diverged at seq {seq}: stored {self.replayed.get(seq)!r}, "
                    "engine 'CycleStart'"
                )
            return
        self.recorder.add_record(rec, cycle, now, seq, rebuild_from)
        if self.recorder.full():
            self.flush()

    def _counts(self) -> tuple[int, int]:
        if self.sched is None:
            return 0, 0
        outcomes = self.sched.outcomes
        scheduled = unschedulable = 0
        for key in self.pending:
            o = outcomes.get(key)
            if o is None:
                continue
            if o.node:
                scheduled += 1
            elif o.attempts:
                unschedulable += 1
        return scheduled, unschedulable

    def flush(self, *, force: bool = False) -> None:
        """Store the buffered records, renew the lease, then broadcast them with the progress.

        Called between cycles (never inside one: the engine emits a cycle's events at once).
        """
        batch = self.recorder.take()
        if not batch and not force:
            return
        nodes = self.recorder.encoder.run_nodes
        with transaction.atomic():
            renewed = Run.objects.filter(
                pk=self.run_id, lease_token=self.token, status=Run.Status.RUNNING
            ).update(heartbeat=timezone.now())
            if not renewed:
                raise LostLease
            store_items(
                self.run_id,
                batch,
                run_nodes=list(nodes) if nodes is not None and not self.nodes_saved else None,
            )
            RunInput.objects.bulk_create(
                RunInput(run_id=self.run_id, point=point, kind=kind, data=data)
                for point, kind, data in self.tape.take()
            )
            self.nodes_saved = self.nodes_saved or nodes is not None
        self.last_flush = time.monotonic()
        self.mid_cycle.renewed_now()
        if batch:
            self.last_seq = item_last_seq(batch[-1])
        if not watched(self.run_id):
            return  # stored: a watcher who comes later reads it from the database
        messages = item_messages(self.run_id, batch)
        counts = self._counts()
        if counts != self.last_progress:
            self.last_progress = counts
            messages.append(
                progress_message(
                    self.run_id,
                    scheduled=counts[0],
                    total=len(self.pending),
                    unschedulable=counts[1],
                )
            )
        broadcast_many(self.run_id, messages)

    def maybe_flush(self) -> None:
        """Flush after FLUSH_SECONDS of buffering; renew the lease at least every third of it."""
        idle = time.monotonic() - self.last_flush
        pending = self.recorder.items or self.recorder.group
        if (pending and idle >= FLUSH_SECONDS) or idle >= lease().total_seconds() / 3:
            self.flush(force=True)

    # -- commands ---------------------------------------------------------------------------------

    def poll_commands(self, *, every: float) -> None:
        if self.sched is not None and self.sched.waiting:
            # No pod waits at Permit longer than the playground allows (a custom plugin may
            # ask for up to the engine's 15 minutes): its deadline comes forward.
            cap_permit_waits(self.sched, permit_max_wait_seconds())
        now = time.monotonic()
        if now - self.last_poll < every:
            return
        self.last_poll = now
        commands = list(RunCommand.objects.filter(run_id=self.run_id, applied__isnull=True))
        for command in commands:
            if command.kind == RunCommand.Kind.CANCEL:
                self._mark(command, "cancelled")
                raise Cancelled
            assert self.sched is not None
            entry = {
                "kind": command.kind,
                "pod": command.pod,
                "plugin": command.plugin,
                "message": command.message,
            }
            self.tape.note(COMMAND, entry)  # before it changes anything: its point
            self._mark(command, apply_command(self.sched, **entry))

    @staticmethod
    def _mark(command: RunCommand, result: str) -> None:
        command.applied, command.result = timezone.now(), result
        command.save(update_fields=["applied", "result"])

    # -- the loop ---------------------------------------------------------------------------------

    def _apply_script(self, *, idle: bool = False) -> int:
        """Make the script's changes due between cycles (the engine records each one)."""
        assert self.sched is not None
        try:
            return self.script.apply_due(self.sched, idle=idle)
        except SchedulerCoreError as err:
            raise ScriptError([("script", f"a change could not be made: {err}")]) from err

    def execute(self) -> None:

        # The process that runs the run serves the lessons' sample extender (a Celery worker
        # of the full stack as much as the embedded server).
        sample_extender.ensure_running(self.run.config)
        # An attempt records the run's inputs from its start: an earlier attempt's go.
        RunInput.objects.filter(run_id=self.run_id).delete()
        specs = custom_specs_for(self.run.profile.owner)
        self.tape.note(PLUGINS, [spec.to_dict() for spec in specs])
        self.tape.note(PERMIT_CAP, permit_max_wait_seconds())
        features = run_features(self.run)  # the run's feature gates
        config = load_config(self.run.config, features=features)
        self.sched = sched = Scheduler(
            config,
            self.snapshot,
            clock=self.clock,
            on_event=self.on_event,
            on_cycle=self.on_cycle,  # a cycle is stored from its record: no events built
            registry=registry_with(specs, meter=Meter(checkpoint=self.mid_cycle.checkpoint)),
            plugin_events=plugins.EVENTS_TO_REGISTER,
            extenders=self.tape.extenders(extenders_from_config(config, engine.extender_policy())),
            features=features,
        )
        self.tape.sched = sched
        checkpoint_extender_calls(sched.extenders, self.mid_cycle.checkpoint)
        # A script's changes, extenders, custom plugins and volume or device claims change
        # more than bindings do: such a run stores every cycle's record as it goes.
        self.watch.attach(
            sched, enabled=not self.script.todo and eligible(sched, plugins.registry())
        )
        limit = 50 * (len(sched.outcomes) + 10)
        self.flush(force=True)
        try:
            with existing_objects_frozen():  # the engine's state, built above
                self._loop(sched, limit)
        except Interrupted as stop:
            raise (LostLease() if stop.why == "lost" else Cancelled()) from None
        self.flush(force=True)
        if self.failure:
            self.finish(Run.Status.FAILED, error=self.failure, summary=self._summary()[1])
            return
        self.write_back()

    def _loop(self, sched: Scheduler, limit: int) -> None:
        while True:
            if waits_for_a_user(sched):
                # Pods wait for a user: time is real until they are answered or time out.
                self.poll_commands(every=0)
                self._apply_script()
                ran = sched.run_until_idle(max_cycles=1, until=self.clock.now())
                if not ran:
                    self.on_idle(True)
                    self.flush()
                    self.maybe_flush()
                    started = time.monotonic()
                    time.sleep(PERMIT_POLL_SECONDS)
                    moved = time.monotonic() - started
                    self.clock.advance(moved)
                    self.tape.advance(moved)
                    continue
            else:
                self.poll_commands(every=COMMAND_POLL_SECONDS)
                self._apply_script()
                ran = sched.run_until_idle(max_cycles=1)
                if not ran:
                    if self._apply_script(idle=True):
                        continue
                    break
            self.cycles += ran
            self.on_idle(False)
            if self.errors.repeated:
                scheduled, _ = self._counts()
                self.failure = self.errors.stop_reason(scheduled=scheduled, total=len(self.pending))
                break
            if self.cycles >= limit:
                self.stopped_early = True
                break
            self.maybe_flush()

    # -- the end ----------------------------------------------------------------------------------

    def _summary(self) -> tuple[dict[str, str | None], dict[str, Any]]:
        assert self.sched is not None
        outcomes = self.sched.outcomes
        placements = {k: (outcomes[k].node if k in outcomes else None) for k in self.pending}
        messages = {
            k: outcomes[k].message
            for k in self.pending
            if k in outcomes and not outcomes[k].node and outcomes[k].message
        }
        preempted = [k for k in self.bound if k not in outcomes and k not in self.deleted]
        scheduled, unschedulable = self._counts()
        summary: dict[str, Any] = {
            "total": len(self.pending),
            "scheduled": scheduled,
            "unschedulable": len(self.pending) - scheduled,
            "preempted": preempted,
            "messages": messages,
            "cycles": self.sched.cycle,
            "events": self.last_seq + 1,
        }
        notes: list[str] = []
        if self.stopped_early:
            notes.append(Said(gettext_noop("stopped after %(cycles)s cycles"), cycles=self.cycles))
        if self.errors.note():
            notes.append(self.errors.note())
        if notes:  # in English, and its msgids for a reader of another language (said.py)
            summary["note"] = Said.joined(notes)
            summary[SAID] = {"note": summary["note"].data}
        # The ResourceClaims as the binding cycles left them, for "Apply placements".
        summary["claims"] = [
            claim.to_manifest() for claim in self.sched.cluster.objects.dra.claims.values()
        ]
        return placements, summary

    def write_back(self) -> None:
        placements, summary = self._summary()
        failure = self.errors.finished_reason(
            scheduled=summary["scheduled"], total=summary["total"]
        )
        if failure:  # every cycle ended in an Error: nothing to apply, and not a success
            self.finish(Run.Status.FAILED, error=failure, summary=summary)
            return
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=self.run_id)
            if run.lease_token != self.token or run.status != Run.Status.RUNNING:
                raise LostLease
            run.status = Run.Status.SUCCEEDED
            run.finished = timezone.now()
            run.placements = placements
            run.summary = summary
            run.lease_token = ""
            run.save(update_fields=["status", "finished", "placements", "summary", "lease_token"])
        broadcast_many(
            self.run_id,
            [
                finished_message(
                    self.run_id,
                    seq=self.last_seq + 1,
                    status=Run.Status.SUCCEEDED,
                    summary={
                        k: summary[k]
                        for k in ("total", "scheduled", "unschedulable", "note")
                        if k in summary
                    },
                    said=summary.get(SAID),
                )
            ],
        )

    def finish(
        self, status: str, *, error: str = "", summary: dict[str, Any] | None = None
    ) -> None:
        """End the run as cancelled or failed: keep what was stored, write no placements
        (``summary``: the run's summary, when it ran to an end of its own)."""
        if status == Run.Status.CANCELLED:
            self.flush()
        else:
            # Events after a failure may be half a cycle; keep what was stored.
            self.recorder.drop()
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=self.run_id)
            if run.lease_token != self.token or run.status != Run.Status.RUNNING:
                raise LostLease
            run.status, run.finished, run.error_message = status, timezone.now(), error
            run.lease_token = ""
            if self.sched is not None:
                scheduled, unschedulable = self._counts()
                run.summary = {
                    **(run.summary or {}),
                    **(summary or {}),
                    "scheduled": scheduled,
                    "unschedulable": unschedulable,
                }
            run.summary = with_said(run.summary, error=error)
            run.save(
                update_fields=["status", "finished", "error_message", "lease_token", "summary"]
            )
        last = stored_last_seq(self.run_id)
        broadcast_many(
            self.run_id,
            [
                finished_message(
                    self.run_id,
                    seq=last + 1,
                    status=status,
                    error=error,
                    said=(run.summary or {}).get(SAID),
                )
            ],
        )


def apply_placements(
    cluster_id: int, placements: dict[str, str | None], preempted: list[str]
) -> dict[str, int]:
    """Bind the scheduled pods still pending to nodes the cluster still has; delete the victims."""
    nodes = set(Node.objects.filter(cluster_id=cluster_id).values_list("name", flat=True))
    chosen = {k: v for k, v in placements.items() if v and v in nodes}
    changed = []
    for pod in Pod.objects.filter(cluster_id=cluster_id, node_name=""):
        node = chosen.get(f"{pod.namespace}/{pod.name}")
        if not node:
            continue
        manifest = copy.deepcopy(pod.manifest)
        manifest.setdefault("spec", {})["nodeName"] = node
        pod.manifest = manifest
        pod.sync_from_manifest()
        changed.append(pod)
    Pod.objects.bulk_update(changed, ["manifest", "node_name"], batch_size=500)
    deleted = 0
    for key in preempted:
        namespace, _, name = key.partition("/")
        deleted += Pod.objects.filter(
            cluster_id=cluster_id, namespace=namespace, name=name
        ).delete()[0]
    return {"bound": len(changed), "deleted": deleted}
