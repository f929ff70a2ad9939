"""InterPodAffinity: required pod (anti-)affinity as a filter, preferred terms as a score.

Mirrors plugins/interpodaffinity (plugin.go, filtering.go, scoring.go) in kube-scheduler v1.35.
Every count is keyed by topology pair and built once per cycle (PreFilter, PreScore), so Filter
and Score do a few dict lookups per node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.api import AffinityTerm, KubeObject, Node, Pod, WeightedAffinityTerm
from scheduler_core.config.types import InterPodAffinityArgs
from scheduler_core.framework.columns import Array, LabelColumn, NodeColumns, columns_of
from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.interfaces import MAX_NODE_SCORE, Handle
from scheduler_core.framework.status import (
    SKIP,
    SUCCESS,
    Status,
    error,
    unresolvable,
    unschedulable,
)
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.labels import Selector
from scheduler_core.plugins import inter_pod_affinity_hints, names
from scheduler_core.plugins.helpers import FrozenState
from scheduler_core.queue.events import ClusterEventWithHint

NAME: Final = names.INTER_POD_AFFINITY
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"
_AFFINITY_NOT_MATCH: Final = unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_AFFINITY_NOT_MATCH: Final = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_ANTI_AFFINITY_NOT_MATCH: Final = unschedulable(
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
)
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"

_NO_LABELS: Final[Mapping[str, str]] = {}
_NO_COUNTS: Final[Mapping[str, int]] = {}


class _IncomingTerm:
    """A term of the pod being scheduled, its namespaceSelector resolved into namespace names.

    Upstream unrolls a non-empty namespaceSelector into the namespace set through the namespace
    lister; an empty one (``{}``) keeps matching every namespace.
    """

    __slots__ = ("namespaces", "all_namespaces", "selector", "topology_key", "weight")

    def __init__(
        self, term: AffinityTerm, namespaces: Mapping[str, KubeObject], weight: int = 0
    ) -> None:
        ns_selector = term.namespace_selector
        self.all_namespaces = ns_selector.is_empty
        resolved = set(term.namespaces)
        if not ns_selector.is_empty and not ns_selector.is_nothing:
            resolved.update(
                name for name, obj in namespaces.items() if ns_selector.matches(obj.labels)
            )
        self.namespaces: frozenset[str] = frozenset(resolved)
        self.selector: Selector = term.selector
        self.topology_key: str = term.topology_key
        self.weight = weight

    def matches(self, pod: Pod) -> bool:
        if self.all_namespaces or pod.namespace in self.namespaces:
            return self.selector.matches(pod.labels)
        return False

    def key(self) -> tuple[Any, ...]:
        """What ``matches`` depends on (names the per-node pod counts kept in the columns)."""
        return (
            self.all_namespaces,
            self.namespaces,
            self.selector.is_nothing,
            self.selector.requirements,
        )


def _existing_term_matches(term: AffinityTerm, pod: Pod, ns_labels: Mapping[str, str]) -> bool:
    """fwk.AffinityTerm.Matches for an existing pod's term against the incoming pod.

    ``ns_labels`` are the incoming pod's namespace labels (empty when the namespace is unknown,
    which an empty or a DoesNotExist namespaceSelector still matches, as upstream).
    """
    if pod.namespace in term.namespaces or term.namespace_selector.matches(ns_labels):
        return term.selector.matches(pod.labels)
    return False


def _matches_all(terms: Sequence[_IncomingTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: false for no terms."""
    if not terms:
        return False
    return all(t.matches(pod) for t in terms)


