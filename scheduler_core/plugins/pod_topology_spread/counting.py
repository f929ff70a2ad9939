"""PodTopologySpread's counting: the pods a constraint's selector matches per node and per
topology domain (per node or over the snapshot's columns), which nodes a constraint counts,
and the two domains with the fewest matches (the critical paths of the skew check).

Apart from the plugin (plugin.py), which turns these counts into Filter and
Score results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from scheduler_core.framework.columns import (
    Array,
    LabelColumn,
    NodeColumns,
    NodeMasks,
    columns_of,
)
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.objects.labels import Selector
from scheduler_core.plugins import names
from scheduler_core.plugins.node_affinity import RequiredNodeAffinity
from scheduler_core.plugins.pod_topology_spread.constraints import Constraint
from scheduler_core.plugins.shared.helpers import (
    do_not_schedule_taint,
    find_untolerated_taint,
)

MAX_INT32: Final = 2**31 - 1


def counted_pod(selector: Selector, namespace: str) -> Callable[[Pod], bool]:
    """countPodsMatchSelector's rule for one pod: of the namespace, not terminating, and
    picked by the selector (an empty selector picks none; callers check it first)."""
    matches = selector.matches

    def counted(p: Pod) -> bool:
        return not p.deleting and p.namespace == namespace and matches(p.labels)

    return counted


def count_matching(pods: Sequence[Pod], selector: Selector, namespace: str) -> int:
    """countPodsMatchSelector: how many of ``pods`` counted_pod picks; an empty selector
    counts nothing."""
    if selector.is_empty:
        return 0
    return sum(map(counted_pod(selector, namespace), pods))


def matching_counts(cols: NodeColumns, selector: Selector, namespace: str) -> Array:
    """count_matching for every node of the snapshot, kept in the columns across cycles."""
    if selector.is_empty:
        return np.zeros(cols.n, dtype=np.int64)
    key = (names.POD_TOPOLOGY_SPREAD, namespace, selector.is_nothing, selector.requirements)
    return cols.pod_counts(key, counted_pod(selector, namespace))


def node_matching_counts(nodes: Sequence[NodeInfo], selector: Selector, namespace: str) -> Array:
    """count_matching on each of ``nodes``' pods: from the snapshot's columns when the nodes
    are column-backed, else node by node."""
    found = columns_of(nodes)
    if found is not None:
        return matching_counts(found[0], selector, namespace)[found[1]]
    counts = (count_matching(ni.pods, selector, namespace) for ni in nodes)
    return np.fromiter(counts, dtype=np.int64, count=len(nodes))


def count_per_domain(
    pod: Pod,
    constraints: Sequence[Constraint],
    nodes: Sequence[NodeInfo],
    counts: list[dict[str, int]],
    indices: Iterable[int],
    *,
    known_only: bool,
    require_all: bool,
) -> None:
    """Add each node's matching pods to its topology value in ``counts[i]`` for ``indices``.

    Nodes lacking any constraint's key are passed over when ``require_all``; a node a
    constraint's inclusion policies leave out does not count for it. With ``known_only``
    only values already in ``counts[i]`` are counted; otherwise each counted node's value
    becomes a domain, with zero matching pods if need be.
    """
    found = columns_of(nodes)
    if found is not None:
        _count_per_domain_columns(
            pod,
            constraints,
            nodes,
            found[0],
            found[1],
            counts,
            indices,
            known_only=known_only,
            require_all=require_all,
        )
        return
    keys = [c.topology_key for c in constraints]
    groups = _selector_groups(constraints)
    inclusion = Inclusion(pod, constraints)
    namespace = pod.namespace
    plan = [
        (
            counts[i],
            constraints[i].topology_key,
            groups[i],
            constraints[i].selector,
            constraints[i].honor_node_affinity and inclusion.need_affinity,
            constraints[i].honor_node_taints and inclusion.need_taints,
        )
        for i in indices
    ]
    for ni in nodes:
        node = ni.node
        labels = node.labels
        if require_all:
            missing = False
            for k in keys:
                if k not in labels:
                    missing = True
                    break
            if missing:
                continue
        pods = ni.pods
        per_group: dict[int, int] | None = {} if pods else None
        affinity_ok: bool | None = None
        taints_ok: bool | None = None
        for m, key, group, selector, check_affinity, check_taints in plan:
            value = labels.get(key, "")
            if known_only and value not in m:
                continue
            if check_affinity:
                if affinity_ok is None:
                    affinity_ok = inclusion.affinity_matches(node)
                if not affinity_ok:
                    continue
            if check_taints:
                if taints_ok is None:
                    taints_ok = inclusion.taints_tolerated(node)
                if not taints_ok:
                    continue
            n = 0
            if per_group is not None:
                cached = per_group.get(group)
                if cached is None:
                    cached = per_group[group] = count_matching(pods, selector, namespace)
                n = cached
            m[value] = m.get(value, 0) + n


def _count_per_domain_columns(
    pod: Pod,
    constraints: Sequence[Constraint],
    nodes: Sequence[NodeInfo],
    cols: NodeColumns,
    idx: Array,
    counts: list[dict[str, int]],
    indices: Iterable[int],
    *,
    known_only: bool,
    require_all: bool,
) -> None:
    """count_per_domain over column-backed nodes: the same counts, in array passes.

    Each node's topology value is its id in the snapshot's label column; a domain's count is
    the sum over its counted nodes, and a new domain enters ``counts[i]`` where its first
    counted node comes in ``nodes``, as the per-node walk would add it.
    """
    wanted = list(indices)
    if not wanted:
        return
    n = len(nodes)
    label_ids = {}
    for c in constraints:
        if c.topology_key not in label_ids:
            column = cols.label(c.topology_key)
            label_ids[c.topology_key] = (column, column.ids[idx])
    base = np.ones(n, dtype=bool)
    if require_all:
        for _, ids in label_ids.values():
            base &= ids >= 0
    inclusion = Inclusion(pod, constraints)
    affinity_mask: Array | None = None
    taints_mask: Array | None = None
    masks: list[Array] = []
    for i in wanted:
        c = constraints[i]
        mask = base
        if c.honor_node_affinity and inclusion.need_affinity:
            if affinity_mask is None:
                affinity_mask = inclusion.affinity_mask(cols)[idx]
            mask = mask & affinity_mask
        if c.honor_node_taints and inclusion.need_taints:
            if taints_mask is None:
                taints_mask = base.copy()
                tainted = base & cols.has_taints[idx]
                for p in np.flatnonzero(tainted).tolist():
                    taints_mask[p] = inclusion.taints_tolerated(nodes[p].node)
            mask = mask & taints_mask
        if known_only:
            column, ids = label_ids[c.topology_key]
            known = counts[i]
            table = np.zeros(len(column.values) + 1, dtype=bool)
            table[0] = "" in known  # a node without the key counts under ""
            for value in known:
                j = column.index.get(value)
                if j is not None:
                    table[j + 1] = True
            mask = mask & table[ids + 1]
        masks.append(mask)
    namespace = pod.namespace
    for i, mask in zip(wanted, masks, strict=True):
        c = constraints[i]
        matched = matching_counts(cols, c.selector, namespace)[idx]
        column, ids = label_ids[c.topology_key]
        counted = np.flatnonzero(mask)
        if counted.size == 0:
            continue
        codes = ids[counted] + 1  # 0: no such label, counted under ""
        sums = np.bincount(codes, weights=matched[counted], minlength=len(column.values) + 1)
        m = counts[i]
        if known_only:
            for value, n in _domain_sums(column, np.flatnonzero(sums), sums):
                m[value] = m[value] + n
            continue
        present, first = np.unique(codes, return_index=True)
        found = _domain_sums(column, present[np.argsort(first, kind="stable")], sums)
        if not m:
            m.update(found)
            continue
        for value, n in found:
            m[value] = m.get(value, 0) + n


def _domain_sums(column: LabelColumn, codes: Array, sums: Array) -> zip[tuple[str, int]]:
    """(value, int(sums[code])) for each of ``codes`` in order, code 0 being the nodes without
    the label (counted under ""): read in C, as a hostname key has a domain per node."""
    values = [""] + column.values
    names = map(values.__getitem__, codes.tolist())
    return zip(names, sums[codes].astype(np.int64).tolist(), strict=True)


class Inclusion:
    """Which nodes a constraint counts, per its nodeAffinityPolicy and nodeTaintsPolicy."""

    __slots__ = ("required", "pod", "need_affinity", "need_taints")

    def __init__(self, pod: Pod, constraints: Sequence[Constraint]) -> None:
        self.pod = pod
        self.required = RequiredNodeAffinity(pod)
        has_required = self.required.selector is not None or self.required.affinity is not None
        self.need_affinity = has_required and any(c.honor_node_affinity for c in constraints)
        self.need_taints = any(c.honor_node_taints for c in constraints)

    def affinity_matches(self, node: Node) -> bool:
        """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): NodeAffinity's rule."""
        return not self.need_affinity or self.required.matches_node(node)

    def affinity_mask(self, cols: NodeColumns) -> Array:
        """affinity_matches over every node of the snapshot."""
        if not self.need_affinity:
            return np.ones(cols.n, dtype=bool)
        mask: Array = self.required.lanes(NodeMasks(cols.infos))
        return mask

    def taints_tolerated(self, node: Node) -> bool:
        if not self.need_taints or not node.taints:
            return True
        return (
            find_untolerated_taint(node.taints, self.pod.tolerations, do_not_schedule_taint) is None
        )


