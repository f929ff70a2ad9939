"""Why Filter never looked at a node in a cycle: the nominated node, sampling, or an Error.

Mirrors the early exits of schedulePod/findNodesThatFitPod in kube-scheduler v1.35
(pkg/scheduler/schedule_one.go): a pod whose nominated node passes Filter takes it without a walk
over the others; the walk stops once it has found numFeasibleNodesToFind nodes; a Filter plugin's
Error ends the walk and the cycle.
"""

from __future__ import annotations

from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.record import Explanation, explanation


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
        text = (
            f"{ctx.pod.key} was nominated to {nominated} by an earlier preemption. The scheduler "
            f"tries the nominated node first, and as it passed Filter it took it without "
            f"evaluating the other nodes, {node} among them."
        )
        formula = "nominated node passes Filter → no walk over the other nodes"
    elif rec.error:
        inputs["message"] = rec.message
        text = (
            f"The cycle ended with an Error before Filter reached {node}: {rec.message}. An Error "
            "stops the walk over the nodes and the whole cycle; the pod goes back to the queue."
        )
        formula = "Error status → the walk stops"
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
        text = (
            f"percentageOfNodesToScore: the scheduler looks for {s.count} feasible nodes of "
            f"{s.nodes} ({s.percentage} %{', adaptive' if s.adaptive else ''}), walking the "
            f"nodes from index {start} of the snapshot and wrapping around. It stopped after "
            f"evaluating {evaluated} nodes, once it had them; {node} comes {position} nodes "
            f"after the start, so it was not evaluated in this cycle."
        )
        if evaluated > len(rec.feasible) and len(rec.feasible) == s.count:
            text += (
                f" (A feasible node found beyond the {s.count} is dropped, as upstream's "
                "parallel walk drops it.)"
            )
        formula = f"stop once {s.count} feasible nodes are found ({evaluated} evaluated)"
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
