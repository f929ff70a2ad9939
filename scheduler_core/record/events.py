"""The decision record: one typed, JSON-ready event per extension point and per queue action.

This module is the single place where event types and fields are defined; the conformance
trace, the playground's storage and websocket stream, and the charts all read these records.

Every event has ``seq`` (rising by one per event of a run), ``cycle`` (the scheduling cycle,
0 for queue actions outside a cycle), ``pod`` (``namespace/name``) and ``time`` (seconds on the
run's clock). Per-node values are arrays aligned with a node list: ``CycleStart.nodes`` (the
snapshot's order) for PreFilter and Filter, ``Score.nodes`` (the feasible nodes, in the order
they were scored) for Score, and ``Combine.nodes`` likewise.

``record.cycle_events`` turns a CycleRecord into the cycle's events and folds them back into
one cycle of the conformance trace (../shared/conformance/FORMAT.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

if TYPE_CHECKING:
    pass


@dataclass(frozen=True, slots=True)
class Event:
    """Fields every event carries."""

    type: ClassVar[str] = "Event"
    seq: int = 0
    cycle: int = 0
    pod: str = ""
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {k: v if type(v) in _SCALARS else jsonable(v) for k, v in self.fields().items()}

    def fields(self) -> dict[str, Any]:
        """``to_dict()`` with the values as they are (tuples stay tuples), for a JSON encoder that
        writes tuples as arrays; nested dicts are the event's own (do not change them)."""
        out: dict[str, Any] = {"type": self.type}
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self))
        for name in names:
            out[name] = getattr(self, name)
        return out


_SCALARS = frozenset({str, int, float, bool, type(None)})
_FIELD_NAMES: dict[type[Event], tuple[str, ...]] = {}  # each event type's fields, in order


def jsonable(value: Any) -> Any:
    """A field value as JSON: tuples become lists, recursively."""
    if isinstance(value, tuple | list):
        if _SCALARS.issuperset(map(type, value)):  # node names, scores: no element to convert
            return list(value)
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


# -- scheduling cycle ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CycleStart(Event):
    """A pod was popped and a cycle begins: its profile and the snapshot's node order."""

    type: ClassVar[str] = "CycleStart"
    profile: str | None = None
    nodes: tuple[str, ...] = ()
    nominated_node: str | None = None
    note: str | None = None
    sampling: SamplingInfo | None = None  # None when every node is evaluated (sampling off)
    # The cache's changes since the last cycle's snapshot, [node, change, pod key or ""] each:
    # the nodes this cycle's snapshot copied in (None: not recorded).
    snapshot_changes: tuple[tuple[str, str, str], ...] | None = None
    # OpportunisticBatching: the node of the previous cycle's ranking this pod was offered and
    # took, unscored (the previous pod was the same and its node is now full).
    batch_hint: str | None = None


class SamplingInfo(TypedDict):
    """How percentageOfNodesToScore chose the nodes Filter ran on (CycleStart.sampling).

    Filter walked ``candidates`` nodes (the snapshot's, or the PreFilter result's) from
    ``start_index`` (the scheduler's index when the cycle began, modulo ``candidates``),
    wrapping around, until it had passed one node more than ``to_find`` or tried them all;
    ``evaluated`` nodes were filtered. ``rule`` says how ``to_find`` was set: "fewer-than-100"
    (all of them), "percentage" (``candidates`` x ``percentage`` / 100, raised to 100 when
    ``minimum``), "no-scoring" (1: no Score plugin, prioritizer or filter extender), or ""
    (no walk: PreFilter rejected the pod). ``configured`` is the percentageOfNodesToScore in
    force and ``source`` where it came from ("profile" or "global"); ``adaptive`` means it was 0,
    so ``percentage`` is 50 - candidates/125, at least 5. ``nominated_node`` is True when the
    pod's nominated node passed and nothing else was walked. ``next_start_index`` is where the
    next cycle starts: moved on by the feasible nodes found plus the nodes that failed.
    """

    start_index: int
    next_start_index: int
    evaluated: int
    cluster_nodes: int
    candidates: int
    to_find: int
    rule: str
    configured: int | None
    source: str
    percentage: int
    adaptive: bool
    minimum: bool
    nominated_node: bool