def _selector_groups(constraints: Sequence[Constraint]) -> list[int]:
    """For each constraint, the index of the first constraint with an equal selector.

    Lets a node's pods be counted once per distinct selector instead of once per constraint.
    """
    seen: dict[tuple[Any, ...], int] = {}
    out: list[int] = []
    for i, c in enumerate(constraints):
        key = (c.selector.is_nothing, c.selector.requirements)
        out.append(seen.setdefault(key, i))
    return out


@dataclass(frozen=True, slots=True)
class SkewCheck:
    """One hard constraint checked on a node by Filter's own rule: its domain, the counts and
    the skew."""

    topology_key: str
    value: str | None  # the node's domain; None when it lacks the label
    matching: int  # pods matching the selector in that domain
    self_match: int  # 1 when the incoming pod matches its own selector
    min_match: int  # the fewest matching pods in any domain (0 below minDomains)
    enough_domains: bool  # at least minDomains domains: min_match is the true minimum
    max_skew: int
    min_domains: int
    counts: dict[str, int]  # matching pods per domain
    skew: int  # matching + self_match - min_match, as Filter computed it
    exceeds: bool  # the skew is above maxSkew: Filter rejects the node


class CriticalPaths:
    """The two topology values with the fewest matching pods (criticalPaths).

    Kept exactly as upstream updates it on AddPod/RemovePod, including its staleness: only
    the first entry's count is ever read.
    """

    __slots__ = ("value0", "num0", "value1", "num1")

    def __init__(
        self, value0: str = "", num0: int = MAX_INT32, value1: str = "", num1: int = MAX_INT32
    ) -> None:
        self.value0 = value0
        self.num0 = num0
        self.value1 = value1
        self.num1 = num1

    def update(self, value: str, num: int) -> None:
        if value == self.value0:
            self.num0 = num
        elif value == self.value1:
            self.num1 = num
        else:
            if num < self.num0:
                self.value1, self.num1 = self.value0, self.num0
                self.value0, self.num0 = value, num
            elif num < self.num1:
                self.value1, self.num1 = value, num
            return
        if self.num0 > self.num1:
            self.value0, self.num0, self.value1, self.num1 = (
                self.value1,
                self.num1,
                self.value0,
                self.num0,
            )

    def copy(self) -> CriticalPaths:
        return CriticalPaths(self.value0, self.num0, self.value1, self.num1)

    def __repr__(self) -> str:
        return f"[({self.value0!r}, {self.num0}), ({self.value1!r}, {self.num1})]"
