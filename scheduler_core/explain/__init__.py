"""Explanations of scheduling decisions: each number with its inputs and its formula.

Computed on demand from a CycleContext (the cycle as the engine left it), never stored: CaseRun's
``observe`` hook (``at_cycle``) or a replayed Scheduler (``at_scheduler_cycle``) provides it.
Each explanation is a JSON-ready dict: cycle, pod, point, plugin, node, ``inputs``, ``formula``
(the arithmetic with the numbers), ``value`` (what the plugin's own code gives) and ``text``.

What is explained, plugin by plugin:

- NodeResourcesFit: Filter, per resource the pod's request, what the node has requested already,
  allocatable and free, and which are short (unresolvable when beyond allocatable); Score, per
  resource the amounts and the strategy's formula (LeastAllocated, MostAllocated, or
  RequestedToCapacityRatio with its shape), then the weighted mean with the resource weights.
- NodeResourcesBalancedAllocation: the requested/allocatable fractions and their spread.
- TaintToleration: the first untolerated NoSchedule/NoExecute taint; the intolerable
  PreferNoSchedule taints counted, and the reverse normalisation.
- NodeAffinity: nodeSelector, required terms and addedAffinity against the node's labels; the
  preferred terms (the profile's addedAffinity ones and the pod's) matched, with their weights.
- InterPodAffinity: Filter, matching pods per topology domain for each required (anti-)affinity
  term and the existing pods' anti-affinity; Score, per domain of the node who adds what (the
  pod's terms times the pods they match, existing pods' terms, hardPodAffinityWeight).
- PodTopologySpread: per constraint the counts per domain, the node's domain, the min domain
  (0 below minDomains), skew against maxSkew; the score terms with weight ln(domains + 2).
- ImageLocality: each image's size, on how many nodes, the scaled sum and its clamping.
- VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions, NodePorts, NodeName,
  NodeUnschedulable: the claim and PV, zone, per-driver attach count and limit, port, name or
  cordon that decided.
- DynamicResources: per request of the pod's claims, the devices the node reaches with their
  attributes and capacity, the class's and request's selectors, which matched, which are taken
  (by which claim), and the devices chosen; Score, the firstAvailable subrequests used (8 − i);
  Reserve and PreBind on the chosen node, the devices kept and written into the claims.
- Any other plugin: its verdict or score from its own Filter or Score.
- The framework: NormalizeScore (max, reverse, min-max, PodTopologySpread's) with the column's
  min and max, ×weight, the total, the selection (winner, runner-up, margin, the plugins that
  made it) or the tie; PostFilter: DefaultPreemption's candidates with their victims (priority,
  start time, PDB violation), pickOneNodeForPreemption's criteria in order, the chosen node,
  or why preemption is not helpful.

Each in-tree plugin explains its own Filter verdict and Score beside its rule (``explain_filter``
and ``explain_score``, the Protocols of ``scheduler_core.framework.explaining``, typed against
the plugin's own class); this package drives them and adds what is not one plugin's.

Modules: ``api`` (explanations for a node of a cycle, a case replayed to a cycle), ``context``
(the cycle an explanation reads), ``record`` (an explanation's shape), ``reasons`` (upstream's
reason strings in a sentence), ``filters`` and ``scores`` (the Filter and Score drivers: the
verdict, then the plugin's own explanation), ``plugins/`` (DRA's Reserve and PreBind, custom CEL
plugins, extenders), ``framework_steps`` (NormalizeScore, weight, total, selection),
``not_evaluated`` (nodes Filter never looked at), ``preemption`` (PostFilter), ``replay`` (a
Scheduler driven to a cycle), ``check`` (every explanation checked against the engine);
``__main__``: ``python -m scheduler_core.explain``. The sentences go through
``scheduler_core.words`` (the reader's language).
"""

from __future__ import annotations

from scheduler_core.explain.api import at_cycle, explain_node
from scheduler_core.explain.context import CycleContext, ExplainError
from scheduler_core.explain.filters import explain_filter
from scheduler_core.explain.framework_steps import (
    NORMALIZE_RULES,
    explain_normalize,
    explain_pre_filter,
    explain_selection,
    explain_total,
    explain_weight,
)
from scheduler_core.explain.preemption import explain_preemption
from scheduler_core.explain.record import Explanation
from scheduler_core.explain.replay import at_scheduler_cycle
from scheduler_core.explain.scores import explain_score
from scheduler_core.framework.explaining import FilterView

__all__ = [
    "NORMALIZE_RULES",
    "CycleContext",
    "ExplainError",
    "Explanation",
    "FilterView",
    "at_cycle",
    "at_scheduler_cycle",
    "explain_filter",
    "explain_node",
    "explain_normalize",
    "explain_pre_filter",
    "explain_preemption",
    "explain_score",
    "explain_selection",
    "explain_total",
    "explain_weight",
]