@dataclass(frozen=True, slots=True)
class PreFilter(Event):
    """One PreFilter plugin's answer, or (``merged``) the framework's result for the cycle.

    On the merged event ``plugin`` names the plugin that rejected the pod, if any.
    """

    type: ClassVar[str] = "PreFilter"
    plugin: str = ""
    merged: bool = False
    code: str = "Success"
    reasons: tuple[str, ...] = ()
    node_names: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Filter(Event):
    """One Filter plugin over the snapshot's nodes (CycleStart.nodes order).

    ``codes[i]`` is the plugin's code on node i, or None where it did not run (the node was not
    evaluated, or an earlier plugin already rejected it); ``reasons[i]`` its reasons. The row with
    plugin "" is the verdict per node: the first rejection, or Success.
    """

    type: ClassVar[str] = "Filter"
    plugin: str = ""
    codes: tuple[str | None, ...] = ()
    reasons: tuple[tuple[str, ...] | None, ...] = ()
    rejector: tuple[str | None, ...] = ()  # only on the verdict row: the rejecting plugin


@dataclass(frozen=True, slots=True)
class PostFilter(Event):
    type: ClassVar[str] = "PostFilter"
    plugin: str = ""
    code: str = "Success"
    reasons: tuple[str, ...] = ()
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()
    candidates: tuple[dict[str, Any], ...] = ()  # {"node": name, "victims": [...]} per candidate


@dataclass(frozen=True, slots=True)
class PreScore(Event):
    type: ClassVar[str] = "PreScore"
    plugin: str = ""
    code: str = "Success"
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Score(Event):
    """One Score plugin over the feasible nodes: raw, normalized and weighted values."""

    type: ClassVar[str] = "Score"
    plugin: str = ""
    weight: int = 1
    nodes: tuple[str, ...] = ()
    raw: tuple[int, ...] = ()
    normalized: tuple[int, ...] = ()
    weighted: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Combine(Event):
    """The weighted sum per feasible node, the best nodes and the one chosen."""

    type: ClassVar[str] = "Combine"
    nodes: tuple[str, ...] = ()
    totals: tuple[int, ...] = ()
    top: tuple[str, ...] = ()
    selected: str | None = None
    scored: bool = True  # False when Score did not run (one feasible node)


@dataclass(frozen=True, slots=True)
class CycleEnd(Event):
    """The scheduling cycle's outcome: Scheduled (node chosen), Unschedulable or Error."""

    type: ClassVar[str] = "CycleEnd"
    result: str = ""
    node: str | None = None
    feasible: tuple[str, ...] = ()
    message: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceMatches(Event):
    """DRA, per node (aligned with ``nodes``): each pending request's devices and verdicts.

    An explanation (scheduler_core.dra.explain), not a trace field: ``matched``, ``taken`` or
    ``selector`` with the reason, pools the node does not see under ``elsewhere``, and the
    devices Filter chose there under ``allocation``.
    """

    type: ClassVar[str] = "DeviceMatches"
    nodes: tuple[str, ...] = ()
    explanations: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceAllocation(Event):
    """DRA: the pod's claims after the binding cycle (namespace/name -> allocated, devices)."""

    type: ClassVar[str] = "DeviceAllocation"
    claims: dict[str, Any] = field(default_factory=dict)


# -- binding cycle ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BindingStep(Event):
    """Base of the binding-cycle events: one plugin's status on the chosen node."""

    type: ClassVar[str] = "BindingStep"
    plugin: str = ""
    node: str = ""
    code: str = "Success"
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Reserve(BindingStep):
    type: ClassVar[str] = "Reserve"


