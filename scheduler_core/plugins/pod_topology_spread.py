"""PodTopologySpread: hard spread constraints filter nodes, soft ones score them.

Mirrors plugins/podtopologyspread (common.go, filtering.go, scoring.go, plugin.go) and
helper.DefaultSelector (plugins/helper/spread.go) in kube-scheduler v1.35, with the
NodeInclusionPolicy and MatchLabelKeys features on, as they are by default in v1.35.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np

from scheduler_core.api import HOSTNAME_LABEL, ZONE_LABEL, ClusterObjects, KubeObject, Node, Pod
from scheduler_core.config.types import SYSTEM_DEFAULTING, PluginArgs, PodTopologySpreadArgs
from scheduler_core.framework.columns import Array, NodeColumns, columns_of
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
from scheduler_core.labels import NodeSelector, Selector, SelectorError, label_selector
from scheduler_core.plugins import names
from scheduler_core.plugins.helpers import (
    FrozenState,
    do_not_schedule_taint,
    find_untolerated_taint,
)
from scheduler_core.queue.events import ClusterEventWithHint

NAME: Final = names.POD_TOPOLOGY_SPREAD
ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = (
    ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
)

DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
NODE_INCLUSION_HONOR: Final = "Honor"

# The hostname constraint comes first: scores add up in this order, and float sums are
# order-sensitive.
SYSTEM_DEFAULT_CONSTRAINTS: Final[tuple[Mapping[str, Any], ...]] = (
    {"topologyKey": HOSTNAME_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)

_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"
_SCORED_KEY: Final = f"ScoreBatch{NAME}"
_MAX_INT32: Final = 2**31 - 1
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

# (group, version, kind) of the controllers whose selector DefaultSelector adds.
_RC_KIND: Final = ("", "v1", "ReplicationController")
_RS_KIND: Final = ("apps", "v1", "ReplicaSet")
_SS_KIND: Final = ("apps", "v1", "StatefulSet")


@dataclass(frozen=True, slots=True)
class Constraint:
    """A TopologySpreadConstraint with its selector parsed and its optional fields defaulted."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_node_taints: bool = False


def parse_constraints(
    raws: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[Constraint]:
    """The constraints whose whenUnsatisfiable is ``action``; raises SelectorError on a bad one.

    matchLabelKeys present in the pod's labels are merged into the selector as equalities.
    """
    out: list[Constraint] = []
    for raw in raws:
        if raw.get("whenUnsatisfiable") != action:
            continue
        selector = label_selector(raw.get("labelSelector"))
        match_labels = {
            key: pod_labels[key] for key in raw.get("matchLabelKeys") or () if key in pod_labels
        }
        if match_labels and not selector.is_nothing:
            selector = Selector.from_set(match_labels).add(selector.requirements)
        min_domains = raw.get("minDomains")
        affinity_policy = raw.get("nodeAffinityPolicy")
        taints_policy = raw.get("nodeTaintsPolicy")
        out.append(
            Constraint(
                max_skew=int(raw.get("maxSkew") or 0),
                topology_key=str(raw.get("topologyKey") or ""),
                selector=selector,
                min_domains=1 if min_domains is None else int(min_domains),
                honor_node_affinity=(
                    affinity_policy is None or affinity_policy == NODE_INCLUSION_HONOR
                ),
                honor_node_taints=taints_policy == NODE_INCLUSION_HONOR,
            )
        )
    return out


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion; None for a string it refuses."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def _find(objects: Sequence[KubeObject], namespace: str, name: str) -> KubeObject | None:
    for obj in objects:
        if obj.namespace == namespace and obj.name == name:
            return obj
    return None


def _string_map(raw: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in (raw or {}).items()}


def default_selector(pod: Pod, objects: ClusterObjects) -> Selector:
    """helper.DefaultSelector: the selectors of the pod's Services and of its controller.

    Services in the pod's namespace whose selector matches the pod contribute their selector
    labels; a controlling ReplicationController adds its selector map, a controlling ReplicaSet
    or StatefulSet adds its label selector's requirements (a nil or invalid one adds nothing).
    """
    label_set: dict[str, str] = {}
    for svc in objects.services:
        if svc.namespace != pod.namespace:
            continue
        raw = svc.spec.get("selector")
        if raw is None:
            continue
        sel = _string_map(raw)
        if all(pod.labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    selector = Selector.from_set(label_set)

    owner = next((ref for ref in pod.owner_references if ref.get("controller") is True), None)
    if owner is None:
        return selector
    gv = _parse_group_version(str(owner.get("apiVersion") or ""))
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], owner.get("kind") or "")
    name = str(owner.get("name") or "")
    if gvk == _RC_KIND:
        rc = _find(objects.replication_controllers, pod.namespace, name)
        if rc is not None:
            label_set.update(_string_map(rc.spec.get("selector")))
            selector = Selector.from_set(label_set)
    elif gvk in (_RS_KIND, _SS_KIND):
        listed = objects.replica_sets if gvk == _RS_KIND else objects.stateful_sets
        controller = _find(listed, pod.namespace, name)
        if controller is not None:
            try:
                other = label_selector(controller.spec.get("selector"))
            except SelectorError:
                return selector
            if not other.is_nothing:
                selector = selector.add(other.requirements)
    return selector


