"""Run, its snapshot, events, cycles, commands and inputs: one simulation and what it recorded."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from scheduler_core.tools.gcpause import collector_paused

from ..clusters.models import Cluster
from ..inputs.jsontext import FastJSONDecoder, FastJSONEncoder
from ..profiles.models import Profile
from .gates import v1_35_gates


class Run(models.Model):
    """One simulation: a cluster snapshot under one configuration, driven by a Celery task.

    ``snapshot`` and ``config`` are copied at start, so a retried task replays the same run and
    later edits of the cluster or profile do not change it. ``lease_token``/``heartbeat`` say
    which task execution owns the run and that it is alive (see ``playground.runs.services``).

    The snapshot (megabytes at thousands of nodes) is a ``RunSnapshot`` row of its own: SQLite
    writes a whole row again on every update, and a run's row is updated at each flush (the
    heartbeat); with the snapshot in it, each of those copied megabytes (and set off a WAL
    checkpoint). ``run.snapshot`` reads it when first asked; assigning it stores it with the next
    ``save()``.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="runs")
    profile = models.ForeignKey(Profile, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)
    placements = models.JSONField(default=dict, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="runs",
        null=True,
        blank=True,
    )
    label = models.CharField(max_length=200, blank=True)
    pod_keys = models.JSONField(null=True, blank=True)  # None: every pending pod
    config = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    # Cluster changes made between cycles (``playground.runs.script``), in the lesson format.
    script = models.JSONField(default=list, blank=True)
    # The feature gates it runs with, every one by name (``runs.gates``): v1.35's defaults unless
    # its form said otherwise; runs stored before this field ran with TRACE_FEATURES' gates.
    feature_gates = models.JSONField(default=v1_35_gates, blank=True)
    compare_with = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Runs are simulations: True only for old runs that bound their pods into the cluster.
    write_back = models.BooleanField(default=False)
    # Set when a user applied this finished run's placements to its cluster.
    applied = models.DateTimeField(null=True, blank=True)
    # The snapshot's node order, stored once: cycle records refer to nodes by index into it.
    node_names = models.JSONField(null=True, blank=True)
    lease_token = models.CharField(max_length=64, blank=True)
    heartbeat = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # Whose share of the runners the run uses (``runs.limits.owner_key``): "user:12" for a
    # signed-in user, "addr:..." for an anonymous visitor's address; "" for older runs.
    owner_key = models.CharField(max_length=80, blank=True, default="")
    # Its profile can keep it idle for long (a Permit plugin that waits, an extender).
    can_wait = models.BooleanField(default=False)
    # Running, but every pod it has left waits at Permit for a user: embedded, it does not
    # count as a busy runner while it waits (``runs.limits``).
    idle = models.BooleanField(default=False)
    # The execution holding the lease: "<worker host>|<pid>|<task id>" (stopped on a take-over).
    holder = models.CharField(max_length=300, blank=True, default="")

    TERMINAL = frozenset({"succeeded", "failed", "cancelled"})

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["owner_key", "status"], name="run_owner_status")]

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL

    @property
    def snapshot(self) -> list[dict[str, Any]]:
        """The manifests the run started from ([] before they are stored)."""
        if "_snapshot" not in self.__dict__:
            stored = None
            if self.pk is not None:
                # Megabytes of JSON become a million objects, none of them garbage.
                with collector_paused():
                    stored = (
                        RunSnapshot.objects.filter(run_id=self.pk)
                        .values_list("manifests", flat=True)
                        .first()
                    )
            self.__dict__["_snapshot"] = stored if stored is not None else []
        return self.__dict__["_snapshot"]  # type: ignore[no-any-return]

    @snapshot.setter
    def snapshot(self, manifests: list[dict[str, Any]]) -> None:
        self.__dict__["_snapshot"] = manifests
        self.__dict__["_snapshot_unsaved"] = True

    def snapshot_known(self, manifests: list[dict[str, Any]]) -> None:
        """The stored snapshot, known without reading it (handed over in this process)."""
        self.__dict__["_snapshot"] = manifests

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        if self.__dict__.pop("_snapshot_unsaved", False):
            RunSnapshot.objects.update_or_create(
                run_id=self.pk, defaults={"manifests": self.__dict__["_snapshot"]}
            )

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        super().refresh_from_db(*args, **kwargs)
        if not self.__dict__.get("_snapshot_unsaved"):
            self.__dict__.pop("_snapshot", None)

    def __str__(self) -> str:
        return f"run {self.pk} ({self.status})"


