"""VolumeZone: bound PVs' zone and region labels against the node's labels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, SUCCESS, Status, unresolvable
from scheduler_core.framework.types import Snapshot
from scheduler_core.loop.cluster import (
    Cluster,
    apply_api_defaults,
)
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)
from scheduler_core.plugins import volume_zone as vz

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
CONFLICT = unresolvable(vz.ERR_REASON_CONFLICT)


@dataclass
class FakeHandle:
    snapshot: Snapshot


def node(name: str, **labels: str) -> Node:
    return Node({"metadata": {"name": name, "labels": labels}, "status": {}})


NODES = [
    node("a1", **{ZONE: "a", REGION: "r1"}),
    node("b1", **{ZONE: "b", REGION: "r1"}),
    node("beta-a", **{BETA_ZONE: "a"}),
    node("bare"),
]


def pod(*claims: str) -> Pod:
    vols = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    return Pod(apply_api_defaults({"metadata": {"name": "p"}, "spec": {"volumes": vols}}))


def pvc(name: str, volume: str = "", cls: str = "") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"volumeName": volume, "storageClassName": cls},
    }


def pv(name: str, **labels: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels}, "spec": {}}


def run(incoming: Pod, pvcs: Sequence[Any], pvs: Sequence[Any] = (), classes: Sequence[Any] = ()):
    objects = ClusterObjects.from_lists(pvcs=pvcs, pvs=pvs, storage_classes=classes)
    cluster = Cluster(NODES, [], objects)
    plugin = vz.new(None, FakeHandle(cluster.snapshot()))  # type: ignore[arg-type]
    state = CycleState()
    _, status = plugin.pre_filter(state, incoming, cluster.snapshot().node_info_list)
    filtered = {}
    if status.is_success():
        filtered = {
            ni.name: plugin.filter(state, incoming, ni) for ni in cluster.snapshot().node_info_list
        }
    return status, filtered


@pytest.mark.parametrize(
    ("incoming", "pvcs", "pvs", "classes", "pre", "expected"),
    [
        pytest.param(pod(), [], [], [], SKIP, {}, id="no-claims-skip"),
        pytest.param(
            pod("c"), [pvc("c", "v")], [pv("v")], [], SKIP, {}, id="pv-without-zone-labels-skip"
        ),
        pytest.param(
            pod("c"),
            [pvc("c", "v")],
            [pv("v", **{ZONE: "a"})],
            [],
            SUCCESS,
            {"a1": SUCCESS, "b1": CONFLICT, "beta-a": CONFLICT, "bare": SUCCESS},
            id="ga-pv-label-is-not-looked-up-under-the-beta-key",
        ),
        pytest.param(
            pod("c"),
            [pvc("c", "v")],
            [pv("v", **{BETA_ZONE: "b__c"})],
            [],
            SUCCESS,
            {"a1": CONFLICT, "b1": SUCCESS, "beta-a": CONFLICT, "bare": SUCCESS},
            id="beta-pv-label-falls-back-to-ga-node-label-multi-zone",
        ),
        pytest.param(
            pod("c"),
            [pvc("c", "v")],
            [pv("v", **{REGION: "r1", ZONE: "b"})],
            [],
            SUCCESS,
            {"a1": CONFLICT, "b1": SUCCESS, "beta-a": CONFLICT, "bare": SUCCESS},
            id="region-and-zone-both-must-match",
        ),
        pytest.param(
            pod("c"),
            [pvc("c", cls="wffc")],
            [],
            [{"metadata": {"name": "wffc"}, "volumeBindingMode": "WaitForFirstConsumer"}],
            SKIP,
            {},
            id="unbound-wffc-claim-is-ignored",
        ),
    ],
)
def test_volume_zone(
    incoming: Pod,
    pvcs: list[Any],
    pvs: list[Any],
    classes: list[Any],
    pre: Status,
    expected: dict[str, Status],
) -> None:
    status, filtered = run(incoming, pvcs, pvs, classes)
    assert status == pre
    assert filtered == expected


@pytest.mark.parametrize(
    ("pvcs", "classes", "expected"),
    [
        pytest.param([], [], unresolvable('persistentvolumeclaim "c" not found'), id="no-claim"),
        pytest.param(
            [pvc("c", "v")], [], unresolvable('persistentvolume "v" not found'), id="no-pv"
        ),
        pytest.param(
            [pvc("c")],
            [],
            unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            id="no-pv-no-class",
        ),
        pytest.param(
            [pvc("c", cls="x")],
            [],
            unresolvable('storageclass.storage.k8s.io "x" not found'),
            id="no-class",
        ),
        pytest.param(
            [pvc("c", cls="imm")],
            [{"metadata": {"name": "imm"}, "volumeBindingMode": "Immediate"}],
            unresolvable("PersistentVolume had no name"),
            id="unbound-immediate",
        ),
    ],
)
def test_pre_filter_errors(pvcs: list[Any], classes: list[Any], expected: Status) -> None:
    status, _ = run(pod("c"), pvcs, [], classes)
    assert status == expected
