"""DRA in the playground: import/export of the three kinds, the demo, explanations, write-back."""

from __future__ import annotations

import copy

import pytest
import yaml
from django.core.management import call_command

from playground import charts, demo_dra, devices, manifests, runs, selectors, services
from playground.models import Cluster, KubeObject, Run
from scheduler_core.scheduler import Scheduler

DEMO = list(yaml.safe_load_all(demo_dra.MANIFESTS))


def _dra_objects() -> list[dict]:
    return [o for o in DEMO if o["kind"] in ("DeviceClass", "ResourceSlice", "ResourceClaim")]


def test_dra_kinds_parse_without_problems():
    parsed = manifests.parse_documents(demo_dra.MANIFESTS)
    assert parsed.warnings == []
    kinds = {o.kind for o in parsed.objects}
    assert {"DeviceClass", "ResourceSlice", "ResourceClaim"} <= kinds
    assert [p for o in parsed.objects for p in manifests.check_object(o)] == []


@pytest.mark.parametrize(
    ("path", "value", "problem_path", "fragment"),
    [
        pytest.param(
            ("spec", "selectors", 0, "cel", "expression"),
            'device.driver == "gpu.example.com" &&',
            "spec.selectors[0].cel.expression",
            "Syntax error",
            id="class-selector-syntax-error",
        ),
        pytest.param(
            ("spec", "selectors", 0, "cel", "expression"),
            'gpu.driver == "x"',
            "spec.selectors[0].cel.expression",
            "undeclared reference to 'gpu'",
            id="class-selector-unknown-variable",
        ),
    ],
)
def test_bad_selector_names_the_field(path, value, problem_path, fragment):
    obj = copy.deepcopy(next(o for o in DEMO if o["kind"] == "DeviceClass"))
    node = obj
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    parsed = manifests.parse_documents(yaml.safe_dump(obj))
    problems = manifests.check_object(parsed.objects[0])
    assert [p.path for p in problems] == [problem_path]
    assert fragment in problems[0].message


def test_bad_claim_count_names_the_field():
    claim = copy.deepcopy(next(o for o in DEMO if o["metadata"]["name"] == "trainer-gpus"))
    claim["spec"]["devices"]["requests"][0]["exactly"]["count"] = 0
    problems = manifests.check_object(manifests.parse_documents(yaml.safe_dump(claim)).objects[0])
    assert [p.path for p in problems] == ["spec.devices.requests[0].exactly.count"]


@pytest.mark.django_db
def test_import_export_round_trip_keeps_dra_objects(user):
    first = services.cluster_create(owner=user, name="dra")
    services.cluster_import_yaml(cluster=first, user=user, text=demo_dra.MANIFESTS)
    exported = selectors.cluster_export_yaml(first)
    second = services.cluster_create(owner=user, name="dra-2")
    services.cluster_import_yaml(cluster=second, user=user, text=exported)
    assert selectors.cluster_manifests(second) == selectors.cluster_manifests(first)
    kinds = [m["kind"] for m in selectors.cluster_manifests(first)]
    # What a claim refers to comes before it, and claims before the pods that use them.
    assert kinds.index("DeviceClass") < kinds.index("ResourceClaim") < kinds.index("Pod")
    stored = {(o.kind, o.name) for o in KubeObject.objects.filter(cluster=second)}
    assert {(o["kind"], o["metadata"]["name"]) for o in _dra_objects()} <= stored


def _demo_events() -> list[dict]:
    events: list = []
    Scheduler(None, DEMO, on_event=events.append).run_until_idle()
    return [e.to_dict() for e in events]


def test_demo_explains_allocation_and_why_no_device_matched():
    events = _demo_events()
    steps = [
        s
        for cycle in charts.split_by_cycle(events).values()
        for s in charts.steps(cycle)
        if s["plugin"] == "DynamicResources"
    ]
    allocated = [s["why"] for s in steps if s["point"] == devices.ALLOCATION]
    assert "Allocated default/inference-gpu: gpu.example.com/gpu-2/gpu-0 for gpu." in allocated
    trainer = next(
        s["why"] for s in steps if s["point"] == devices.MATCHES and "trainer-gpus" in s["why"]
    )
    assert trainer.startswith("No node has enough matching devices.")
    assert "gpu-1: default/trainer-gpus request gpus: 1 of 2 matched" in trainer
    assert "gpu-1/gpu-0 (allocated to another claim)" in trainer
    assert "class gpu-large selector #0 is false" in trainer


def test_cycle_detail_has_the_device_panel():
    events = _demo_events()
    by_cycle = charts.split_by_cycle(events)
    inference = next(c for c, evs in by_cycle.items() if evs[0]["pod"] == "default/inference")
    detail = charts.cycle_detail(events, inference)
    assert detail is not None
    panel = {p["node"]: p for p in detail["devices"]}
    assert panel["gpu-2"]["requests"][0]["matched"][0] == "gpu.example.com/gpu-2/gpu-0"
    assert panel["gpu-2"]["allocation"] == [
        [{"request": "gpu", "driver": "gpu.example.com", "pool": "gpu-2", "device": "gpu-0"}]
    ]
    assert panel["cpu-1"]["requests"][0]["note"] == "no device of any pool on this node"


@pytest.mark.django_db
def test_demo_is_loaded():
    call_command("load_demo", stdout=None)
    cluster = Cluster.objects.get(is_demo=True, name=demo_dra.NAME)
    assert cluster.kube_objects.filter(kind="ResourceSlice").count() == 3


@pytest.mark.django_db
def test_run_writes_allocations_back_to_the_claims(user, django_capture_on_commit_callbacks):
    cluster = services.cluster_create(owner=user, name="dra")
    services.cluster_import_yaml(cluster=cluster, user=user, text=demo_dra.MANIFESTS)
    profile = services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.placements["default/inference"] == "gpu-2"
    claim = KubeObject.objects.get(cluster=cluster, kind="ResourceClaim", name="inference-gpu")
    assert claim.manifest["status"]["allocation"]["devices"]["results"] == [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "gpu-2", "device": "gpu-0"}
    ]
    assert claim.manifest["status"]["reservedFor"][0]["name"] == "inference"
    untouched = KubeObject.objects.get(cluster=cluster, kind="ResourceClaim", name="trainer-gpus")
    assert "status" not in untouched.manifest
