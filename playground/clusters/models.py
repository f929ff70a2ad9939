"""Cluster, Node, Pod and KubeObject (any other kind): a modelled cluster and its objects.

A stored object's ``manifest`` is the source of truth; the other columns are indexed copies that
views filter and sort on, kept in step by ``save()``.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from ..inputs.jsontext import FastJSONDecoder, FastJSONEncoder
from ..owned import Copyable, OwnedOrDemo, Shareable


class Cluster(OwnedOrDemo, Shareable, Copyable):
    """A modelled cluster: its nodes, pods and other objects. Demo clusters have no owner."""

    name = models.CharField(max_length=200)

    class Meta(OwnedOrDemo.Meta):
        pass


class _ManifestModel(models.Model):
    """An object stored as its manifest, with the indexed fields views need."""

    manifest = models.JSONField(default=dict, encoder=FastJSONEncoder, decoder=FastJSONDecoder)
    name = models.CharField(max_length=253)

    class Meta:
        abstract = True

    def sync_from_manifest(self) -> None:
        metadata = self.manifest.get("metadata") or {}
        self.name = str(metadata.get("name") or "")

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.sync_from_manifest()
        super().save(*args, **kwargs)


class Node(_ManifestModel):
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="nodes")
    unschedulable = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "name"], name="node_unique_name"),
        ]

    def sync_from_manifest(self) -> None:
        super().sync_from_manifest()
        self.unschedulable = bool((self.manifest.get("spec") or {}).get("unschedulable"))

    def __str__(self) -> str:
        return self.name


class Pod(_ManifestModel):
    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="pods")
    namespace = models.CharField(max_length=253, default="default")
    node_name = models.CharField(max_length=253, blank=True, db_index=True)
    phase = models.CharField(max_length=32, blank=True, db_index=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "namespace", "name"], name="pod_unique_name"
            ),
        ]

    def sync_from_manifest(self) -> None:
        super().sync_from_manifest()
        metadata = self.manifest.get("metadata") or {}
        self.namespace = str(metadata.get("namespace") or "default")
        self.node_name = str((self.manifest.get("spec") or {}).get("nodeName") or "")
        self.phase = str((self.manifest.get("status") or {}).get("phase") or "")

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class KubeObject(_ManifestModel):
    """Any other kind a case can hold: PVC, PV, StorageClass, PDB, Service, controllers, ..."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="kube_objects")
    kind = models.CharField(max_length=64, db_index=True)
    api_version = models.CharField(max_length=128)
    # Empty for cluster-scoped kinds (PV, StorageClass, PriorityClass, Namespace).
    namespace = models.CharField(max_length=253, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "kind", "namespace", "name"], name="kubeobject_unique_name"
            ),
        ]

    def sync_from_manifest(self) -> None:
        super().sync_from_manifest()
        self.kind = str(self.manifest.get("kind") or "")
        self.api_version = str(self.manifest.get("apiVersion") or "")
        self.namespace = str((self.manifest.get("metadata") or {}).get("namespace") or "")

    def __str__(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"
