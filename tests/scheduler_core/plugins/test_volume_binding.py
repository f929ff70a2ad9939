"""VolumeBinding: PreFilter on immediate claims, Filter on bound and WFFC claims, Reserve."""

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
from scheduler_core.plugins.shared import volumes as vs
from scheduler_core.plugins.volume_binding import plugin as vb

ZONE = "topology.kubernetes.io/zone"


@dataclass
class FakeHandle:
    snapshot: Snapshot


def node(name: str, zone: str = "a") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, ZONE: zone}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def pod(*claims: str, name: str = "p", node_name: str = "", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "i"}],
        "volumes": [
            {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
            for i, c in enumerate(claims)
        ],
        **extra,
    }
    if node_name:
        spec["nodeName"] = node_name
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def sc(
    name: str,
    mode: str = "WaitForFirstConsumer",
    provisioner: str = "kubernetes.io/no-provisioner",
    topologies: list[Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "metadata": {"name": name},
        "provisioner": provisioner,
        "volumeBindingMode": mode,
    }
    if topologies is not None:
        out["allowedTopologies"] = topologies
    return out


def pvc(
    name: str,
    cls: str = "local",
    size: str = "1Gi",
    volume: str = "",
    bound: bool = False,
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    annotations: dict[str, str] | None = None,
    phase: str = "Pending",
) -> dict[str, Any]:
    anns = dict(annotations or {})
    if bound:
        anns[vs.ANN_BIND_COMPLETED] = "yes"
    spec: dict[str, Any] = {
        "accessModes": list(modes),
        "storageClassName": cls,
        "resources": {"requests": {"storage": size}},
    }
    if volume:
        spec["volumeName"] = volume
    return {
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "annotations": anns,
        },
        "spec": spec,
        "status": {"phase": phase},
    }


def pv(
    name: str,
    cls: str = "local",
    size: str = "1Gi",
    nodes: tuple[str, ...] | None = None,
    claim: str = "",
    phase: str = "Available",
    modes: tuple[str, ...] = ("ReadWriteOnce",),
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": list(modes),
        "storageClassName": cls,
    }
    if nodes is not None:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "kubernetes.io/hostname",
                                "operator": "In",
                                "values": list(nodes),
                            }
                        ]
                    }
                ]
            }
        }
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim, "uid": f"uid-{claim}"}
    return {"metadata": {"name": name}, "spec": spec, "status": {"phase": phase}}


class Env:
    def __init__(
        self,
        *,
        pvcs: Sequence[Any] = (),
        pvs: Sequence[Any] = (),
        classes: Sequence[Any] = (),
        running: Sequence[Any] = (),
    ) -> None:
        objects = ClusterObjects.from_lists(pvcs=pvcs, pvs=pvs, storage_classes=classes)
        nodes = [Node(node("n1", "a")), Node(node("n2", "b")), Node(node("n3", "a"))]
        self.cluster = Cluster(nodes, [Pod(apply_api_defaults(r)) for r in running], objects)
        self.plugin = vb.new(None, FakeHandle(self.cluster.snapshot()))  # type: ignore[arg-type]

    def cycle(self, raw: dict[str, Any]) -> tuple[Status, dict[str, Status], CycleState, Pod]:
        p = Pod(apply_api_defaults(raw))
        state = CycleState()
        snap = self.cluster.snapshot()
        _, status = self.plugin.pre_filter(state, p, snap.node_info_list)
        filtered: dict[str, Status] = {}
        if status.is_success():
            filtered = {ni.name: self.plugin.filter(state, p, ni) for ni in snap.node_info_list}
        return status, filtered, state, p


LOCAL = sc("local")
BIND = unresolvable(vb.ERR_REASON_BIND_CONFLICT)
AFFINITY = unresolvable(vb.ERR_REASON_NODE_CONFLICT)


