"""NodeResourcesFit and NodeResourcesBalancedAllocation, and the scoring they share.

Mirrors plugins/noderesources in kube-scheduler v1.35.
"""

from __future__ import annotations
