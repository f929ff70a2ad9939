"""The help beside the step-through: what each extension point does, what each plugin checks.

Written for learners in the playground's own words, after kube-scheduler v1.35's behaviour.
"""

from __future__ import annotations

from typing import Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from ...dra import panels as devices

# What each extension point does, shown beside the step-through (kube-scheduler v1.35
# semantics; Reserve and Permit close the scheduling cycle, the binding cycle starts after).
POINT_HELP: Final[dict[str, str | Promise]] = {
    "CycleStart": gettext_lazy(
        "The scheduler popped the pod from the scheduling queue (activeQ, or backoffQ when activeQ "
        "is empty) and took a snapshot of the cluster: every plugin in this cycle sees that "
        "snapshot, whatever changes meanwhile."
    ),
    "PreFilter": gettext_lazy(
        "PreFilter plugins run once per cycle, before any node is checked: they "
        "precompute state for Filter, may narrow the candidate nodes, or reject the pod outright "
        "(then no node is feasible). Skip means the plugin has nothing to check for this pod, so "
        "its Filter is skipped too."
    ),
    "Filter": gettext_lazy(
        "Filter plugins run per node, in the profile's order; the first plugin that "
        "rejects a node stops the others for that node. Nodes that pass every plugin are feasible. "
        "The search starts where the previous cycle stopped and ends once enough feasible nodes "
        "are found (percentageOfNodesToScore, at least 100), so in a large cluster some nodes are "
        "not evaluated; a pod's nominated node is tried first, alone."
    ),
    "PostFilter": gettext_lazy(
        "PostFilter runs only when no node is feasible; its plugins are tried in order "
        "until one succeeds. DefaultPreemption looks for a node where evicting lower-priority pods "
        "would make room (sparing PodDisruptionBudgets where it can), picks the victims and "
        "nominates the node. The pod is not bound in this cycle: it goes back to the queue and is "
        "retried, nominated node first, once the victims are gone."
    ),
    "PreScore": gettext_lazy(
        "PreScore plugins run once with the feasible nodes and precompute state for "
        "their Score step; Skip means the plugin has nothing to score for this pod, so its Score "
        "is skipped too. With a single feasible node neither PreScore nor Score runs."
    ),
    "Score": gettext_lazy(
        "Each Score plugin rates every feasible node (raw). Once every plugin has scored, "
        "NormalizeScore rescales each plugin's column, then the framework multiplies each score by "
        "its plugin's weight and adds them up (Combine)."
    ),
    "NormalizeScore": gettext_lazy(
        "A Score plugin's optional second step: it rescales that plugin's scores "
        "for all feasible nodes at once, so they end up in 0-100 before the weight is applied "
        "(TaintToleration, for one, maps them to 0-100 and reverses them, so fewer untolerated "
        "taints score higher). A plugin without it keeps its raw scores."
    ),
    "Combine": gettext_lazy(
        "The framework multiplies each normalized score by its plugin's weight and adds "
        "them per node; the highest total wins. Upstream picks at random among tied nodes; the "
        "playground takes the first by name so a run repeats exactly."
    ),
    "CycleEnd": gettext_lazy(
        "The scheduling cycle's result: the chosen node, or the FitError that explains "
        "why no node fits."
    ),
    "Reserve": gettext_lazy(
        "Still in the scheduling cycle: the scheduler assumes the pod on the chosen node "
        "(later cycles count it there) and Reserve plugins update their own state for it, such as "
        "volume bindings or device allocations. A failure runs Unreserve and requeues the pod."
    ),
    "Permit": gettext_lazy(
        "The last step of the scheduling cycle: Permit plugins approve the pod, deny it, or "
        "make it wait with a timeout (gang scheduling, approvals). The pod waits at the start of "
        "its binding cycle while the scheduler goes on with other pods, its node still reserved, "
        "until every waiting plugin allows it; a rejection or a timeout runs Unreserve."
    ),
    "PreBind": gettext_lazy(
        "The binding cycle, run apart from the scheduling of other pods: PreBind plugins "
        "do what must succeed before the pod is bound, such as binding its PVCs "
        "(VolumeBinding). A failure runs Unreserve and requeues the pod."
    ),
    "Bind": gettext_lazy(
        "Bind plugins are tried in order until one handles the pod (the others Skip); "
        "DefaultBinder writes the Binding through the API server (a binding extender goes first). "
        "A failure runs Unreserve and requeues the pod."
    ),
    "PostBind": gettext_lazy(
        "The pod is bound; PostBind plugins are told so they can clean up. They cannot "
        "change the outcome."
    ),
    **devices.POINT_HELP,
    "Unreserve": gettext_lazy(
        "Reserve, Permit or a binding step failed, or the waiting pod was rejected or "
        "timed out: every Reserve plugin undoes its reservation, in reverse order, the scheduler "
        "forgets the assumed pod, and the pod goes back to the queue."
    ),
}

# A one-line reminder of what each in-tree plugin looks at.
PLUGIN_HELP: Final[dict[str, str | Promise]] = {
    "NodeUnschedulable": gettext_lazy(
        "keeps pods off cordoned nodes (spec.unschedulable) unless tolerated"
    ),
    "NodeName": gettext_lazy("honours spec.nodeName"),
    "TaintToleration": gettext_lazy(
        "checks the node's taints against the pod's tolerations; scores "
        "nodes with fewer untolerated PreferNoSchedule taints higher"
    ),
    "NodeAffinity": gettext_lazy("matches nodeSelector and node affinity; scores preferred terms"),
    "NodePorts": gettext_lazy("checks that the pod's host ports are free on the node"),
    "NodeResourcesFit": gettext_lazy(
        "checks requests against allocatable minus what is requested; scores "
        "with the configured strategy (LeastAllocated, MostAllocated, RequestedToCapacityRatio)"
    ),
    "NodeResourcesBalancedAllocation": gettext_lazy(
        "favours nodes whose CPU and memory use stay balanced"
    ),
    "VolumeRestrictions": gettext_lazy("checks volume access modes and conflicts"),
    "VolumeBinding": gettext_lazy(
        "checks that PVCs can be bound on the node; binds them in PreBind"
    ),
    "VolumeZone": gettext_lazy("checks that volumes' zones match the node"),
    "NodeVolumeLimits": gettext_lazy("checks per-node volume attach limits"),
    "PodTopologySpread": gettext_lazy(
        "spreads matching pods across topology domains within maxSkew"
    ),
    "InterPodAffinity": gettext_lazy("enforces and scores pod affinity and anti-affinity"),
    "ImageLocality": gettext_lazy("favours nodes that already have the pod's images"),
    "DynamicResources": gettext_lazy("allocates DRA resource claims"),
    "DefaultPreemption": gettext_lazy("evicts lower-priority pods to make room"),
    "DefaultBinder": gettext_lazy("binds the pod through the API server"),
    "SchedulingGates": gettext_lazy("holds pods with schedulingGates out of the queue"),
    "PrioritySort": gettext_lazy("orders the queue by priority, then arrival"),
}
