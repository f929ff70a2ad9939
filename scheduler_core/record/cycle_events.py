"""A scheduling cycle's record and its events, both ways.

``cycle_events`` turns a CycleRecord into the cycle's events (``cycle_event_fields``: their
types and fields, unbuilt; ``cycle_event_count``: how many), and ``fold_cycle`` turns a cycle's
events back into one cycle of the conformance trace (../shared/conformance/FORMAT.md);
``split_cycles`` groups a run's events by cycle. The event types are in ``events``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from scheduler_core.record.event_columns import (
    IntColumn,
    NameColumn,
)
from scheduler_core.record.events import (
    Combine,
    CycleEnd,
    CycleStart,
    DeviceAllocation,
    DeviceMatches,
    Event,
    Filter,
    PostFilter,
    PreFilter,
    PreScore,
    QueueEvent,
    SamplingInfo,
    Score,
)
from scheduler_core.record.verdicts import (
    Totals,
    verdict_columns,
)

if TYPE_CHECKING:
    from scheduler_core.loop.cycle import CycleRecord


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
) -> list[Event]:
    """The events of one scheduling cycle, numbered from ``seq``.

    ``cycle_event_fields`` says, for each, its type and the fields that are not its defaults.
    """
    pod = rec.pod
    return [
        cls(seq=seq + i, cycle=cycle, pod=pod, time=time, **fields)
        for i, (cls, fields) in enumerate(cycle_event_fields(rec, filter_rows=filter_rows))
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
        snapshot_changes=(
            None if rec.snapshot_changes is None else tuple(map(tuple, rec.snapshot_changes))
        ),
        batch_hint=rec.batch_hint,
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
    # A lone feasible node is the cycle's top even when a later point (Reserve) fails and
    # nothing is selected, as upstream's result names it.
    if rec.selected is not None or rec.totals or rec.top:
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
