"""Forms turn fields into manifests and back, and name the field and line of bad input."""

import pytest
import yaml

from playground.clusters.node_forms import NodeForm
from playground.clusters.pod_forms import PodForm
from playground.inputs import kube
from playground.profiles.forms import SchedulerProfileForm, problem_field


def _node_data(**overrides):
    data = {
        "name": "n1",
        "zone": "zone-a",
        "region": "",
        "labels": "disktype=ssd",
        "taints": "gpu=true:NoSchedule",
        "cpu": "8",
        "memory": "32Gi",
        "pods": "110",
        "ephemeral_storage": "",
        "extended_resources": "nvidia.com/gpu=2",
        "images": "nginx:1.27 1000",
        "count": "1",
        "mode": "form",
        "manifest_yaml": "",
    }
    data.update(overrides)
    return data


def test_node_form_builds_manifest():
    form = NodeForm(_node_data())
    assert form.is_valid(), form.errors
    manifest = form.cleaned_data["manifest"]
    assert manifest["metadata"]["labels"] == {
        "kubernetes.io/hostname": "n1",
        "topology.kubernetes.io/zone": "zone-a",
        "disktype": "ssd",
    }
    assert manifest["spec"]["taints"] == [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    assert manifest["status"]["allocatable"] == {
        "cpu": "8",
        "memory": "32Gi",
        "pods": "110",
        "nvidia.com/gpu": "2",
    }
    assert manifest["status"]["images"] == [{"names": ["nginx:1.27"], "sizeBytes": 1000}]


def test_node_form_round_trips_through_initial():
    form = NodeForm(_node_data())
    assert form.is_valid()
    manifest = form.cleaned_data["manifest"]
    again = NodeForm(
        {
            **NodeForm.initial_from_manifest(manifest),
            "count": "1",
            "mode": "form",
            "manifest_yaml": "",
        }
    )
    assert again.is_valid(), again.errors
    assert again.cleaned_data["manifest"] == manifest


def test_node_form_keeps_fields_it_does_not_show():
    base = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "spec": {"podCIDR": "10.0.0.0/24"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    form = NodeForm(_node_data(manifest_yaml=yaml.safe_dump(base)))
    assert form.is_valid()
    manifest = form.cleaned_data["manifest"]
    assert manifest["spec"]["podCIDR"] == "10.0.0.0/24"
    assert manifest["status"]["conditions"] == base["status"]["conditions"]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("cpu", "four", "invalid quantity"),
        ("taints", "ok=1:NoSchedule\nbad:Sometimes", "line 2: effect 'Sometimes'"),
        ("labels", "a=b\n-bad-=x", "line 2: key '-bad-'"),
        ("extended_resources", "nvidia.com/gpu=lots", "line 1"),
    ],
    ids=["bad-quantity", "bad-taint-effect-line-2", "bad-label-key-line-2", "bad-extended"],
)
def test_node_form_errors_name_field_and_line(field, value, expected):
    form = NodeForm(_node_data(**{field: value}))
    assert not form.is_valid()
    assert expected in " ".join(form.errors[field])


def test_node_yaml_mode_uses_the_yaml_and_reports_its_line():
    text = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: y\nstatus:\n  allocatable:\n    cpu: 2x\n"
    )
    form = NodeForm(_node_data(mode="yaml", manifest_yaml=text, cpu="bad"))
    assert not form.is_valid()
    assert list(form.errors) == ["manifest_yaml"]
    assert "line 7" in form.errors["manifest_yaml"][0]
    assert "status.allocatable.cpu" in form.errors["manifest_yaml"][0]


def _pod_data(**overrides):
    data = {
        "name": "web",
        "namespace": "default",
        "labels": "app=web",
        "c0_name": "app",
        "c0_image": "nginx",
        "c0_cpu_request": "250m",
        "c0_memory_request": "64Mi",
        "c0_cpu_limit": "1",
        "c0_host_ports": "8080",
        "priority_class_name": "high",
        "node_selector": "disktype=ssd",
        "required_node_affinity": "topology.kubernetes.io/zone in (a,b); gpu",
        "preferred_node_affinity": "10: disktype=ssd",
        "pod_anti_affinity": "preferred 100 kubernetes.io/hostname app=web",
        "pod_affinity": "required topology.kubernetes.io/zone app=db",
        "tolerations": "gpu=true:NoSchedule\nnode.kubernetes.io/unreachable:NoExecute for=30",
        "topology_spread": "1 topology.kubernetes.io/zone DoNotSchedule app=web",
        "scheduling_gates": "example.com/wait",
        "scheduler_name": "my-scheduler",
        "mode": "form",
        "manifest_yaml": "",
    }
    data.update(overrides)
    return data


def test_pod_form_lists_split_at_chinese_commas_as_the_prompts_say():
    """The prompts say "用逗号或顿号分隔": a full-width comma or an enumeration comma splits too."""
    form = PodForm(
        _pod_data(
            c0_host_ports="8080，53/UDP",
            c0_other_requests="nvidia.com/gpu=1、example.com/foo=2",
            scheduling_gates="example.com/a、example.com/b，example.com/c",
        )
    )
    assert form.is_valid(), form.errors
    spec = form.cleaned_data["manifest"]["spec"]
    assert [p["hostPort"] for p in spec["containers"][0]["ports"]] == [8080, 53]
    requests = spec["containers"][0]["resources"]["requests"]
    assert (requests["nvidia.com/gpu"], requests["example.com/foo"]) == ("1", "2")
    assert [g["name"] for g in spec["schedulingGates"]] == [
        "example.com/a",
        "example.com/b",
        "example.com/c",
    ]


