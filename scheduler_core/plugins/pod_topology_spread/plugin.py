"""PodTopologySpread: hard spread constraints filter nodes, soft ones score them.

Mirrors plugins/podtopologyspread (common.go, filtering.go, scoring.go, plugin.go) and
helper.DefaultSelector (plugins/helper/spread.go) in kube-scheduler v1.35, with the
NodeInclusionPolicy and MatchLabelKeys features on, as they are by default in v1.35.

This module holds the plugin and its cycle states; the constraints (and DefaultSelector) are in
``constraints``, the counting of matching pods per domain in ``counting``, the queueing hints in
``hints`` (modules of this package).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, NamedTuple

import numpy as np

from scheduler_core.config.types import SYSTEM_DEFAULTING, PluginArgs, PodTopologySpreadArgs
from scheduler_core.framework.columns import (
    LabelColumn,
    columns_of,
    label_ids,
    label_lanes,
    lanes,
    names_of,
)
from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.events import ClusterEventWithHint
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, FilterByBatch, Handle, ScoreValues
from scheduler_core.framework.rejections import RowRejections
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.objects.api import (
    HOSTNAME_LABEL,
    Pod,
)
from scheduler_core.objects.labels import SelectorError
from scheduler_core.plugins import names
from scheduler_core.plugins.pod_topology_spread import explain
from scheduler_core.plugins.pod_topology_spread.constraints import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    Constraint,
    default_selector,
    go_log,
    parse_constraints,
)
from scheduler_core.plugins.pod_topology_spread.counting import (
    CriticalPaths,
    Inclusion,
    SkewCheck,
    count_per_domain,
    node_matching_counts,
)
from scheduler_core.plugins.pod_topology_spread.hints import PodTopologySpreadHints
from scheduler_core.plugins.shared.helpers import (
    FrozenState,
    go_round_array,
)

NAME: Final = names.POD_TOPOLOGY_SPREAD
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = (
    ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
)

_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"
_SCORED_KEY: Final = f"ScoreBatch{NAME}"
_INVALID_SCORE: Final = -1

_STATUS_LABEL_MISSING: Final = unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
_STATUS_SKEW: Final = unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
# What upstream reports when PreFilter or PreScore did not run (disabled in the profile).
_STATUS_NO_PRE_FILTER_STATE: Final = error(
    f'reading "{_PRE_FILTER_KEY}" from cycleState: not found'
)
_STATUS_NO_PRE_SCORE_STATE: Final = error(
    f'error reading "{_PRE_SCORE_KEY}" from cycleState: not found'
)


class _PreFilterState:
    """Hard constraints, and per constraint the matching pods per topology value."""

    __slots__ = ("constraints", "self_match", "counts", "paths", "checks")

    def __init__(
        self,
        constraints: tuple[Constraint, ...],
        self_match: tuple[int, ...],
        counts: list[dict[str, int]],
        paths: list[CriticalPaths],
    ) -> None:
        self.constraints = constraints
        self.self_match = self_match
        self.counts = counts
        self.paths = paths
        # What Filter reads per constraint, flattened; the dicts and paths are shared, so
        # AddPod/RemovePod updates are seen.
        self.checks = tuple(
            (c.topology_key, c.max_skew, c.min_domains, self_match[i], counts[i], paths[i])
            for i, c in enumerate(constraints)
        )

    def clone(self) -> StateData:
        return _PreFilterState(
            self.constraints,
            self.self_match,
            [dict(m) for m in self.counts],
            [p.copy() for p in self.paths],
        )


# One hard constraint's check (s.checks), then per node over lanes: the label column and
# domain id, matching pods, global minimum, skew and whether it exceeds maxSkew.
_HardCheck = tuple[tuple[Any, ...], LabelColumn, Any, Any, int, Any, Any]


class _PreScoreState(FrozenState):
    """Soft constraints, ignored nodes, pod counts per topology value and the log weights."""

    __slots__ = ("constraints", "ignored", "counts", "weights", "namespace", "domains")

    def __init__(
        self,
        constraints: tuple[Constraint, ...],
        ignored: frozenset[str],
        counts: list[dict[str, int]],
        weights: tuple[float, ...],
        namespace: str,
        domains: tuple[int, ...] = (),
    ) -> None:
        self.constraints = constraints
        self.ignored = ignored
        self.counts = counts
        self.weights = weights
        self.namespace = namespace
        self.domains = domains  # the number of domains each weight was taken from


class PodTopologySpread(FilterByBatch):
    name = NAME

    def __init__(
        self,
        handle: Handle,
        default_constraints: tuple[Mapping[str, Any], ...],
        system_defaulted: bool,
    ) -> None:
        self.handle = handle
        self.default_constraints = default_constraints
        self.system_defaulted = system_defaulted
        # The defaults parsed once per action when no pod label enters them (matchLabelKeys).
        self._parsed_defaults: dict[str, list[Constraint]] | None = (
            {} if not any(c.get("matchLabelKeys") for c in default_constraints) else None
        )

    # -- constraints ---------------------------------------------------------------------------

    def constraints_for(self, pod: Pod, action: str) -> list[Constraint]:
        """The pod's own constraints for ``action``, or the defaults if it declares none."""
        if pod.topology_spread_constraints:
            return parse_constraints(pod.topology_spread_constraints, pod.labels, action)
        return self._default_constraints(pod, action)

    def _default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        parsed = self._parsed_defaults
        found = parsed.get(action) if parsed is not None else None
        if found is not None:
            constraints = found
        else:
            constraints = parse_constraints(self.default_constraints, pod.labels, action)
            if parsed is not None:
                parsed[action] = constraints
        if not constraints:
            return []
        selector = default_selector(pod, self.handle.snapshot.objects)
        if selector.is_empty:
            return []
        return [replace(c, selector=selector) for c in constraints]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        hints = PodTopologySpreadHints(lambda pod: self.constraints_for(pod, DO_NOT_SCHEDULE))
        return hints.events_to_register()

    # -- PreFilter and Filter ------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        try:
            constraints = self.constraints_for(pod, DO_NOT_SCHEDULE)
        except SelectorError as err:
            kind = "hard" if pod.topology_spread_constraints else "default hard"
            verb = "obtaining pod's" if pod.topology_spread_constraints else "setting"
            return None, error(
                f"get constraints from pod: {verb} {kind} topology spread constraints: {err}"
            )
        if not constraints:
            return None, SKIP
        counts: list[dict[str, int]] = [{} for _ in constraints]
        count_per_domain(
            pod,
            constraints,
            nodes,
            counts,
            range(len(constraints)),
            known_only=False,
            require_all=True,
        )
        paths = []
        for m in counts:
            p = CriticalPaths()
            for value, num in m.items():
                p.update(value, num)
            paths.append(p)
        self_match = tuple(1 if c.selector.matches(pod.labels) else 0 for c in constraints)
        state.write(_PRE_FILTER_KEY, _PreFilterState(tuple(constraints), self_match, counts, paths))
        return None, SUCCESS

    @staticmethod
    def skew_checks(state: CycleState, node_info: NodeInfo) -> list[SkewCheck] | None:
        """Filter's rule on the node as a batch of one (see _hard_checks), each hard constraint
        in order with its intermediate numbers (None without PreFilter state); Filter stops at
        the first with the label missing or a skew above maxSkew."""
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return None
        out = []
        for check, column, ids, matching, min_match, skew, exceeds in _hard_checks(s, (node_info,)):
            key, max_skew, min_domains, self_match, counts, _ = check
            value = column.values[int(ids)] if ids >= 0 else None
            out.append(
                SkewCheck(
                    key,
                    value,
                    int(matching),
                    self_match,
                    int(min_match),
                    _enough_domains(counts, min_domains),
                    max_skew,
                    min_domains,
                    dict(counts),
                    int(skew),
                    bool(exceeds),
                )
            )
        return out

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """Filter for many nodes: each hard constraint in order, a node's first failing one
        deciding: the node lacks its topology label, or placing the pod in the node's domain
        would make the skew (matching pods there + the pod itself - the global minimum)
        exceed maxSkew. Without the PreFilter state, upstream's Error."""
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return dict.fromkeys(range(len(nodes)), _STATUS_NO_PRE_FILTER_STATE)
        out = RowRejections()
        undecided = lanes(len(nodes), True)
        for _, _, ids, _, _, _, exceeds in _hard_checks(s, nodes):
            missing = undecided & (ids < 0)
            skewed = undecided & ~missing & exceeds
            out.add_mask(missing, _STATUS_LABEL_MISSING)
            out.add_mask(skewed, _STATUS_SKEW)
            undecided &= ~(missing | skewed)
        return out

    # -- PreFilterExtensions --------------------------------------------------------------------

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        return self._update_with_pod(state, pod_to_add, pod_to_schedule, node_info, 1)

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        return self._update_with_pod(state, pod_to_remove, pod_to_schedule, node_info, -1)

    def _update_with_pod(
        self, state: CycleState, updated: Pod, preemptor: Pod, node_info: NodeInfo, delta: int
    ) -> Status:
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return _STATUS_NO_PRE_FILTER_STATE
        node = node_info.node
        if updated.namespace != preemptor.namespace:
            return SUCCESS
        labels = node.labels
        if not all(c.topology_key in labels for c in s.constraints):
            return SUCCESS
        inclusion = Inclusion(preemptor, s.constraints)
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(updated.labels):
                continue
            if (c.honor_node_affinity and not inclusion.affinity_matches(node)) or (
                c.honor_node_taints and not inclusion.taints_tolerated(node)
            ):
                continue
            value = labels[c.topology_key]
            num = s.counts[i].get(value, 0) + delta
            s.counts[i][value] = num
            s.paths[i].update(value, num)
        return SUCCESS

    # -- PreScore, Score and NormalizeScore -----------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        all_nodes = self.handle.snapshot.node_info_list
        if not all_nodes:
            return SKIP
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self.constraints_for(pod, SCHEDULE_ANYWAY)
        except SelectorError as err:
            what = (
                "obtaining pod's soft"
                if pod.topology_spread_constraints
                else "setting default soft"
            )
            return error(f"calculating preScoreState: {what} topology spread constraints: {err}")
        if not constraints:
            return SKIP
        keys = [c.topology_key for c in constraints]
        counts: list[dict[str, int]] = [{} for _ in constraints]
        zonal = [(i, c) for i, c in enumerate(constraints) if c.topology_key != HOSTNAME_LABEL]
        ignored: set[str] = set()
        found = columns_of(nodes)
        if found is not None:
            cols, idx = found
            missing = np.zeros(len(idx), dtype=bool)
            if require_all:
                for k in keys:
                    missing |= cols.label(k).ids[idx] < 0
                ignored.update(cols.names()[idx[missing]].tolist())
            kept = np.flatnonzero(~missing)
            for i, c in zonal:
                column = cols.label(c.topology_key)
                codes = column.ids[idx[kept]] + 1  # 0: no such label, a domain named ""
                present, first = np.unique(codes, return_index=True)
                for code in present[np.argsort(first, kind="stable")].tolist():
                    counts[i].setdefault(column.values[code - 1] if code else "", 0)
        for ni in nodes if found is None else ():
            labels = ni.node.labels
            if require_all and not all(k in labels for k in keys):
                ignored.add(ni.node.name)
                continue
            for i, c in zonal:
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
        # Each constraint weighs log(number of its domains + 2): a hostname constraint has one
        # domain per node that is not ignored.
        sizes = tuple(
            len(nodes) - len(ignored) if c.topology_key == HOSTNAME_LABEL else len(counts[i])
            for i, c in enumerate(constraints)
        )
        weights = tuple(go_log(size + 2) for size in sizes)
        if zonal:
            # Every node counts here, not only the feasible ones, but only into the domains
            # the feasible nodes have.
            count_per_domain(
                pod,
                constraints,
                all_nodes,
                counts,
                [i for i, _ in zonal],
                known_only=True,
                require_all=require_all,
            )
        state.write(
            _PRE_SCORE_KEY,
            _PreScoreState(
                tuple(constraints), frozenset(ignored), counts, weights, pod.namespace, sizes
            ),
        )
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        scores, _, status = _scores(state, (node_info,))
        return int(scores[0]), status

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score every node (see _scores) as an int64 array; normalize_batch learns which
        nodes PreScore ignored."""
        scores, ignored, status = _scores(state, nodes)
        if status.is_success():
            state.write(_SCORED_KEY, _Scored(ignored))
        return scores, status

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        """NormalizeScore on the raw scores of score_columns, which noted the ignored nodes.
        Without the PreScore state (NormalizeScore's Error) the scores stay as they are. An
        int64 array gives an int64 array, a list a list."""
        column = isinstance(raw, np.ndarray)
        if not isinstance(state.get(_PRE_SCORE_KEY), _PreScoreState):
            return raw if column else list(raw)
        scored = state.get(_SCORED_KEY)
        if not isinstance(scored, _Scored) or len(scored.ignored) != len(raw):
            raise RuntimeError("PodTopologySpread: normalize_batch without score_columns")
        out = _normalize(raw if column else np.asarray(raw, dtype=np.int64), scored.ignored)
        return out if column else out.tolist()

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            return _STATUS_NO_PRE_SCORE_STATE
        ignored = np.array([ns.name in s.ignored for ns in scores], dtype=bool)
        raw = np.array([ns.score for ns in scores], dtype=np.int64)
        for ns, v in zip(scores, _normalize(raw, ignored).tolist(), strict=True):
            ns.score = v
        return SUCCESS

    # -- Explained (not upstream) ------------------------------------------------------------

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        return explain.spread_filter(self, ctx, view)

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        return explain.spread_score(self, ctx, ni, score_terms(ctx.state, ni))


def _hard_checks(s: _PreFilterState, nodes: Sequence[NodeInfo]) -> Iterator[_HardCheck]:
    """Filter's rule over lanes (a batch of one's are scalars), one hard constraint at a time:
    the constraint's check, its label column, each node's domain id (-1 without the label),
    the matching pods in that domain, the global minimum (0 with fewer domains than
    minDomains), the skew placing the pod there would make (matching + the pod itself if it
    matches − the minimum) and whether that exceeds maxSkew."""
    for check in s.checks:
        _, max_skew, min_domains, self_match, counts, paths = check
        min_match = paths.num0 if _enough_domains(counts, min_domains) else 0
        column, ids = label_lanes(nodes, check[0])
        matching = column.read(counts, ids)
        skew = matching + self_match - min_match
        yield check, column, ids, matching, min_match, skew, skew > max_skew


def _enough_domains(counts: Mapping[str, int], min_domains: int) -> bool:
    """At least minDomains domains exist; below that the global minimum counts as 0."""
    return len(counts) >= min_domains


def _scores(state: CycleState, nodes: Sequence[NodeInfo]) -> tuple[Any, Any, Status]:
    """Score of each node (an int64 array), and whether PreScore ignored it (a bool array):
    the soft constraints' terms (_soft_terms) where the node has the topology label, summed in
    float64 and rounded half away from zero. An ignored node (it lacks a constraint's label)
    scores 0. Without the PreScore state, upstream's Error."""
    s = state.get(_PRE_SCORE_KEY)
    if not isinstance(s, _PreScoreState):
        return np.zeros(len(nodes), dtype=np.int64), _NO_NODES, _STATUS_NO_PRE_SCORE_STATE
    found = _soft_terms(s, nodes)
    if isinstance(found, Status):
        return np.zeros(len(nodes), dtype=np.int64), _NO_NODES, found
    _, ignored, total = found
    rounded = go_round_array(total)
    rounded[ignored] = 0
    return rounded, ignored, SUCCESS


_NO_NODES: Final = np.zeros(0, dtype=bool)


def _soft_terms(
    s: _PreScoreState, nodes: Sequence[NodeInfo]
) -> tuple[list[tuple[LabelColumn, Any, Any, Any]], Any, Any] | Status:
    """Score's rule over the nodes, per soft constraint: its label column, each node's domain
    id (-1 without the label), the matching pods in the node's domain (on the node itself for
    a hostname constraint) and the term cnt × weight + (maxSkew − 1); with whether PreScore
    ignored each node, and each node's terms summed in float64 over the constraints whose
    label it has. An Error when a node's domain has no count (PreScore counted every feasible
    node's domain)."""
    names = names_of(nodes)
    ignored = np.zeros(len(nodes), dtype=bool)
    if s.ignored:
        ignored = np.isin(np.array(names, dtype=object), list(s.ignored))
    out = []
    total = np.zeros(len(nodes), dtype=np.float64)
    for i, c in enumerate(s.constraints):
        column, ids = label_ids(nodes, c.topology_key)
        if c.topology_key == HOSTNAME_LABEL:
            cnt = node_matching_counts(nodes, c.selector, s.namespace)
        else:
            known = column.table(dict.fromkeys(s.counts[i], True), False, False, bool)
            unknown = (ids >= 0) & ~ignored & ~known[ids + 1]
            if unknown.any():
                node = names[int(np.flatnonzero(unknown)[0])]
                return error(f"no pod count for node {node}'s domain")
            cnt = column.read(s.counts[i], ids)
        term = cnt.astype(np.float64) * s.weights[i] + float(c.max_skew - 1)
        total = np.where(ids >= 0, total + term, total)
        out.append((column, ids, cnt, term))
    return out, ignored, total


def _normalize(raw: Any, ignored: Any) -> Any:
    """NormalizeScore over int64 and bool arrays: fewer matching pods score higher, scaled by
    the highest; an ignored node (or an invalid score) gets 0; all zero gives every node
    MAX_NODE_SCORE. Go's division truncates; the numerator is never negative here (each
    counted score is between the lowest and the highest), where floor division agrees."""
    counted = raw[~ignored]
    min_score = int(np.minimum.reduce(counted)) if len(counted) else 2**63 - 1
    max_score = max(int(np.maximum.reduce(counted)) if len(counted) else 0, 0)
    zero = ignored | (raw == _INVALID_SCORE)
    if max_score == 0:
        out = np.full(len(raw), MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = max_score + min_score - raw
        out *= MAX_NODE_SCORE
        out //= max_score
    out[zero] = 0
    return out


class _Scored(FrozenState):
    """Which of the nodes score_columns scored are ignored, for normalize_batch."""

    __slots__ = ("ignored",)

    def __init__(self, ignored: Any) -> None:
        self.ignored = ignored  # a bool array aligned with the scored nodes


class ScoreTerm(NamedTuple):
    """One soft constraint's term in a node's score, as Score computed it."""

    topology_key: str
    value: str  # the node's domain
    matching: int  # matching pods in the domain (on the node for a hostname constraint)
    weight: float  # log(number of domains + 2)
    max_skew: int
    term: float  # matching × weight + (maxSkew − 1)


def score_terms(
    state: CycleState, node_info: NodeInfo
) -> tuple[list[ScoreTerm], bool, dict[str, int], float] | None:
    """Score's rule on the node as a batch of one: the terms of the soft constraints whose
    label the node has, whether the node is ignored (lacks a constraint's key), the number of
    domains behind each topology key's weight and the sum Score rounds; None without PreScore
    state or when Score fails."""
    s = state.get(_PRE_SCORE_KEY)
    if not isinstance(s, _PreScoreState):
        return None
    found = _soft_terms(s, (node_info,))
    if isinstance(found, Status):
        return None
    columns, ignored, total = found
    terms = [
        ScoreTerm(
            c.topology_key,
            column.values[int(ids[0])],
            int(cnt[0]),
            s.weights[i],
            c.max_skew,
            float(term[0]),
        )
        for i, (c, (column, ids, cnt, term)) in enumerate(zip(s.constraints, columns, strict=True))
        if ids[0] >= 0
    ]
    domains = {c.topology_key: n for c, n in zip(s.constraints, s.domains, strict=False)}
    return terms, bool(ignored[0]), domains, float(total[0])


def new(args: PluginArgs | None, handle: Handle) -> PodTopologySpread:
    """Build the plugin; ``System`` defaulting uses the built-in constraints."""
    if not isinstance(args, PodTopologySpreadArgs) or args.defaulting_type == SYSTEM_DEFAULTING:
        return PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, True)
    return PodTopologySpread(handle, tuple(args.default_constraints), False)