class _TopologyCounts:
    """topologyToMatchedTermCount as topology key -> value -> count; a zero count is removed."""

    __slots__ = ("by_key", "size")

    def __init__(self) -> None:
        self.by_key: dict[str, dict[str, int]] = {}
        self.size = 0  # number of (key, value) pairs held

    def add(self, labels: Mapping[str, str], key: str, delta: int) -> None:
        value = labels.get(key)
        if value is None:
            return
        values = self.by_key.get(key)
        if values is None:
            values = self.by_key[key] = {}
        count = values.get(value, 0) + delta
        if count == 0:
            if value in values:
                del values[value]
                self.size -= 1
                if not values:
                    del self.by_key[key]
        else:
            if value not in values:
                self.size += 1
            values[value] = count

    def add_per_value(self, key: str, column: LabelColumn, ids: Array, counts: Array) -> None:
        """add(labels, key, +1) once per pod counted, for nodes with label ids ``ids``."""
        has = (ids >= 0) & (counts > 0)
        if not has.any():
            return
        sums = np.bincount(ids[has], weights=counts[has], minlength=len(column.values))
        for j in np.flatnonzero(sums).tolist():
            self.add({key: column.values[j]}, key, int(sums[j]))

    def get(self, key: str, value: str) -> int:
        values = self.by_key.get(key)
        return values.get(value, 0) if values is not None else 0

    def clone(self) -> _TopologyCounts:
        out = _TopologyCounts()
        out.by_key = {k: dict(v) for k, v in self.by_key.items()}
        out.size = self.size
        return out


class _PreFilterState:
    """What Filter needs: the three topology-pair counts and the incoming pod's resolved terms."""

    __slots__ = (
        "existing_anti_affinity",
        "affinity",
        "anti_affinity",
        "affinity_terms",
        "anti_affinity_terms",
        "namespace_labels",
        "matches_own_affinity",
    )

    def __init__(
        self,
        affinity_terms: tuple[_IncomingTerm, ...],
        anti_affinity_terms: tuple[_IncomingTerm, ...],
        namespace_labels: Mapping[str, str],
        matches_own_affinity: bool,
    ) -> None:
        self.existing_anti_affinity = _TopologyCounts()
        self.affinity = _TopologyCounts()
        self.anti_affinity = _TopologyCounts()
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.matches_own_affinity = matches_own_affinity

    def clone(self) -> StateData:
        out = _PreFilterState(
            self.affinity_terms,
            self.anti_affinity_terms,
            self.namespace_labels,
            self.matches_own_affinity,
        )
        out.existing_anti_affinity = self.existing_anti_affinity.clone()
        out.affinity = self.affinity.clone()
        out.anti_affinity = self.anti_affinity.clone()
        return out

    def add_existing(self, existing: Pod, incoming: Pod, labels: Mapping[str, str]) -> None:
        """Count an existing pod's anti-affinity terms that match the incoming pod."""
        for term in existing.required_anti_affinity_terms:
            if _existing_term_matches(term, incoming, self.namespace_labels):
                self.existing_anti_affinity.add(labels, term.topology_key, 1)

    def add_incoming(self, existing: Pod, labels: Mapping[str, str], delta: int) -> None:
        """Count an existing pod against the incoming pod's required (anti-)affinity terms."""
        if _matches_all(self.affinity_terms, existing):
            for t in self.affinity_terms:
                self.affinity.add(labels, t.topology_key, delta)
        for t in self.anti_affinity_terms:
            if t.matches(existing):
                self.anti_affinity.add(labels, t.topology_key, delta)

    def add_incoming_columns(self, cols: NodeColumns, idx: Array) -> None:
        """add_incoming(+1) for every pod on the nodes ``idx``, from per-node pod counts."""
        terms = self.affinity_terms
        if terms:
            key = ("InterPodAffinity/all", tuple(t.key() for t in terms))
            counts = cols.pod_counts(key, lambda p: _matches_all(terms, p))[idx]
            for t in terms:
                column = cols.label(t.topology_key)
                self.affinity.add_per_value(t.topology_key, column, column.ids[idx], counts)
        for t in self.anti_affinity_terms:
            counts = cols.pod_counts(("InterPodAffinity", t.key()), t.matches)[idx]
            column = cols.label(t.topology_key)
            self.anti_affinity.add_per_value(t.topology_key, column, column.ids[idx], counts)

    def update_with_pod(self, existing: Pod, incoming: Pod, node: Node, delta: int) -> None:
        """updateWithPod: the AddPod (+1) / RemovePod (-1) change of one existing pod."""
        labels = node.labels
        for term in existing.required_anti_affinity_terms:
            if _existing_term_matches(term, incoming, self.namespace_labels):
                self.existing_anti_affinity.add(labels, term.topology_key, delta)
        self.add_incoming(existing, labels, delta)


