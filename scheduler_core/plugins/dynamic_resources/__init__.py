"""DynamicResources (DRA): allocate the ResourceClaims a pod references.

Mirrors plugins/dynamicresources in kube-scheduler v1.35.

Modules: ``plugin`` (the plugin: PreEnqueue to PostFilter through the DRA manager and the
structured allocator of ``scheduler_core.dra``), ``explain`` (its Filter and Score explained:
devices, selectors, verdicts and the chosen allocation).
"""

from __future__ import annotations
