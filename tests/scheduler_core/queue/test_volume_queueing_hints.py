"""The volume plugins' queueing hints (VolumeRestrictions, VolumeZone, NodeVolumeLimits,
VolumeBinding), as upstream's Test_isSchedulableAfter... tables check them; and every in-tree
plugin registers exactly the events of the static table."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.framework.events import QueueingHint
from scheduler_core.objects.api import (
    KubeObject,
    Pod,
)
from scheduler_core.plugins.node_volume_limits import NodeVolumeLimits
from scheduler_core.plugins.volume_binding import hints as volume_binding_hints
from scheduler_core.plugins.volume_restrictions import VolumeRestrictions
from scheduler_core.plugins.volume_zone import VolumeZone
from tests.builders import make_pod

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def obj(kind: str, name: str, namespace: str = "default", **fields: Any) -> KubeObject:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    for key in ("labels", "annotations"):
        if key in fields:
            meta[key] = fields.pop(key)
    return KubeObject({"kind": kind, "metadata": meta, **fields})


def claim_volume(claim: str) -> dict[str, Any]:
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def pod(name: str = "p", *, namespace: str = "default", **spec: Any) -> Pod:
    raw = make_pod(name, namespace=namespace, **spec)
    raw["metadata"]["uid"] = f"{namespace}/{name}"
    return Pod(raw)


GCE = {"name": "disk", "gcePersistentDisk": {"pdName": "d1"}}
WITH_CLAIM = {"volumes": [claim_volume("data")]}


# -- VolumeRestrictions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "deleted", "want"),
    [
        pytest.param(pod(volumes=[GCE]), pod("d", volumes=[GCE]), QUEUE, id="same-disk-freed"),
        pytest.param(
            pod(volumes=[GCE]),
            pod("d", volumes=[{"name": "x", "gcePersistentDisk": {"pdName": "d2"}}]),
            SKIP,
            id="other-disk",
        ),
        pytest.param(pod(**WITH_CLAIM), pod("d", **WITH_CLAIM), QUEUE, id="same-claim-freed"),
        pytest.param(
            pod(**WITH_CLAIM), pod("d", namespace="other", **WITH_CLAIM), SKIP, id="other-ns"
        ),
        pytest.param(pod(**WITH_CLAIM), pod("d"), SKIP, id="unrelated-pod"),
    ],
)
def test_volume_restrictions_pod_deleted(target: Pod, deleted: Pod, want: QueueingHint) -> None:
    assert VolumeRestrictions(None).is_schedulable_after_pod_deleted(target, deleted, None) == want  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pvc", "want"),
    [
        pytest.param(obj("PersistentVolumeClaim", "data"), QUEUE, id="pods-claim-added"),
        pytest.param(obj("PersistentVolumeClaim", "other"), SKIP, id="unrelated-claim"),
        pytest.param(obj("PersistentVolumeClaim", "data", "ns2"), SKIP, id="other-namespace"),
    ],
)
def test_volume_restrictions_pvc_added(pvc: KubeObject, want: QueueingHint) -> None:
    pl = VolumeRestrictions(None)  # type: ignore[arg-type]
    assert pl.is_schedulable_after_pvc_added(pod(**WITH_CLAIM), None, pvc) == want


# -- VolumeZone ----------------------------------------------------------------------------


ZONE = "topology.kubernetes.io/zone"


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, obj("PersistentVolume", "pv"), QUEUE, id="pv-created"),
        pytest.param(
            obj("PersistentVolume", "pv", labels={ZONE: "a"}),
            obj("PersistentVolume", "pv", labels={ZONE: "b"}),
            QUEUE,
            id="zone-changed",
        ),
        pytest.param(
            obj("PersistentVolume", "pv", labels={ZONE: "a"}),
            obj("PersistentVolume", "pv", labels={ZONE: "a", "x": "y"}),
            SKIP,
            id="zone-unchanged",
        ),
    ],
)
def test_volume_zone_pv_change(old: KubeObject | None, new: KubeObject, want: QueueingHint) -> None:
    pl = VolumeZone(None)  # type: ignore[arg-type]
    assert pl.is_schedulable_after_pv_change(pod(**WITH_CLAIM), old, new) == want


def test_volume_zone_storage_class_and_claim() -> None:
    pl = VolumeZone(None)  # type: ignore[arg-type]
    target = pod(**WITH_CLAIM)
    wait = obj("StorageClass", "sc", volumeBindingMode="WaitForFirstConsumer")
    assert pl.is_schedulable_after_storage_class_added(target, None, wait) == QUEUE
    immediate = obj("StorageClass", "sc", volumeBindingMode="Immediate")
    assert pl.is_schedulable_after_storage_class_added(target, None, immediate) == SKIP
    pvc = obj("PersistentVolumeClaim", "data")
    assert pl.is_schedulable_after_pvc_change(target, None, pvc) == QUEUE
    other = obj("PersistentVolumeClaim", "logs")
    assert pl.is_schedulable_after_pvc_change(target, None, other) == SKIP


# -- NodeVolumeLimits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(pod("d", node_name="n1", **WITH_CLAIM), QUEUE, id="scheduled-with-claim"),
        pytest.param(pod("d", **WITH_CLAIM), SKIP, id="unscheduled"),
        pytest.param(pod("d", node_name="n1"), SKIP, id="no-volumes"),
        pytest.param(pod("d", node_name="n1", volumes=[GCE]), QUEUE, id="migratable-inline"),
        pytest.param(
            pod("d", node_name="n1", volumes=[{"name": "c", "configMap": {"name": "x"}}]),
            SKIP,
            id="config-map-only",
        ),
    ],
)
def test_node_volume_limits_pod_deleted(deleted: Pod, want: QueueingHint) -> None:
    pl = NodeVolumeLimits(None)  # type: ignore[arg-type]
    assert pl.is_schedulable_after_pod_deleted(pod(**WITH_CLAIM), deleted, None) == want


def csi_node(**counts: int | None) -> KubeObject:
    drivers = [
        {"name": name, **({"allocatable": {"count": c}} if c is not None else {})}
        for name, c in counts.items()
    ]
    return obj("CSINode", "n1", spec={"drivers": drivers})


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(csi_node(a=1), csi_node(a=2), QUEUE, id="limit-increased"),
        pytest.param(csi_node(a=2), csi_node(a=2), SKIP, id="limit-unchanged"),
        pytest.param(csi_node(a=2), csi_node(a=1), SKIP, id="limit-decreased"),
        pytest.param(csi_node(), csi_node(b=1), QUEUE, id="new-driver-with-limit"),
        pytest.param(csi_node(a=None), csi_node(a=None), SKIP, id="no-limits"),
    ],
)
def test_node_volume_limits_csi_node_updated(
    old: KubeObject, new: KubeObject, want: QueueingHint
) -> None:
    pl = NodeVolumeLimits(None)  # type: ignore[arg-type]
    assert pl.is_schedulable_after_csi_node_updated(pod(**WITH_CLAIM), old, new) == want


def test_node_volume_limits_volume_attachment_deleted() -> None:
    pl = NodeVolumeLimits(None)  # type: ignore[arg-type]
    va = obj("VolumeAttachment", "va", spec={"attacher": "pd.csi.storage.gke.io"})
    hint = pl.is_schedulable_after_volume_attachment_deleted
    assert hint(pod(**WITH_CLAIM), va, None) == QUEUE
    assert hint(pod(volumes=[GCE]), va, None) == QUEUE  # migrated to that attacher
    other = obj("VolumeAttachment", "va", spec={"attacher": "ebs.csi.aws.com"})
    assert hint(pod(volumes=[GCE]), other, None) == SKIP


# -- VolumeBinding -------------------------------------------------------------------------


def test_volume_binding_hints() -> None:
    target = pod(**WITH_CLAIM)
    hints = volume_binding_hints
    pvc = obj("PersistentVolumeClaim", "data")
    assert hints.is_schedulable_after_pvc_change(target, None, pvc) == QUEUE
    other = obj("PersistentVolumeClaim", "x")
    assert hints.is_schedulable_after_pvc_change(target, None, other) == SKIP
    sc = obj("StorageClass", "sc", allowedTopologies=[{"matchLabelExpressions": []}])
    assert hints.is_schedulable_after_storage_class_change(target, None, sc) == QUEUE
    assert hints.is_schedulable_after_storage_class_change(target, sc, sc) == SKIP
    cap = obj("CSIStorageCapacity", "c", capacity="10Gi")
    more = obj("CSIStorageCapacity", "c", capacity="20Gi")
    assert hints.is_schedulable_after_csi_storage_capacity_change(target, cap, more) == QUEUE
    assert hints.is_schedulable_after_csi_storage_capacity_change(target, more, cap) == SKIP
    migrated = obj(
        "CSINode", "n1", annotations={"storage.alpha.kubernetes.io/migrated-plugins": "x"}
    )
    assert hints.is_schedulable_after_csi_node_change(target, csi_node(), migrated) == QUEUE
    assert hints.is_schedulable_after_csi_node_change(target, csi_node(), csi_node()) == SKIP
    inline = pod(volumes=[{"name": "v", "csi": {"driver": "d"}}])
    tracked = obj("CSIDriver", "d", spec={"storageCapacity": True})
    untracked = obj("CSIDriver", "d", spec={"storageCapacity": False})
    assert hints.is_schedulable_after_csi_driver_change(inline, tracked, untracked) == QUEUE
    assert hints.is_schedulable_after_csi_driver_change(inline, untracked, tracked) == SKIP