class _PreScoreState(FrozenState):
    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score


class _ScoreMap:
    """scoreMap: topology key -> value -> summed weight; ``touched`` once any term counted."""

    __slots__ = ("by_key", "touched")

    def __init__(self) -> None:
        self.by_key: dict[str, dict[str, int]] = {}
        self.touched = False

    def add(self, labels: Mapping[str, str], key: str, weight: int) -> None:
        value = labels.get(key)
        if value is None:
            return
        values = self.by_key.get(key)
        if values is None:
            values = self.by_key[key] = {}
        values[value] = values.get(value, 0) + weight
        self.touched = True

    def add_per_value(
        self, key: str, column: LabelColumn, ids: Array, counts: Array, weight: int
    ) -> None:
        """add(labels, key, weight) once per pod counted, for nodes with label ids ``ids``."""
        has = (ids >= 0) & (counts > 0)
        if not has.any():
            return
        sums = np.bincount(ids[has], weights=counts[has], minlength=len(column.values))
        for j in np.flatnonzero(sums).tolist():
            self.add({key: column.values[j]}, key, weight * int(sums[j]))


def _pre_filter_state_error(value: object) -> str:
    if value is None:
        return f'error reading "{_PRE_FILTER_KEY}" from cycleState: not found'
    return f"{value!r}  convert to interpodaffinity.state error"


def _read_pre_filter_state(state: CycleState) -> _PreFilterState | str:
    value = state.get(_PRE_FILTER_KEY)
    if not isinstance(value, _PreFilterState):
        return _pre_filter_state_error(value)
    return value


def _read_pre_score_state(state: CycleState) -> _PreScoreState | str:
    value = state.get(_PRE_SCORE_KEY)
    if value is None:
        return f'failed to read "{_PRE_SCORE_KEY}" from cycleState: not found'
    if not isinstance(value, _PreScoreState):
        return f"{value!r}  convert to interpodaffinity.preScoreState error"
    return value


