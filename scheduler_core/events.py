"""The decision record: one typed, JSON-ready event per extension point and per queue action.

This module is the single place where event types and fields are defined; the conformance
trace, the playground's storage and websocket stream, and the charts all read these records.

Every event has ``seq`` (rising by one per event of a run), ``cycle`` (the scheduling cycle,
0 for queue actions outside a cycle), ``pod`` (``namespace/name``) and ``time`` (seconds on the
run's clock). Per-node values are arrays aligned with a node list: ``CycleStart.nodes`` (the
snapshot's order) for PreFilter and Filter, ``Score.nodes`` (the feasible nodes, in the order
they were scored) for Score, and ``Combine.nodes`` likewise.

``cycle_events`` turns a CycleRecord into the cycle's events and ``fold_cycle`` turns them back
into one cycle of the conformance trace (../shared/conformance/FORMAT.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

from scheduler_core.event_columns import IntColumn, NameColumn
from scheduler_core.verdicts import Totals, verdict_columns

if TYPE_CHECKING:
    from scheduler_core.cycle import CycleRecord


@dataclass(frozen=True, slots=True)
class Event:
    """Fields every event carries."""

    type: ClassVar[str] = "Event"
    seq: int = 0
    cycle: int = 0
    pod: str = ""
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self))
        for name in names:
            value = getattr(self, name)
            out[name] = value if type(value) in _SCALARS else jsonable(value)
        return out

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


# -- CycleRecord <-> events ---------------------------------------------------------------------


def cycle_event_count(rec: CycleRecord) -> int:
    """How many events ``cycle_events`` gives for the cycle (without building them)."""
    if rec.profile is None:
        return 1
    count = 1 + len(rec.pre_filter_steps) + 1
    if rec.filter or rec.filter_plugins:
        count += len(rec.filter_plugins) + 1
    count += rec.device_matches is not None
    count += rec.post_filter_status is not None
    count += len(rec.pre_score_steps) + len(rec.scores)
    count += rec.selected is not None or bool(rec.totals)
    count += rec.claims is not None
    return count + 1


def cycle_events(
    rec: CycleRecord,
    *,
    cycle: int,
    time: float,
    seq: int,
    filter_rows: bool = True,
    columns: bool = True,
) -> list[Event]:
    """The events of one scheduling cycle, numbered from ``seq``.

    ``cycle_event_fields`` says, for each, its type and the fields that are not its defaults.
    """
    pod = rec.pod
    return [
        cls(seq=seq + i, cycle=cycle, pod=pod, time=time, **fields)
        for i, (cls, fields) in enumerate(
            cycle_event_fields(rec, filter_rows=filter_rows, columns=columns)
        )
    ]


def cycle_event_fields(
    rec: CycleRecord, *, filter_rows: bool = True, columns: bool = True
) -> list[tuple[type[Event], dict[str, Any]]]:
    """The events of one scheduling cycle as (event type, fields other than seq, cycle, pod and
    time), in order: what ``cycle_events`` builds, for a consumer that need not build them all.

    With ``filter_rows`` False each Filter plugin's event leaves its per-node ``codes`` and
    ``reasons`` empty: they follow from the verdict row (``filter_plugin_rows``), so a consumer
    that stores the verdict (the playground) need not have them built for every cycle.

    With ``columns`` False no per-node field is filled: CycleStart's ``nodes``, the verdict
    row's ``codes``, ``reasons`` and ``rejector``, Score's and Combine's ``nodes`` and values,
    Combine's ``top`` and CycleEnd's ``feasible`` stay empty, for a consumer that reads them
    from the record's own columns (the playground's cycle storage); every other field is set.
    Implies ``filter_rows`` False.
    """
    out: list[tuple[type[Event], dict[str, Any]]] = []

    def add(cls: type[Event], **kw: Any) -> None:
        out.append((cls, kw))

    add(
        CycleStart,
        profile=rec.profile,
        nodes=tuple(rec.nodes) if columns else (),
        note=rec.note,
        sampling=_sampling_info(rec),
    )
    if rec.profile is None:
        return out
    for name, st, result in rec.pre_filter_steps:
        names = None
        if result is not None and result.node_names is not None:
            names = tuple(sorted(result.node_names))
        add(PreFilter, plugin=name, code=st.code.upstream, reasons=st.reasons, node_names=names)
    pf = rec.pre_filter
    add(
        PreFilter,
        merged=True,
        plugin=pf.plugin if pf is not None and not pf.is_success() else "",
        code=pf.code.upstream if pf is not None else "Success",
        reasons=pf.reasons if pf is not None and not pf.is_success() else (),
        node_names=tuple(rec.pre_filter_nodes) if rec.pre_filter_nodes is not None else None,
    )
    if (rec.filter or rec.filter_plugins) and not columns:
        for p in rec.filter_plugins:
            add(Filter, plugin=p)
        add(Filter, plugin="")
    elif rec.filter or rec.filter_plugins:
        verdict, verdict_reasons, rejector = verdict_columns(rec.filter, rec.nodes)
        if filter_rows:
            rows = filter_plugin_rows(rec.filter_plugins, verdict, verdict_reasons, rejector)
            for p, (codes, reasons) in zip(rec.filter_plugins, rows, strict=True):
                add(Filter, plugin=p, codes=codes, reasons=reasons)
        else:
            for p in rec.filter_plugins:
                add(Filter, plugin=p)
        add(
            Filter,
            plugin="",
            codes=tuple(verdict),
            reasons=tuple(verdict_reasons),
            rejector=tuple(rejector),
        )
    if rec.device_matches is not None:
        names = tuple(rec.device_matches)
        add(DeviceMatches, nodes=names, explanations=tuple(rec.device_matches[n] for n in names))
    if rec.post_filter_status is not None:
        st = rec.post_filter_status
        r = rec.post_filter
        add(
            PostFilter,
            plugin=st.plugin,
            code=st.code.upstream,
            reasons=st.reasons,
            nominated_node=(r.nominated_node_name or None) if r else None,
            victims=tuple(sorted(r.victims)) if r else (),
            candidates=tuple(
                {"node": node, "victims": list(victims)} for node, victims in r.candidates
            )
            if r
            else (),
        )
    for name, st in rec.pre_score_steps:
        add(PreScore, plugin=name, code=st.code.upstream, reasons=st.reasons)
    if not columns:
        for ps in rec.scores:
            add(Score, plugin=ps.name, weight=ps.weight)
        if rec.selected is not None or rec.totals:
            add(Combine, selected=rec.selected, scored=bool(rec.scored_nodes))
        _add_tail(rec, add, feasible=())
        return out
    scored_nodes: tuple[str, ...] = (
        NameColumn.of(rec.scored_nodes, rec.scored_rows)
        if rec.scored_rows is not None and len(rec.scored_rows) == len(rec.scored_nodes)
        else tuple(rec.scored_nodes)
    )
    for ps in rec.scores:
        raw = IntColumn.of(ps.raw_array) if ps.raw_array is not None else tuple(ps.raw)
        if ps.array is not None:
            normalized: tuple[int, ...] = IntColumn.of(ps.array)
            weighted = normalized if ps.weight == 1 else IntColumn.of(ps.array * ps.weight)
        else:
            normalized = tuple(ps.normalized)
            weighted = normalized if ps.weight == 1 else tuple(v * ps.weight for v in normalized)
        add(
            Score,
            plugin=ps.name,
            weight=ps.weight,
            nodes=scored_nodes,
            raw=raw,
            normalized=normalized,
            weighted=weighted,
        )
    if rec.selected is not None or rec.totals:
        totals = rec.totals
        if isinstance(totals, Totals):
            same = totals.names() is rec.scored_nodes
            names, values = scored_nodes if same else tuple(totals.names()), totals.column()
        else:
            names = tuple(totals) if totals else tuple(rec.top)
            values = tuple(totals[n] for n in names) if totals else ()
        add(
            Combine,
            nodes=names,
            totals=values,
            top=(
                NameColumn.of(rec.top, rec.top_rows)
                if rec.top_rows is not None and len(rec.top_rows) == len(rec.top)
                else tuple(rec.top)
            ),
            selected=rec.selected,
            scored=bool(rec.scored_nodes),
        )
    _add_tail(rec, add, feasible=tuple(sorted(rec.feasible)))
    return out


def cycle_result(rec: CycleRecord) -> str:
    """CycleEnd's ``result``: Error, Scheduled (a node was chosen) or Unschedulable."""
    return "Error" if rec.error else ("Scheduled" if rec.selected else "Unschedulable")


