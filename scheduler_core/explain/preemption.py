"""PostFilter explained: DefaultPreemption's candidates, their victims and how one was chosen.

The search is rerun by the engine's own Evaluator on the cycle's state (a dry run changes
nothing); rank_candidates applies upstream's pickOneNodeForPreemption criteria and reports each.
"""

from __future__ import annotations

from typing import Any

from scheduler_core.explain.context import CycleContext
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.framework.preemption import (
    Candidate,
    Evaluator,
    RankingStep,
    filter_pods_with_pdb_violation,
    rank_candidates,
)
from scheduler_core.framework.status import Code
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names
from scheduler_core.plugins.default_preemption import DefaultPreemption
from scheduler_core.words import _, gettext_noop, listed, sentences


def explain_preemption(ctx: CycleContext) -> Explanation:
    """Why PostFilter nominated the node it did (or none): candidates, victims, criteria."""
    rec = ctx.record
    pod = ctx.pod
    if rec.post_filter_status is None:
        return explanation(
            ctx,
            "PostFilter",
            None,
            None,
            inputs={},
            formula="",
            value=None,
            text=_("PostFilter did not run: some node passed Filter (or the profile has none)."),
        )
    pl = ctx.fwk.plugins.get(names.DEFAULT_PREEMPTION)
    if not isinstance(pl, DefaultPreemption) or pl not in ctx.fwk.post_filter_plugins:
        st = rec.post_filter_status
        return explanation(
            ctx,
            "PostFilter",
            st.plugin or None,
            None,
            inputs={},
            formula="",
            value={"nominatedNode": None, "victims": []},
            text=_("PostFilter answered %(code)s: %(reasons)s")
            % {"code": st.code.upstream, "reasons": st.message()},
        )
    ev = Evaluator(
        ctx.fwk, min_candidate_nodes_percentage=pl.min_pct, min_candidate_nodes_absolute=pl.min_abs
    )
    m = rec.diagnosis.statuses() if rec.diagnosis is not None else None
    inputs: dict[str, Any] = {"preemptorPriority": pod.priority}
    if m is None:
        return explanation(
            ctx,
            "PostFilter",
            pl.name,
            None,
            inputs=inputs,
            formula="",
            value=None,
            text=_("The cycle kept no diagnosis."),
        )
    ok, why = ev.pod_eligible_to_preempt_others(pod, m.get(pod.nominated_node_name))
    if not ok:
        return explanation(
            ctx,
            "PostFilter",
            pl.name,
            None,
            inputs=inputs,
            formula=_("eligibility"),
            value={"nominatedNode": None, "victims": []},
            text=_("The pod may not preempt: %(why)s") % {"why": why},
        )
    potential = m.nodes_for_status_code(ctx.snapshot, Code.UNSCHEDULABLE)
    pdbs = list(ctx.snapshot.objects.pdbs)
    candidates: list[Candidate] = []
    statuses: dict[str, Any] = {}
    if potential:
        candidates, found, _rest = ev.dry_run(ctx.state, pod, potential, pdbs)
        statuses = {n: s.message() for n, s in found.items()}
    inputs["potentialNodes"] = [ni.node.name for ni in potential]
    inputs["notCandidates"] = statuses
    inputs["candidates"] = [_candidate(c, pdbs) for c in candidates]
    chosen, steps = rank_candidates(candidates)
    inputs["criteria"] = [_criterion(s, i == len(steps) - 1) for i, s in enumerate(steps)]
    if chosen is None:
        reasons = sorted({s for s in statuses.values()})
        if reasons:
            text = _(
                "Preemption is not helpful for scheduling: no node would let the pod fit by "
                "evicting lower-priority pods (%(reasons)s)."
            ) % {"reasons": "; ".join(reasons)}
        else:
            text = _(
                "Preemption is not helpful for scheduling: no node would let the pod fit by "
                "evicting lower-priority pods."
            )
        return explanation(
            ctx,
            "PostFilter",
            pl.name,
            None,
            inputs=inputs,
            formula=_("no candidate"),
            value={"nominatedNode": None, "victims": []},
            text=text,
        )
    victims = sorted(p.key for p in chosen.victims)
    # The walk on every candidate, not only the chosen one: the instructive one is often a node
    # that spared a pod the chosen node evicts.
    inputs["victimSelections"] = {
        c.name: _victim_selection(ctx, ev, c.name, pdbs) for c in candidates
    }
    inputs["victimSelection"] = inputs["victimSelections"][chosen.name]
    lines = [
        f"{c['label']}: "
        + ", ".join(f"{n}={v}" for n, v in c["values"].items())
        + f" → {', '.join(c['kept'])}"
        for c in inputs["criteria"]
    ]
    if len(candidates) == 1:
        head = _(
            "%(count)s candidate node(s) could take the pod after evictions; %(node)s is chosen "
            "because it is the only candidate. Victims: %(victims)s."
        )
    elif steps and len(steps[-1].kept) == 1:
        head = _(
            "%(count)s candidate node(s) could take the pod after evictions; %(node)s is chosen "
            "because it is the only one left after “%(criterion)s”. Victims: %(victims)s."
        )
    else:
        head = _(
            "%(count)s candidate node(s) could take the pod after evictions; %(node)s is chosen "
            "because the candidates tie on every criterion and it is the first by name. "
            "Upstream takes the first of its candidate list, which its dry runs fill in "
            "parallel in no fixed order, so the real scheduler may pick another of them. "
            "Victims: %(victims)s."
        )
    head %= {
        "count": len(candidates),
        "node": chosen.name,
        "criterion": _(steps[-1].criterion) if steps else "",
        "victims": listed(_priority(p.key, p.priority) for p in chosen.victims),
    }
    # A chosen candidate always has its victim steps (selectVictimsOnNode removed some pods).
    text = sentences([head, *(step["text"] for step in inputs["victimSelection"])])
    return explanation(
        ctx,
        "PostFilter",
        pl.name,
        chosen.name,
        inputs=inputs,
        formula="; ".join(lines) or _("one candidate"),
        value={"nominatedNode": chosen.name, "victims": victims},
        text=text,
    )


