"""NodeAffinity: required node selector and affinity as a filter, preferred terms as a score.

Mirrors plugins/nodeaffinity in kube-scheduler v1.35, including the profile's ``addedAffinity``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from scheduler_core.framework.columns import NodeMasks, lanes
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.events import NODE, ClusterEvent, ClusterEventWithHint, QueueingHint
from scheduler_core.framework.explaining import ExplainInputs, FilterParts, FilterView, ScoreParts
from scheduler_core.framework.interfaces import (
    MAX_NODE_SCORE,
    FilterByBatch,
    Handle,
    ScoreByColumns,
)
from scheduler_core.framework.rejections import RowRejections
from scheduler_core.framework.status import SKIP, SUCCESS, Status, unresolvable
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.objects.api import (
    Node,
    Pod,
)
from scheduler_core.objects.labels import (
    NodeSelector,
    PreferredTerm,
    Selector,
    node_selector,
    preferred_scheduling_terms,
)
from scheduler_core.plugins import names
from scheduler_core.plugins.shared.helpers import (
    FrozenState,
    ScoreValues,
    normalize_node_scores,
    normalize_values,
)
from scheduler_core.words import _

NAME: Final = names.NODE_AFFINITY
ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED: Final = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT: Final = "pod affinity terms conflict"
_PRE_FILTER_KEY: Final = f"PreFilter{NAME}"
_ENFORCED: Final = unresolvable(ERR_REASON_ENFORCED)
_NOT_MATCHED: Final = unresolvable(ERR_REASON_POD)
_PRE_SCORE_KEY: Final = f"PreScore{NAME}"


class RequiredNodeAffinity(FrozenState):
    """nodeaffinity.RequiredNodeAffinity: spec.nodeSelector AND required node affinity."""

    __slots__ = ("selector", "affinity")

    def __init__(self, pod: Pod) -> None:
        self.selector = Selector.from_set(pod.node_selector) if pod.node_selector else None
        self.affinity: NodeSelector | None = pod.required_node_selector

    def lanes(self, masks: NodeMasks | LoneNode) -> Any:
        """The rule over lanes (masks over a batch of nodes, or a lone node's bools): the
        nodeSelector's labels AND the required node affinity; true where neither is set."""
        ok: Any = None
        if self.selector is not None:
            ok = masks.selector(self.selector)
        if self.affinity is not None:
            found = masks.node_selector(self.affinity)
            ok = found if ok is None else ok & found
        return np.bool_(True) if ok is None else ok

    def matches_node(self, node: Node) -> bool:
        """The rule on a Node (queueing hints see a Node, not a NodeInfo)."""
        return bool(self.lanes(LoneNode(node)))


class LoneNode:
    """NodeMasks' predicates on one Node outside a snapshot, as plain bools."""

    __slots__ = ("node",)

    def __init__(self, node: Node) -> None:
        self.node = node

    def selector(self, selector: Selector) -> bool:
        return selector.matches(self.node.labels)

    def node_selector(self, selector: NodeSelector) -> bool:
        return selector.matches(self.node.labels, self.node.name)


class _PreScoreState(FrozenState):
    __slots__ = ("terms",)

    def __init__(self, terms: tuple[PreferredTerm, ...] | None) -> None:
        self.terms = terms


def term_lanes(terms: Sequence[PreferredTerm], nodes: Sequence[NodeInfo]) -> list[Any]:
    """Score's rule over the nodes: for each preferred term, whether each node matches it
    (lanes; a matching term adds its weight to the node's score)."""
    masks = NodeMasks(nodes)
    return [masks.node_selector_term(t.term) for t in terms]


def matching_terms(terms: Sequence[PreferredTerm], node_info: NodeInfo) -> list[PreferredTerm]:
    """The preferred terms the node matches, by Score's rule on a batch of one."""
    return [t for t, hit in zip(terms, term_lanes(terms, (node_info,)), strict=True) if hit]


def _has_key(mapping: Any, *path: str) -> bool:
    for key in path:
        if not isinstance(mapping, dict) or mapping.get(key) is None:
            return False
        mapping = mapping[key]
    return True


class NodeAffinity(FilterByBatch, ScoreByColumns):
    name = NAME

    def __init__(self, added: Any) -> None:
        self.added_node_selector: NodeSelector | None = None
        self.added_pref_terms: tuple[PreferredTerm, ...] | None = None
        if added:
            req = added.get("requiredDuringSchedulingIgnoredDuringExecution")
            if req is not None:
                self.added_node_selector = node_selector(req)
            pref = added.get("preferredDuringSchedulingIgnoredDuringExecution")
            if pref:
                self.added_pref_terms = preferred_scheduling_terms(pref)

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        spec = pod.raw.get("spec") or {}
        required = _has_key(
            spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"
        )
        if not required and self.added_node_selector is None and spec.get("nodeSelector") is None:
            return None, SKIP
        state.write(_PRE_FILTER_KEY, RequiredNodeAffinity(pod))
        if not required:
            return None, SUCCESS
        terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        terms = terms.get("nodeSelectorTerms") or []
        if not terms:
            return None, SUCCESS
        node_names: set[str] | None = None
        for t in terms:
            term_names: set[str] | None = None
            for r in t.get("matchFields") or ():
                if r.get("key") == "metadata.name" and r.get("operator") == "In":
                    values = set(r.get("values") or ())
                    term_names = values if term_names is None else term_names & values
            if term_names is None:
                return None, SUCCESS
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(frozenset(node_names)), SUCCESS
        return None, SUCCESS

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> RowRejections:
        """The profile's addedAffinity first (its own reason), then the pod's nodeSelector and
        required node affinity (computed here when PreFilter did not run)."""
        masks = NodeMasks(nodes)
        enforced = lanes(len(nodes), False)
        if self.added_node_selector is not None:
            enforced = ~masks.node_selector(self.added_node_selector)
        s = state.get(_PRE_FILTER_KEY)
        req = s if isinstance(s, RequiredNodeAffinity) else RequiredNodeAffinity(pod)
        ok = ~enforced & req.lanes(masks)
        out = RowRejections()
        out.add_mask(enforced, _ENFORCED)
        out.add_mask(~ok & ~enforced, _NOT_MATCHED)
        return out

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        spec = pod.raw.get("spec") or {}
        has_pref = _has_key(
            spec, "affinity", "nodeAffinity", "preferredDuringSchedulingIgnoredDuringExecution"
        )
        terms = pod.preferred_node_terms if has_pref else None
        if terms is None and self.added_pref_terms is None:
            return SKIP
        state.write(_PRE_SCORE_KEY, _PreScoreState(terms))
        return SUCCESS

    def preferred_terms(
        self, state: CycleState, pod: Pod
    ) -> tuple[Sequence[PreferredTerm], Sequence[PreferredTerm]]:
        """The preferred terms Score adds up: the profile's addedAffinity ones, the pod's."""
        s = state.get(_PRE_SCORE_KEY)
        terms = s.terms if isinstance(s, _PreScoreState) else pod.preferred_node_terms
        return self.added_pref_terms or (), terms or ()

    def score_columns(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Any, Status]:
        """Score for many nodes as an int64 array: the weights of the preferred terms each
        node matches (the profile's addedAffinity ones and the pod's), added over masks."""
        added, own = self.preferred_terms(state, pod)
        terms = (*added, *own)
        acc = np.zeros(len(nodes), dtype=np.int64)
        for t, hit in zip(terms, term_lanes(terms, nodes), strict=True):
            acc += hit * t.weight
        return acc, SUCCESS

    def normalize_batch(self, state: CycleState, pod: Pod, raw: ScoreValues) -> ScoreValues:
        return normalize_values(MAX_NODE_SCORE, False, raw)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        return normalize_node_scores(self.normalize_batch, state, pod, scores)

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(NODE, "Add|UpdateNodeLabel"), self.is_schedulable_after_node_change
            )
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old: Node | None, new: Node
    ) -> QueueingHint:
        """Queue when the node (added, or updated from not matching) now matches the pod's
        required affinity and selector, and the scheduler-enforced affinity."""
        if self.added_node_selector is not None and not self.added_node_selector.matches(
            new.labels, new.name
        ):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity(pod)
        if not required.matches_node(new):
            return QueueingHint.QUEUE_SKIP
        if old is None or not required.matches_node(old):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def explain_filter(self, ctx: ExplainInputs, view: FilterView) -> FilterParts:
        """Why Filter let ``view``'s node pass or rejected it: the inputs, the rule."""
        spec = ctx.pod.raw.get("spec") or {}
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        inputs = {
            "nodeSelector": dict(spec.get("nodeSelector") or {}),
            "requiredNodeAffinity": required,
            "addedAffinity": self.added_node_selector is not None,
            "nodeLabels": dict(view.node_info.node.labels),
        }
        return (
            inputs,
            _("nodeSelector matches AND (any required term matches)"),
            _(
                "The node's labels are checked against the pod's nodeSelector and every required "
                "node-affinity term (terms are ORed, expressions within a term ANDed)."
            ),
        )

    def explain_score(self, ctx: ExplainInputs, ni: NodeInfo) -> ScoreParts:
        """How Score came to its raw score for ``ni``: the inputs, the arithmetic."""
        added, own = self.preferred_terms(ctx.state, ctx.pod)
        rows = []
        for origin, terms in (("addedAffinity", added), ("pod", own)):
            hits = {id(t) for t in matching_terms(terms, ni)}
            for i, t in enumerate(terms):
                rows.append(
                    {"from": origin, "term": i, "weight": t.weight, "matched": id(t) in hits}
                )
        value, _status = self.score(ctx.state, ctx.pod, ni)
        matched = [r for r in rows if r["matched"]]
        formula = (" + ".join(str(r["weight"]) for r in matched) or "0") + f" = {value}"
        text = _(
            "NodeAffinity adds the weights of the preferred terms %(node)s matches: %(matched)s of "
            "%(terms)s term(s) match, for %(value)s."
        ) % {"node": ni.node.name, "matched": len(matched), "terms": len(rows), "value": value}
        return {"terms": rows, "nodeLabels": dict(ni.node.labels)}, formula, value, text


def new(args: Any, handle: Handle) -> NodeAffinity:
    added = getattr(args, "added_affinity", None) if args is not None else None
    return NodeAffinity(added)