def _add_tail(rec: CycleRecord, add: Callable[..., None], *, feasible: tuple[str, ...]) -> None:
    if rec.claims is not None:
        add(DeviceAllocation, claims=rec.claims)
    add(
        CycleEnd,
        result=cycle_result(rec),
        node=rec.selected,
        feasible=feasible,
        message=rec.message,
    )


def filter_plugin_rows(
    plugins: Sequence[str],
    codes: Sequence[str | None],
    reasons: Sequence[tuple[str, ...] | Sequence[str] | None],
    rejector: Sequence[str | None],
) -> list[tuple[tuple[str | None, ...], tuple[tuple[str, ...] | None, ...]]]:
    """Each Filter plugin's row (codes, reasons per node) from the verdict row.

    A plugin ran on a node until one rejected it: the plugins before the rejector passed, the
    rejector gave the verdict's code and reasons, the ones after did not run (None). A node
    not evaluated has None everywhere; a rejection without a known plugin counts as every
    plugin passing, as the framework reports it. So a cycle's Filter detail is its verdict row.
    """
    index = {p: i for i, p in enumerate(plugins)}
    n = len(plugins)
    cols: list[list[str | None]] = [[] for _ in plugins]
    why: list[list[tuple[str, ...] | None]] = [[] for _ in plugins]
    for code, reason, plugin in zip(codes, reasons, rejector, strict=True):
        if code is None:
            stop, last = -1, 0  # every plugin: not run
        elif code == "Success":
            stop, last = n, n
        else:
            stop = index.get(plugin, n) if plugin is not None else n
            last = stop
        for i in range(n):
            if i < last:
                cols[i].append("Success")
                why[i].append(())
            elif i == stop:
                cols[i].append(code)
                why[i].append(tuple(reason or ()))
            else:
                cols[i].append(None)
                why[i].append(None)
    return [(tuple(c), tuple(w)) for c, w in zip(cols, why, strict=True)]


