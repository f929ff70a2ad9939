"""What the resourceclaim controller does for a pod that names a ResourceClaimTemplate.

The claims are made by the engine's pipeline (``scheduler_core.workloads.claims``), the same
for the import and for ``simulate``; this module keeps the names the playground imports.
"""

from __future__ import annotations

from scheduler_core.workloads.claims import (
    API,
    POD_CLAIM_NAME_ANNOTATION,
    TemplateIndex,
    claims_for_pod,
    template_index,
)

__all__ = ["API", "POD_CLAIM_NAME_ANNOTATION", "TemplateIndex", "claims_for_pod", "template_index"]