class InterPodAffinity:
    name = NAME

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        self.hard_pod_affinity_weight = args.hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = args.ignore_preferred_terms_of_existing_pods
        self.handle = handle

    def _resolve(self, terms: Iterable[AffinityTerm]) -> tuple[_IncomingTerm, ...]:
        namespaces = self.handle.snapshot.objects.namespaces
        return tuple(_IncomingTerm(t, namespaces) for t in terms)

    def _resolve_weighted(self, terms: Iterable[WeightedAffinityTerm]) -> tuple[_IncomingTerm, ...]:
        namespaces = self.handle.snapshot.objects.namespaces
        return tuple(_IncomingTerm(t.term, namespaces, t.weight) for t in terms)

    def preferred_terms(self, pod: Pod) -> list[tuple[_IncomingTerm, int]]:
        """The pod's preferred affinity (+1) and anti-affinity (−1) terms, namespaces resolved."""
        return [(t, 1) for t in self._resolve_weighted(pod.preferred_affinity_terms)] + [
            (t, -1) for t in self._resolve_weighted(pod.preferred_anti_affinity_terms)
        ]

    def namespace_labels(self, pod: Pod) -> Mapping[str, str]:
        return self._namespace_labels(pod)

    def _namespace_labels(self, pod: Pod) -> Mapping[str, str]:
        labels = self.handle.snapshot.objects.namespace_labels(pod.namespace)
        return labels if labels is not None else _NO_LABELS

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return inter_pod_affinity_hints.events_to_register()

    # -- PreFilter and its extensions -----------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        """Count topology pairs; Skip when neither the pod nor any existing pod has a
        required term that matters."""
        affinity_terms = self._resolve(pod.required_affinity_terms)
        anti_affinity_terms = self._resolve(pod.required_anti_affinity_terms)
        s = _PreFilterState(
            affinity_terms,
            anti_affinity_terms,
            self._namespace_labels(pod),
            _matches_all(affinity_terms, pod),
        )
        snapshot = self.handle.snapshot
        whole = columns_of(snapshot.node_info_list)
        if whole is not None:
            s.existing_anti_affinity = _existing_anti_affinity_tally(whole[0], pod, s).counts()
        else:
            for ni in snapshot.have_pods_with_required_anti_affinity():
                labels = ni.node.labels
                for existing in ni.pods_with_required_anti_affinity:
                    s.add_existing(existing, pod, labels)
        found = columns_of(nodes) if affinity_terms or anti_affinity_terms else None
        if found is not None:
            s.add_incoming_columns(found[0], found[1])
        elif affinity_terms or anti_affinity_terms:
            for ni in _with_pods(nodes):
                labels = ni.node.labels
                for existing in ni.pods:
                    s.add_incoming(existing, labels, 1)
        if s.existing_anti_affinity.size == 0 and not affinity_terms and not anti_affinity_terms:
            return None, SKIP
        state.write(_PRE_FILTER_KEY, s)
        return None, SUCCESS

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status:
        s = _read_pre_filter_state(state)
        if isinstance(s, str):
            return error(s)
        s.update_with_pod(pod_to_add, pod_to_schedule, node_info.node, 1)
        return SUCCESS

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        s = _read_pre_filter_state(state)
        if isinstance(s, str):
            return error(s)
        s.update_with_pod(pod_to_remove, pod_to_schedule, node_info.node, -1)
        return SUCCESS

    # -- Filter ---------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        s = state.get(_PRE_FILTER_KEY)
        if type(s) is not _PreFilterState:
            return error(_pre_filter_state_error(s))
        labels = node_info.node.labels
        if s.affinity_terms and not _satisfies_pod_affinity(s, labels):
            return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if s.anti_affinity.size:
            anti = s.anti_affinity.by_key
            for t in s.anti_affinity_terms:
                key = t.topology_key
                value = labels.get(key)
                if value is not None and anti.get(key, _NO_COUNTS).get(value, 0) > 0:
                    return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if s.existing_anti_affinity.size:
            for key, values in s.existing_anti_affinity.by_key.items():
                value = labels.get(key)
                if value is not None and values.get(value, 0) > 0:
                    return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return SUCCESS

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """Filter for many nodes: the same checks, with the state read once."""
        s = state.get(_PRE_FILTER_KEY)
        out: dict[int, Status] = {}
        if type(s) is not _PreFilterState:
            for i, ni in enumerate(nodes):
                out[i] = self.filter(state, pod, ni)
            return out
        affinity = bool(s.affinity_terms)
        anti_terms = (
            [
                (t.topology_key, s.anti_affinity.by_key.get(t.topology_key, _NO_COUNTS))
                for t in s.anti_affinity_terms
            ]
            if s.anti_affinity.size
            else []
        )
        existing = (
            list(s.existing_anti_affinity.by_key.items()) if (s.existing_anti_affinity.size) else []
        )
        if not affinity and not anti_terms and not existing:
            return out
        found = columns_of(nodes)
        if found is not None:
            return _filter_columns(s, anti_terms, existing, found[0], found[1])
        for i, ni in enumerate(nodes):
            labels = ni.node.labels
            if affinity and not _satisfies_pod_affinity(s, labels):
                out[i] = _AFFINITY_NOT_MATCH
                continue
            rejected = False
            for key, counts in anti_terms:
                value = labels.get(key)
                if value is not None and counts.get(value, 0) > 0:
                    out[i] = _ANTI_AFFINITY_NOT_MATCH
                    rejected = True
                    break
            if rejected:
                continue
            for key, values in existing:
                value = labels.get(key)
                if value is not None and values.get(value, 0) > 0:
                    out[i] = _EXISTING_ANTI_AFFINITY_NOT_MATCH
                    break
        return out

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
        scores = _ScoreMap()
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
            tally = _existing_terms_tally(whole[0], pod, ns_labels, hard_weight)
            for key, values in tally.sums.items():
                for value, weight in values.items():
                    scores.add({key: value}, key, weight)
            all_nodes = []
        elif found is not None:
            all_nodes = snapshot.have_pods_with_affinity()
        if found is not None:
            preferred = preferred_anti = ()
        for ni in _with_pods(all_nodes) if has_constraints else all_nodes:
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
        state.write(_PRE_SCORE_KEY, _PreScoreState(scores.by_key))
        return SUCCESS

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """The summed weights of the node's topology pairs: positive attracts, negative repels."""
        s = _read_pre_score_state(state)
        if isinstance(s, str):
            return 0, error(s)
        return sum(w for _, _, w in _score_pairs(s, node_info)), SUCCESS

    @staticmethod
    def score_pairs(state: CycleState, node_info: NodeInfo) -> list[tuple[str, str, int]] | None:
        """(topology key, the node's value, summed weight) of each topology pair PreScore
        weighed that the node is in; Score adds them up. None without PreScore state."""
        s = _read_pre_score_state(state)
        return None if isinstance(s, str) else _score_pairs(s, node_info)

    @staticmethod
    def pre_filter_state(state: CycleState) -> _PreFilterState | None:
        """What PreFilter counted (the pod's terms, matching pods per topology pair)."""
        s = state.get(_PRE_FILTER_KEY)
        return s if type(s) is _PreFilterState else None

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score every node in one call, with the state read once."""
        s = _read_pre_score_state(state)
        if isinstance(s, str):
            return [], error(s)
        items = list(s.topology_score.items())
        found = columns_of(nodes)
        if found is not None:
            cols, idx = found
            acc = np.zeros(len(nodes), dtype=np.int64)
            for key, values in items:
                column = cols.label(key)
                acc += column.table(values, 0, 0, np.int64)[column.ids[idx] + 1]
            result: list[int] = acc.tolist()
            return result, SUCCESS
        out: list[int] = []
        for ni in nodes:
            labels = ni.node.labels
            total = 0
            for key, values in items:
                value = labels.get(key)
                if value is not None:
                    total += values.get(value, 0)
            out.append(total)
        return out, SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: list[int]) -> list[int]:
        """normalize_score on the raw scores alone (the runtime calls it after score_batch)."""
        s = _read_pre_score_state(state)
        if isinstance(s, str) or not s.topology_score or not raw:
            return raw
        low = min(raw)
        diff = max(raw) - low
        if diff <= 0:
            return [0] * len(raw)
        # float64 as upstream: MAX * ((v - low) / diff), truncated (the values are >= 0).
        shifted = np.asarray(raw, dtype=np.int64) - low
        scaled = float(MAX_NODE_SCORE) * (shifted.astype(np.float64) / float(diff))
        result: list[int] = scaled.astype(np.int64).tolist()
        return result

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        """Scale linearly from the lowest (0) to the highest (100) score, in float64."""
        s = _read_pre_score_state(state)
        if isinstance(s, str):
            return error(s)
        if not s.topology_score or not scores:
            return SUCCESS
        low = min(ns.score for ns in scores)
        high = max(ns.score for ns in scores)
        diff = high - low
        for ns in scores:
            f = float(MAX_NODE_SCORE) * (float(ns.score - low) / float(diff)) if diff > 0 else 0.0
            ns.score = int(f)
        return SUCCESS


class _PairTally:
    """Contributions (topology key, value, weight) of each node's existing pods, summed per
    topology pair; a pair is kept while at least one contribution counts for it.

    Kept in the snapshot's columns under a key naming the incoming pod's side, and brought up to
    date each cycle by recounting only the nodes whose pods changed (NodeInfo.generation).
    """

    __slots__ = ("seen", "per_node", "sums", "adds")

    def __init__(self, seen: Array) -> None:
        self.seen = seen
        self.per_node: dict[int, list[tuple[str, str, int]]] = {}
        self.sums: dict[str, dict[str, int]] = {}
        self.adds: dict[tuple[str, str], int] = {}

    def _apply(self, items: Iterable[tuple[str, str, int]], sign: int) -> None:
        for key, value, weight in items:
            pair = (key, value)
            n = self.adds.get(pair, 0) + sign
            values = self.sums.setdefault(key, {})
            if n == 0:
                del self.adds[pair]
                del values[value]
                if not values:
                    del self.sums[key]
            else:
                self.adds[pair] = n
                values[value] = values.get(value, 0) + sign * weight

    def update(
        self,
        cols: NodeColumns,
        rows: Iterable[int],
        contributions: Callable[[NodeInfo], list[tuple[str, str, int]]],
    ) -> None:
        infos = cols.infos
        for row in rows:
            old = self.per_node.pop(row, None)
            if old:
                self._apply(old, -1)
            new = contributions(infos[row])
            if new:
                self.per_node[row] = new
                self._apply(new, 1)

    def counts(self) -> _TopologyCounts:
        """The pairs as topology counts (each contribution counting one)."""
        out = _TopologyCounts()
        out.by_key = {key: dict(values) for key, values in self.sums.items()}
        out.size = len(self.adds)
        return out


def _tally(
    cols: NodeColumns,
    key: tuple[Any, ...],
    contributors: Array,
    total: int,
    contributions: Callable[[NodeInfo], list[tuple[str, str, int]]],
) -> _PairTally:
    """The tally over the nodes; ``contributors`` counts each node's pods that may contribute,
    ``total`` is its sum. With no such pod anywhere, nothing contributes: the tally is empty
    (a kept one catches up by generation the next time there is one)."""
    if not total:
        return _PairTally(cols.generation)
    tally = cols.caches.get(key)
    if not isinstance(tally, _PairTally):
        tally = _PairTally(cols.generation.copy())
        cols.remember(key, tally)
        rows = np.flatnonzero(contributors).tolist()
    else:
        changed = np.flatnonzero(tally.seen != cols.generation)
        tally.seen[changed] = cols.generation[changed]
        rows = changed.tolist()
    tally.update(cols, rows, contributions)
    return tally


def _existing_anti_affinity_tally(cols: NodeColumns, pod: Pod, s: _PreFilterState) -> _PairTally:
    """add_existing over every node's pods with required anti-affinity, as a tally."""
    ns_labels = s.namespace_labels

    def contributions(ni: NodeInfo) -> list[tuple[str, str, int]]:
        labels = ni.node.labels
        out = []
        for existing in ni.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                value = labels.get(term.topology_key)
                if value is not None and _existing_term_matches(term, pod, ns_labels):
                    out.append((term.topology_key, value, 1))
        return out

    key = (
        "InterPodAffinity/existing-anti-affinity",
        pod.namespace,
        frozenset(pod.labels.items()),
        frozenset(ns_labels.items()),
    )
    return _tally(cols, key, cols.num_anti_affinity, cols.anti_affinity_pods, contributions)


