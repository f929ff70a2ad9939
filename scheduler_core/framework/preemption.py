"""Preemption: find nodes where evicting lower-priority pods lets the preemptor fit, pick one.

Mirrors framework/preemption/preemption.go and plugins/defaultpreemption in kube-scheduler v1.35
(synchronous preemption: victims are deleted before the cycle ends). Where upstream leaves an order
to Go map iteration or to the wall clock, this engine fixes it: candidates are visited in snapshot
order, ties between candidate nodes go to the first by name, and pods without a start time count as
started at the same instant.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.extender import call_extenders_for_preemption
from scheduler_core.framework.columns import columns_of
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import Diagnosis, NodeInfo, NodeToStatus, fit_error_message
from scheduler_core.gosort import sort_slice
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.objects.labels import (
    SelectorError,
    label_selector,
)

MAX_INT32 = 2**31 - 1


@dataclass(slots=True)
class Candidate:
    """A node and the pods that would be evicted there."""

    name: str
    victims: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


def _start_key(pod: Pod) -> str:
    # RFC 3339 timestamps sort as text; a pod without one sorts after every dated pod.
    return pod.start_time or "\uffff"


def more_important_pod(a: Pod, b: Pod) -> bool:
    """util.MoreImportantPod: higher priority, then earlier start.

    A pod that has not started counts as starting "now", read from the clock at each call; the
    first argument's "now" is read first, so between two such pods the answer is always True.
    """
    if a.priority != b.priority:
        return a.priority > b.priority
    if not a.start_time:
        return not b.start_time
    if not b.start_time:
        return True
    return a.start_time < b.start_time


def sort_by_importance(pods: list[Pod]) -> None:
    """sort.Slice(pods, MoreImportantPod), reproducing Go's order."""
    sort_slice(pods, more_important_pod)