def go_log(x: int) -> float:
    """math.Log as Go computes it on amd64 (its own reduction and polynomial).

    The C library's log differs from it in the last bit for some integers (3 among them),
    which is enough to move a rounded score; the topology weights must use this one.
    """
    cached = _LOG_CACHE.get(x)
    if cached is not None:
        return cached
    frac, exp = math.frexp(float(x))
    if frac < _HALF_SQRT2:
        frac *= 2
        exp -= 1
    f = frac - 1
    k = float(exp)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_LG1 + s4 * (_LG3 + s4 * (_LG5 + s4 * _LG7)))
    t2 = s4 * (_LG2 + s4 * (_LG4 + s4 * _LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    result = k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)
    _LOG_CACHE[x] = result
    return result


_HALF_SQRT2: Final = 7.07106781186547524401e-01
_LN2_HI: Final = 6.93147180369123816490e-01
_LN2_LO: Final = 1.90821492927058770002e-10
_LG1: Final = 6.666666666666735130e-01
_LG2: Final = 3.999999999940941908e-01
_LG3: Final = 2.857142874366239149e-01
_LG4: Final = 2.222219843214978396e-01
_LG5: Final = 1.818357216161805012e-01
_LG6: Final = 1.531383769920937332e-01
_LG7: Final = 1.479819860511658591e-01
_LOG_CACHE: dict[int, float] = {}


def go_round(x: float) -> int:
    """math.Round: halves away from zero (Python's round() would round them to even)."""
    if x < 0:
        return -go_round(-x)
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def _count_matching(pods: Sequence[Pod], selector: Selector, namespace: str) -> int:
    """countPodsMatchSelector: pods of the namespace, not terminating, that the selector picks.

    An empty selector counts nothing.
    """
    if selector.is_empty:
        return 0
    count = 0
    matches = selector.matches
    for p in pods:
        if p.deleting or p.namespace != namespace:
            continue
        if matches(p.labels):
            count += 1
    return count


def _matching_counts(cols: NodeColumns, selector: Selector, namespace: str) -> Array:
    """_count_matching for every node of the snapshot, kept in the columns across cycles."""
    if selector.is_empty:
        return np.zeros(cols.n, dtype=np.int64)
    matches = selector.matches

    def counted(p: Pod) -> bool:
        return not p.deleting and p.namespace == namespace and matches(p.labels)

    key = (NAME, namespace, selector.is_nothing, selector.requirements)
    return cols.pod_counts(key, counted)


def _count_per_domain(
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
    inclusion = _Inclusion(pod, constraints)
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
                    cached = per_group[group] = _count_matching(pods, selector, namespace)
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
    """_count_per_domain over column-backed nodes: the same counts, in array passes.

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
    inclusion = _Inclusion(pod, constraints)
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
        matched = _matching_counts(cols, c.selector, namespace)[idx]
        column, ids = label_ids[c.topology_key]
        counted = np.flatnonzero(mask)
        if counted.size == 0:
            continue
        codes = ids[counted] + 1  # 0: no such label, counted under ""
        sums = np.bincount(codes, weights=matched[counted], minlength=len(column.values) + 1)
        m = counts[i]
        if known_only:
            for code in np.flatnonzero(sums).tolist():
                value = column.values[code - 1] if code else ""
                m[value] = m[value] + int(sums[code])
            continue
        present, first = np.unique(codes, return_index=True)
        for code in present[np.argsort(first, kind="stable")].tolist():
            value = column.values[code - 1] if code else ""
            m[value] = m.get(value, 0) + int(sums[code])


class _Inclusion:
    """Which nodes a constraint counts, per its nodeAffinityPolicy and nodeTaintsPolicy."""

    __slots__ = ("node_selector", "affinity", "pod", "need_affinity", "need_taints")

    def __init__(self, pod: Pod, constraints: Sequence[Constraint]) -> None:
        self.pod = pod
        self.node_selector = Selector.from_set(pod.node_selector) if pod.node_selector else None
        self.affinity: NodeSelector | None = pod.required_node_selector
        has_required = self.node_selector is not None or self.affinity is not None
        self.need_affinity = has_required and any(c.honor_node_affinity for c in constraints)
        self.need_taints = any(c.honor_node_taints for c in constraints)

    def affinity_matches(self, node: Node) -> bool:
        """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)."""
        if not self.need_affinity:
            return True
        if self.node_selector is not None and not self.node_selector.matches(node.labels):
            return False
        if self.affinity is not None:
            return self.affinity.matches(node.labels, node.name)
        return True

    def affinity_mask(self, cols: NodeColumns) -> Array:
        """affinity_matches over every node of the snapshot."""
        out = np.ones(cols.n, dtype=bool)
        if not self.need_affinity:
            return out
        if self.node_selector is not None:
            out &= cols.selector_mask(self.node_selector)
        if self.affinity is not None:
            out &= cols.node_selector_mask(self.affinity)
        return out

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
    """One hard constraint checked on a node: its domain, the counts and the skew."""

    topology_key: str
    value: str | None  # the node's domain; None when it lacks the label
    matching: int  # pods matching the selector in that domain
    self_match: int  # 1 when the incoming pod matches its own selector
    min_match: int  # the fewest matching pods in any domain (0 below minDomains)
    max_skew: int
    min_domains: int
    counts: dict[str, int]  # matching pods per domain

    @property
    def skew(self) -> int:
        return self.matching + self.self_match - self.min_match


class _CriticalPaths:
    """The two topology values with the fewest matching pods (criticalPaths).

    Kept exactly as upstream updates it on AddPod/RemovePod, including its staleness: only
    the first entry's count is ever read.
    """

    __slots__ = ("value0", "num0", "value1", "num1")

    def __init__(
        self, value0: str = "", num0: int = _MAX_INT32, value1: str = "", num1: int = _MAX_INT32
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

    def copy(self) -> _CriticalPaths:
        return _CriticalPaths(self.value0, self.num0, self.value1, self.num1)

    def __repr__(self) -> str:
        return f"[({self.value0!r}, {self.num0}), ({self.value1!r}, {self.num1})]"


class _PreFilterState:
    """Hard constraints, and per constraint the matching pods per topology value."""

    __slots__ = ("constraints", "self_match", "counts", "paths", "checks")

    def __init__(
        self,
        constraints: tuple[Constraint, ...],
        self_match: tuple[int, ...],
        counts: list[dict[str, int]],
        paths: list[_CriticalPaths],
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


class PodTopologySpread:
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
        # Imported here: the hints module reads this one's Constraint.
        from scheduler_core.plugins.pod_topology_spread_hints import PodTopologySpreadHints

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
        _count_per_domain(
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
            p = _CriticalPaths()
            for value, num in m.items():
                p.update(value, num)
            paths.append(p)
        self_match = tuple(1 if c.selector.matches(pod.labels) else 0 for c in constraints)
        state.write(_PRE_FILTER_KEY, _PreFilterState(tuple(constraints), self_match, counts, paths))
        return None, SUCCESS

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        checks = self.skew_checks(state, node_info)
        if checks is None:
            return _STATUS_NO_PRE_FILTER_STATE
        for check in checks:
            if check.value is None:
                return _STATUS_LABEL_MISSING
            if check.skew > check.max_skew:
                return _STATUS_SKEW
        return SUCCESS

    @staticmethod
    def skew_checks(state: CycleState, node_info: NodeInfo) -> list[SkewCheck] | None:
        """Each hard constraint's skew on the node, in order (None without PreFilter state);
        Filter stops at the first with the label missing or a skew above maxSkew."""
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return None
        labels = node_info.node.labels
        out = []
        for key, max_skew, min_domains, self_match, counts, paths in s.checks:
            value = labels.get(key)
            # Fewer domains than minDomains: the global minimum counts as 0.
            min_match = paths.num0 if len(counts) >= min_domains else 0
            matching = counts.get(value, 0) if value is not None else 0
            out.append(
                SkewCheck(
                    key, value, matching, self_match, min_match, max_skew, min_domains, dict(counts)
                )
            )
        return out

    def filter_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> dict[int, Status]:
        """Filter for many nodes: the same checks, with the state read once."""
        s = state.get(_PRE_FILTER_KEY)
        if not isinstance(s, _PreFilterState):
            return dict.fromkeys(range(len(nodes)), _STATUS_NO_PRE_FILTER_STATE)
        checks = [
            (key, max_skew, (paths.num0 if len(counts) >= min_domains else 0) - self_match, counts)
            for key, max_skew, min_domains, self_match, counts, paths in s.checks
        ]
        found = columns_of(nodes)
        if found is not None:
            return _filter_columns(checks, found[0], found[1])
        out: dict[int, Status] = {}
        for i, ni in enumerate(nodes):
            labels = ni.node.labels
            for key, max_skew, offset, counts in checks:
                value = labels.get(key)
                if value is None:
                    out[i] = _STATUS_LABEL_MISSING
                    break
                if counts.get(value, 0) - offset > max_skew:
                    out[i] = _STATUS_SKEW
                    break
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
        inclusion = _Inclusion(preemptor, s.constraints)
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
            _count_per_domain(
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
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            return 0, _STATUS_NO_PRE_SCORE_STATE
        return _score(s, node_info), SUCCESS

    def score_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status]:
        """Score every node in one call (the runtime prefers this to per-node calls)."""
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            return [], _STATUS_NO_PRE_SCORE_STATE
        found = columns_of(nodes)
        scored = _score_columns(s, found[0], found[1]) if found is not None else None
        if scored is None:
            out = [_score(s, ni) for ni in nodes]
            ignored = [ni.node.name in s.ignored for ni in nodes]
        else:
            out, ignored = scored
        state.write(_SCORED_KEY, _Scored(ignored))
        return out, SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: list[int]) -> list[int]:
        """normalize_score on the raw scores of score_batch, which noted the ignored nodes."""
        scored = state.get(_SCORED_KEY)
        if not isinstance(scored, _Scored) or len(scored.ignored) != len(raw):
            raise RuntimeError("PodTopologySpread: normalize_batch without score_batch")
        ignored = scored.ignored
        counted = [v for v, skip in zip(raw, ignored, strict=True) if not skip]
        min_score = min(counted, default=2**63 - 1)
        max_score = max(max(counted, default=0), 0)
        out: list[int] = []
        for v, skip in zip(raw, ignored, strict=True):
            if skip or v == _INVALID_SCORE:
                out.append(0)
            elif max_score == 0:
                out.append(MAX_NODE_SCORE)
            else:
                out.append(MAX_NODE_SCORE * (max_score + min_score - v) // max_score)
        return out

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        s = state.get(_PRE_SCORE_KEY)
        if not isinstance(s, _PreScoreState):
            return _STATUS_NO_PRE_SCORE_STATE
        min_score = 2**63 - 1
        max_score = 0
        for ns in scores:
            if ns.name in s.ignored:
                ns.score = _INVALID_SCORE
                continue
            min_score = min(min_score, ns.score)
            max_score = max(max_score, ns.score)
        for ns in scores:
            if ns.score == _INVALID_SCORE:
                ns.score = 0
            elif max_score == 0:
                ns.score = MAX_NODE_SCORE
            else:
                ns.score = MAX_NODE_SCORE * (max_score + min_score - ns.score) // max_score
        return SUCCESS


def _filter_columns(
    checks: Sequence[tuple[str, int, int, Mapping[str, int]]], cols: NodeColumns, idx: Array
) -> dict[int, Status]:
    """filter_batch over column-backed nodes: a node's first failing constraint decides."""
    out: dict[int, Status] = {}
    undecided = np.ones(len(idx), dtype=bool)
    for key, max_skew, offset, counts in checks:
        column = cols.label(key)
        ids = column.ids[idx]
        missing = undecided & (ids < 0)
        table = column.table(counts, 0, 0, np.int64)
        skewed = undecided & ~missing & (table[ids + 1] - offset > max_skew)
        for p in np.flatnonzero(missing).tolist():
            out[p] = _STATUS_LABEL_MISSING
        for p in np.flatnonzero(skewed).tolist():
            out[p] = _STATUS_SKEW
        undecided &= ~(missing | skewed)
    return out


class _Scored(FrozenState):
    """Which of the nodes score_batch scored are ignored, for normalize_batch."""

    __slots__ = ("ignored",)

    def __init__(self, ignored: list[bool]) -> None:
        self.ignored = ignored


def _score_columns(
    s: _PreScoreState, cols: NodeColumns, idx: Array
) -> tuple[list[int], list[bool]] | None:
    """_score over column-backed nodes, in the same float64 steps; None when a node's domain
    is unknown to PreScore (the per-node path then fails as upstream would)."""
    n = len(idx)
    ignored = np.zeros(n, dtype=bool)
    if s.ignored:
        ignored = np.isin(cols.names()[idx], list(s.ignored))
    total = np.zeros(n, dtype=np.float64)
    for i, c in enumerate(s.constraints):
        column = cols.label(c.topology_key)
        ids = column.ids[idx]
        present = ids >= 0
        if c.topology_key == HOSTNAME_LABEL:
            cnt = _matching_counts(cols, c.selector, s.namespace)[idx]
        else:
            known = column.table(dict.fromkeys(s.counts[i], True), False, False, bool)
            if (present & ~ignored & ~known[ids + 1]).any():
                return None
            cnt = column.table(s.counts[i], 0, 0, np.int64)[ids + 1]
        term = cnt.astype(np.float64) * s.weights[i] + float(c.max_skew - 1)
        total = np.where(present, total + term, total)
    # go_round: halves away from zero.
    magnitude = np.abs(total)
    whole = np.floor(magnitude)
    rounded = (whole + (magnitude - whole >= 0.5)).astype(np.int64)
    rounded = np.where(total < 0, -rounded, rounded)
    rounded[ignored] = 0
    flags: list[bool] = ignored.tolist()
    scores: list[int] = rounded.tolist()
    return scores, flags


def _score(s: _PreScoreState, node_info: NodeInfo) -> int:
    if node_info.node.name in s.ignored:
        return 0
    total = 0.0
    for _, _, cnt, weight, max_skew in _score_terms(s, node_info):
        total += float(cnt) * weight + float(max_skew - 1)
    return go_round(total)


def _score_terms(s: _PreScoreState, node_info: NodeInfo) -> list[tuple[str, str, int, float, int]]:
    """(topology key, node's value, matching pods, weight, maxSkew) of each soft constraint
    the node has the label of: Score adds cnt × weight + (maxSkew − 1) for each."""
    labels = node_info.node.labels
    out = []
    for i, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == HOSTNAME_LABEL:
            cnt = _count_matching(node_info.pods, c.selector, s.namespace)
        else:
            cnt = s.counts[i][value]
        out.append((c.topology_key, value, cnt, s.weights[i], c.max_skew))
    return out


def score_terms(
    state: CycleState, node_info: NodeInfo
) -> tuple[list[tuple[str, str, int, float, int]], bool, dict[str, int]] | None:
    """Score's terms on the node, whether the node is ignored (lacks a constraint's key) and
    the number of domains behind each topology key's weight; None without PreScore state."""
    s = state.get(_PRE_SCORE_KEY)
    if not isinstance(s, _PreScoreState):
        return None
    domains = {c.topology_key: n for c, n in zip(s.constraints, s.domains, strict=False)}
    return _score_terms(s, node_info), node_info.node.name in s.ignored, domains


def new(args: PluginArgs | None, handle: Handle) -> PodTopologySpread:
    """Build the plugin; ``System`` defaulting uses the built-in constraints."""
    if not isinstance(args, PodTopologySpreadArgs) or args.defaulting_type == SYSTEM_DEFAULTING:
        return PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, True)
    return PodTopologySpread(handle, tuple(args.default_constraints), False)
