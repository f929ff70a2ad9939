"""Why Filter never looked at a node in a cycle: the nominated node, sampling, or an Error.

Mirrors the early exits of schedulePod/findNodesThatFitPod in kube-scheduler v1.35
(pkg/scheduler/schedule_one.go): a pod whose nominated node passes Filter takes it without a walk
over the others; the walk stops once it has found numFeasibleNodesToFind nodes; a Filter plugin's
Error ends the walk and the cycle.
"""

from __future__ import annotations

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.record import Explanation, explanation
from scheduler_core.words import _


def explain_not_evaluated(ctx: CycleContext, node: str) -> Explanation:
    """The Filter explanation of a node the cycle did not evaluate; ExplainError if it did."""
    rec = ctx.record
    if node in rec.filter:
        raise ExplainError(f"Filter evaluated node {node!r} in cycle {ctx.cycle}")
    ctx.node_info(node)  # an unknown node raises
    evaluated = len(rec.filter)
    inputs: dict[str, object] = {"nodes": len(rec.nodes), "evaluated": evaluated}
    if rec.nominated_node_taken:
        nominated = rec.selected or (rec.feasible[0] if rec.feasible else "")
        inputs["nominatedNode"] = nominated
        text = _(
            "%(pod)s was nominated to %(nominated)s by an earlier preemption. The scheduler "
            "tries the nominated node first, and as it passed Filter it took it without "
            "evaluating the other nodes, %(node)s among them."
        ) % {"pod": ctx.pod.key, "nominated": nominated, "node": node}
        formula = _("nominated node passes Filter → no walk over the other nodes")
    elif rec.error:
        inputs["message"] = rec.message
        text = _(
            "The cycle ended with an Error before Filter reached %(node)s: %(message)s. An Error "
            "stops the walk over the nodes and the whole cycle; the pod goes back to the queue."
        ) % {"node": node, "message": rec.message}
        formula = _("Error status → the walk stops")
    elif rec.sampling is not None and rec.sampling.count < rec.sampling.nodes:
        s = rec.sampling
        inputs |= {
            "toFind": s.count,
            "percentage": s.percentage,
            "adaptive": s.adaptive,
            "startIndex": rec.start_index,
            "feasibleFound": len(rec.feasible),
        }
        start = rec.start_index or 0
        position = (rec.nodes.index(node) - start) % len(rec.nodes) if rec.nodes else 0
        inputs["positionFromStart"] = position
        numbers = {
            "count": s.count,
            "nodes": s.nodes,
            "percentage": s.percentage,
            "start": start,
            "evaluated": evaluated,
            "node": node,
            "position": position,
        }
        if s.adaptive:
            text = _(
                "percentageOfNodesToScore: the scheduler looks for %(count)s feasible nodes of "
                "%(nodes)s (%(percentage)s %%, adaptive), walking the nodes from index %(start)s "
                "of the snapshot and wrapping around. It stopped after evaluating %(evaluated)s "
                "nodes, once it had them; %(node)s comes %(position)s nodes after the start, so "
                "it was not evaluated in this cycle."
            )
        else:
            text = _(
                "percentageOfNodesToScore: the scheduler looks for %(count)s feasible nodes of "
                "%(nodes)s (%(percentage)s %%), walking the nodes from index %(start)s of the "
                "snapshot and wrapping around. It stopped after evaluating %(evaluated)s nodes, "
                "once it had them; %(node)s comes %(position)s nodes after the start, so it was "
                "not evaluated in this cycle."
            )
        text %= numbers
        if evaluated > len(rec.feasible) and len(rec.feasible) == s.count:
            text += _(
                " (A feasible node found beyond the %(count)s is dropped, as upstream's "
                "parallel walk drops it.)"
            ) % {"count": s.count}
        formula = _("stop once %(count)s feasible nodes are found (%(evaluated)s evaluated)") % {
            "count": s.count,
            "evaluated": evaluated,
        }
    else:
        raise ExplainError(f"Filter did not evaluate node {node!r} in cycle {ctx.cycle}")
    return explanation(
        ctx,
        "Filter",
        None,
        node,
        inputs=inputs,
        formula=formula,
        value="not evaluated",
        text=text,
    )
