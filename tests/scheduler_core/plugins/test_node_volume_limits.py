"""NodeVolumeLimits: CSI attach limits from CSINode; pods without CSI volumes pass untouched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, SUCCESS, Status, unresolvable, unschedulable
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
from scheduler_core.plugins import node_volume_limits as nvl

DRIVER = "pd.csi.storage.gke.io"
EXCEEDED = unschedulable(nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


@dataclass
class FakeHandle:
    snapshot: Snapshot


def pod(name: str, *claims: str, node_name: str = "", **vols: Any) -> Pod:
    volumes: list[dict[str, Any]] = [
        {"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims
    ]
    volumes += [{"name": k, **v} for k, v in vols.items()]
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}], "volumes": volumes}
    if node_name:
        spec["nodeName"] = node_name
    return Pod(apply_api_defaults({"metadata": {"name": name}, "spec": spec}))


def bound_pvc(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"volumeName": f"pv-{name}"},
    }


def csi_pv(claim: str, driver: str = DRIVER) -> dict[str, Any]:
    return {
        "metadata": {"name": f"pv-{claim}"},
        "spec": {"csi": {"driver": driver, "volumeHandle": f"h-{claim}"}},
    }


def csi_node(name: str, count: int | None) -> dict[str, Any]:
    driver: dict[str, Any] = {"name": DRIVER, "nodeID": name}
    if count is not None:
        driver["allocatable"] = {"count": count}
    return {"metadata": {"name": name}, "spec": {"drivers": [driver]}}


CLAIMS = ("a", "b", "c")
PVCS = [bound_pvc(c) for c in CLAIMS] + [
    {"metadata": {"name": "new", "namespace": "default"}, "spec": {"storageClassName": "csi"}}
]
PVS = [csi_pv(c) for c in CLAIMS]
CLASSES = [{"metadata": {"name": "csi"}, "provisioner": DRIVER}]


def run(
    incoming: Pod, running: Sequence[Pod] = (), csi_nodes: Sequence[Any] = ()
) -> tuple[Status, dict[str, Status]]:
    objects = ClusterObjects.from_lists(
        pvcs=PVCS, pvs=PVS, storage_classes=CLASSES, csi_nodes=csi_nodes
    )
    nodes = [Node({"metadata": {"name": n}, "status": {}}) for n in ("n1", "n2")]
    cluster = Cluster(nodes, running, objects)
    plugin = nvl.new(None, FakeHandle(cluster.snapshot()))  # type: ignore[arg-type]
    state = CycleState()
    infos = cluster.snapshot().node_info_list
    _, status = plugin.pre_filter(state, incoming, infos)
    filtered = {}
    if status.is_success():
        filtered = {ni.name: plugin.filter(state, incoming, ni) for ni in infos}
    return status, filtered


@pytest.mark.parametrize(
    ("incoming", "running", "csi_nodes", "pre", "expected"),
    [
        pytest.param(pod("p"), [], [], SKIP, {}, id="no-volumes-skip"),
        pytest.param(
            pod("p", scratch={"emptyDir": {}}), [], [], SKIP, {}, id="empty-dir-only-skip"
        ),
        pytest.param(
            pod("p", "a"),
            [pod("r", "b", node_name="n1")],
            [],
            SUCCESS,
            {"n1": SUCCESS, "n2": SUCCESS},
            id="no-csinode-no-limit",
        ),
        pytest.param(
            pod("p", "a"),
            [pod("r", "b", node_name="n1")],
            [csi_node("n1", 1), csi_node("n2", 1)],
            SUCCESS,
            {"n1": EXCEEDED, "n2": SUCCESS},
            id="limit-reached-by-running-pod",
        ),
        pytest.param(
            pod("p", "a"),
            [pod("r", "a", node_name="n1")],
            [csi_node("n1", 1)],
            SUCCESS,
            {"n1": SUCCESS, "n2": SUCCESS},
            id="volume-already-attached-counts-once",
        ),
        pytest.param(
            pod("p", "a", "b"),
            [],
            [csi_node("n1", 1), csi_node("n2", None)],
            SUCCESS,
            {"n1": EXCEEDED, "n2": SUCCESS},
            id="two-new-volumes-over-limit-one",
        ),
        pytest.param(
            pod("p", "new"),
            [pod("r", "b", node_name="n1")],
            [csi_node("n1", 1)],
            SUCCESS,
            {"n1": EXCEEDED, "n2": SUCCESS},
            id="unbound-claim-counts-with-class-provisioner",
        ),
        pytest.param(
            pod("p", "missing"),
            [],
            [],
            SUCCESS,
            dict.fromkeys(
                ("n1", "n2"),
                unresolvable(
                    'looking up PVC default/missing: persistentvolumeclaim "missing" not found'
                ),
            ),
            id="missing-claim-unresolvable",
        ),
    ],
)
def test_node_volume_limits(
    incoming: Pod,
    running: list[Pod],
    csi_nodes: list[Any],
    pre: Status,
    expected: dict[str, Status],
) -> None:
    status, filtered = run(incoming, running, csi_nodes)
    assert status == pre
    assert filtered == expected


def test_migrated_in_tree_inline_volume_counts() -> None:
    incoming = pod("p", gce={"gcePersistentDisk": {"pdName": "d1"}})
    running = [pod("r", "b", node_name="n1")]
    status, filtered = run(incoming, running, [csi_node("n1", 1)])
    assert status == SUCCESS
    assert filtered == {"n1": EXCEEDED, "n2": SUCCESS}
