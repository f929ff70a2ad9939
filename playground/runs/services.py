"""Runs: start, execute, cancel and steer simulations of a cluster under a profile.

A run copies the cluster's manifests and the profile's configuration when it starts, so the task
that executes it (``playground.runs.tasks.execute_run``) replays exactly the same simulation however
often it is delivered. The task drives the engine on a simulated clock (``execution``), stores
each scheduling cycle as one ``RunCycle`` row and the other events as ``RunEvent`` rows, and
broadcasts them to the run's channel group after they are committed.

A run is a simulation: it never changes its cluster. Its script (``runs.script``) and "change"
commands change the run's own copy between cycles. ``run_apply_placements`` binds a finished
run's placements into the cluster when the user asks for it.

Exactly-once effects without exactly-once delivery: an execution claims the run with a fresh
``lease_token`` and keeps ``heartbeat`` current while it works; every write checks the token.
A second delivery while the first execution is alive raises ``RunBusy`` (the task retries later,
taking over if the first died). A take-over replays the deterministic engine and skips the events
already stored, after checking they are the same ones; a run whose stored history cannot be
replayed (a user answered a Permit wait) is marked failed instead. The placements are saved on
the run in the same transaction that marks it succeeded, so they are saved whole or not at all.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import uuid
import zlib
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from scheduler_core.features import Features

from .. import engine
from ..clusters import services as cluster_services
from ..clusters.selectors import cluster_manifests
from ..clusters.services import writable_cluster
from ..custom_plugins.services import registry_for
from ..models import Cluster, Profile, Run, RunCommand
from .execution import dispatch, handoff, limits
from .execution.attempt import (
    Cancelled,
    EventCycles,
    Execution,
    LostLease,
    apply_placements,
    is_bound,
    lease,
    pod_key,
)
from .execution.recovery import run_requeue_expired, run_requeue_pending
from .execution.script import ScriptError, ScriptStep, check_targets, parse_script, script_json
from .gates import v1_35_gates
from .live.stream import broadcast_many, finished_message
from .said import SAID, Said, with_said
from .selectors import stored_last_seq

log = logging.getLogger(__name__)
# Why a run failed without an execution, stored in English with the msgid (said.py).
SERVER_STOPPED: Final = gettext_noop("the server stopped before the run finished")
GAVE_UP: Final = gettext_noop(
    "gave up after %(attempts)s attempts: each one stopped renewing the run's lease for "
    "%(seconds)s s (its worker stopped, or one cycle took longer than that)"
)

__all__ = [
    "EventCycles",
    "RunBusy",
    "RunWaiting",
    "RunCommandRefused",
    "RunInvalid",
    "RunRefused",
    "run_cancel",
    "run_change",
    "run_claim",
    "run_command",
    "run_compare_start",
    "run_decide_permit",
    "run_apply_placements",
    "run_execute",
    "run_execute_claimed",
    "run_recover_stale",
    "run_requeue_expired",
    "run_requeue_pending",
    "run_start",
    "run_submit",
]

WAITING_RETRY_SECONDS: Final = 2.0  # how soon a run waiting for a runner asks again
MAX_ATTEMPTS: Final = 3

User = AbstractBaseUser | AnonymousUser


class RunInvalid(ValueError):
    """A run that cannot start (invalid profile, unknown pods); nothing was stored."""


class RunRefused(RunInvalid):
    """The owner has as many runs pending or running as they may (``limits.start_refusal``)."""


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


# --- start ----------------------------------------------------------------------------------


def _snapshot(cluster: Cluster, pod_keys: Iterable[str] | None) -> tuple[list[Any], list[str]]:
    """The cluster's manifests for a run, and the pending pods it schedules (in cluster order).

    Pending pods outside ``pod_keys`` are left out of the snapshot altogether.
    """

    wanted = None if pod_keys is None else list(dict.fromkeys(pod_keys))
    everything = cluster_manifests(cluster)
    pending_all = [pod_key(m) for m in everything if m.get("kind") == "Pod" and not is_bound(m)]
    if wanted is not None:
        unknown = sorted(set(wanted) - set(pending_all))
        if unknown:
            raise RunInvalid(
                gettext("not pending pods of this cluster: %(pods)s") % {"pods": ", ".join(unknown)}
            )
    keep = set(pending_all if wanted is None else wanted)
    snapshot = [
        m for m in everything if m.get("kind") != "Pod" or is_bound(m) or pod_key(m) in keep
    ]
    pending = [k for k in pending_all if k in keep]
    return snapshot, pending


def _check_config(profile: Profile) -> dict[str, Any]:

    result = engine.evaluate_config(profile.config, registry=registry_for(profile.owner))
    if not result.ok:
        problems = "; ".join(
            f"{p.path}: {p.message}" if p.path else p.message for p in result.problems
        )
        raise RunInvalid(
            gettext("profile %(name)s is not valid: %(problems)s")
            % {"name": repr(profile.name), "problems": problems}
        )
    return copy.deepcopy(profile.config)


def _create(
    *,
    user: User | None,
    cluster: Cluster,
    profile: Profile,
    pod_keys: Iterable[str] | None,
    label: str,
    script: Sequence[ScriptStep] = (),
    features: Features | None = None,
) -> Run:
    """Store a new pending run (not queued yet: ``run_submit`` does that)."""
    config = _check_config(profile)
    snapshot, pending = _snapshot(cluster, pod_keys)
    _check_script(script, snapshot)
    return Run.objects.create(
        cluster=cluster,
        profile=profile,
        started_by=user if user is not None and user.is_authenticated else None,
        label=label[:200],
        pod_keys=None if pod_keys is None else pending,
        snapshot=snapshot,
        config=config,
        summary={"total": len(pending), "scheduled": 0, "unschedulable": 0},
        script=script_json(script),
        feature_gates=features.to_gates() if features is not None else v1_35_gates(),
    )


def _check_script(script: Sequence[ScriptStep], snapshot: list[dict[str, Any]]) -> None:
    """Raise ScriptError when a step names a node or pod the run's cluster will not have."""
    if not script:
        return
    nodes = [(m.get("metadata") or {}).get("name", "") for m in snapshot if m.get("kind") == "Node"]
    pods = [pod_key(m) for m in snapshot if m.get("kind") == "Pod"]
    errors = check_targets(script, nodes, pods)
    if errors:
        raise ScriptError(errors)