@dataclass(frozen=True, slots=True)
class Permit(BindingStep):
    """Permit's answer; a Wait carries its timeout, and the later Allow/Reject/timeout too."""

    type: ClassVar[str] = "Permit"
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class PreBind(BindingStep):
    type: ClassVar[str] = "PreBind"


@dataclass(frozen=True, slots=True)
class Bind(BindingStep):
    type: ClassVar[str] = "Bind"


@dataclass(frozen=True, slots=True)
class PostBind(BindingStep):
    type: ClassVar[str] = "PostBind"


@dataclass(frozen=True, slots=True)
class Unreserve(BindingStep):
    type: ClassVar[str] = "Unreserve"


# -- queue --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QueueEvent(Event):
    """Base of the queue actions; ``details`` says where from, where to and why."""

    type: ClassVar[str] = "QueueEvent"
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Enqueue(QueueEvent):
    type: ClassVar[str] = "Enqueue"


@dataclass(frozen=True, slots=True)
class Pop(QueueEvent):
    type: ClassVar[str] = "Pop"


@dataclass(frozen=True, slots=True)
class Backoff(QueueEvent):
    """A pending pod entered backoffQ: ``details`` {"until", "event", "from"}, and "plugin" and
    "hints" as MoveToActive has them when a cluster event's queueing hints moved it."""

    type: ClassVar[str] = "Backoff"


@dataclass(frozen=True, slots=True)
class Unschedulable(QueueEvent):
    type: ClassVar[str] = "Unschedulable"


@dataclass(frozen=True, slots=True)
class MoveToActive(QueueEvent):
    """A pending pod moved to activeQ (a Backoff record likewise for backoffQ). When a cluster
    event moved it, ``details`` names the event, the plugin whose queueing hint said Queue and
    every asked plugin's answer: {"event": "NodeAdd", "from": "unschedulable", "plugin":
    "NodeResourcesFit", "hints": {"NodeAffinity": "QueueSkip", "NodeResourcesFit": "Queue"}}."""

    type: ClassVar[str] = "MoveToActive"


@dataclass(frozen=True, slots=True)
class StayUnschedulable(QueueEvent):
    """A cluster event did not move an unschedulable pod: every rejecting plugin's queueing hint
    registered for it said QueueSkip. ``details``: {"event": "NodeAdd", "from": "unschedulable",
    "plugin": None, "hints": {"NodeAffinity": "QueueSkip"}} (only when a hint was asked)."""

    type: ClassVar[str] = "StayUnschedulable"


@dataclass(frozen=True, slots=True)
class ClusterChange(QueueEvent):
    """A node was added, updated or removed between cycles (``pod`` is ""): ``details`` has
    "node", "action" ("add", "update", "remove") and "events", the cluster events it sent to
    the queue (["NodeUpdateNodeLabel", "NodeUpdateNodeTaint"]); the moves it caused follow
    (MoveToActive, Backoff, StayUnschedulable). A pod added or deleted with ``record=True`` has
    "pod" (``namespace/name``) instead of "node", and "action" "add" or "delete"."""

    type: ClassVar[str] = "ClusterChange"


@dataclass(frozen=True, slots=True)
class Nominate(QueueEvent):
    type: ClassVar[str] = "Nominate"


@dataclass(frozen=True, slots=True)
class Delete(QueueEvent):
    type: ClassVar[str] = "Delete"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        CycleStart,
        PreFilter,
        Filter,
        PostFilter,
        PreScore,
        Score,
        Combine,
        CycleEnd,
        DeviceMatches,
        DeviceAllocation,
        Reserve,
        Permit,
        PreBind,
        Bind,
        PostBind,
        Unreserve,
        Enqueue,
        Pop,
        Backoff,
        Unschedulable,
        MoveToActive,
        StayUnschedulable,
        Nominate,
        Delete,
        ClusterChange,
    )
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an event from its to_dict() form."""
    cls = EVENT_TYPES[data["type"]]
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        kwargs[f.name] = _tupled(value) if f.name not in ("details", "claims") else value
    return cls(**kwargs)


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value