def test_pod_form_builds_every_scheduling_field():
    form = PodForm(_pod_data())
    assert form.is_valid(), form.errors
    spec = form.cleaned_data["manifest"]["spec"]
    assert spec["containers"][0]["resources"] == {
        "requests": {"cpu": "250m", "memory": "64Mi"},
        "limits": {"cpu": "1"},
    }
    assert spec["containers"][0]["ports"] == [{"containerPort": 8080, "hostPort": 8080}]
    assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]},
                    {"key": "gpu", "operator": "Exists"},
                ]
            }
        ]
    }
    assert spec["affinity"]["podAntiAffinity"] == {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "topologyKey": "kubernetes.io/hostname",
                },
            }
        ]
    }
    assert spec["tolerations"][1] == {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 30,
    }
    assert spec["topologySpreadConstraints"] == [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
    assert spec["schedulingGates"] == [{"name": "example.com/wait"}]
    assert spec["schedulerName"] == "my-scheduler"


def test_pod_form_round_trips_through_initial():
    form = PodForm(_pod_data())
    assert form.is_valid()
    manifest = form.cleaned_data["manifest"]
    again = PodForm(
        {**PodForm.initial_from_manifest(manifest), "mode": "form", "manifest_yaml": ""}
    )
    assert again.is_valid(), again.errors
    assert again.cleaned_data["manifest"] == manifest


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("c0_cpu_request", "1.2.3", "invalid quantity"),
        ("required_node_affinity", "zone in ()", "line 1"),
        ("topology_spread", "0 zone DoNotSchedule", "maxSkew 0"),
        ("tolerations", "a:Never", "effect 'Never'"),
    ],
    ids=["bad-request", "empty-in-set", "zero-skew", "bad-toleration-effect"],
)
def test_pod_form_errors(field, value, expected):
    form = PodForm(_pod_data(**{field: value}))
    assert not form.is_valid()
    assert expected in " ".join(form.errors[field])


def test_requirement_syntax_round_trips():
    text = "a in (x,y); b notin (y,z); c; !d; e=f; g!=h; n > 3"
    expressions = kube.parse_requirements(text.replace(";", "\n"), node=True)
    assert kube.format_requirements(expressions, sep="; ") == text


def _profile_data(prefix="p0", **overrides):
    data = {f"{prefix}-scheduler_name": "default-scheduler"}
    data.update({f"{prefix}-{k}": v for k, v in overrides.items()})
    return data


def test_profile_form_builds_plugins_and_args():
    form = SchedulerProfileForm(
        _profile_data(
            score_enabled="NodeResourcesFit:5\nImageLocality:1",
            score_disabled="*",
            fit_strategy="MostAllocated",
            fit_resources="cpu=2\nmemory=1",
            hard_pod_affinity_weight="3",
            bind_timeout_seconds="30",
            added_affinity="node-role in (worker)",
        ),
        prefix="p0",
    )
    assert form.is_valid(), form.errors
    profile = form.to_profile()
    assert profile["plugins"] == {
        "score": {
            "enabled": [
                {"name": "NodeResourcesFit", "weight": 5},
                {"name": "ImageLocality", "weight": 1},
            ],
            "disabled": [{"name": "*"}],
        }
    }
    args = {e["name"]: e["args"] for e in profile["pluginConfig"]}
    assert args["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "MostAllocated",
        "resources": [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
    }
    assert args["InterPodAffinity"]["hardPodAffinityWeight"] == 3
    assert args["VolumeBinding"]["bindTimeoutSeconds"] == 30
    assert args["NodeAffinity"]["addedAffinity"] == {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "node-role", "operator": "In", "values": ["worker"]}]}
            ]
        }
    }
    initial = SchedulerProfileForm.initial_from_profile(profile)
    assert initial["score_enabled"] == "NodeResourcesFit:5\nImageLocality:1"
    assert initial["fit_resources"] == "cpu=2\nmemory=1"


def test_profile_form_rejects_non_numeric_weight_with_line():
    form = SchedulerProfileForm(_profile_data(score_enabled="A:1\nB:x"), prefix="p0")
    assert not form.is_valid()
    assert form.errors["score_enabled"] == ["line 2: weight 'x' is not a whole number"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("profiles[0].plugins.score.enabled[1].weight", ("p0", "score_enabled", 2)),
        ("profiles[1].schedulerName", ("p1", "scheduler_name", None)),
        (
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight",
            ("p0", "hard_pod_affinity_weight", None),
        ),
        ("percentageOfNodesToScore", ("", "percentage_of_nodes_to_score", None)),
        ("leaderElection.leaseDuration", ("", "", None)),
    ],
)
def test_problem_paths_map_to_fields(path, expected):
    config = {"profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": {}}]}, {}]}
    assert problem_field(config, path) == expected