def run_submit(*, runs: Sequence[Run], owner: str) -> None:
    """Queue new runs for ``owner`` (``limits.owner_key``); every way of starting a run ends here.

    Call it inside the transaction that stored the runs: raises RunRefused (and the caller's
    transaction rolls back) when the owner would have more runs pending or running than they
    may. Each run's task is queued after commit.
    """
    _lock_owner(owner)
    refusal = limits.start_refusal(owner, adding=len(runs), excluding=tuple(r.pk for r in runs))
    if refusal:
        raise RunRefused(refusal)
    for run in runs:
        run.owner_key = owner
        run.can_wait = limits.can_wait(run.config, run.profile.owner)
        Run.objects.filter(pk=run.pk).update(owner_key=owner, can_wait=run.can_wait)
    for run in runs:
        handoff.hand_over(run)
        transaction.on_commit(partial(dispatch.enqueue_run, run.pk))


def _lock_owner(owner: str) -> None:
    """Serialise starts by one owner until the transaction ends, so two requests at once
    cannot both pass the limit. SQLite needs nothing more: the new rows' insert holds its
    single write lock until commit."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(owner.encode())])


def run_start(
    *,
    user: User | None,
    cluster: Cluster,
    profile: Profile,
    pod_keys: Iterable[str] | None = None,
    label: str = "",
    script: Sequence[ScriptStep] = (),
    owner: str | None = None,
    features: Features | None = None,
) -> Run:
    """Store a pending run of ``profile`` over ``cluster`` and queue its task after commit.

    ``pod_keys`` (``namespace/name``) picks the pending pods to schedule; None means all.
    ``script`` is the cluster changes made between cycles; ``features`` the feature gates
    (default: v1.35's). ``owner`` is whose share the run
    uses (default: the user's; ``limits.request_owner`` for an anonymous visitor). Raises
    RunInvalid when the profile is invalid or a key is not a pending pod (RunRefused when the
    owner has too many runs), ScriptError when a step names an unknown target.
    """
    with transaction.atomic():
        run = _create(
            user=user,
            cluster=cluster,
            profile=profile,
            pod_keys=pod_keys,
            label=label,
            script=script,
            features=features,
        )
        run_submit(runs=[run], owner=owner or limits.owner_key(user=user))
    return run


def run_compare_start(
    *,
    user: User | None,
    cluster: Cluster,
    profile_a: Profile,
    profile_b: Profile,
    owner: str | None = None,
    features: Features | None = None,
) -> tuple[Run, Run]:
    """Two runs of the same cluster under two profiles (what-if), with the same feature gates;
    both count for the owner."""
    with transaction.atomic():
        a = _create(
            user=user,
            cluster=cluster,
            profile=profile_a,
            pod_keys=None,
            label="A",
            features=features,
        )
        b = _create(
            user=user,
            cluster=cluster,
            profile=profile_b,
            pod_keys=None,
            label="B",
            features=features,
        )
        a.compare_with, b.compare_with = b, a
        a.save(update_fields=["compare_with"])
        b.save(update_fields=["compare_with"])
        run_submit(runs=[a, b], owner=owner or limits.owner_key(user=user))
    return a, b


# --- commands -------------------------------------------------------------------------------


def _finish_now(run: Run, status: str, error: str = "") -> None:
    """Mark a run that no execution is driving as finished, and tell its watchers."""
    now = timezone.now()
    run.status, run.finished, run.error_message = status, now, error
    run.lease_token = ""
    run.summary = with_said(run.summary, error=error)  # its msgid, for the reader's language
    run.save(update_fields=["status", "finished", "error_message", "lease_token", "summary"])
    seq, said = stored_last_seq(run.pk) + 1, run.summary.get(SAID)
    message = finished_message(run.pk, seq=seq, status=status, error=error, said=said)
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
        stale = run.heartbeat is None or timezone.now() - run.heartbeat >= lease()
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
    """Apply a websocket client's command (``cancel``, ``allow``, ``reject``, ``change``);
    returns the ack.

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
    if name == "change":
        step = command.get("step")
        try:
            step = json.loads(step) if isinstance(step, str) else step
        except (ValueError, RecursionError) as err:  # RecursionError: nested a thousand deep
            raise RunCommandRefused(f"step: not JSON: {err}") from err
        run_change(run_id=run_id, step=step)
        return {"kind": "ack", "run": run_id, "command": name}
    raise RunCommandRefused(f"unknown command {name!r}")


def run_change(*, run_id: int, step: Any) -> RunCommand:
    """Queue a change to a running run's cluster, made between two cycles (``step`` in the
    script's stored form; its ``after_cycle`` is ignored: the change is made now)."""
    if isinstance(step, dict):
        step = {"after_cycle": 0, **{k: v for k, v in step.items() if k != "after_cycle"}}
    try:
        parse_script([step], "step")
    except ScriptError as err:
        raise RunCommandRefused(str(err)) from err
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.is_terminal:
            raise RunCommandRefused(f"run {run_id} has finished ({run.status})")
        return RunCommand.objects.create(
            run=run, kind=RunCommand.Kind.CHANGE, message=json.dumps(step)
        )


def run_recover_stale() -> int:
    """Embedded mode at start-up: fail every run a previous process left unfinished.

    There the server process is the only worker, so a pending or running run, however fresh
    its heartbeat (a restart right after a crash), will never be resumed. Returns how many.
    """
    count = 0
    for run in Run.objects.filter(status__in=[Run.Status.PENDING, Run.Status.RUNNING]):
        with transaction.atomic():
            _finish_now(run, Run.Status.FAILED, Said(SERVER_STOPPED))
        count += 1
    return count


# --- execute --------------------------------------------------------------------------------


Claim = tuple[Run, str, int]  # the run, this execution's lease token, the last stored seq


def run_claim(*, run_id: int, holder: str = "") -> Claim | None:
    """Take the run for this execution; None when there is nothing (more) to do.

    Raises RunBusy while another execution holds the run, RunWaiting (after noting why on the
    run) while it may not start yet (``limits.waiting_reason``). ``holder`` names the execution
    (``tasks.holder_name``), so a take-over can stop it.
    """
    try:
        return _claim_locked(run_id, holder)
    except RunWaiting as waiting:
        run = Run.objects.get(pk=run_id)
        if run.summary.get("waiting") != waiting.message:
            # In English, with its msgid for the reader's language (said.py).
            run.summary = with_said(
                {**run.summary, "waiting": waiting.message}, waiting=waiting.message
            )
            run.save(update_fields=["summary"])
        raise


def _claim_locked(run_id: int, holder: str) -> Claim | None:
    with transaction.atomic():
        try:
            # The snapshot is read when the execution needs it, unless it was handed over.
            run = Run.objects.select_for_update().get(pk=run_id)
        except Run.DoesNotExist:
            return None
        if run.is_terminal:
            return None
        now = timezone.now()
        if run.status == Run.Status.RUNNING and run.heartbeat is not None:
            age = now - run.heartbeat
            if age < lease():
                raise RunBusy((lease() - age).total_seconds() + 0.5)
        if run.status == Run.Status.PENDING:
            reason = limits.waiting_reason(run)  # fair shares of the runners (limits.py)
            if reason:
                raise RunWaiting(WAITING_RETRY_SECONDS, reason)
        if run.attempts >= MAX_ATTEMPTS:
            # Each earlier execution was stopped when its lease ran out (run_requeue_expired).
            _finish_now(
                run,
                Run.Status.FAILED,
                Said(GAVE_UP, attempts=run.attempts, seconds=f"{lease().total_seconds():g}"),
            )
            return None
        token = uuid.uuid4().hex
        run.status = Run.Status.RUNNING
        run.started = run.started or now
        run.heartbeat = now
        run.attempts += 1
        run.lease_token = token
        run.holder = holder[:300]
        run.summary = with_said(
            {k: v for k, v in run.summary.items() if k != "waiting"}, waiting=""
        )
        run.save(
            update_fields=[
                *("status", "started", "heartbeat", "attempts", "lease_token", "holder"),
                "summary",
            ]
        )
        handed = handoff.take(run)
        if handed is not None:
            run.snapshot_known(handed)
        return run, token, stored_last_seq(run_id)


def run_execute(*, run_id: int, holder: str = "") -> None:
    """Drive the run to its end; a finished run returns at once (idempotent).

    Raises RunBusy when another execution is alive, RunWaiting while the run may not start.
    Engine errors and bad input end the run as failed with the message saved.
    """
    claim = run_claim(run_id=run_id, holder=holder)
    if claim is not None:
        run_execute_claimed(claim)


def run_execute_claimed(claim: Claim, *, on_idle: Callable[[bool], None] | None = None) -> None:
    """Drive a run this execution claimed (``run_claim``) to its end; ``on_idle`` is told when
    it starts and stops waiting for users at Permit with nothing else to do."""
    run, token, stored_upto = claim
    run_id = run.pk
    execution: Execution | None = None
    try:
        execution = Execution(run, token, stored_upto)
        execution.on_idle = limits.IdleMark(run_id, token, on_idle)
        execution.execute()
    except LostLease:
        log.warning("run %s: taken over by another execution; stopping", run_id)
    except Cancelled:
        assert execution is not None
        with contextlib.suppress(LostLease):
            execution.finish(Run.Status.CANCELLED)
    except Exception as err:  # every failure is recorded on the run, none is swallowed silently
        log.exception("run %s failed", run_id)
        if execution is None:
            execution = Execution(run, token, -1, resuming=False)
        with contextlib.suppress(LostLease):
            execution.finish(Run.Status.FAILED, error=f"{type(err).__name__}: {err}")


# --- after the run --------------------------------------------------------------------------


class _StoredClaim:
    """A ResourceClaim as the run's summary kept it, in the shape ``claims_apply`` reads."""

    def __init__(self, manifest: dict[str, Any]) -> None:
        meta = manifest.get("metadata") or {}
        self.namespace = meta.get("namespace") or "default"
        self.name = meta.get("name") or ""
        self.manifest = manifest

    def to_manifest(self) -> dict[str, Any]:
        return self.manifest


def run_apply_placements(*, run: Run, user: AbstractBaseUser) -> tuple[Cluster, dict[str, int]]:
    """Bind a succeeded run's placements into its cluster and delete the pods it preempted.

    Only pods still pending in the cluster are bound, and only to nodes it still has (a demo
    cluster is copied for the user first); returns the cluster and how many pods were bound and
    deleted. Raises RunCommandRefused when the run has not
    succeeded, was applied already, or the user may not change the cluster.
    """

    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        if run.status != Run.Status.SUCCEEDED:
            raise RunCommandRefused(
                gettext("run %(run)s has not succeeded (%(status)s)")
                % {"run": run.pk, "status": run.status}
            )
        if run.applied is not None:
            raise RunCommandRefused(
                gettext("run %(run)s's placements were applied already") % {"run": run.pk}
            )
        try:
            cluster = writable_cluster(cluster=run.cluster, user=user)
        except Exception as err:
            raise RunCommandRefused(str(err)) from err
        summary = run.summary or {}
        counts = apply_placements(
            cluster.pk, dict(run.placements or {}), list(summary.get("preempted") or [])
        )
        counts["claims"] = cluster_services.claims_apply(
            cluster_id=cluster.pk, claims=[_StoredClaim(m) for m in summary.get("claims") or []]
        )
        run.applied = timezone.now()
        run.save(update_fields=["applied"])
    return cluster, counts
