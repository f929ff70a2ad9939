"""InterPodAffinity: required pod (anti-)affinity as a filter, preferred terms as a score.

Mirrors plugins/interpodaffinity (plugin.go, filtering.go, scoring.go) in kube-scheduler v1.35.
Every count is keyed by topology pair and built once per cycle (PreFilter, PreScore), so Filter
and Score do a few dict lookups per node.

This module holds the plugin; its cycle state (terms, counts, statuses) is in
``state``, the batch paths over the snapshot's columns in ``tally``, the queueing hints in
``hints`` (modules of this package).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from scheduler_core.config.types import InterPodAffinityArgs
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import ClusterEventWithHint
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import (
    MAX_NODE_SCORE,
    FilterByBatch,
    Handle,
    ScoreByColumns,
    ScoreValues,
)
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
)
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.objects.api import (
    AffinityTerm,
    Pod,
    WeightedAffinityTerm,
)
from scheduler_core.plugins.inter_pod_affinity import explain, hints
from scheduler_core.plugins.inter_pod_affinity.state import (  # noqa: F401 (reasons re-exported)
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    NAME,
    NO_LABELS,
    PRE_FILTER_KEY,
    PRE_SCORE_KEY,
    IncomingTerm,
    PreFilterState,
    PreScoreState,
    ScoreMap,
    matches_all,
    pre_filter_state_error,
    read_pre_filter_state,
    read_pre_score_state,
)
from scheduler_core.plugins.inter_pod_affinity.tally import (
    existing_anti_affinity_tally,
    existing_terms_tally,
    existing_terms_weights,
    filter_nodes,
    score_nodes,
    score_pairs,
    with_pods,
)
from scheduler_core.plugins.shared.helpers import normalize_node_scores


class InterPodAffinity(FilterByBatch, ScoreByColumns):
    name = NAME

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        self.hard_pod_affinity_weight = args.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = args.ignore_preferred_terms_of_existing_pods
        self.handle = handle

    def _resolve(self, terms: Iterable[AffinityTerm]) -> tuple[IncomingTerm, ...]:
        namespaces = self.handle.snapshot.objects.namespaces
        return tuple(IncomingTerm(t, namespaces) for t in terms)

    def _resolve_weighted(self, terms: Iterable[WeightedAffinityTerm]) -> tuple[IncomingTerm, ...]:
        namespaces = self.handle.snapshot.objects.namespaces
        return tuple(IncomingTerm(t.term, namespaces, t.weight) for t in terms)

    def preferred_terms(self, pod: Pod) -> list[tuple[IncomingTerm, int]]:
        """The pod's preferred affinity (+1) and anti-affinity (−1) terms, namespaces resolved."""
        return [(t, 1) for t in self._resolve_weighted(pod.preferred_affinity_terms)] + [
            (t, -1) for t in self._resolve_weighted(pod.preferred_anti_affinity_terms)
        ]

    def namespace_labels(self, pod: Pod) -> Mapping[str, str]:
        return self._namespace_labels(pod)

    def _namespace_labels(self, pod: Pod) -> Mapping[str, str]:
        labels = self.handle.snapshot.objects.namespace_labels(pod.namespace)
        return labels if labels is not None else NO_LABELS

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return hints.events_to_register()

    # -- PreFilter and its extensions -----------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Count topology pairs; Skip when neither the pod nor any existing pod has a
        required term that matters."""
        affinity_terms = self._resolve(pod.required_affinity_terms)
        anti_affinity_terms = self._resolve(pod.required_anti_affinity_terms)
        s = PreFilterState(
            affinity_terms,
            anti_affinity_terms,
            self._namespace_labels(pod),
            matches_all(affinity_terms, pod),
        )
        snapshot = self.handle.snapshot
        whole = columns_of(snapshot.node_info_list)
        if whole is not None:
            s.existing_anti_affinity = existing_anti_affinity_tally(whole[0], pod, s).counts()
        else:
            for ni in snapshot.have_pods_with_required_anti_affinity():
                labels = ni.node.labels
                for existing in ni.pods_with_required_anti_affinity:
                    s.add_existing(existing, pod, labels)
        found = columns_of(nodes) if affinity_terms or anti_affinity_terms else None
        if found is not None:
            s.add_incoming_columns(found[0], found[1])
        elif affinity_terms or anti_affinity_terms:
            for ni in with_pods(nodes):
                labels = ni.node.labels
                for existing in ni.pods:
                    s.add_incoming(existing, labels, 1)
        if s.existing_anti_affinity.size == 0 and not affinity_terms and not anti_affinity_terms:
            return None, SKIP
        state.write(PRE_FILTER_KEY, s)
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        s = read_pre_filter_state(state)
        if isinstance(s, str):
            return error(s)
        s.update_with_pod(pod_to_add, pod_to_schedule, node_info.node, 1)
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        s = read_pre_filter_state(state)
        if isinstance(s, str):
            return error(s)
        s.update_with_pod(pod_to_remove, pod_to_schedule, node_info.node, -1)
        return SUCCESS

    # -- Filter ---------------------------------------------------------------------------------

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Mapping[int, Status]:
        """Filter for many nodes (filter_nodes); without the PreFilter state, an Error."""
        s = state.get(PRE_FILTER_KEY)
        if type(s) is not PreFilterState:
            return dict.fromkeys(range(len(nodes)), error(pre_filter_state_error(s)))
        if not s.affinity_terms and not s.anti_affinity.size and not s.existing_anti_affinity.size:
            return {}
        return filter_nodes(s, nodes)

    # -- PreScore, Score, NormalizeScore --------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        """Sum term weights per topology pair over the existing pods; Skip when nothing counts.

        Without preferred terms of its own, the pod is scored only against pods with affinity
        (and not at all with ignorePreferredTermsOfExistingPods).
        """
        has_constraints = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        snapshot = self.handle.snapshot
        all_nodes = (
            snapshot.node_info_list if has_constraints else snapshot.have_pods_with_affinity()
        )
        preferred = self._resolve_weighted(pod.preferred_affinity_terms)
        preferred_anti = self._resolve_weighted(pod.preferred_anti_affinity_terms)
        ns_labels = self._namespace_labels(pod)
        hard_weight = self.hard_pod_affinity_weight
        scores = ScoreMap()
        found = columns_of(all_nodes) if has_constraints else None
        if found is not None:
            # The pod's own terms against every pod, from per-node pod counts; then only the
            # pods with affinity terms can add theirs.
            cols, idx = found
            for t, sign in [(t, 1) for t in preferred] + [(t, -1) for t in preferred_anti]:
                counts = cols.pod_counts(("InterPodAffinity", t.key()), t.matches)[idx]
                column = cols.label(t.topology_key)
                scores.add_per_value(
                    t.topology_key, column, column.ids[idx], counts, sign * t.weight
                )
        whole = columns_of(snapshot.node_info_list)
        if whole is not None:
            # The existing pods' terms against the pod, kept per node across cycles.
            tally = existing_terms_tally(whole[0], pod, ns_labels, hard_weight)
            for key, values in tally.sums.items():
                for value, weight in values.items():
                    scores.add({key: value}, key, weight)
            all_nodes = []
        elif found is not None:
            all_nodes = snapshot.have_pods_with_affinity()
        if found is not None:
            preferred = preferred_anti = ()
        for ni in with_pods(all_nodes) if has_constraints else all_nodes:
            labels = ni.node.labels
            if not labels:
                continue
            pods = ni.pods if has_constraints and found is None else ni.pods_with_affinity
            for existing in pods:
                for t in preferred:
                    if t.matches(existing):
                        scores.add(labels, t.topology_key, t.weight)
                for t in preferred_anti:
                    if t.matches(existing):
                        scores.add(labels, t.topology_key, -t.weight)
                for key, _, weight, _ in existing_terms_weights(
                    existing, labels, pod, ns_labels, hard_weight
                ):
                    scores.add(labels, key, weight)
        if not scores.touched:
            return SKIP
        state.write(PRE_SCORE_KEY, PreScoreState(scores.by_key))
        return SUCCESS

    @staticmethod
    def score_pairs(state: CycleState, node_info: NodeInfo) -> list[tuple[str, str, int]] | None:
        """(topology key, the node's value, summed weight) of each topology pair PreScore
        weighed that the node is in; Score adds them up. None without PreScore state."""
        s = read_pre_score_state(state)
        return None if isinstance(s, str) else score_pairs(s, node_info)

    @staticmethod
    def pre_filter_state(state: CycleState) -> PreFilterState | None:
        """What PreFilter counted (the pod's terms, matching pods per topology pair)."""
        s = state.get(PRE_FILTER_KEY)
        return s if type(s) is PreFilterState else None

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score every node in one call (score_nodes, an int64 array), the state read once."""
        s = read_pre_score_state(state)
        if isinstance(s, str):
            return np.zeros(len(nodes), dtype=np.int64), error(s)
        return score_nodes(s, nodes), SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        """NormalizeScore: scale linearly from the lowest (0) to the highest (100) score, in
        float64 and truncated as upstream; all equal gives 0. Without the PreScore state
        (NormalizeScore's Error) or with nothing scored, the scores stay as they are. An int64
        array gives an int64 array, a list a list."""
        column = isinstance(raw, np.ndarray)
        s = read_pre_score_state(state)
        if isinstance(s, str) or not s.topology_score or not len(raw):
            return raw if column else list(raw)
        values = raw if column else np.asarray(raw, dtype=np.int64)
        low = int(np.minimum.reduce(values))
        diff = int(np.maximum.reduce(values)) - low
        if diff <= 0:
            out = np.zeros(len(values), dtype=np.int64)
        else:
            shifted = (values - low).astype(np.float64)
            shifted /= float(diff)
            shifted *= float(MAX_NODE_SCORE)  # MaxNodeScore * (shifted / diff), as Go orders it
            out = shifted.astype(np.int64)
        return out if column else out.tolist()

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        s = read_pre_score_state(state)
        if isinstance(s, str):
            return error(s)
        return normalize_node_scores(self.normalize_batch, state, pod, scores)

    # -- Explained (not upstream) ------------------------------------------------------------

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        return explain.affinity_filter(self, ctx, view)

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        return explain.affinity_score(self, ctx, ni)


def new(args: Any, handle: Handle) -> InterPodAffinity:
    if not isinstance(args, InterPodAffinityArgs):
        args = InterPodAffinityArgs()
    return InterPodAffinity(args, handle)