def filter_pods_with_pdb_violation(
    pods: Sequence[Pod], pdbs: Sequence[KubeObject]
) -> tuple[list[Pod], list[Pod]]:
    """Split pods into those whose eviction would violate a PDB and the rest, in order."""
    allowed = [int(p.status.get("disruptionsAllowed") or 0) for p in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                try:
                    selector = label_selector(pdb.spec.get("selector"))
                except SelectorError:
                    continue
                if selector.is_empty or not selector.matches(pod.labels):
                    continue
                if pod.name in (pdb.status.get("disruptedPods") or {}):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


class Evaluator:
    """Runs DefaultPreemption's search for one framework."""

    def __init__(
        self,
        fwk: Framework,
        *,
        min_candidate_nodes_percentage: int,
        min_candidate_nodes_absolute: int,
    ) -> None:
        self.fwk = fwk
        self.min_pct = min_candidate_nodes_percentage
        self.min_abs = min_candidate_nodes_absolute
        self.last_candidates: list[Candidate] = []  # the candidates of the last preempt()

    # -- eligibility ----------------------------------------------------------------------------

    @staticmethod
    def _preemption_allowed(victim: Pod, preemptor: Pod) -> bool:
        return victim.priority < preemptor.priority

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status
    ) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, "not eligible due to preemptionPolicy=Never."
        nom = pod.nominated_node_name
        if nom:
            if nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = self.fwk.snapshot.get(nom)
            if ni is not None:
                for p in ni.pods:
                    if self._preemption_allowed(p, pod) and _terminating_by_preemption(p):
                        return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.min_pct // 100
        n = max(n, self.min_abs)
        return min(n, num_nodes)

    # -- the search -----------------------------------------------------------------------------

    def preempt(
        self, state: CycleState, pod: Pod, m: NodeToStatus
    ) -> tuple[Candidate | None, Status]:
        """Return the chosen candidate (or None) and the status DefaultPreemption reports."""
        ok, msg = self.pod_eligible_to_preempt_others(pod, m.get(pod.nominated_node_name))
        if not ok:
            return None, Status(Code.UNSCHEDULABLE, (msg,))
        snapshot = self.fwk.snapshot
        all_nodes = snapshot.node_info_list
        if not all_nodes:
            return None, Status(Code.ERROR, ("no nodes available",))
        potential = m.nodes_for_status_code(snapshot, Code.UNSCHEDULABLE)
        statuses: dict[str, Status] = {}
        candidates: list[Candidate] = []
        errors: list[str] = []
        if potential:
            pdbs = list(snapshot.objects.pdbs)
            candidates, statuses, errors = self.dry_run(state, pod, potential, pdbs)
        if errors and not candidates:
            return None, Status(Code.ERROR, (_aggregate(errors),))
        extenders = self.fwk.extras.get("extenders") or ()
        if candidates and extenders:
            try:
                candidates = self._call_extenders(pod, candidates, extenders)
            except SchedulerCoreError as err:
                return None, Status(Code.ERROR, (str(err),))
        if not candidates:
            diag = Diagnosis(
                node_to_status=statuses,
                absent_nodes_status=Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    ("Preemption is not helpful for scheduling",),
                ),
            )
            return Candidate(""), Status(
                Code.UNSCHEDULABLE, (fit_error_message(len(all_nodes), diag),)
            )
        self.last_candidates = list(candidates)
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.UNSCHEDULABLE, ("no candidate node for preemption",))
        return best, Status()

    def dry_run(
        self,
        state: CycleState,
        pod: Pod,
        potential: Sequence[NodeInfo],
        pdbs: Sequence[KubeObject],
    ) -> tuple[list[Candidate], dict[str, Status], list[str]]:
        wanted = self.num_candidates(len(potential))
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        statuses: dict[str, Status] = {}
        errors: list[str] = []
        priority = pod.priority
        # The positions of the nodes holding a pod of lower priority than the preemptor (the
        # others would find no victim before changing anything: no copies for them).
        found = columns_of(potential)
        if found is not None:
            cols, idx = found
            rows: list[int] = np.flatnonzero(cols.lowest_priorities()[idx] < priority).tolist()
            names: list[str] = cols.names()[idx].tolist()
        else:
            rows = [
                i
                for i, ni in enumerate(potential)
                if min(map(_PRIORITY, ni.pods), default=priority) < priority
            ]
            names = [ni.node.name for ni in potential]
        after = 0  # the nodes from here on that were not visited yet
        for i in rows:
            statuses.update(dict.fromkeys(names[after:i], _NO_VICTIMS))
            after = i + 1
            copy = potential[i].clone()
            victims, num_violations, status = self.select_victims_on_node(
                state.clone(), pod, copy, pdbs
            )
            if status.is_success() and victims:
                c = Candidate(copy.node.name, victims, num_violations)
                (violating if num_violations else non_violating).append(c)
                if non_violating and len(non_violating) + len(violating) >= wanted:
                    break
                continue
            if status.is_success():
                status = Status(
                    Code.ERROR, (f'expected at least one victim pod on node "{copy.node.name}"',)
                )
            if status.code == Code.ERROR:
                errors.append(status.message())
            statuses[copy.node.name] = status
        else:
            statuses.update(dict.fromkeys(names[after:], _NO_VICTIMS))
        return non_violating[:wanted] + violating[:wanted], statuses, errors

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[KubeObject],
        trace: list[dict[str, Any]] | None = None,
    ) -> tuple[list[Pod], int, Status]:
        """selectVictimsOnNode. ``trace``, when given, receives each step as it is taken (the
        pods removed, whether the pod then fits, each reprieve tried and its answer), for
        explanations: the steps are this function's own, not a second account of them."""
        fwk = self.fwk

        def remove(p: Pod) -> Status:
            node_info.remove_pod(p)
            return fwk.run_pre_filter_extension_remove_pod(state, pod, p, node_info)

        def add(p: Pod) -> Status:
            node_info.add_pod(p)
            return fwk.run_pre_filter_extension_add_pod(state, pod, p, node_info)

        potential: list[Pod] = []
        for p in list(node_info.pods):
            if self._preemption_allowed(p, pod):
                potential.append(p)
                s = remove(p)
                if not s.is_success():
                    return [], 0, s
        if not potential:
            return [], 0, _NO_VICTIMS
        s = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if trace is not None:
            trace.append(
                {
                    "step": "remove",
                    "pods": [p.key for p in potential],
                    "fits": s.is_success(),
                    "message": s.message(),
                }
            )
        if not s.is_success():
            return [], 0, s
        sort_by_importance(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[Pod] = []
        num_violating = 0

        def reprieve(p: Pod) -> tuple[bool, Status]:
            st = add(p)
            if not st.is_success():
                return False, st
            fits = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()
            if trace is not None:
                trace.append(
                    {"step": "reprieve", "pod": p.key, "violatesPDB": p in violating, "fits": fits}
                )
            if not fits:
                st = remove(p)
                if not st.is_success():
                    return False, st
                victims.append(p)
            return fits, Status()

        for p in violating:
            fits, st = reprieve(p)
            if not st.is_success():
                return [], 0, st
            if not fits:
                num_violating += 1
        for p in non_violating:
            _, st = reprieve(p)
            if not st.is_success():
                return [], 0, st
        if violating and non_violating:
            sort_by_importance(victims)
        return victims, num_violating, Status()

    def _call_extenders(
        self, pod: Pod, candidates: list[Candidate], extenders: Sequence[Any]
    ) -> list[Candidate]:
        """callExtenders: preempting extenders narrow the candidates and their victims."""
        victims = {c.name: list(c.victims) for c in candidates}
        pdb = {c.name: c.num_pdb_violations for c in candidates}
        victims, pdb = call_extenders_for_preemption(
            extenders, pod, victims, pdb, self.fwk.snapshot
        )
        return [Candidate(name, v, pdb.get(name, 0)) for name, v in victims.items()]

    @staticmethod
    def select_candidate(candidates: Sequence[Candidate]) -> Candidate | None:
        """pickOneNodeForPreemption's criteria in order; remaining ties go to the first by name."""
        return rank_candidates(candidates)[0]


@dataclass(frozen=True, slots=True)
class RankingStep:
    """One criterion of pickOneNodeForPreemption applied: each remaining candidate's score
    (higher is better) and the candidates that kept the best one."""

    criterion: str
    scores: dict[str, object]
    kept: tuple[str, ...]


def rank_candidates(
    candidates: Sequence[Candidate],
) -> tuple[Candidate | None, list[RankingStep]]:
    """The chosen candidate and the criteria steps that chose it (none for 0 or 1 candidate)."""
    if not candidates:
        return None, []
    if len(candidates) == 1:
        return candidates[0], []
    by_name = {c.name: c for c in candidates}
    remaining = sorted(by_name)
    steps: list[RankingStep] = []
    for criterion, f in CANDIDATE_CRITERIA:
        scores = {n: f(by_name[n]) for n in remaining}
        best = max(scores.values(), key=_sortable)
        selected = [n for n in remaining if scores[n] == best]
        steps.append(RankingStep(criterion, scores, tuple(selected)))
        if len(selected) == 1:
            return by_name[selected[0]], steps
        remaining = selected
    return by_name[remaining[0]], steps


_PRIORITY: Final = operator.attrgetter("priority")
_NO_VICTIMS: Final = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("No preemption victims found for incoming pod",)
)


