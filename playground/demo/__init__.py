"""The demo content a fresh database gets, and loading it.

- ``content``: the demo clusters (as manifests), profiles and the large generated cluster;
- ``loading``: ``demo_load``, creating or refreshing all of it (idempotent, one transaction).
"""

from .content import (
    APPROVAL_ANNOTATION,
    APPROVAL_TIMEOUT_ANNOTATION,
    CLUSTERS,
    LARGE_NAME,
    PROFILES,
    SUGGESTED_PROFILES,
    ensure_large_cluster,
    large_cluster_manifests,
)
from .loading import demo_load

__all__ = [
    "APPROVAL_ANNOTATION",
    "APPROVAL_TIMEOUT_ANNOTATION",
    "CLUSTERS",
    "LARGE_NAME",
    "PROFILES",
    "SUGGESTED_PROFILES",
    "demo_load",
    "ensure_large_cluster",
    "large_cluster_manifests",
]
