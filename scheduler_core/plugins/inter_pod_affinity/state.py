"""InterPodAffinity's cycle state: the incoming pod's terms, the counts per topology pair that
PreFilter and PreScore keep, how Filter and Score read them back from the CycleState, and the
statuses the plugin reports.

Apart from the plugin (plugin.py), which fills and uses them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.framework.columns import Array, LabelColumn, NodeColumns
from scheduler_core.framework.cycle_state import CycleState, StateData
from scheduler_core.framework.status import (
    unresolvable,
    unschedulable,
)
from scheduler_core.objects.api import (
    AffinityTerm,
    KubeObject,
    Node,
    Pod,
)
from scheduler_core.objects.labels import Selector
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import FrozenState

NAME: Final = names.INTER_POD_AFFINITY
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"
AFFINITY_NOT_MATCH: Final = unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI_AFFINITY_NOT_MATCH: Final = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING_ANTI_AFFINITY_NOT_MATCH: Final = unschedulable(
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
)
PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
PRE_SCORE_KEY: Final = f"PreScore{NAME}"

NO_LABELS: Final[Mapping[str, str]] = {}
NO_COUNTS: Final[Mapping[str, int]] = {}


class IncomingTerm:
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


def existing_term_matches(term: AffinityTerm, pod: Pod, ns_labels: Mapping[str, str]) -> bool:
    """fwk.AffinityTerm.Matches for an existing pod's term against the incoming pod.

    ``ns_labels`` are the incoming pod's namespace labels (empty when the namespace is unknown,
    which an empty or a DoesNotExist namespaceSelector still matches, as upstream).
    """
    if pod.namespace in term.namespaces or term.namespace_selector.matches(ns_labels):
        return term.selector.matches(pod.labels)
    return False


def matches_all(terms: Sequence[IncomingTerm], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: false for no terms."""
    if not terms:
        return False
    return all(t.matches(pod) for t in terms)


class TopologyCounts:
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
        sums = _value_sums(column, ids, counts)
        if not sums:
            return
        if key not in self.by_key:  # every sum is positive: each value enters as it is
            self.by_key[key] = values = dict(sums)
            self.size += len(values)
            return
        for value, n in sums:
            self.add({key: value}, key, n)

    def get(self, key: str, value: str) -> int:
        values = self.by_key.get(key)
        return values.get(value, 0) if values is not None else 0

    def clone(self) -> TopologyCounts:
        out = TopologyCounts()
        out.by_key = {k: dict(v) for k, v in self.by_key.items()}
        out.size = self.size
        return out


class PreFilterState:
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
        affinity_terms: tuple[IncomingTerm, ...],
        anti_affinity_terms: tuple[IncomingTerm, ...],
        namespace_labels: Mapping[str, str],
        matches_own_affinity: bool,
    ) -> None:
        self.existing_anti_affinity = TopologyCounts()
        self.affinity = TopologyCounts()
        self.anti_affinity = TopologyCounts()
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.namespace_labels = namespace_labels
        self.matches_own_affinity = matches_own_affinity

    def clone(self) -> StateData:
        out = PreFilterState(
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
            if existing_term_matches(term, incoming, self.namespace_labels):
                self.existing_anti_affinity.add(labels, term.topology_key, 1)

    def add_incoming(self, existing: Pod, labels: Mapping[str, str], delta: int) -> None:
        """Count an existing pod against the incoming pod's required (anti-)affinity terms."""
        if matches_all(self.affinity_terms, existing):
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
            counts = cols.pod_counts(key, lambda p: matches_all(terms, p))[idx]
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
            if existing_term_matches(term, incoming, self.namespace_labels):
                self.existing_anti_affinity.add(labels, term.topology_key, delta)
        self.add_incoming(existing, labels, delta)


class PreScoreState(FrozenState):
    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score


class ScoreMap:
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
        sums = _value_sums(column, ids, counts)
        if not sums:
            return
        values = self.by_key.get(key)
        if values is None:
            values = self.by_key[key] = {}
        get = values.get
        for value, n in sums:
            values[value] = get(value, 0) + weight * n
        self.touched = True


def _value_sums(column: LabelColumn, ids: Array, counts: Array) -> list[tuple[str, int]]:
    """The pods ``counts`` counts on each node, summed per label value of the nodes (label ids
    ``ids`` in ``column``); values with no pod are left out."""
    has = (ids >= 0) & (counts > 0)
    if not has.any():
        return []
    sums = np.bincount(ids[has], weights=counts[has], minlength=len(column.values))
    at = np.flatnonzero(sums)
    # Read in C: a hostname key has a value per node.
    values = map(column.values.__getitem__, at.tolist())
    return list(zip(values, sums[at].astype(np.int64).tolist(), strict=True))


def pre_filter_state_error(value: object) -> str:
    if value is None:
        return f'error reading "{PRE_FILTER_KEY}" from cycleState: not found'
    return f"{value!r}  convert to interpodaffinity.state error"


def read_pre_filter_state(state: CycleState) -> PreFilterState | str:
    value = state.get(PRE_FILTER_KEY)
    if not isinstance(value, PreFilterState):
        return pre_filter_state_error(value)
    return value


def read_pre_score_state(state: CycleState) -> PreScoreState | str:
    value = state.get(PRE_SCORE_KEY)
    if value is None:
        return f'failed to read "{PRE_SCORE_KEY}" from cycleState: not found'
    if not isinstance(value, PreScoreState):
        return f"{value!r}  convert to interpodaffinity.preScoreState error"
    return value
