"""Feature gates: the switches of kube-scheduler v1.35 that change a scheduling decision.

Mirrors the scheduler's part of pkg/features (kube_features.go) in v1.35: each field is one gate,
with v1.35's default. ``Features.from_gates`` reads the ``name: enabled`` mapping a
``--feature-gates`` flag (or a conformance case's ``featureGates``) gives. The Scheduler takes
them as ``features``; what each changes in a run, and where the engine's records show it:

- SchedulerAsyncPreemption: victims get a deletionTimestamp and keep their node while the loop
  goes on (``Scheduler.terminating``); when the loop is quiet they go one at a time by name
  (a Delete event each), and the nominated preemptor lands after the last. Off: they are
  deleted within the preemptor's cycle.
- OpportunisticBatching: a pod like the previous one (same signature) whose previous node is
  now full takes the next node of that cycle's ranking unscored (``CycleRecord.batch_hint``).
- SchedulerPopFromBackoffQ: with activeQ empty, backoffQ is popped (a Pop from "backoff").
- NominatedNodeNameForExpectation: a pod waiting on Permit is nominated to its node.
- GenericWorkload, GangScheduling: Workloads and the GangScheduling plugin (PreEnqueue,
  Reserve, Permit), which configuration defaulting adds to every profile's plugins.
- ClearingNominatedNodeNameAfterBinding and SchedulerAsyncAPICalls are read for completeness:
  a binding always clears the nomination, and API calls are never observable here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from scheduler_core.errors import SchedulerCoreError

__all__ = ["GATE_NAMES", "TRACE_FEATURES", "V1_35_DEFAULTS", "Features"]


@dataclass(frozen=True, slots=True)
class Features:
    """The gates the engine reads, each as v1.35 ships it unless said otherwise."""

    # The preemptor is nominated at once; its victims are deleted (gracefully: they keep
    # their node until they are gone) while the loop goes on.
    scheduler_async_preemption: bool = True
    # A pod with the same signature as the previous one may take the next node of its ranking.
    opportunistic_batching: bool = True
    # backoffQ is popped when activeQ is empty; backoff only orders pods.
    scheduler_pop_from_backoff_q: bool = True
    # nominatedNodeName is set for a pod that waits on Permit or binds (an expectation).
    nominated_node_name_for_expectation: bool = True
    clearing_nominated_node_name_after_binding: bool = True
    scheduler_async_api_calls: bool = False
    # The Workload API (scheduling.k8s.io/v1alpha1) and gang scheduling: alpha, off.
    generic_workload: bool = False
    gang_scheduling: bool = False

    @classmethod
    def from_gates(
        cls, gates: Mapping[str, object] | None, base: Features | None = None
    ) -> Features:
        """``base`` (v1.35's defaults) with the named gates set; an unknown name or a value that
        is not a boolean raises SchedulerCoreError naming the field."""
        out = base if base is not None else cls()
        if gates is not None and not isinstance(gates, Mapping):
            raise SchedulerCoreError("featureGates: must be a mapping of gate names to booleans")
        changes: dict[str, bool] = {}
        for name, value in (gates or {}).items():
            field = GATE_NAMES.get(name)
            if field is None:
                raise SchedulerCoreError(f"featureGates.{name}: unknown feature gate")
            if not isinstance(value, bool):
                raise SchedulerCoreError(f"featureGates.{name}: must be true or false")
            changes[field] = value
        return dataclasses.replace(out, **changes) if changes else out

    def to_gates(self) -> dict[str, bool]:
        """Every gate by its upstream name."""
        return {name: bool(getattr(self, field)) for name, field in GATE_NAMES.items()}


GATE_NAMES: Final[Mapping[str, str]] = {
    "SchedulerAsyncPreemption": "scheduler_async_preemption",
    "OpportunisticBatching": "opportunistic_batching",
    "SchedulerPopFromBackoffQ": "scheduler_pop_from_backoff_q",
    "NominatedNodeNameForExpectation": "nominated_node_name_for_expectation",
    "ClearingNominatedNodeNameAfterBinding": "clearing_nominated_node_name_after_binding",
    "SchedulerAsyncAPICalls": "scheduler_async_api_calls",
    "GenericWorkload": "generic_workload",
    "GangScheduling": "gang_scheduling",
}

V1_35_DEFAULTS: Final = Features()

# The gates the cycle-by-cycle conformance traces assume (FORMAT.md): preemption carried out
# before the next cycle, no batching.
TRACE_FEATURES: Final = Features(
    scheduler_async_preemption=False,
    opportunistic_batching=False,
)