@pytest.mark.parametrize(
    ("env", "raw", "expected"),
    [
        pytest.param(Env(), pod(), SKIP, id="pod-without-claims-is-skipped"),
        pytest.param(
            Env(),
            {
                "metadata": {"name": "p"},
                "spec": {"containers": [], "volumes": [{"name": "e", "emptyDir": {}}]},
            },
            SKIP,
            id="empty-dir-only-is-skipped",
        ),
        pytest.param(
            Env(),
            pod("nope"),
            unresolvable('persistentvolumeclaim "nope" not found'),
            id="missing-claim-names-it",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", cls="fast")], classes=[sc("fast", mode="Immediate")]),
            pod("c"),
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="unbound-immediate-claim",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", cls="missing")]),
            pod("c"),
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="claim-of-unknown-class-counts-as-immediate",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", volume="pv1")], classes=[LOCAL]),
            pod("c"),
            unresolvable(vb.ERR_REASON_UNBOUND_IMMEDIATE),
            id="prebound-claim-without-bind-completed",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", volume="pv1", phase="Lost")], classes=[LOCAL]),
            pod("c"),
            unresolvable('persistentvolumeclaim "c" bound to non-existent persistentvolume "pv1"'),
            id="lost-claim",
        ),
        pytest.param(
            Env(pvcs=[pvc("c")], classes=[LOCAL]), pod("c"), SUCCESS, id="wffc-claim-passes"
        ),
    ],
)
def test_pre_filter(env: Env, raw: dict[str, Any], expected: Status) -> None:
    status, _, _, _ = env.cycle(raw)
    assert status == expected


@pytest.mark.parametrize(
    ("env", "raw", "expected"),
    [
        pytest.param(
            Env(
                pvcs=[pvc("c", cls="", volume="pv1", bound=True)],
                pvs=[pv("pv1", cls="", nodes=("n2",), claim="c", phase="Bound")],
            ),
            pod("c"),
            {"n1": AFFINITY, "n2": SUCCESS, "n3": AFFINITY},
            id="bound-pv-node-affinity",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", cls="", volume="gone", bound=True)]),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), unresolvable(vb.ERR_REASON_PV_NOT_EXIST)),
            id="bound-pv-missing",
        ),
        pytest.param(
            Env(pvcs=[pvc("c")], pvs=[pv("pv1", nodes=("n2",))], classes=[LOCAL]),
            pod("c"),
            {"n1": BIND, "n2": SUCCESS, "n3": BIND},
            id="wffc-local-pv-on-one-node",
        ),
        pytest.param(
            Env(pvcs=[pvc("c", size="5Gi")], pvs=[pv("pv1", nodes=("n2",))], classes=[LOCAL]),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), BIND),
            id="pv-too-small",
        ),
        pytest.param(
            Env(
                pvcs=[pvc("c", modes=("ReadWriteMany",))],
                pvs=[pv("pv1", nodes=("n2",))],
                classes=[LOCAL],
            ),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), BIND),
            id="access-modes-mismatch",
        ),
        pytest.param(
            Env(pvcs=[pvc("c")], pvs=[pv("pv1", nodes=("n2",), claim="other")], classes=[LOCAL]),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), BIND),
            id="pv-claimed-by-another-claim",
        ),
        pytest.param(
            Env(pvcs=[pvc("c")], pvs=[pv("pv1", nodes=("n2",), phase="Released")], classes=[LOCAL]),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), BIND),
            id="pv-not-available",
        ),
        pytest.param(
            Env(
                pvcs=[pvc("c", cls="csi")], classes=[sc("csi", provisioner="pd.csi.storage.gke.io")]
            ),
            pod("c"),
            dict.fromkeys(("n1", "n2", "n3"), SUCCESS),
            id="dynamic-provisioning-everywhere",
        ),
        pytest.param(
            Env(
                pvcs=[pvc("c", cls="csi")],
                classes=[
                    sc(
                        "csi",
                        provisioner="pd.csi.storage.gke.io",
                        topologies=[{"matchLabelExpressions": [{"key": ZONE, "values": ["a"]}]}],
                    )
                ],
            ),
            pod("c"),
            {"n1": SUCCESS, "n2": BIND, "n3": SUCCESS},
            id="allowed-topologies-limit-provisioning",
        ),
        pytest.param(
            Env(
                pvcs=[pvc("c", cls="csi", annotations={vs.ANN_SELECTED_NODE: "n3"})],
                classes=[sc("csi", provisioner="pd.csi.storage.gke.io")],
            ),
            pod("c"),
            {"n1": BIND, "n2": BIND, "n3": SUCCESS},
            id="selected-node-annotation-pins-the-claim",
        ),
        pytest.param(
            Env(
                pvcs=[
                    pvc("c", cls="", volume="pv1", bound=True),
                    pvc("w", cls="csi", annotations={vs.ANN_SELECTED_NODE: "n3"}),
                ],
                pvs=[pv("pv1", cls="", nodes=("n2",), claim="c", phase="Bound")],
                classes=[sc("csi", provisioner="x.csi")],
            ),
            pod("c", "w"),
            {
                "n1": unresolvable(vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT),
                "n2": BIND,
                "n3": AFFINITY,
            },
            id="both-reasons-in-upstream-order",
        ),
    ],
)
def test_filter(env: Env, raw: dict[str, Any], expected: dict[str, Status]) -> None:
    status, filtered, _, _ = env.cycle(raw)
    assert status == SUCCESS
    assert filtered == expected


