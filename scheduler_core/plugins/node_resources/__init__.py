"""NodeResourcesFit and NodeResourcesBalancedAllocation, and the scoring they share.

Mirrors plugins/noderesources in kube-scheduler v1.35.

Modules: ``fit`` (NodeResourcesFit), ``balanced_allocation`` (NodeResourcesBalancedAllocation),
``resource_allocation`` (the scoring both share), and the scoring strategies
``least_allocated``, ``most_allocated``, ``requested_to_capacity_ratio``; ``explain``
(not upstream): their Filter and Score explained, the amounts and the formula.
"""

from __future__ import annotations
