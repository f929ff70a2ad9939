"""VolumeRestrictions: disk conflicts with running pods and ReadWriteOncePod claims in use."""

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
from scheduler_core.plugins import volume_restrictions as vr

DISK = unschedulable(vr.ERR_REASON_DISK_CONFLICT)
RWOP = unschedulable(vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


@dataclass
class FakeHandle:
    snapshot: Snapshot


def node(name: str) -> Node:
    return Node({"metadata": {"name": name}, "status": {"allocatable": {"pods": "110"}}})


def pod(name: str, *volumes: dict[str, Any], node_name: str = "", ns: str = "default") -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}], "volumes": list(volumes)}
    if node_name:
        spec["nodeName"] = node_name
    return Pod(apply_api_defaults({"metadata": {"name": name, "namespace": ns}, "spec": spec}))


def claim_vol(claim: str) -> dict[str, Any]:
    return {"name": claim, "persistentVolumeClaim": {"claimName": claim}}


def gce(pd: str, read_only: bool = False) -> dict[str, Any]:
    return {"name": pd, "gcePersistentDisk": {"pdName": pd, "readOnly": read_only}}


def pvc(name: str, mode: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default"}, "spec": {"accessModes": [mode]}}


def run(
    incoming: Pod, running: Sequence[Pod], pvcs: Sequence[Any] = ()
) -> tuple[Status, dict[str, Status], vr.VolumeRestrictions, CycleState]:
    cluster = Cluster([node("n1"), node("n2")], running, ClusterObjects.from_lists(pvcs=pvcs))
    plugin = vr.new(None, FakeHandle(cluster.snapshot()))  # type: ignore[arg-type]
    state = CycleState()
    nodes = cluster.snapshot().node_info_list
    _, status = plugin.pre_filter(state, incoming, nodes)
    filtered = {}
    if status.is_success():
        filtered = {ni.name: plugin.filter(state, incoming, ni) for ni in nodes}
    return status, filtered, plugin, state


@pytest.mark.parametrize(
    ("incoming", "running", "pre", "expected"),
    [
        pytest.param(pod("p"), [], SKIP, {}, id="no-volumes-skip"),
        pytest.param(
            pod("p", gce("d1")),
            [pod("r", gce("d1"), node_name="n1")],
            SUCCESS,
            {"n1": DISK, "n2": SUCCESS},
            id="same-gce-disk-conflicts",
        ),
        pytest.param(
            pod("p", gce("d1", True)),
            [pod("r", gce("d1", True), node_name="n1")],
            SUCCESS,
            {"n1": SUCCESS, "n2": SUCCESS},
            id="read-only-in-both-pods-shares",
        ),
        pytest.param(
            pod("p", {"name": "a", "awsElasticBlockStore": {"volumeID": "v", "readOnly": True}}),
            [
                pod(
                    "r",
                    {"name": "a", "awsElasticBlockStore": {"volumeID": "v", "readOnly": True}},
                    node_name="n2",
                )
            ],
            SUCCESS,
            {"n1": SUCCESS, "n2": DISK},
            id="ebs-conflicts-even-read-only",
        ),
        pytest.param(
            pod("p", {"name": "r", "rbd": {"monitors": ["m1", "m2"], "image": "i"}}),
            [pod("r", {"name": "r", "rbd": {"monitors": ["m2"], "image": "i"}}, node_name="n1")],
            SUCCESS,
            {"n1": DISK, "n2": SUCCESS},
            id="rbd-overlapping-monitors-same-image",
        ),
    ],
)
def test_disk_conflicts(
    incoming: Pod, running: list[Pod], pre: Status, expected: dict[str, Status]
) -> None:
    status, filtered, _, _ = run(incoming, running)
    assert status == pre
    assert filtered == expected


def test_missing_claim_is_unresolvable() -> None:
    status, _, _, _ = run(pod("p", claim_vol("nothere")), [])
    assert status == unresolvable('persistentvolumeclaim "nothere" not found')


def test_rwop_claim_unused_skips() -> None:
    status, _, _, _ = run(pod("p", claim_vol("c")), [], [pvc("c", "ReadWriteOncePod")])
    assert status == SKIP


def test_rwop_claim_in_use_rejects_every_node() -> None:
    running = [pod("r", claim_vol("c"), node_name="n1")]
    status, filtered, _, _ = run(pod("p", claim_vol("c")), running, [pvc("c", "ReadWriteOncePod")])
    assert status == SUCCESS
    assert filtered == {"n1": RWOP, "n2": RWOP}


def test_rwo_claim_in_use_is_fine() -> None:
    running = [pod("r", claim_vol("c"), node_name="n1")]
    status, _, _, _ = run(pod("p", claim_vol("c")), running, [pvc("c", "ReadWriteOnce")])
    assert status == SKIP


def test_removing_the_user_of_the_rwop_claim_clears_the_conflict() -> None:
    user = pod("r", claim_vol("c"), node_name="n1")
    incoming = pod("p", claim_vol("c"))
    _, _, plugin, state = run(incoming, [user], [pvc("c", "ReadWriteOncePod")])
    copy = state.clone()
    ni = plugin.handle.snapshot.node_info_list[0]
    assert plugin.remove_pod(copy, incoming, user, ni) == SUCCESS
    assert plugin.filter(copy, incoming, ni) == SUCCESS
    assert plugin.filter(state, incoming, ni) == RWOP
    assert plugin.add_pod(copy, incoming, user, ni) == SUCCESS
    assert plugin.filter(copy, incoming, ni) == RWOP