def test_filter_picks_the_smallest_fitting_pv() -> None:
    env = Env(
        pvcs=[pvc("c")],
        pvs=[pv("big", size="10Gi", nodes=("n2",)), pv("small", size="2Gi", nodes=("n2",))],
        classes=[LOCAL],
    )
    _, filtered, state, p = env.cycle(pod("c"))
    assert filtered["n2"] == SUCCESS
    assert env.plugin.reserve(state, p, "n2") == SUCCESS
    objs = env.cluster.objects
    assert objs.pvs["small"].spec["claimRef"]["name"] == "c"
    assert objs.pvs["small"].annotations[vs.ANN_BOUND_BY_CONTROLLER] == "yes"
    assert "claimRef" not in objs.pvs["big"].spec


def test_reserve_makes_later_cycles_see_the_pv_taken() -> None:
    env = Env(pvcs=[pvc("c1"), pvc("c2")], pvs=[pv("pv1", nodes=("n2",))], classes=[LOCAL])
    _, _, state, p = env.cycle(pod("c1", name="a"))
    assert env.plugin.reserve(state, p, "n2") == SUCCESS
    assert env.plugin.pre_bind(state, p, "n2") == SUCCESS
    _, filtered, _, _ = env.cycle(pod("c2", name="b"))
    assert filtered == dict.fromkeys(("n1", "n2", "n3"), BIND)
    # The same claim still finds its PV: it is prebound to it now.
    _, filtered, _, _ = env.cycle(pod("c1", name="c"))
    assert filtered == {"n1": BIND, "n2": SUCCESS, "n3": BIND}


def test_unreserve_restores_the_assumed_pv() -> None:
    env = Env(pvcs=[pvc("c1")], pvs=[pv("pv1", nodes=("n2",))], classes=[LOCAL])
    before = env.cluster.objects.pvs["pv1"]
    _, _, state, p = env.cycle(pod("c1"))
    env.plugin.reserve(state, p, "n2")
    assert env.cluster.objects.pvs["pv1"] is not before
    env.plugin.unreserve(state, p, "n2")
    assert env.cluster.objects.pvs["pv1"] is before


def test_reserve_annotates_a_claim_to_provision() -> None:
    env = Env(pvcs=[pvc("c", cls="csi")], classes=[sc("csi", provisioner="x.csi")])
    _, _, state, p = env.cycle(pod("c"))
    assert env.plugin.reserve(state, p, "n1") == SUCCESS
    assert env.cluster.objects.pvcs["default/c"].annotations[vs.ANN_SELECTED_NODE] == "n1"
    _, filtered, _, _ = env.cycle(pod("c", name="again"))
    assert filtered == {"n1": SUCCESS, "n2": BIND, "n3": BIND}


def test_reserve_and_pre_bind_of_a_pod_without_claims_do_nothing() -> None:
    env = Env()
    status, _, state, p = env.cycle(pod())
    assert status == SKIP
    assert env.plugin.reserve(state, p, "n1") == SUCCESS
    assert env.plugin.pre_bind(state, p, "n1") == SUCCESS


def test_pre_score_skips_without_storage_capacity_scoring() -> None:
    env = Env(pvcs=[pvc("c")], pvs=[pv("pv1")], classes=[LOCAL])
    _, _, state, p = env.cycle(pod("c"))
    assert env.plugin.pre_score(state, p, env.cluster.snapshot().node_info_list) == SKIP


def test_filter_without_pre_filter_state_is_an_error() -> None:
    env = Env()
    p = Pod(apply_api_defaults(pod("c")))
    status = env.plugin.filter(CycleState(), p, env.cluster.snapshot().node_info_list[0])
    assert status.code.upstream == "Error"
    assert status.reasons == ("not found",)


def test_case_run_reserves_so_the_next_pod_finds_the_pv_taken() -> None:
    from scheduler_core.tools.case import CaseRun

    case = {
        "nodes": [node("n1", "a"), node("n2", "b")],
        "pvcs": [pvc("c1"), pvc("c2")],
        "pvs": [pv("pv1", nodes=("n2",))],
        "storageClasses": [LOCAL],
        "queue": [pod("c1", name="first"), pod("c2", name="second")],
    }
    records = [rec for _, rec in CaseRun(case).cycles()]
    assert records[0].selected == "n2"
    assert records[1].selected is None
    taken = BIND.with_plugin(vb.NAME)
    assert records[1].filter == {"n1": taken, "n2": taken}
