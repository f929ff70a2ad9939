"""One scheduling cycle: PreFilter, Filter, PostFilter, PreScore, Score and host selection.

Mirrors schedulePod, findNodesThatFitPod, findNodesThatPassFilters, numFeasibleNodesToFind and
prioritizeNodes in pkg/scheduler/schedule_one.go of kube-scheduler v1.35. The cycle records what
each step decided in a CycleRecord, whose to_dict() is one cycle of a conformance trace.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from scheduler_core.extenders.extender import (
    EXTENDER_NAME,
    EXTENDER_SCORE_SCALE,
    ExtenderError,
    HTTPExtender,
    extender_priorities,
    find_nodes_that_pass_extenders,
)
from scheduler_core.framework.columns import columns_of, names_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import PostFilterResult
from scheduler_core.framework.runtime import Framework, PluginScores
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import (
    Diagnosis,
    NodeInfo,
    Snapshot,
    fit_error_message,
)
from scheduler_core.loop.batching import OpportunisticBatch
from scheduler_core.loop.sampling import (
    RULE_ALL,
    RULE_NO_SCORING,
    NodesToFind,
    StartIndex,
    Walk,
    find_nodes_that_pass_filters,
    next_start_index,
    nodes_to_find,
)
from scheduler_core.objects.api import Pod
from scheduler_core.record.verdicts import (
    FilterVerdicts,
    Totals,
)


def no_profile_note(scheduler_name: str) -> str:
    """A cycle's note for a pod whose schedulerName no profile has (the traces' convention: a
    cycle of its own, with no profile); upstream's informers never queue such a pod."""
    return (
        f"no profile for schedulerName {scheduler_name!r}; pod not scheduled (kube-scheduler "
        "never queues a pod no profile serves: it stays Pending)"
    )


