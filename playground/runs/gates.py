"""A run's feature gates: the switches of kube-scheduler v1.35 it ran with (``Run.feature_gates``).

A run stores every gate by its upstream name (``scheduler_core.features.GATE_NAMES``). New runs
get v1.35's defaults unless their form says otherwise; runs stored before runs kept their gates
ran with ``TRACE_FEATURES`` (preemption carried out within the preemptor's cycle, no batching),
which the migration gave them. Every Scheduler built for a run (its execution, its replay for
"explain", a cycle computed again) takes ``run_features(run)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from scheduler_core.features import GATE_NAMES, TRACE_FEATURES, V1_35_DEFAULTS, Features

__all__ = [
    "ALPHA",
    "GATE_HELP",
    "GATE_NOTES",
    "gate_notes",
    "gates_differing",
    "run_features",
    "trace_gates",
    "v1_35_gates",
]

# Alpha in v1.35: off unless asked for.
ALPHA: Final = frozenset({"GenericWorkload", "GangScheduling"})

# What each gate changes in a run, in a line (the run form's help).
GATE_HELP: Final[Mapping[str, Promise]] = {
    "SchedulerAsyncPreemption": gettext_lazy(
        "Preemption's victims get a deletion timestamp and keep their node while the scheduler "
        "goes on; the preemptor lands once they are gone. Off: they are deleted within the "
        "preemptor's cycle."
    ),
    "OpportunisticBatching": gettext_lazy(
        "A pod like the previous one (same signature) whose previous node is now full takes "
        "the next node of that cycle's ranking, without Filter and Score on every node."
    ),
    "SchedulerPopFromBackoffQ": gettext_lazy(
        "With nothing in activeQ, a pod still backing off is popped at once; backoff only "
        "orders pods."
    ),
    "NominatedNodeNameForExpectation": gettext_lazy(
        "A pod that waits at Permit or binds is nominated to its node."
    ),
    "ClearingNominatedNodeNameAfterBinding": gettext_lazy(
        "A binding clears the pod's nomination (here it always does)."
    ),
    "SchedulerAsyncAPICalls": gettext_lazy(
        "API calls made in the background (nothing a run can observe)."
    ),
    "GenericWorkload": gettext_lazy("The Workload API (scheduling.k8s.io/v1alpha1)."),
    "GangScheduling": gettext_lazy(
        "The GangScheduling plugin in every profile: a gang's pods wait at Permit until "
        "enough of them fit."
    ),
}


# What a gate set otherwise than v1.35's default changes in a run, in a sentence (the run page's
# note under its feature-gates line): keyed by (gate, enabled).
GATE_NOTES: Final[Mapping[tuple[str, bool], Promise]] = {
    ("SchedulerAsyncPreemption", False): gettext_lazy(
        "preemption's victims are deleted within the preemptor's cycle, which lands at once "
        "in the next; other pods never see the victims still holding their node."
    ),
    ("OpportunisticBatching", False): gettext_lazy(
        "every pod is filtered and scored on every node; none takes the next node of the "
        "previous pod's ranking."
    ),
    ("SchedulerPopFromBackoffQ", False): gettext_lazy(
        "a pod in backoffQ waits out its backoff even when activeQ is empty."
    ),
    ("NominatedNodeNameForExpectation", False): gettext_lazy(
        "a pod waiting at Permit or binding is not nominated to its node."
    ),
    ("ClearingNominatedNodeNameAfterBinding", False): gettext_lazy(
        "nothing observable: here a binding clears the nomination either way."
    ),
    ("SchedulerAsyncAPICalls", True): gettext_lazy(
        "nothing observable: the API calls go in the background."
    ),
    ("GenericWorkload", True): gettext_lazy(
        "Workload objects count: a pod names its Workload and pod group in spec.workloadRef."
    ),
    ("GangScheduling", True): gettext_lazy(
        "the pods of a Workload's gang stay out of the queue until minCount of them exist, "
        "and wait at Permit until minCount are assumed; then all of them bind (the Gangs "
        "panel shows who waits where)."
    ),
    ("GenericWorkload", False): gettext_lazy("Workload objects are ignored."),
    ("GangScheduling", False): gettext_lazy(
        "pods of a Workload are scheduled one by one, like any other pod."
    ),
}


def gate_notes(gates: Mapping[str, Any] | None) -> list[tuple[str, bool, str]]:
    """Each gate set otherwise than v1.35's defaults, with what it changes in a run."""
    return [
        (name, on, str(GATE_NOTES.get((name, on), GATE_HELP.get(name, ""))))
        for name, on in gates_differing(gates)
    ]


def v1_35_gates() -> dict[str, bool]:
    """Every gate as v1.35 ships it: a new run's default."""
    return V1_35_DEFAULTS.to_gates()


def trace_gates() -> dict[str, bool]:
    """The gates runs stored before ``Run.feature_gates`` ran with (the migration's default)."""
    return TRACE_FEATURES.to_gates()


def run_features(run: Any) -> Features:
    """The gates a run runs with (a gate it does not name has v1.35's default)."""
    return Features.from_gates(getattr(run, "feature_gates", None) or {})


def gates_differing(gates: Mapping[str, Any] | None) -> list[tuple[str, bool]]:
    """The gates set otherwise than v1.35's defaults, in ``GATE_NAMES`` order."""
    given = dict(gates or {})
    defaults = v1_35_gates()
    return [
        (name, bool(given[name]))
        for name in GATE_NAMES
        if name in given and bool(given[name]) != defaults[name]
    ]