def existing_terms_weights(
    existing: Pod, labels: Mapping[str, str], pod: Pod, ns_labels: Mapping[str, str], hard: int
) -> list[tuple[str, str, int, str]]:
    """What an existing pod's own terms add for ``pod`` on its node's topology pairs:
    (key, value, weight, which term) for its required affinity (at the hard weight, when
    positive), preferred affinity (+weight) and preferred anti-affinity (−weight) terms."""
    out: list[tuple[str, str, int, str]] = []
    if hard > 0:
        for term in existing.required_affinity_terms:
            value = labels.get(term.topology_key)
            if value is not None and _existing_term_matches(term, pod, ns_labels):
                out.append((term.topology_key, value, hard, "required affinity"))
    for wt, sign in [(wt, 1) for wt in existing.preferred_affinity_terms] + [
        (wt, -1) for wt in existing.preferred_anti_affinity_terms
    ]:
        value = labels.get(wt.term.topology_key)
        if value is not None and _existing_term_matches(wt.term, pod, ns_labels):
            what = "preferred affinity" if sign > 0 else "preferred anti-affinity"
            out.append((wt.term.topology_key, value, sign * wt.weight, what))
    return out


def _existing_terms_tally(
    cols: NodeColumns, pod: Pod, ns_labels: Mapping[str, str], hard_weight: int
) -> _PairTally:
    """PreScore's part from the existing pods' own terms (required affinity at the hard
    weight, preferred affinity and anti-affinity) against the pod, as a tally."""

    def contributions(ni: NodeInfo) -> list[tuple[str, str, int]]:
        labels = ni.node.labels
        out: list[tuple[str, str, int]] = []
        if not labels:
            return out
        for existing in ni.pods_with_affinity:
            out.extend(
                (key, value, weight)
                for key, value, weight, _ in existing_terms_weights(
                    existing, labels, pod, ns_labels, hard_weight
                )
            )
        return out

    key = (
        "InterPodAffinity/existing-terms",
        pod.namespace,
        frozenset(pod.labels.items()),
        frozenset(ns_labels.items()),
        hard_weight,
    )
    return _tally(cols, key, cols.num_affinity, cols.affinity_pods, contributions)