def _sampling_info(rec: CycleRecord) -> SamplingInfo | None:
    if rec.start_index is None:
        return None
    found = rec.sampling
    return SamplingInfo(
        start_index=rec.start_index,
        next_start_index=(
            rec.next_start_index if rec.next_start_index is not None else rec.start_index
        ),
        evaluated=len(rec.filter),
        cluster_nodes=len(rec.nodes),
        candidates=found.nodes if found else 0,
        to_find=found.count if found else 0,
        rule=found.rule if found else "",
        configured=found.configured if found else None,
        source=found.source if found else "",
        percentage=found.percentage if found else 0,
        adaptive=found.adaptive if found else False,
        minimum=found.minimum if found else False,
        nominated_node=rec.nominated_node_taken,
    )


def fold_cycle(events: Iterable[Event]) -> dict[str, Any]:
    """One cycle of the conformance trace, from that cycle's events."""
    out: dict[str, Any] = {}
    nodes: Sequence[str] = ()
    scores: dict[str, dict[str, dict[str, int]]] = {}
    scored = False
    for ev in events:
        if isinstance(ev, CycleStart):
            out = {"pod": ev.pod, "profile": ev.profile}
            nodes = ev.nodes
            out.update(
                preFilter=None,
                filter={},
                feasible=[],
                postFilter=None,
                scores={},
                totals={},
                top=[],
                selected=None,
                message=None,
            )
            if ev.profile is None:
                out["note"] = ev.note
                return out
            if ev.sampling is not None:
                out["startIndex"] = ev.sampling["start_index"]
                out["evaluated"] = ev.sampling["evaluated"]
        elif isinstance(ev, PreFilter) and ev.merged:
            pre: dict[str, Any] = {"code": ev.code}
            if ev.code != "Success":
                if ev.plugin:
                    pre["plugin"] = ev.plugin
                pre["reasons"] = list(ev.reasons)
            pre["nodeNames"] = list(ev.node_names) if ev.node_names is not None else None
            out["preFilter"] = pre
        elif isinstance(ev, Filter) and ev.plugin == "":
            filt: dict[str, Any] = {}
            for i, node in enumerate(nodes):
                code = ev.codes[i]
                if code is None:
                    continue
                entry: dict[str, Any] = {"code": code}
                if code != "Success":
                    if ev.rejector and ev.rejector[i]:
                        entry["plugin"] = ev.rejector[i]
                    entry["reasons"] = list(ev.reasons[i] or ())
                filt[node] = entry
            out["filter"] = filt
        elif isinstance(ev, PostFilter):
            out["postFilter"] = {
                "code": ev.code,
                "nominatedNode": ev.nominated_node,
                "victims": list(ev.victims),
            }
        elif isinstance(ev, Score):
            scored = True
            for i, node in enumerate(ev.nodes):
                scores.setdefault(node, {})[ev.plugin] = {
                    "raw": ev.raw[i],
                    "normalized": ev.normalized[i],
                    "weighted": ev.weighted[i],
                }
        elif isinstance(ev, Combine):
            if ev.scored:
                for node in ev.nodes:
                    scores.setdefault(node, {})
            out["totals"] = dict(zip(ev.nodes, ev.totals, strict=False)) if ev.totals else {}
            out["top"] = list(ev.top)
            out["selected"] = ev.selected
        elif isinstance(ev, DeviceAllocation):
            out["claims"] = ev.claims
        elif isinstance(ev, CycleEnd):
            out["feasible"] = list(ev.feasible)
            out["message"] = ev.message
    out["scores"] = scores if (scored or scores) else {}
    return out


def split_cycles(events: Iterable[Event]) -> Iterator[list[Event]]:
    """Group a run's events into the lists that belong to each scheduling cycle, in order."""
    current: list[Event] = []
    for ev in events:
        if isinstance(ev, CycleStart):
            if current:
                yield current
            current = [ev]
        elif current and ev.cycle == current[0].cycle and not isinstance(ev, QueueEvent):
            current.append(ev)
    if current:
        yield current