def _aggregate(errors: Sequence[str]) -> str:
    """The message of utilerrors.NewAggregate over the dry runs' errors: one error alone, else
    the distinct ones in brackets, comma separated (in node order here; upstream's is the
    order its workers finished)."""
    distinct = list(dict.fromkeys(errors))
    if len(errors) == 1 or len(distinct) == 1:
        return distinct[0]
    return "[" + ", ".join(distinct) + "]"


def _sortable(v: object) -> tuple[int, str]:
    if isinstance(v, int):
        return (v, "")
    return (0, str(v))


def _latest_start_score(c: Candidate) -> str:
    """The earliest start among the highest-priority victims; later is better."""
    top = c.victims[0].priority
    starts = [_start_key(p) for p in c.victims if p.priority == top]
    return min(starts)


# pickOneNodeForPreemption's criteria, in upstream's order: (what is preferred, the candidate's
# score, higher being better). A tie left after the last goes to the first candidate by name.
CANDIDATE_CRITERIA: Final[tuple[tuple[str, Callable[[Candidate], object]], ...]] = (
    ("fewest PodDisruptionBudget violations", lambda c: -c.num_pdb_violations),
    ("lowest priority of the highest-priority victim", lambda c: -c.victims[0].priority),
    (
        "smallest sum of victim priorities (each + 2^31)",
        lambda c: -sum(p.priority + MAX_INT32 + 1 for p in c.victims),
    ),
    ("fewest victims", lambda c: -len(c.victims)),
    ("latest earliest start among the highest-priority victims", _latest_start_score),
)


def _terminating_by_preemption(pod: Pod) -> bool:
    if not pod.deleting:
        return False
    for cond in (pod.raw.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "DisruptionTarget":
            return bool(
                cond.get("status") == "True" and cond.get("reason") == "PreemptionByScheduler"
            )
    return False