def _with_pods(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    """The nodes that have pods, in order (read from the pod-count column when there is one)."""
    found = columns_of(nodes)
    if found is None:
        return [ni for ni in nodes if ni.pods]
    cols, idx = found
    return [nodes[p] for p in np.flatnonzero(cols.num_pods[idx]).tolist()]


def _filter_columns(
    s: _PreFilterState,
    anti_terms: Sequence[tuple[str, Mapping[str, int]]],
    existing: Sequence[tuple[str, Mapping[str, int]]],
    cols: NodeColumns,
    idx: Array,
) -> dict[int, Status]:
    """filter_batch over column-backed nodes: affinity, then anti-affinity, then existing pods'
    anti-affinity decide a node's status, as in Filter."""
    n = len(idx)
    out: dict[int, Status] = {}
    rejected = np.zeros(n, dtype=bool)
    if s.affinity_terms:
        has_keys = np.ones(n, dtype=bool)
        pods_exist = np.ones(n, dtype=bool)
        for t in s.affinity_terms:
            column = cols.label(t.topology_key)
            ids = column.ids[idx]
            has_keys &= ids >= 0
            counts = s.affinity.by_key.get(t.topology_key, _NO_COUNTS)
            pods_exist &= column.table(counts, 0, 0, np.int64)[ids + 1] > 0
        # With no matching pod anywhere, a pod matching its own terms may start the group.
        starts_group = s.affinity.size == 0 and s.matches_own_affinity
        ok = has_keys if starts_group else has_keys & pods_exist
        rejected = ~ok
        for p in np.flatnonzero(rejected).tolist():
            out[p] = _AFFINITY_NOT_MATCH
    for status, terms in (
        (_ANTI_AFFINITY_NOT_MATCH, anti_terms),
        (_EXISTING_ANTI_AFFINITY_NOT_MATCH, existing),
    ):
        if not terms:
            continue
        hit = np.zeros(n, dtype=bool)
        for key, counts in terms:
            column = cols.label(key)
            hit |= column.table(counts, 0, 0, np.int64)[column.ids[idx] + 1] > 0
        hit &= ~rejected
        for p in np.flatnonzero(hit).tolist():
            out[p] = status
        rejected |= hit
    return out


def _score_pairs(s: _PreScoreState, node_info: NodeInfo) -> list[tuple[str, str, int]]:
    labels = node_info.node.labels
    out = []
    for key, values in s.topology_score.items():
        value = labels.get(key)
        if value is not None:
            out.append((key, value, values.get(value, 0)))
    return out


def _satisfies_pod_affinity(s: _PreFilterState, labels: Mapping[str, str]) -> bool:
    """satisfyPodAffinity, with the exception for the first pod of a self-affine collection."""
    pods_exist = True
    for t in s.affinity_terms:
        value = labels.get(t.topology_key)
        if value is None:
            return False  # every topology key must be on the node
        if s.affinity.get(t.topology_key, value) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # No pod anywhere matches the terms, but the pod matches its own: let it start the group.
    return s.affinity.size == 0 and s.matches_own_affinity


def new(args: Any, handle: Handle) -> InterPodAffinity:
    if not isinstance(args, InterPodAffinityArgs):
        args = InterPodAffinityArgs()
    return InterPodAffinity(args, handle)