class RunSnapshot(models.Model):
    """The manifests a run started from (``Run.snapshot``), apart from the often-updated run."""

    run = models.OneToOneField(
        Run, on_delete=models.CASCADE, primary_key=True, related_name="snapshot_row"
    )
    manifests = models.JSONField(
        default=list, blank=True, encoder=FastJSONEncoder, decoder=FastJSONDecoder
    )

    def __str__(self) -> str:
        return f"snapshot of run {self.run_id}"


class RunEvent(models.Model):
    # No index of its own: the unique (run, seq) serves every look-up by run, and a run inserts
    # thousands of rows, each of which would update one B-tree more.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    # The scheduling cycle the event belongs to: its pod's latest CycleStart (see
    # runs.EventCycles). Binding events after a Permit wait carry a later cycle in the payload.
    cycle = models.IntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict, encoder=FastJSONEncoder, decoder=FastJSONDecoder)
    # A row may hold several consecutive events of one owner cycle (``playground.runs.packs``):
    # then ``seq`` is the first one's, ``last`` the last one's, and ``payload`` their list.
    last = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["run", "seq"], name="runevent_unique_seq"),
        ]
        indexes = [models.Index(fields=["run", "cycle", "seq"], name="runevent_run_cycle")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.type}"


class RunCycle(models.Model):
    """One scheduling cycle of a run: its summary, and its per-node detail as compact columns.

    ``data`` holds the cycle's events (CycleStart .. CycleEnd, seq ``seq_first`` .. ``seq_last``)
    in the columnar form of ``playground.runs.columns`` (or, for a cycle of a plain run, the
    recipe ``playground.runs.rebuilt`` computes them from when first read); the small events
    around it (queue actions, the binding cycle, Permit) are ``RunEvent`` rows (``runs.packs``).
    """

    run = models.ForeignKey(  # indexed by the unique (run, cycle)
        Run, on_delete=models.CASCADE, related_name="cycle_records", db_index=False
    )
    cycle = models.PositiveIntegerField()
    seq_first = models.PositiveIntegerField()
    seq_last = models.PositiveIntegerField()
    pod = models.CharField(max_length=507)
    profile = models.CharField(max_length=200, blank=True)
    result = models.CharField(max_length=32, blank=True)  # Scheduled, Unschedulable, Error, ""
    node = models.CharField(max_length=253, blank=True)
    feasible = models.PositiveIntegerField(default=0)
    evaluated = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    data = models.BinaryField()

    class Meta:
        ordering = ["run", "seq_first"]
        constraints = [
            models.UniqueConstraint(fields=["run", "cycle"], name="runcycle_unique_cycle"),
        ]
        indexes = [models.Index(fields=["run", "seq_first"], name="runcycle_run_seq")]

    def __str__(self) -> str:
        return f"{self.run_id} cycle {self.cycle} {self.pod}"


class RunCommand(models.Model):
    """A user's command to a run in progress, applied by the task that drives it."""

    class Kind(models.TextChoices):
        CANCEL = "cancel", "Cancel"
        ALLOW = "allow", "Allow"
        REJECT = "reject", "Reject"
        CHANGE = "change", "Change the cluster"  # message: one script step as JSON

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="commands")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    pod = models.CharField(max_length=507, blank=True)
    plugin = models.CharField(max_length=200, blank=True)
    message = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    applied = models.DateTimeField(null=True, blank=True)
    result = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.run_id} {self.kind} {self.pod}".rstrip()


class RunInput(models.Model):
    """One input a run took from outside the engine, in order (``playground.runs.tape``): the
    custom plugin definitions it started with, a user's command, the clock's move while pods
    waited, an extender's answer. ``point`` is the engine's event count when it was applied."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="inputs")
    point = models.BigIntegerField()
    kind = models.CharField(max_length=16)
    data = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.run_id} {self.kind} at {self.point}"