def _criterion(step: RankingStep, last: bool) -> dict[str, Any]:
    """One criterion of pickOneNodeForPreemption: each candidate's score, and its value as a
    reader counts it (the scores are negated counts and priorities, higher being better), which
    candidates it kept, and whether it decided (one left) or left a tie to the first by name."""
    values = {n: -v if isinstance(v, int) else _show(v) for n, v in step.scores.items()}
    decided = len(step.kept) == 1
    return {
        "criterion": step.criterion,
        "label": _(step.criterion),
        "scores": dict(step.scores),
        "values": values,
        "kept": list(step.kept),
        "decided": decided,
        "tieLeft": last and not decided,
    }


def _candidate(c: Candidate, pdbs: Any) -> dict[str, Any]:
    violating, _kept = filter_pods_with_pdb_violation(c.victims, pdbs)
    bad = {p.uid for p in violating}
    return {
        "node": c.name,
        "pdbViolations": c.num_pdb_violations,
        "victims": [_victim(p, p.uid in bad) for p in c.victims],
    }


def _victim(p: Pod, violates: bool) -> dict[str, Any]:
    return {
        "pod": p.key,
        "priority": p.priority,
        "startTime": p.start_time or None,
        "violatesPDB": violates,
    }


def _show(v: object) -> str:
    if isinstance(v, str):
        return _("now (no status.startTime)") if v == "\uffff" else v
    return str(v)


def _victim_selection(
    ctx: CycleContext, ev: Evaluator, node: str, pdbs: Any
) -> list[dict[str, Any]]:
    """selectVictimsOnNode on ``node`` step by step, in words: every lower-priority pod
    removed, then each put back, highest priority first and PDB-violating ones first, and kept
    only while the preemptor still fits. The steps are the engine's own (its trace)."""
    trace: list[dict[str, Any]] = []
    ni = ctx.node_info(node).clone()
    priorities = {p.key: p.priority for p in ni.pods}
    ev.select_victims_on_node(ctx.state.clone(), ctx.pod, ni, pdbs, trace=trace)
    out: list[dict[str, Any]] = []
    for step in trace:
        if step["step"] == "remove":
            shown = listed(_priority(k, priorities.get(k)) for k in step["pods"])
            text = _(
                "On %(node)s, every pod of lower priority than %(pod)s (priority %(priority)s) "
                "is removed first: %(pods)s."
            ) % {"node": node, "pod": ctx.pod.key, "priority": ctx.pod.priority, "pods": shown}
            if step["fits"]:
                then = _(
                    "Without them the pod fits, so each is then put back in turn, the most "
                    "important first (higher priority, then earlier start; pods whose eviction "
                    "would break a PodDisruptionBudget before the others), and stays only if "
                    "the pod still fits."
                )
            else:
                then = _("Even without them the pod does not fit: %(reasons)s") % {
                    "reasons": step["message"]
                }
            text = sentences([text, then])
        else:
            pod = step["pod"]
            if step["violatesPDB"] and step["fits"]:
                line = _(
                    "%(pod)s (priority %(priority)s) (its eviction would violate a "
                    "PodDisruptionBudget) put back: the pod still fits, so %(pod)s stays."
                )
            elif step["violatesPDB"]:
                line = _(
                    "%(pod)s (priority %(priority)s) (its eviction would violate a "
                    "PodDisruptionBudget) put back: the pod no longer fits, so %(pod)s is a victim."
                )
            elif step["fits"]:
                line = _(
                    "%(pod)s (priority %(priority)s) put back: the pod still fits, so %(pod)s "
                    "stays."
                )
            else:
                line = _(
                    "%(pod)s (priority %(priority)s) put back: the pod no longer fits, so %(pod)s "
                    "is a victim."
                )
            text = line % {"pod": pod, "priority": priorities.get(pod)}
        out.append({**step, "text": text})
    return out


def _priority(pod: str, priority: object) -> str:
    """``default/low (priority 1)``."""
    return _("%(pod)s (priority %(priority)s)") % {"pod": pod, "priority": priority}


# pickOneNodeForPreemption's criteria (framework.preemption.CANDIDATE_CRITERIA), marked for
# translation: an explanation shows each under its label in the reader's language.
_CRITERIA_WORDS = (
    gettext_noop("fewest PodDisruptionBudget violations"),
    gettext_noop("lowest priority of the highest-priority victim"),
    gettext_noop("smallest sum of victim priorities (each + 2^31)"),
    gettext_noop("fewest victims"),
    gettext_noop("latest earliest start among the highest-priority victims"),
)
