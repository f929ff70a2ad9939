"""InterPodAffinity over the snapshot's columns: the existing pods' terms tallied per topology
pair (kept across cycles and brought up to date as pods come and go), the Filter verdicts and
the Score pairs computed from them for every node at once.

Apart from the plugin (plugin.py), which calls these on its batch paths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from scheduler_core.framework.columns import (
    Array,
    LabelColumn,
    NodeColumns,
    columns_of,
    label_ids,
    label_lanes,
    lanes,
)
from scheduler_core.framework.rejections import RowRejections
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import Pod
from scheduler_core.plugins.inter_pod_affinity.state import (
    AFFINITY_NOT_MATCH,
    ANTI_AFFINITY_NOT_MATCH,
    EXISTING_ANTI_AFFINITY_NOT_MATCH,
    NO_COUNTS,
    PreFilterState,
    PreScoreState,
    TopologyCounts,
    existing_term_matches,
)


class PairTally:
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

    def counts(self) -> TopologyCounts:
        """The pairs as topology counts (each contribution counting one)."""
        out = TopologyCounts()
        out.by_key = {key: dict(values) for key, values in self.sums.items()}
        out.size = len(self.adds)
        return out


def tally(
    cols: NodeColumns,
    key: tuple[Any, ...],
    contributors: Array,
    total: int,
    contributions: Callable[[NodeInfo], list[tuple[str, str, int]]],
) -> PairTally:
    """The tally over the nodes; ``contributors`` counts each node's pods that may contribute,
    ``total`` is its sum. With no such pod anywhere, nothing contributes: the tally is empty
    (a kept one catches up by generation the next time there is one)."""
    if not total:
        return PairTally(cols.generation)
    tally = cols.caches.get(key)
    if not isinstance(tally, PairTally):
        tally = PairTally(cols.generation.copy())
        cols.remember(key, tally)
        rows = np.flatnonzero(contributors).tolist()
    else:
        changed = np.flatnonzero(tally.seen != cols.generation)
        tally.seen[changed] = cols.generation[changed]
        rows = changed.tolist()
    tally.update(cols, rows, contributions)
    return tally


def existing_anti_affinity_tally(cols: NodeColumns, pod: Pod, s: PreFilterState) -> PairTally:
    """add_existing over every node's pods with required anti-affinity, as a tally."""
    ns_labels = s.namespace_labels

    def contributions(ni: NodeInfo) -> list[tuple[str, str, int]]:
        labels = ni.node.labels
        out = []
        for existing in ni.pods_with_required_anti_affinity:
            for term in existing.required_anti_affinity_terms:
                value = labels.get(term.topology_key)
                if value is not None and existing_term_matches(term, pod, ns_labels):
                    out.append((term.topology_key, value, 1))
        return out

    key = (
        "InterPodAffinity/existing-anti-affinity",
        pod.namespace,
        frozenset(pod.labels.items()),
        frozenset(ns_labels.items()),
    )
    return tally(cols, key, cols.num_anti_affinity, cols.anti_affinity_pods, contributions)


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
            if value is not None and existing_term_matches(term, pod, ns_labels):
                out.append((term.topology_key, value, hard, "required affinity"))
    for wt, sign in [(wt, 1) for wt in existing.preferred_affinity_terms] + [
        (wt, -1) for wt in existing.preferred_anti_affinity_terms
    ]:
        value = labels.get(wt.term.topology_key)
        if value is not None and existing_term_matches(wt.term, pod, ns_labels):
            what = "preferred affinity" if sign > 0 else "preferred anti-affinity"
            out.append((wt.term.topology_key, value, sign * wt.weight, what))
    return out


def existing_terms_tally(
    cols: NodeColumns, pod: Pod, ns_labels: Mapping[str, str], hard_weight: int
) -> PairTally:
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
    return tally(cols, key, cols.num_affinity, cols.affinity_pods, contributions)


def with_pods(nodes: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
    """The nodes that have pods, in order (read from the pod-count column when there is one)."""
    found = columns_of(nodes)
    if found is None:
        return [ni for ni in nodes if ni.pods]
    cols, idx = found
    return [nodes[p] for p in np.flatnonzero(cols.num_pods[idx]).tolist()]


def filter_nodes(s: PreFilterState, nodes: Sequence[NodeInfo]) -> RowRejections:
    """Filter over many nodes: the pod's required affinity (every topology key on the node,
    and a matching pod in each domain, unless no pod matches anywhere and the pod matches its
    own terms), then its required anti-affinity, then the existing pods' anti-affinity; the
    first that fails decides a node's status. Read through label columns (the snapshot's, or
    built over the nodes given), as lanes (a per-node call's are scalars)."""
    n = len(nodes)
    out = RowRejections()
    rejected = lanes(n, False)
    if s.affinity_terms:
        has_keys = lanes(n, True)
        pods_exist = lanes(n, True)
        for t in s.affinity_terms:
            column, ids = label_lanes(nodes, t.topology_key)
            has_keys &= ids >= 0
            counts = s.affinity.by_key.get(t.topology_key, NO_COUNTS)
            pods_exist &= column.read(counts, ids) > 0
        # With no matching pod anywhere, a pod matching its own terms may start the group.
        starts_group = s.affinity.size == 0 and s.matches_own_affinity
        rejected = ~(has_keys if starts_group else has_keys & pods_exist)
        out.add_mask(rejected, AFFINITY_NOT_MATCH)
    anti = s.anti_affinity.by_key
    for status, terms in (
        (
            ANTI_AFFINITY_NOT_MATCH,
            [(t.topology_key, anti.get(t.topology_key, NO_COUNTS)) for t in s.anti_affinity_terms]
            if s.anti_affinity.size
            else [],
        ),
        (EXISTING_ANTI_AFFINITY_NOT_MATCH, list(s.existing_anti_affinity.by_key.items())),
    ):
        if not terms:
            continue
        hit = lanes(n, False)
        for key, counts in terms:
            column, ids = label_lanes(nodes, key)
            hit |= column.read(counts, ids) > 0
        hit &= ~rejected
        out.add_mask(hit, status)
        rejected |= hit
    return out


def score_nodes(s: PreScoreState, nodes: Sequence[NodeInfo]) -> Any:
    """Score over many nodes (an int64 array): the summed weights PreScore gave each topology
    pair the node is in (pair_weights); positive attracts, negative repels."""
    acc = np.zeros(len(nodes), dtype=np.int64)
    for _, _, _, weights in pair_weights(s, nodes):
        acc += weights
    return acc


def pair_weights(
    s: PreScoreState, nodes: Sequence[NodeInfo]
) -> Iterator[tuple[str, LabelColumn, Array, Array]]:
    """Score's rule per topology key PreScore weighed: the key, its label column, each node's
    value id (-1 without the label) and the weight of the node's pair (0 when PreScore gave
    it none, or the node lacks the label)."""
    for key, values in s.topology_score.items():
        column, ids = label_ids(nodes, key)
        yield key, column, ids, column.read(values, ids)


def score_pairs(s: PreScoreState, node_info: NodeInfo) -> list[tuple[str, str, int]]:
    """Score's rule on the node as a batch of one: (topology key, the node's value, weight) of
    each pair PreScore weighed whose key the node has; Score adds the weights up."""
    return [
        (key, column.values[int(ids[0])], int(weights[0]))
        for key, column, ids, weights in pair_weights(s, (node_info,))
        if ids[0] >= 0
    ]
