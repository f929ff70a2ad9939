"""Runs: start, execute, cancel and steer simulations of a cluster under a profile.

A run copies the cluster's manifests and the profile's configuration when it starts, so the task
that executes it (``playground.runs.tasks.execute_run``) replays exactly the same simulation however
often it is delivered. The task drives the engine on a simulated clock, stores every event as a
``RunEvent`` with the engine's ``seq``, broadcasts the events to the run's channel group after
they are committed, and writes the placements back in one transaction at the end.

Exactly-once effects without exactly-once delivery: an execution claims the run with a fresh
``lease_token`` and keeps ``heartbeat`` current while it works; every write checks the token.
A second delivery while the first execution is alive raises ``RunBusy`` (the task retries later,
taking over if the first died). A take-over replays the deterministic engine and skips the events
already stored, after checking they are the same ones; a run whose stored history cannot be
replayed (a user answered a Permit wait) is marked failed instead. Placements are written in the
same transaction that marks the run succeeded, so they are written whole or not at all.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta
from functools import partial
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from scheduler_core.clock import SimulatedClock
from scheduler_core.events import Event
from scheduler_core.scheduler import Scheduler

from .. import engine, plugins, services
from ..models import Cluster, Pod, Profile, Run, RunCommand, RunEvent
from .stream import broadcast_many, event_message, finished_message, progress_message

log = logging.getLogger(__name__)

__all__ = [
    "EventCycles",
    "RunBusy",
    "RunWaiting",
    "RunCommandRefused",
    "RunInvalid",
    "run_cancel",
    "run_command",
    "run_compare_start",
    "run_decide_permit",
    "run_execute",
    "run_recover_stale",
    "run_requeue_expired",
    "run_requeue_pending",
    "run_start",
]

WAITING_RETRY_SECONDS: Final = 2.0  # how soon a run waiting for a runner asks again
BATCH_EVENTS: Final = 500  # events per bulk insert and broadcast
FLUSH_SECONDS: Final = 0.25  # longest time an event waits in the buffer
COMMAND_POLL_SECONDS: Final = 0.25  # how often a busy run looks for commands
PERMIT_POLL_SECONDS: Final = 0.1  # how often a run with pods waiting at Permit looks
MAX_ATTEMPTS: Final = 3
REJECTED_BY_USER: Final = "rejected by a user"

User = AbstractBaseUser | AnonymousUser


class RunInvalid(ValueError):
    """A run that cannot start (invalid profile, unknown pods); nothing was stored."""


class RunCommandRefused(ValueError):
    """A command the run cannot take (it has finished, or the pod is not waiting)."""


class RunBusy(Exception):
    """Another execution of the run holds a live lease; try again in ``retry_in`` seconds."""

    def __init__(self, retry_in: float) -> None:
        super().__init__(f"run is being executed elsewhere; retry in {retry_in:.1f}s")
        self.retry_in = retry_in


class RunWaiting(RunBusy):
    """The user who started the run has as many runs running as they may: try again later."""

    def __init__(self, retry_in: float, message: str) -> None:
        super().__init__(retry_in)
        self.message = message


WAITING_FOR_RUNNER: Final = "waiting for a free runner"


def _runs_per_user() -> int:
    return int(getattr(settings, "PLAYGROUND_RUNS_PER_USER", 2))


class _LostLease(Exception):
    """Another execution took the run over (or it was finished elsewhere): stop, write nothing."""


class _Cancelled(Exception):
    pass


def _lease() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "PLAYGROUND_RUN_LEASE_SECONDS", 30)))


# --- start ----------------------------------------------------------------------------------


def _pod_key(manifest: dict[str, Any]) -> str:
    meta = manifest.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def _is_bound(manifest: dict[str, Any]) -> bool:
    return bool((manifest.get("spec") or {}).get("nodeName"))


def _snapshot(cluster: Cluster, pod_keys: Iterable[str] | None) -> tuple[list[Any], list[str]]:
    """The cluster's manifests for a run, and the pending pods it schedules (in cluster order).

    Pending pods outside ``pod_keys`` are left out of the snapshot altogether.
    """
    from ..selectors import cluster_manifests

    wanted = None if pod_keys is None else list(dict.fromkeys(pod_keys))
    everything = cluster_manifests(cluster)
    pending_all = [_pod_key(m) for m in everything if m.get("kind") == "Pod" and not _is_bound(m)]
    if wanted is not None:
        unknown = sorted(set(wanted) - set(pending_all))
        if unknown:
            raise RunInvalid(f"not pending pods of this cluster: {', '.join(unknown)}")
    keep = set(pending_all if wanted is None else wanted)
    snapshot = [
        m for m in everything if m.get("kind") != "Pod" or _is_bound(m) or _pod_key(m) in keep
    ]
    pending = [k for k in pending_all if k in keep]
    return snapshot, pending


def _check_config(profile: Profile) -> dict[str, Any]:
    from ..custom_plugins.services import registry_for

    result = engine.evaluate_config(profile.config, registry=registry_for(profile.owner))
    if not result.ok:
        problems = "; ".join(
            f"{p.path}: {p.message}" if p.path else p.message for p in result.problems
        )
        raise RunInvalid(f"profile {profile.name!r} is not valid: {problems}")
    return copy.deepcopy(profile.config)


def _create(
    *,
    user: User | None,
    cluster: Cluster,
    profile: Profile,
    pod_keys: Iterable[str] | None,
    label: str,
    write_back: bool,
) -> Run:
    config = _check_config(profile)
    snapshot, pending = _snapshot(cluster, pod_keys)
    return Run.objects.create(
        cluster=cluster,
        profile=profile,
        started_by=user if user is not None and user.is_authenticated else None,
        label=label[:200],
        pod_keys=None if pod_keys is None else pending,
        snapshot=snapshot,
        config=config,
        write_back=write_back and not cluster.is_demo,
        summary={"total": len(pending), "scheduled": 0, "unschedulable": 0},
    )


def _queue(run_id: int) -> None:
    from .tasks import enqueue_run

    transaction.on_commit(partial(enqueue_run, run_id))


def run_start(
    *,
    user: User | None,
    cluster: Cluster,
    profile: Profile,
    pod_keys: Iterable[str] | None = None,
    label: str = "",
) -> Run:
    """Store a pending run of ``profile`` over ``cluster`` and queue its task after commit.

    ``pod_keys`` (``namespace/name``) picks the pending pods to schedule; None means all.
    Raises RunInvalid when the profile is invalid or a key is not a pending pod.
    """
    with transaction.atomic():
        run = _create(
            user=user,
            cluster=cluster,
            profile=profile,
            pod_keys=pod_keys,
            label=label,
            write_back=True,
        )
        _queue(run.pk)
    return run


def run_compare_start(
    *, user: User | None, cluster: Cluster, profile_a: Profile, profile_b: Profile
) -> tuple[Run, Run]:
    """Two runs of the same cluster under two profiles (what-if); neither writes placements."""
    with transaction.atomic():
        a = _create(
            user=user,
            cluster=cluster,
            profile=profile_a,
            pod_keys=None,
            label="A",
            write_back=False,
        )
        b = _create(
            user=user,
            cluster=cluster,
            profile=profile_b,
            pod_keys=None,
            label="B",
            write_back=False,
        )
        a.compare_with, b.compare_with = b, a
        a.save(update_fields=["compare_with"])
        b.save(update_fields=["compare_with"])
        _queue(a.pk)
        _queue(b.pk)
    return a, b


# --- commands -------------------------------------------------------------------------------


def _last_seq(run_id: int) -> int:
    value = RunEvent.objects.filter(run_id=run_id).aggregate(m=Max("seq"))["m"]
    return -1 if value is None else int(value)


def _finish_now(run: Run, status: str, error: str = "") -> None:
    """Mark a run that no execution is driving as finished, and tell its watchers."""
    now = timezone.now()
    run.status, run.finished, run.error_message = status, now, error
    run.lease_token = ""
    run.save(update_fields=["status", "finished", "error_message", "lease_token"])
    message = finished_message(run.pk, seq=_last_seq(run.pk) + 1, status=status, error=error)
    transaction.on_commit(partial(broadcast_many, run.pk, [message]))


def run_cancel(*, run_id: int) -> Run:
    """Cancel a run: at once if no task is driving it, otherwise by a command the task applies.

    A cancelled run keeps its events and writes no placements; cancelling a finished run
    changes nothing.
    """
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.is_terminal:
            return run
        stale = run.heartbeat is None or timezone.now() - run.heartbeat >= _lease()
        if run.status == Run.Status.PENDING or stale:
            _finish_now(run, Run.Status.CANCELLED)
        else:
            RunCommand.objects.create(run=run, kind=RunCommand.Kind.CANCEL)
    return run


def run_decide_permit(
    *, run_id: int, pod_key: str, allow: bool, plugin: str | None = None, message: str = ""
) -> RunCommand:
    """Queue a user's answer for a pod waiting at Permit; the run's task applies it.

    Raises RunCommandRefused when the run has finished or a field is longer than its column
    (a namespace/name is at most 317 characters).
    """
    for field, value, limit in (("pod", pod_key, 317), ("plugin", plugin or "", 128)):
        if len(value) > limit:
            raise RunCommandRefused(f"{field} may be at most {limit} characters")
    if len(message) > 1024:
        raise RunCommandRefused("message may be at most 1024 characters")
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.is_terminal:
            raise RunCommandRefused(f"run {run_id} has finished ({run.status})")
        return RunCommand.objects.create(
            run=run,
            kind=RunCommand.Kind.ALLOW if allow else RunCommand.Kind.REJECT,
            pod=pod_key,
            plugin=plugin or "",
            message=message,
        )


def run_command(*, run_id: int, command: dict[str, Any]) -> dict[str, Any]:
    """Apply a websocket client's command (``cancel``, ``allow``, ``reject``); returns the ack.

    Raises RunCommandRefused for an unknown or malformed command.
    """
    name = command.get("command")
    if name == "cancel":
        run = run_cancel(run_id=run_id)
        return {"kind": "ack", "run": run_id, "command": "cancel", "status": run.status}
    if name in ("allow", "reject"):
        pod = command.get("pod")
        if not isinstance(pod, str) or "/" not in pod:
            raise RunCommandRefused('"pod" must be "namespace/name"')
        plugin = command.get("plugin")
        run_decide_permit(
            run_id=run_id,
            pod_key=pod,
            allow=name == "allow",
            plugin=plugin if isinstance(plugin, str) and plugin else None,
            message=str(command.get("message") or ""),
        )
        return {"kind": "ack", "run": run_id, "command": name, "pod": pod}
    raise RunCommandRefused(f"unknown command {name!r}")


def run_recover_stale() -> int:
    """Embedded mode at start-up: fail every run a previous process left unfinished.

    There the server process is the only worker, so a pending or running run, however fresh
    its heartbeat (a restart right after a crash), will never be resumed. Returns how many.
    """
    count = 0
    for run in Run.objects.filter(status__in=[Run.Status.PENDING, Run.Status.RUNNING]):
        with transaction.atomic():
            _finish_now(run, Run.Status.FAILED, "the server stopped before the run finished")
        count += 1
    return count


def run_requeue_pending() -> int:
    """Full stack at start-up: hand every pending run to the broker again; returns how many.

    A run is pending until a worker claims it, so a message lost with a Redis restart would
    leave it pending forever. A second delivery of a run that is still queued is harmless:
    the first execution claims it and the other finds it claimed or finished. Running runs are
    left to their lease (a worker takes over a run whose heartbeat stopped).
    """
    from .tasks import enqueue_run

    ids = list(Run.objects.filter(status=Run.Status.PENDING).values_list("pk", flat=True))
    for run_id in ids:
        enqueue_run(run_id)
    return len(ids)


def run_requeue_expired() -> list[int]:
    """Hand runs whose execution stopped renewing its lease to a worker again; their ids.

    A worker killed mid-run leaves its message unacknowledged until the broker's visibility
    timeout (an hour in compose). Each worker's lease watchdog calls this instead: a running
    run whose heartbeat is older than the lease goes back to pending (so one watchdog, not
    all, re-enqueues it) and a new delivery resumes it after its stored events. An execution
    that was only slow finds its lease gone at its next flush and stops.
    """
    from .tasks import enqueue_run

    cutoff = timezone.now() - _lease()
    expired = []
    for run_id in Run.objects.filter(status=Run.Status.RUNNING, heartbeat__lt=cutoff).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            updated = Run.objects.filter(
                pk=run_id, status=Run.Status.RUNNING, heartbeat__lt=cutoff
            ).update(status=Run.Status.PENDING, lease_token="")
        if updated:
            expired.append(run_id)
            transaction.on_commit(partial(enqueue_run, run_id))
    return expired


# --- execute --------------------------------------------------------------------------------


def _claim(run_id: int) -> tuple[Run, str, int] | None:
    """Take the run for this execution; None when there is nothing (more) to do.

    Raises RunBusy while another execution holds the run, RunWaiting (after noting why on the
    run) while its user has as many runs running as they may.
    """
    try:
        return _claim_locked(run_id)
    except RunWaiting as waiting:
        run = Run.objects.get(pk=run_id)
        if run.summary.get("waiting") != waiting.message:
            run.summary = {**run.summary, "waiting": waiting.message}
            run.save(update_fields=["summary"])
        raise


def _claim_locked(run_id: int) -> tuple[Run, str, int] | None:
    with transaction.atomic():
        try:
            run = Run.objects.select_for_update().get(pk=run_id)
        except Run.DoesNotExist:
            return None
        if run.is_terminal:
            return None
        now = timezone.now()
        if run.status == Run.Status.RUNNING and run.heartbeat is not None:
            age = now - run.heartbeat
            if age < _lease():
                raise RunBusy((_lease() - age).total_seconds() + 0.5)
        if run.status == Run.Status.PENDING and run.started_by_id is not None:
            busy = (
                Run.objects.filter(started_by_id=run.started_by_id, status=Run.Status.RUNNING)
                .exclude(pk=run.pk)
                .count()
            )
            if busy >= _runs_per_user():
                # One user's runs (a Permit wait holds its runner for minutes) must not take
                # every runner: this one waits, and says so on its page.
                message = f"{WAITING_FOR_RUNNER}: {busy} of your runs are running"
                raise RunWaiting(WAITING_RETRY_SECONDS, message)
        if run.attempts >= MAX_ATTEMPTS:
            _finish_now(
                run,
                Run.Status.FAILED,
                f"gave up after {run.attempts} attempts: the worker stopped each time",
            )
            return None
        token = uuid.uuid4().hex
        run.status = Run.Status.RUNNING
        run.started = run.started or now
        run.heartbeat = now
        run.attempts += 1
        run.lease_token = token
        run.summary = {k: v for k, v in run.summary.items() if k != "waiting"}
        run.save(
            update_fields=["status", "started", "heartbeat", "attempts", "lease_token", "summary"]
        )
        return run, token, _last_seq(run_id)


def run_execute(*, run_id: int) -> None:
    """Drive the run to its end; a finished run returns at once (idempotent).

    Raises RunBusy when another execution is alive. Engine errors and bad input end the run
    as failed with the message saved.
    """
    claim = _claim(run_id)
    if claim is None:
        return
    run, token, stored_upto = claim
    execution: _Execution | None = None
    try:
        execution = _Execution(run, token, stored_upto)
        execution.execute()
    except _LostLease:
        log.warning("run %s: taken over by another execution; stopping", run_id)
    except _Cancelled:
        assert execution is not None
        with contextlib.suppress(_LostLease):
            execution.finish(Run.Status.CANCELLED)
    except Exception as err:  # every failure is recorded on the run, none is swallowed silently
        log.exception("run %s failed", run_id)
        if execution is None:
            execution = _Execution(run, token, -1, resuming=False)
        with contextlib.suppress(_LostLease):
            execution.finish(Run.Status.FAILED, error=f"{type(err).__name__}: {err}")


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


class _Execution:
    """One attempt at a run: the engine, the event buffer and the command loop."""

    def __init__(self, run: Run, token: str, stored_upto: int, *, resuming: bool = True) -> None:
        self.run = run
        self.run_id = run.pk
        self.token = token
        self.stored_upto = stored_upto
        self.last_seq = stored_upto
        self.buffer: list[dict[str, Any]] = []
        self.cycles_of = EventCycles()
        self.last_flush = time.monotonic()
        self.last_poll = 0.0
        self.snapshot: list[dict[str, Any]] = list(run.snapshot or [])
        self.pending = [
            _pod_key(m) for m in self.snapshot if m.get("kind") == "Pod" and not _is_bound(m)
        ]
        self.bound = [_pod_key(m) for m in self.snapshot if m.get("kind") == "Pod" and _is_bound(m)]
        self.replayed: dict[int, str] = {}
        if stored_upto >= 0 and resuming:
            self._check_replayable()
        self.clock = SimulatedClock()
        self.sched: Scheduler | None = None
        self.cycles = 0
        self.stopped_early = False
        self.last_progress: tuple[int, int] | None = None

    # -- resuming ---------------------------------------------------------------------------------

    def _check_replayable(self) -> None:
        if self.run.commands.filter(kind__in=["allow", "reject"]).exists():
            raise RuntimeError(
                "the worker stopped while pods waited at Permit; "
                "the answers given cannot be replayed"
            )
        self.replayed = dict(RunEvent.objects.filter(run_id=self.run_id).values_list("seq", "type"))

    # -- events -----------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        if event.seq <= self.stored_upto:
            if self.replayed.get(event.seq) != event.type:
                raise RuntimeError(
                    f"replay diverged at seq {event.seq}: stored "
                    f"{self.replayed.get(event.seq)!r}, engine {event.type!r}"
                )
            self.cycles_of.see(event.type, event.pod, event.cycle)
            return
        self.buffer.append(event.to_dict())
        if len(self.buffer) >= BATCH_EVENTS:
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
        """Store the buffered events, renew the lease, then broadcast them with the progress."""
        if not self.buffer and not force:
            return
        batch, self.buffer = self.buffer, []
        with transaction.atomic():
            renewed = Run.objects.filter(
                pk=self.run_id, lease_token=self.token, status=Run.Status.RUNNING
            ).update(heartbeat=timezone.now())
            if not renewed:
                raise _LostLease
            RunEvent.objects.bulk_create(
                [
                    RunEvent(
                        run_id=self.run_id,
                        seq=p["seq"],
                        type=p["type"],
                        cycle=self.cycles_of.see(p["type"], p["pod"], p["cycle"]),
                        payload=p,
                    )
                    for p in batch
                ],
                batch_size=BATCH_EVENTS,
                ignore_conflicts=True,
            )
        self.last_flush = time.monotonic()
        if batch:
            self.last_seq = batch[-1]["seq"]
        messages = [event_message(self.run_id, p) for p in batch]
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
        """Flush buffered events after FLUSH_SECONDS; renew the lease at least every third of it."""
        idle = time.monotonic() - self.last_flush
        if (self.buffer and idle >= FLUSH_SECONDS) or idle >= _lease().total_seconds() / 3:
            self.flush(force=True)

    # -- commands ---------------------------------------------------------------------------------

    def poll_commands(self, *, every: float) -> None:
        now = time.monotonic()
        if now - self.last_poll < every:
            return
        self.last_poll = now
        commands = list(RunCommand.objects.filter(run_id=self.run_id, applied__isnull=True))
        for command in commands:
            if command.kind == RunCommand.Kind.CANCEL:
                self._mark(command, "cancelled")
                raise _Cancelled
            self._mark(command, self._apply(command))

    def _apply(self, command: RunCommand) -> str:
        assert self.sched is not None
        waiting = next((wp for wp in self.sched.waiting_pods() if wp.pod.key == command.pod), None)
        if waiting is None:
            return "not waiting at Permit"
        if command.kind == RunCommand.Kind.ALLOW:
            self.sched.allow_waiting_pod(command.pod, command.plugin or None)
            return "allowed"
        plugin = command.plugin or min(waiting.pending, default=plugins.APPROVAL_GATE)
        self.sched.reject_waiting_pod(command.pod, plugin, command.message or REJECTED_BY_USER)
        return "rejected"

    @staticmethod
    def _mark(command: RunCommand, result: str) -> None:
        command.applied, command.result = timezone.now(), result
        command.save(update_fields=["applied", "result"])

    # -- the loop ---------------------------------------------------------------------------------

    def execute(self) -> None:
        from ..custom_plugins.services import registry_for

        self.sched = sched = Scheduler(
            self.run.config,
            self.snapshot,
            clock=self.clock,
            on_event=self.on_event,
            registry=registry_for(self.run.profile.owner),
            plugin_events=plugins.EVENTS_TO_REGISTER,
            extender_policy=engine.extender_policy(),
        )
        limit = 50 * (len(sched.outcomes) + 10)
        self.flush(force=True)
        while True:
            if sched.waiting:
                # Pods wait for a user: time is real until they are answered or time out.
                self.poll_commands(every=0)
                ran = sched.run_until_idle(max_cycles=1, until=self.clock.now())
                if not ran:
                    self.flush()
                    self.maybe_flush()
                    started = time.monotonic()
                    time.sleep(PERMIT_POLL_SECONDS)
                    self.clock.advance(time.monotonic() - started)
                    continue
            else:
                self.poll_commands(every=COMMAND_POLL_SECONDS)
                ran = sched.run_until_idle(max_cycles=1)
                if not ran:
                    break
            self.cycles += ran
            if self.cycles >= limit:
                self.stopped_early = True
                break
            self.maybe_flush()
        self.flush(force=True)
        self.write_back()

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
        preempted = [k for k in self.bound if k not in outcomes]
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
        if self.stopped_early:
            summary["note"] = f"stopped after {self.cycles} cycles"
        return placements, summary

    def write_back(self) -> None:
        placements, summary = self._summary()
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=self.run_id)
            if run.lease_token != self.token or run.status != Run.Status.RUNNING:
                raise _LostLease
            if run.write_back:
                _apply_placements(run.cluster_id, placements, summary["preempted"])
                assert self.sched is not None
                services.claims_apply(
                    cluster_id=run.cluster_id, claims=self.sched.cluster.objects.dra.claims.values()
                )
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
                    summary={k: summary[k] for k in ("total", "scheduled", "unschedulable")},
                )
            ],
        )

    def finish(self, status: str, *, error: str = "") -> None:
        """End the run as cancelled or failed: keep what was stored, write no placements."""
        if status == Run.Status.CANCELLED:
            self.flush()
        else:
            self.buffer = []  # events after a failure may be half a cycle; keep what was stored
        with transaction.atomic():
            run = Run.objects.select_for_update().get(pk=self.run_id)
            if run.lease_token != self.token or run.status != Run.Status.RUNNING:
                raise _LostLease
            run.status, run.finished, run.error_message = status, timezone.now(), error
            run.lease_token = ""
            if self.sched is not None:
                scheduled, unschedulable = self._counts()
                run.summary = {
                    **(run.summary or {}),
                    "scheduled": scheduled,
                    "unschedulable": unschedulable,
                }
            run.save(
                update_fields=["status", "finished", "error_message", "lease_token", "summary"]
            )
        last = _last_seq(self.run_id)
        broadcast_many(
            self.run_id, [finished_message(self.run_id, seq=last + 1, status=status, error=error)]
        )


def _apply_placements(
    cluster_id: int, placements: dict[str, str | None], preempted: list[str]
) -> None:
    """Bind the scheduled pods (``spec.nodeName``) and delete the preempted ones."""
    chosen = {k: v for k, v in placements.items() if v}
    pods = Pod.objects.filter(cluster_id=cluster_id, node_name="")
    changed = []
    for pod in pods:
        node = chosen.get(f"{pod.namespace}/{pod.name}")
        if not node:
            continue
        manifest = copy.deepcopy(pod.manifest)
        manifest.setdefault("spec", {})["nodeName"] = node
        pod.manifest = manifest
        pod.sync_from_manifest()
        changed.append(pod)
    Pod.objects.bulk_update(changed, ["manifest", "node_name"], batch_size=500)
    for key in preempted:
        namespace, _, name = key.partition("/")
        Pod.objects.filter(cluster_id=cluster_id, namespace=namespace, name=name).delete()