@dataclass(slots=True)
class CycleRecord:
    """What one scheduling cycle decided, step by step."""

    pod: str
    profile: str | None
    pre_filter: Status | None = None
    pre_filter_nodes: list[str] | None = None
    filter: FilterVerdicts = field(default_factory=FilterVerdicts)
    feasible: list[str] = field(default_factory=list)
    post_filter: PostFilterResult | None = None
    post_filter_status: Status | None = None
    scores: list[PluginScores] = field(default_factory=list)
    scored_nodes: list[str] = field(default_factory=list)
    scored_rows: Any = None  # scored_nodes' positions in ``nodes`` (an int array), when known
    top_rows: Any = None  # and top's
    totals: Mapping[str, int] = field(default_factory=Totals)
    top: list[str] = field(default_factory=list)
    selected: str | None = None
    message: str | None = None
    note: str | None = None
    diagnosis: Diagnosis | None = None
    error: bool = False
    nodes: list[str] = field(default_factory=list)  # the snapshot's node order (do not change)
    pre_filter_steps: list[tuple[str, Status, Any]] = field(default_factory=list)
    pre_score_steps: list[tuple[str, Status]] = field(default_factory=list)
    filter_plugins: list[str] = field(default_factory=list)  # Filter plugins that ran, in order
    start_index: int | None = None  # the scheduler's start index at cycle start (sampling on)
    batch_hint: str | None = None  # the node a batch offered and the pod took, unscored
    next_start_index: int | None = None  # and after the cycle
    sampling: NodesToFind | None = None  # how many nodes Filter looked for, and why
    nominated_node_taken: bool = False  # the nominated node passed: no walk over the others
    claims: dict[str, Any] | None = None  # DRA: the pod's claims after the binding cycle
    device_matches: dict[str, Any] | None = None  # DRA: node -> dra.explain explanation
    scored_infos: dict[str, NodeInfo] | None = None  # an extender's node copies, when scored
    # The cache's changes this cycle's snapshot took in, (node, change, pod key or ""): the
    # nodes upstream's UpdateSnapshot copies (None: not known, as in a case run).
    snapshot_changes: list[tuple[str, str, str]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The conformance trace's cycle (conformance/FORMAT.md)."""
        out: dict[str, Any] = {"pod": self.pod, "profile": self.profile}
        if self.profile is None:
            out.update(_EMPTY_CYCLE)
            out["note"] = self.note
            return out
        pf = self.pre_filter
        pre: dict[str, Any] = {"code": pf.code.upstream if pf else "Success"}
        if pf is not None and not pf.is_success():
            if pf.plugin:
                pre["plugin"] = pf.plugin
            pre["reasons"] = list(pf.reasons)
        pre["nodeNames"] = self.pre_filter_nodes
        out["preFilter"] = pre
        out["filter"] = {n: s.to_dict() for n, s in self.filter.items()}
        out["feasible"] = sorted(self.feasible)
        if self.post_filter_status is None:
            out["postFilter"] = None
        else:
            pfr = self.post_filter
            out["postFilter"] = {
                "code": self.post_filter_status.code.upstream,
                "nominatedNode": (pfr.nominated_node_name or None) if pfr else None,
                "victims": sorted(pfr.victims) if pfr else [],
            }
        scores: dict[str, dict[str, dict[str, int]]] = {}
        for i, node in enumerate(self.scored_nodes):
            per: dict[str, dict[str, int]] = {}
            for ps in self.scores:
                per[ps.name] = {
                    "raw": ps.raw[i],
                    "normalized": ps.normalized[i],
                    "weighted": ps.normalized[i] * ps.weight,
                }
            scores[node] = per
        out["scores"] = scores
        out["totals"] = dict(self.totals)
        out["top"] = list(self.top)
        out["selected"] = self.selected
        out["message"] = self.message
        if self.start_index is not None:
            out["startIndex"] = self.start_index
            out["evaluated"] = len(self.filter)
        if self.claims is not None:
            out["claims"] = self.claims
        if self.note:
            out["note"] = self.note
        return out


# What a cycle that never ran (no profile for the pod's schedulerName) shows in a trace.
_EMPTY_CYCLE: Final[dict[str, Any]] = {
    "preFilter": None,
    "filter": {},
    "feasible": [],
    "postFilter": None,
    "scores": {},
    "totals": {},
    "top": [],
    "selected": None,
    "message": None,
}


class CycleRunner:
    """Runs scheduling cycles for one profile over the snapshots it is given."""

    def __init__(
        self,
        framework: Framework,
        *,
        percentage_of_nodes_to_score: int | None,
        evaluate_all_nodes: bool = False,
        start_index: StartIndex | None = None,
        extenders: Sequence[HTTPExtender] = (),
    ) -> None:
        """``percentage_of_nodes_to_score`` is the configuration-wide value (the profile's own
        wins when set); ``evaluate_all_nodes`` turns sampling off: Filter visits every node (the
        conformance traces' rule without ``sampling``). ``start_index`` is shared by the runners
        of every profile of one scheduler, as upstream keeps one nextStartNodeIndex."""
        self.fwk = framework
        self.evaluate_all_nodes = evaluate_all_nodes
        self.extenders = list(extenders)
        self.global_percentage = percentage_of_nodes_to_score
        self.start_index = start_index if start_index is not None else StartIndex()
        # OpportunisticBatching's state, when the gate is on (set by the Scheduler).
        self.batch: OpportunisticBatch | None = None

    def schedule(
        self, snapshot: Snapshot, pod: Pod, state: CycleState | None = None
    ) -> CycleRecord:
        fwk = self.fwk
        fwk.set_snapshot(snapshot)
        state = state if state is not None else CycleState()
        rec = CycleRecord(pod=pod.key, profile=fwk.profile_name)
        num_all = snapshot.num_nodes()
        diagnosis = Diagnosis()
        rec.diagnosis = diagnosis
        if num_all == 0:
            rec.message = "no nodes available to schedule pods"
            rec.error = True
            return rec
        all_nodes = snapshot.node_info_list
        # The snapshot's own list, built once per change of the node set and never changed:
        # consecutive cycles share it, so a consumer knows the order by identity.
        rec.nodes = snapshot.node_names
        if not self.evaluate_all_nodes:
            rec.start_index = self.start_index.value
        pre = fwk.run_pre_filter_plugins(state, pod, all_nodes, rec.pre_filter_steps)
        rec.filter_plugins = [
            pl.name for pl in fwk.filter_plugins if pl.name not in state.skip_filter_plugins
        ]
        rec.pre_filter = pre.status
        diagnosis.unschedulable_plugins = set(pre.plugins_with_nodes)
        if pre.result is not None and not pre.result.all_nodes():
            assert pre.result.node_names is not None
            rec.pre_filter_nodes = sorted(pre.result.node_names)
        feasible: list[NodeInfo] = []
        hint: str = ""
        signature: str | None = None
        if not pre.status.is_success():
            if not pre.status.is_rejected():
                rec.error = True
                rec.message = pre.status.message()
                return rec
            diagnosis.absent_nodes_status = pre.status
            diagnosis.pre_filter_msg = pre.status.message()
            diagnosis.add_plugin_status(pre.status)
        else:
            if self.batch is not None:
                hint, signature = self.batch.node_hint(state, pod, snapshot)
            # A nominated node comes first; a batch's hint is tried the same way.
            target = pod.nominated_node_name or hint
            if target:
                ni = snapshot.get(target)
                if ni is not None:
                    # Upstream logs an error here and goes on to the full walk.
                    walk = self._walk(rec, state, pod, diagnosis, [ni], start=0)
                    if walk.error is None:
                        feasible = self._pass_extenders(rec, pod, diagnosis, walk.feasible)
                    if rec.error:
                        rec.error, rec.message, feasible = False, None, []
            if feasible and pod.nominated_node_name:
                rec.nominated_node_taken = True
            elif feasible:
                rec.batch_hint = hint
            else:
                nodes = all_nodes
                if pre.result is not None and not pre.result.all_nodes():
                    names = pre.result.node_names or frozenset()
                    # Upstream walks a Go map here; name order fixes the order (FORMAT.md).
                    nodes = [ni for n in sorted(names) if (ni := snapshot.get(n)) is not None]
                    diagnosis.absent_nodes_status = Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        (
                            "node(s) didn't satisfy plugin(s) "
                            f"[{' '.join(sorted(pre.plugins_with_nodes))}]",
                        ),
                    )
                start = 0 if self.evaluate_all_nodes else self.start_index.value
                walk = self._walk(rec, state, pod, diagnosis, nodes, start=start)
                if not self.evaluate_all_nodes:
                    # Moved on even after an error, so that every node gets its turn.
                    processed = len(walk.feasible) + len(diagnosis.node_to_status)
                    self.start_index.value = next_start_index(start, processed, num_all)
                    rec.next_start_index = self.start_index.value
                if walk.error is not None:
                    rec.error = True
                    rec.message = walk.error.message()
                    return rec
                feasible = self._pass_extenders(rec, pod, diagnosis, walk.feasible)
            if rec.error:
                return rec
        rec.feasible = names_of(feasible)
        if not feasible:
            self._post_filter(rec, state, pod, diagnosis)
            rec.message = fit_error_message(num_all, diagnosis)
            return rec
        if len(feasible) == 1:
            rec.top = [feasible[0].node.name]
            rec.selected = feasible[0].node.name
            if self.batch is not None:
                self.batch.store(signature, hint, rec.selected, None)
            return rec
        self._prioritize(rec, state, pod, feasible)
        if self.batch is not None and rec.selected is not None:
            self.batch.store(signature, hint, rec.selected, rec.totals)
        return rec

    def _walk(
        self,
        rec: CycleRecord,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
        *,
        start: int,
    ) -> Walk:
        """findNodesThatPassFilters over ``nodes`` from ``start``; the count's reasons go to rec."""
        to_find = self._nodes_to_find(len(nodes))
        rec.sampling = to_find
        return find_nodes_that_pass_filters(
            self.fwk,
            state,
            pod,
            nodes,
            start=start,
            to_find=to_find.count,
            verdicts=rec.filter,
            diagnosis=diagnosis,
            every_error=self.evaluate_all_nodes,
        )

    def _nodes_to_find(self, num_nodes: int) -> NodesToFind:
        if self.evaluate_all_nodes:
            return NodesToFind(num_nodes, num_nodes, RULE_ALL)
        found = nodes_to_find(
            self.fwk.percentage_of_nodes_to_score, self.global_percentage, num_nodes
        )
        if not self._has_extender_filters() and not self._has_scoring():
            return dataclasses.replace(found, count=1, rule=RULE_NO_SCORING)
        return found

    def _pass_extenders(
        self, rec: CycleRecord, pod: Pod, diagnosis: Diagnosis, feasible: list[NodeInfo]
    ) -> list[NodeInfo]:
        """findNodesThatPassExtenders: HTTP extenders filter what the plugins kept."""
        if not self.extenders or not feasible or rec.error:
            return feasible
        try:
            kept, statuses = find_nodes_that_pass_extenders(self.extenders, pod, feasible)
        except ExtenderError as err:
            rec.error = True
            rec.message = str(err)
            return []
        for name, status in statuses.items():
            status = status.with_plugin(EXTENDER_NAME)
            rec.filter[name] = status
            diagnosis.node_to_status[name] = status
        if len(kept) != len(feasible):
            diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        given = {id(ni) for ni in feasible}
        if any(id(ni) not in given for ni in kept):
            # A reply of whole Node objects: the scheduler scores the extender's copies (pods
            # and all their requests gone), as upstream does; explanations must read those.
            rec.scored_infos = {ni.node.name: ni for ni in kept}
        return kept

    def _has_extender_filters(self) -> bool:
        return any(e.is_filter() for e in self.extenders)

    def _has_scoring(self) -> bool:
        return self.fwk.has_score_plugins() or any(e.is_prioritizer() for e in self.extenders)

    def _post_filter(
        self, rec: CycleRecord, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> None:
        fwk = self.fwk
        if not fwk.has_post_filter_plugins():
            return
        result, status = fwk.run_post_filter_plugins(state, pod, diagnosis.statuses())
        rec.post_filter = result
        rec.post_filter_status = status
        msg = status.message()
        if msg:
            diagnosis.post_filter_msg = msg

    def _prioritize(
        self, rec: CycleRecord, state: CycleState, pod: Pod, feasible: list[NodeInfo]
    ) -> None:
        fwk = self.fwk
        names = rec.feasible  # names_of(feasible), which schedule() has just set
        totals_arr = None
        found: Any = None  # the feasible nodes' columns and rows, once scored
        if not fwk.has_score_plugins() and not self.extenders:
            rec.totals = Totals(names, [1] * len(names))
        else:
            s = fwk.run_pre_score_plugins(state, pod, feasible, rec.pre_score_steps)
            if not s.is_success():
                rec.error = True
                rec.message = s.message()
                return
            scores, s = fwk.run_score_plugins(state, pod, feasible)
            rec.scores = scores
            rec.scored_nodes = names
            if not s.is_success():
                rec.error = True
                rec.message = s.message()
                return
            found = columns_of(feasible)
            # The columns' rows are positions in the snapshot's node order (rec.nodes).
            rec.scored_rows = found[1] if found is not None else None
            acc = np.zeros(len(names), dtype=np.int64)
            for ps in scores:
                values = ps.array if ps.array is not None else np.asarray(ps.normalized, np.int64)
                acc += values if ps.weight == 1 else values * ps.weight
            totals_arr = acc
            if self.extenders:
                totals_arr = None
                totals: list[int] = acc.tolist()
                # Extender priorities join the totals: raw score x weight x (100 / 10) each. The
                # column keeps the three apart as a plugin's would: raw 0-10, "normalized" x10
                # (MaxNodeScore / MaxExtenderPriority), and the extender's weight.
                for ext_name, weight, raw_by_host in extender_priorities(
                    self.extenders, pod, feasible
                ):
                    raw = [raw_by_host.get(name, 0) for name in names]
                    scaled = [r * EXTENDER_SCORE_SCALE for r in raw]
                    for i, value in enumerate(scaled):
                        totals[i] += value * weight
                    rec.scores.append(
                        PluginScores(f"{EXTENDER_NAME}:{ext_name}", weight, raw, scaled)
                    )
            rec.totals = Totals(names, totals if totals_arr is None else totals_arr)
        if totals_arr is not None and found is not None:
            cols, idx = found
            best = totals_arr == np.maximum.reduce(totals_arr)
            if not cols.covers_all(idx):  # the best rows, marked over every row
                best_rows = best
                best = np.zeros(cols.n, dtype=bool)
                best[idx[best_rows]] = True
            by_name, names_by_name = cols.name_order()
            in_order = best[by_name]
            rec.top = names_by_name[in_order].tolist()
            rec.top_rows = by_name[in_order]
        elif totals_arr is not None:
            best_at = np.flatnonzero(totals_arr == totals_arr.max()).tolist()
            rec.top = sorted(names[i] for i in best_at)
        else:
            best = max(rec.totals.values())
            rec.top = sorted(n for n, t in rec.totals.items() if t == best)
        rec.selected = rec.top[0]
