"""DRA in the playground: import/export of the three kinds, the demo, explanations, write-back."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from playground.clusters import selectors, services
from playground.dra import demo as demo_dra
from playground.dra import panels as devices
from playground.dra import selectors as dra_selectors
from playground.inputs import manifests
from playground.models import Cluster, KubeObject, Run
from playground.profiles import services as profile_services
from playground.runs import selectors as run_selectors
from playground.runs import services as runs
from playground.runs.panels import charts
from scheduler_core.loop.scheduler import Scheduler

ROOT = Path(__file__).resolve().parents[3]

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
def test_applying_a_run_writes_allocations_back_to_the_claims(
    user, django_capture_on_commit_callbacks
):
    cluster = services.cluster_create(owner=user, name="dra")
    services.cluster_import_yaml(cluster=cluster, user=user, text=demo_dra.MANIFESTS)
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert run.placements["default/inference"] == "gpu-2"
    claim = KubeObject.objects.get(cluster=cluster, kind="ResourceClaim", name="inference-gpu")
    assert "status" not in claim.manifest  # a run is a simulation
    # Device matches and the allocation are part of their cycle's record, which ends it.
    assert {c.result for c in run.cycle_records.all()} <= {"Scheduled", "Unschedulable"}
    assert not run.events.filter(type__in=["DeviceMatches", "CycleEnd"])
    full: list = []
    Scheduler({}, list(run.snapshot), on_event=full.append).run_until_idle()
    silent = Scheduler({}, list(run.snapshot))
    silent.run_until_idle()
    assert silent.seq == len(full)
    _, counts = runs.run_apply_placements(run=run, user=user)
    assert counts["claims"] >= 1
    claim.refresh_from_db()
    assert claim.manifest["status"]["allocation"]["devices"]["results"] == [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "gpu-2", "device": "gpu-0"}
    ]
    assert claim.manifest["status"]["reservedFor"][0]["name"] == "inference"
    untouched = KubeObject.objects.get(cluster=cluster, kind="ResourceClaim", name="trainer-gpus")
    assert "status" not in untouched.manifest


# -- the forms ------------------------------------------------------------------------------------


@pytest.fixture
def small_cluster(user):
    from builders import make_node, make_pod

    cluster = services.cluster_create(owner=user, name="forms")
    services.node_save(cluster=cluster, user=user, manifest=make_node("n1"))
    services.pod_save(cluster=cluster, user=user, manifest=make_pod("p1"))
    return cluster


def _add_gpu_class(cluster, user):
    gpu_class = next(o for o in DEMO if o["kind"] == "DeviceClass")
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump(gpu_class))


@pytest.mark.django_db
def test_device_pool_form_adds_a_slice_and_its_class(alice_client, small_cluster):
    url = reverse("playground:device_pool_new", args=[small_cluster.pk])
    data = {"node": "n1", "driver": "gpu.example.com", "model": "l4", "memory": "24Gi"}
    response = alice_client.post(url, {**data, "count": 3, "device_class": "gpu"})
    assert response.status_code == 302
    objects = {o.kind: o.manifest for o in small_cluster.kube_objects.all()}
    assert objects["DeviceClass"]["spec"]["selectors"][0]["cel"]["expression"] == (
        'device.driver == "gpu.example.com"'
    )
    devices_ = objects["ResourceSlice"]["spec"]["devices"]
    assert [d["name"] for d in devices_] == ["dev-0", "dev-1", "dev-2"]
    assert objects["ResourceSlice"]["spec"]["nodeName"] == "n1"


@pytest.mark.django_db
def test_claim_form_reports_a_bad_selector_on_its_field_and_stores_nothing(
    alice_client, small_cluster, user
):
    _add_gpu_class(small_cluster, user)
    url = reverse("playground:claim_new", args=[small_cluster.pk])
    data = {"name": "c", "namespace": "default", "device_class": "gpu", "mode": "ExactCount"}
    response = alice_client.post(
        url, {**data, "count": 1, "selector": "device.driver ==", "pod": ""}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["selector"] and "Syntax error" in errors["selector"][0]
    assert not small_cluster.kube_objects.filter(kind="ResourceClaim").exists()


@pytest.mark.django_db
def test_claim_form_adds_the_claim_to_the_pod(alice_client, small_cluster, user):
    _add_gpu_class(small_cluster, user)
    url = reverse("playground:claim_new", args=[small_cluster.pk])
    data = {"name": "c", "namespace": "default", "device_class": "gpu", "mode": "All"}
    response = alice_client.post(url, {**data, "count": 1, "selector": "", "pod": "default/p1"})
    assert response.status_code == 302
    claim = small_cluster.kube_objects.get(kind="ResourceClaim").manifest
    assert claim["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu",
        "allocationMode": "All",
    }
    pod = small_cluster.pods.get(name="p1").manifest
    assert pod["spec"]["resourceClaims"] == [{"name": "c", "resourceClaimName": "c"}]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["playground:device_pool_new", "playground:claim_new"])
def test_dra_form_pages_render_and_are_linked(alice_client, small_cluster, name):
    url = reverse(name, args=[small_cluster.pk])
    assert alice_client.get(url).status_code == 200
    page = alice_client.get(reverse("playground:cluster", args=[small_cluster.pk]))
    assert url in page.content.decode()


# -- ResourceClaimTemplates: the resourceclaim controller's part ----------------------------------

TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "one-l4", "namespace": "default"},
    "spec": {
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": "gpu",
                            "selectors": [
                                {
                                    "cel": {
                                        "expression": 'device.attributes["gpu.example.com"]'
                                        '.model == "l4"'
                                    }
                                }
                            ],
                        },
                    }
                ]
            }
        }
    },
}


@pytest.mark.django_db
def test_pods_of_a_template_get_their_own_claims_and_run(user, django_capture_on_commit_callbacks):
    from builders import make_deployment

    cluster = services.cluster_create(owner=user, name="templates")
    base = [o for o in DEMO if o["kind"] in ("Node", "DeviceClass", "ResourceSlice")]
    web = make_deployment("serve", replicas=2)
    web["spec"]["template"]["spec"]["resourceClaims"] = [
        {"name": "gpu", "resourceClaimTemplateName": "one-l4"}
    ]
    text = yaml.safe_dump_all([*base, TEMPLATE, web], sort_keys=False)
    services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    claims = list(cluster.kube_objects.filter(kind="ResourceClaim"))
    pods = {p.name: p.manifest for p in cluster.pods.all()}
    assert len(claims) == len(pods) == 2
    for claim in claims:
        owner = claim.manifest["metadata"]["ownerReferences"][0]
        pod = pods[owner["name"]]
        assert owner["uid"] == pod["metadata"]["uid"] and owner["controller"] is True
        assert pod["status"]["resourceClaimStatuses"] == [
            {"name": "gpu", "resourceClaimName": claim.name}
        ]
        assert claim.name.startswith(f"{owner['name']}-gpu-")
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert sorted(run.placements.values()) == ["gpu-2", "gpu-2"]


def test_template_spec_errors_name_the_field():
    bad = copy.deepcopy(TEMPLATE)
    bad["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"][
        "expression"
    ] = "device.driver =="
    problems = manifests.check_object(manifests.parse_documents(yaml.safe_dump(bad)).objects[0])
    assert [p.path for p in problems] == [
        "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"
    ]


@pytest.mark.django_db
def test_cluster_page_lists_devices_with_attributes_classes_and_holders(alice_client, user):
    cluster = services.cluster_create(owner=user, name="dra")
    services.cluster_import_yaml(cluster=cluster, user=user, text=demo_dra.MANIFESTS)
    devices_ = dra_selectors.cluster_devices(cluster)
    assert devices_ is not None
    gpu1 = [d for d in devices_["devices"] if d["slice"] == "gpu-1-gpu"]
    assert [(d["name"], d["node"], d["claim"]) for d in gpu1] == [
        ("gpu-0", "gpu-1", "default/running-a100"),
        ("gpu-1", "gpu-1", ""),
    ]
    assert gpu1[0]["attributes"] == [("model", "a100"), ("index", 0)]
    assert gpu1[0]["capacity"] == [("memory", "40Gi")]
    classes = {c["name"]: c["selectors"] for c in devices_["classes"]}
    assert classes["gpu"] == ['device.driver == "gpu.example.com"']
    assert 'compareTo(quantity("40Gi")) >= 0' in classes["gpu-large"][0]
    trainer = next(c for c in devices_["claims"] if c["key"] == "default/trainer-gpus")
    assert trainer["requests"] == "gpus: 2 × gpu-large"
    page = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert 'data-device="gpu.example.com/gpu-3/gpu-0"' in page
    assert 'data-attribute="model">model=h100<' in page
    assert 'data-capacity="memory">memory=80Gi<' in page
    assert 'id="device-classes"' in page and "default/running-a100" in page
    assert dra_selectors.cluster_devices(services.cluster_create(owner=user, name="none")) is None


@pytest.mark.django_db
def test_a_run_lists_the_device_each_pod_got_and_its_binding_steps_name_it(
    alice_client, user, other_user, django_capture_on_commit_callbacks
):
    cluster = services.cluster_create(owner=user, name="dra")
    services.cluster_import_yaml(cluster=cluster, user=user, text=demo_dra.MANIFESTS)
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    url = reverse("playground:run_devices", args=[run.pk])
    data = alice_client.get(url).json()
    assert data["final"] and data["terminal"]
    rows = {r["pod"]: r for r in data["rows"]}
    assert set(rows) == {"default/inference", "default/trainer", "default/flexible"}
    inference = rows["default/inference"]
    assert (inference["node"], inference["claim"], inference["request"]) == (
        "gpu-2",
        "default/inference-gpu",
        "gpu",
    )
    assert inference["device"] == "gpu.example.com/gpu-2/gpu-0"
    assert inference["attributes"]["model"] == "l4"
    assert inference["capacity"] == {"memory": "24Gi"}
    assert rows["default/flexible"]["device"] == "gpu.example.com/gpu-3/gpu-0"
    assert rows["default/flexible"]["request"] == "gpu/h100"
    assert rows["default/trainer"]["device"] is None and rows["default/trainer"]["node"] is None
    assert data["devices"]["gpu.example.com/gpu-1/gpu-1"]["attributes"]["model"] == "a100"
    stranger = Client()
    stranger.force_login(other_user)
    assert stranger.get(url).status_code == 404  # another user's run: not found
    assert (
        alice_client.get(reverse("playground:run", args=[run.pk]))
        .content.decode()
        .count('id="run-devices"')
        == 1
    )

    cycle = run.cycle_records.get(pod="default/inference").cycle
    steps = charts.steps(run_selectors.run_cycle_events(run=run, cycle=cycle))
    why = {s["point"]: s["why"] for s in steps if s["plugin"] == "DynamicResources"}
    assert why["Reserve"] == (
        "Reserve keeps the allocation Filter found on gpu-2: "
        "default/inference-gpu: gpu.example.com/gpu-2/gpu-0 for gpu."
    )
    assert "status.allocation" in why["PreBind"] and "gpu-2/gpu-0" in why["PreBind"]


@pytest.mark.django_db
def test_a_run_without_dra_objects_has_no_device_rows(alice_client, user, small_cluster):
    from builders import record_run

    profile = profile_services.profile_create(owner=user, name="default", config={})
    run, _, _ = record_run(small_cluster, profile)
    data = alice_client.get(reverse("playground:run_devices", args=[run.pk])).json()
    assert data == {"final": True, "terminal": True, "rows": [], "devices": {}}


def test_explanation_tells_a_constraint_apart_from_missing_devices():
    """Two matching GPUs of different models cannot serve a claim that wants one model."""
    node = next(o for o in DEMO if o["kind"] == "Node" and o["metadata"]["name"] == "gpu-1")
    gpu_class = next(o for o in DEMO if o["kind"] == "DeviceClass")
    slice_ = copy.deepcopy(next(o for o in DEMO if o["metadata"]["name"] == "gpu-1-gpu"))
    slice_["spec"]["devices"][1]["attributes"]["model"] = {"string": "h100"}
    claim = copy.deepcopy(next(o for o in DEMO if o["metadata"]["name"] == "trainer-gpus"))
    claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "gpu"
    pod = next(o for o in DEMO if o["metadata"]["name"] == "trainer")
    events: list = []
    Scheduler(None, [node, gpu_class, slice_, claim, pod], on_event=events.append).run_until_idle()
    (matches,) = [e.to_dict() for e in events if e.type == devices.MATCHES]
    assert devices.why_matches(matches) == (
        "Enough matching devices, yet no allocation on gpu-1 (cannot allocate all claims): "
        "a matchAttribute constraint, or requests competing for the same devices."
    )


@pytest.mark.django_db
def test_a_v1beta1_file_is_stored_as_v1_with_a_note_saying_it_was_converted(user):
    text = (ROOT / "tests/scheduler_core/dra/v1beta1_cluster.yaml").read_text()
    cluster = services.cluster_create(owner=user, name="older dra")
    _, report = services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    notes = [str(w) for w in report.warnings]
    assert len(notes) == 3 and all("converted to resource.k8s.io/v1" in n for n in notes)
    line = text.splitlines().index("kind: ResourceSlice")  # its apiVersion: the line above
    assert f"document 4, line {line}: apiVersion: written for resource.k8s.io/v1beta1" in notes[1]
    stored = {m["kind"]: m for m in selectors.cluster_manifests(cluster)}
    assert {m["apiVersion"] for k, m in stored.items() if k != "Pod" and k != "Node"} == {
        "resource.k8s.io/v1"
    }
    assert stored["ResourceSlice"]["spec"]["devices"][0]["capacity"] == {
        "memory": {"value": "40Gi"}
    }
    assert (
        stored["ResourceClaim"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"]
        == "gpu"
    )


@pytest.mark.django_db
def test_a_v1beta1_request_v1beta1_refuses_names_its_field_and_stores_nothing(user):
    text = (ROOT / "tests/scheduler_core/dra/v1beta1_cluster.yaml").read_text()
    broken = text.replace(
        "      deviceClassName: gpu\n", "      deviceClassName: gpu\n      exactly: {}\n"
    )
    cluster = services.cluster_create(owner=user, name="older dra")
    with pytest.raises(manifests.ManifestProblems) as err:
        services.cluster_import_yaml(cluster=cluster, user=user, text=broken)
    assert "spec.devices.requests[0].exactly: is not a v1beta1 field" in str(err.value)
    assert not selectors.cluster_manifests(cluster)
