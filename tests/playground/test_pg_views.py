"""HTTP: permissions (404, never 403), sharing, CSRF, uploads, import and profile pages."""

import re

import pytest
import yaml
from builders import make_node, make_pod
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.lessons.loader import course
from playground.models import Cluster, Node, Profile
from playground.profiles import services as profile_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def bobs_cluster(other_user):
    cluster = services.cluster_create(owner=other_user, name="bob's")
    services.node_save(cluster=cluster, user=other_user, manifest=make_node("n1"))
    services.pod_save(cluster=cluster, user=other_user, manifest=make_pod("p1"))
    return cluster


@pytest.mark.parametrize(
    "url_name,args,method",
    [
        ("playground:cluster", [], "get"),
        ("playground:cluster_export", [], "get"),
        ("playground:cluster_import", [], "get"),
        ("playground:cluster_import", [], "post"),
        ("playground:cluster_edit", [], "post"),
        ("playground:cluster_delete", [], "post"),
        ("playground:cluster_share", [], "post"),
        ("playground:node_new", [], "post"),
        ("playground:node_edit", ["n1"], "get"),
        ("playground:node_delete", ["n1"], "post"),
        ("playground:pod_edit", ["default", "p1"], "get"),
        ("playground:pod_delete", ["default", "p1"], "post"),
    ],
)
def test_another_users_cluster_is_a_404(alice_client, bobs_cluster, url_name, args, method):
    url = reverse(url_name, args=[bobs_cluster.pk, *args])
    response = getattr(alice_client, method)(url, {"name": "x", "manifests": "kind: Node"})
    assert response.status_code == 404
    assert Node.objects.filter(cluster=bobs_cluster).count() == 1
    assert Cluster.objects.get(pk=bobs_cluster.pk).name == "bob's"


def test_another_users_profile_is_a_404(alice_client, other_user):
    profile = profile_services.profile_create(
        owner=other_user, name="bp", config={"profiles": [{"schedulerName": "x"}]}
    )
    assert alice_client.get(reverse("playground:profile", args=[profile.pk])).status_code == 404
    assert (
        alice_client.get(reverse("playground:profile_export", args=[profile.pk])).status_code == 404
    )


def test_home_lists_own_and_demo_clusters_only(alice_client, user, bobs_cluster):
    demo_load()
    services.cluster_create(owner=user, name="mine")
    page = alice_client.get("/").content.decode()
    assert "mine" in page and "Three zones" in page
    assert "bob&#x27;s" not in page


def test_home_folds_the_course_clusters_and_profiles_apart(client):
    demo_load()
    page = client.get("/").content.decode()
    main_list = page.split('id="clusters"')[1].split("</table>")[0]
    folded = page.split('id="lesson-clusters"')[1].split("</details>")[0]
    assert "Three zones" in main_list and "Lesson 01" not in main_list
    assert "Lesson 01: The scheduling cycle at a glance" in folded and "Three zones" not in folded
    profiles = page.split('id="profiles"')[1].split("</table>")[0]
    lesson_profiles = page.split('id="lesson-profiles"')[1].split("</details>")[0]
    assert "Lesson 01" not in profiles and "Lesson 01" in lesson_profiles


def test_anonymous_reads_demo_but_must_log_in_to_edit(client):
    demo_load()
    demo = Cluster.objects.get(name="Three zones")
    before = Cluster.objects.count()  # the demo clusters and one per lesson
    assert client.get(reverse("playground:cluster", args=[demo.pk])).status_code == 200
    response = client.post(reverse("playground:node_new", args=[demo.pk]), {"name": "x"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert Cluster.objects.count() == before


def test_share_link_gives_read_only_access(client, other_user, bobs_cluster):
    services.cluster_set_sharing(cluster=bobs_cluster, user=other_user, shared=True)
    page = client.get(reverse("playground:shared_cluster", args=[bobs_cluster.share_token]))
    assert page.status_code == 200
    assert "read-only" in page.content.decode()
    assert "edit</a>" not in page.content.decode()
    export = client.get(
        reverse("playground:shared_cluster_export", args=[bobs_cluster.share_token])
    )
    assert "name: n1" in export.content.decode()
    services.cluster_set_sharing(cluster=bobs_cluster, user=other_user, shared=False)
    old = reverse("playground:shared_cluster", args=["6f1d3c1e-6a4c-4c57-9d1c-4b0f9c7a2e11"])
    assert client.get(old).status_code == 404


def test_forms_require_csrf(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(reverse("playground:cluster_new"), {"name": "x"})
    assert response.status_code == 403
    assert Cluster.objects.count() == 0
    page = client.get(reverse("playground:cluster_new")).content.decode()
    assert "csrfmiddlewaretoken" in page


def test_signup_then_create_cluster_with_yaml(client):
    response = client.post(
        reverse("playground:signup"),
        {
            "username": "carol",
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )
    assert response.status_code == 302
    text = yaml.safe_dump_all([make_node("a"), make_node("b")])
    response = client.post(reverse("playground:cluster_new"), {"name": "c", "manifests": text})
    cluster = Cluster.objects.get(name="c")
    assert response["Location"] == reverse("playground:cluster", args=[cluster.pk])
    assert cluster.owner.username == "carol"
    assert list(cluster.nodes.values_list("name", flat=True)) == ["a", "b"]


def test_import_error_shows_line_and_stores_nothing(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    text = yaml.safe_dump_all([make_node("a"), make_pod("p", memory="12 Gi")], sort_keys=False)
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"manifests": text}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "document 2" in page and "spec.containers[0].resources.requests.memory" in page
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "12 Gi" in t)
    assert f"line {line}" in page
    assert cluster.nodes.count() == 0 and cluster.pods.count() == 0


def test_oversized_upload_is_refused(alice_client, user, settings):
    settings.PLAYGROUND_IMPORT_MAX_BYTES = 200
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("big.yaml", yaml.safe_dump(make_node("a")).encode() * 5)
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload}
    )
    # Dropped by the upload handler while streaming, then explained by the form.
    assert "big.yaml is over the limit; uploads are limited to 200 bytes" in (
        response.content.decode()
    )
    assert cluster.nodes.count() == 0


def test_upload_imports_file(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("nodes.yaml", yaml.safe_dump(make_node("up")).encode())
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload}
    )
    assert response.status_code == 302
    assert cluster.nodes.get().name == "up"


def test_node_form_bulk_add(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    response = alice_client.post(
        reverse("playground:node_new", args=[cluster.pk]),
        {
            "name": "w",
            "cpu": "4",
            "memory": "8Gi",
            "pods": "110",
            "count": "10",
            "mode": "form",
            "manifest_yaml": "",
        },
    )
    assert response.status_code == 302
    assert cluster.nodes.count() == 10


def test_manifest_sync_converts_both_ways(alice_client):
    url = reverse("playground:manifest_sync", args=["node"])
    body = alice_client.post(
        url, {"direction": "to_yaml", "name": "s1", "cpu": "2", "taints": "a=b:NoSchedule"}
    ).json()
    manifest = yaml.safe_load(body["yaml"])
    assert manifest["spec"]["taints"] == [{"key": "a", "value": "b", "effect": "NoSchedule"}]
    back = alice_client.post(url, {"direction": "to_form", "manifest_yaml": body["yaml"]}).json()
    assert back["fields"]["taints"] == "a=b:NoSchedule"
    assert back["fields"]["cpu"] == "2"
    bad = alice_client.post(url, {"direction": "to_yaml", "name": "s1", "cpu": "x"}).json()
    assert "cpu" in bad["errors"]


def _profile_post(**overrides):
    data = {
        "name": "mine",
        "description": "",
        "mode": "form",
        "profile_count": "1",
        "config_yaml": "",
        "extenders": "",
        "p0-scheduler_name": "default-scheduler",
        "action": "save",
    }
    data.update(overrides)
    return data


def test_profile_create_and_validation_message_next_to_field(alice_client, user):
    url = reverse("playground:profile_new")
    response = alice_client.post(
        url,
        _profile_post(
            **{"p0-score_enabled": "NodeResourcesFit:3", "p0-hard_pod_affinity_weight": "500"}
        ),
    )
    assert response.status_code == 200
    assert Profile.objects.count() == 0
    entry = response.context["entries"][0]
    assert "not in valid range [0, 100]" in " ".join(entry.errors["hard_pod_affinity_weight"])
    response = alice_client.post(
        url, _profile_post(**{"p0-score_enabled": "NodeResourcesFit:3\nNoSuchPlugin"})
    )
    expected = (
        'line 2: profiles[0].plugins.score.enabled[1].name: plugin "NoSuchPlugin" does not exist'
    )
    assert expected in response.context["entries"][0].errors["score_enabled"]
    response = alice_client.post(url, _profile_post(**{"p0-score_enabled": "NodeResourcesFit:3"}))
    assert response.status_code == 302
    profile = Profile.objects.get(owner=user)
    assert profile.config["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 3}
    ]


def test_profile_effective_api_shows_defaults_and_problems(alice_client):
    url = reverse("playground:profile_effective")
    body = alice_client.post(url, _profile_post(**{"p0-score_enabled": "ImageLocality:7"})).json()
    assert body["ok"] is True
    effective = yaml.safe_load(body["effective_yaml"])
    assert effective["profiles"][0]["pluginConfig"]
    bad = alice_client.post(url, _profile_post(percentage_of_nodes_to_score="150")).json()
    assert bad["ok"] is False
    assert bad["problems"][0]["field"] == "percentage_of_nodes_to_score"
    assert "150" in bad["problems"][0]["message"]


def test_editing_demo_profile_saves_a_copy(alice_client, user):
    demo_load()
    demo = Profile.objects.get(name="Bin-packing")
    original = dict(demo.config)
    response = alice_client.post(
        reverse("playground:profile", args=[demo.pk]),
        _profile_post(name="My bin-packing", **{"p0-score_enabled": "NodeResourcesFit:9"}),
    )
    assert response.status_code == 302
    copy = Profile.objects.get(owner=user)
    assert copy.copied_from == demo
    demo.refresh_from_db()
    assert demo.config == original


def test_profile_yaml_mode_reports_yaml_line(alice_client):
    response = alice_client.post(
        reverse("playground:profile_new"),
        _profile_post(mode="yaml", config_yaml="profiles:\n  - schedulerName: a\n   bad: [\n"),
    )
    assert response.status_code == 200
    assert "line 3" in " ".join(response.context["top"].errors["config_yaml"])
    assert Profile.objects.count() == 0


def test_profile_effective_in_yaml_mode_returns_form_fields(alice_client):
    config = {
        "profiles": [
            {
                "schedulerName": "s",
                "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 4}]}},
                "pluginConfig": [
                    {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 9}}
                ],
            }
        ]
    }
    body = alice_client.post(
        reverse("playground:profile_effective"),
        _profile_post(name="", mode="yaml", config_yaml=yaml.safe_dump(config)),
    ).json()
    assert body["ok"] is True
    assert body["fields"]["p0-score_enabled"] == "ImageLocality:4"
    assert body["fields"]["p0-hard_pod_affinity_weight"] == 9
    assert body["fields"]["p0-scheduler_name"] == "s"


def test_workload_form_creates_controller_and_replicas(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    response = alice_client.post(
        reverse("playground:workload_new", args=[cluster.pk]),
        {
            "name": "api",
            "namespace": "default",
            "labels": "app=api",
            "c0_name": "api",
            "c0_image": "api:1",
            "c0_cpu_request": "200m",
            "replicas": "4",
            "workload_kind": "StatefulSet",
            "mode": "form",
            "manifest_yaml": "",
        },
    )
    assert response.status_code == 302
    assert sorted(cluster.pods.values_list("name", flat=True)) == [f"api-{i}" for i in range(4)]
    assert cluster.kube_objects.get().kind == "StatefulSet"


def test_kubectl_get_output_imports_without_spurious_warnings(alice_client, user):
    """A realistic `kubectl get nodes,pods -A -o yaml` imports cleanly."""
    node = make_node("kind-worker", zone="a")
    node["metadata"].update(
        {
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "resourceVersion": "123",
            "uid": "0b7e6d8c-0000-0000-0000-000000000001",
        }
    )
    node["spec"].update({"podCIDR": "10.244.1.0/24", "providerID": "kind://docker/kind"})
    node["status"].update(
        {
            "conditions": [{"type": "Ready", "status": "True"}],
            "nodeInfo": {"kubeletVersion": "v1.35.0"},
            "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        }
    )
    pod = make_pod("coredns-1", namespace="kube-system", node_name="kind-worker")
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "coredns-7db6d8ff4d",
            "uid": "x",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    pod["spec"].update(
        {
            "dnsPolicy": "Default",
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 2000000000,
            "priorityClassName": "system-cluster-critical",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "serviceAccountName": "coredns",
            "terminationGracePeriodSeconds": 30,
        }
    )
    pod["spec"]["containers"][0].update(
        {
            "imagePullPolicy": "IfNotPresent",
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "ports": [{"containerPort": 53, "name": "dns", "protocol": "UDP"}],
        }
    )
    pod["status"].update(
        {
            "qosClass": "Burstable",
            "podIP": "10.244.1.2",
            "hostIP": "172.18.0.2",
            "startTime": "2024-05-01T10:00:00Z",
        }
    )
    text = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [node, pod],
            "metadata": {"resourceVersion": ""},
        }
    )
    cluster, report = services.cluster_import_yaml(
        cluster=services.cluster_create(owner=user, name="kind"), user=user, text=text
    )
    assert report.warnings == []
    assert report.counts == {"Node": 1, "Pod": 1}
    assert cluster.pods.get().node_name == "kind-worker"


def test_add_profile_then_save_two_profiles_with_an_extender(alice_client, user):
    url = reverse("playground:profile_new")
    response = alice_client.post(url, _profile_post(action="add_profile"))
    entries = response.context["entries"]
    assert [e.prefix for e in entries] == ["p0", "p1"]
    assert 'name="p1-scheduler_name"' in response.content.decode()
    data = _profile_post(
        profile_count="2",
        extenders="- urlPrefix: http://extender:8888\n  filterVerb: filter\n",
        **{"p1-scheduler_name": "no-preemption", "p1-postFilter_disabled": "DefaultPreemption"},
    )
    response = alice_client.post(url, data)
    assert response.status_code == 302
    config = Profile.objects.get(owner=user).config
    assert [p["schedulerName"] for p in config["profiles"]] == [
        "default-scheduler",
        "no-preemption",
    ]
    assert config["profiles"][1]["plugins"] == {
        "postFilter": {"disabled": [{"name": "DefaultPreemption"}]}
    }
    assert config["extenders"] == [{"urlPrefix": "http://extender:8888", "filterVerb": "filter"}]


def test_duplicate_scheduler_name_and_bad_extender_are_shown_next_to_their_fields(alice_client):
    response = alice_client.post(
        reverse("playground:profile_new"),
        _profile_post(
            profile_count="2",
            extenders="- urlPrefix: http://x\n  prioritizeVerb: p\n  weight: 0\n",
            **{"p1-scheduler_name": "default-scheduler"},
        ),
    )
    assert response.status_code == 200
    assert Profile.objects.count() == 0
    assert "profiles[1].schedulerName" in " ".join(
        response.context["entries"][1].errors["scheduler_name"]
    )
    assert "must have a positive weight" in " ".join(response.context["top"].errors["extenders"])


def test_negative_weight_before_other_score_plugins_is_refused_and_explained(alice_client):
    """Upstream's int64 weight check refuses it; the message says why in words, at the field."""
    url = reverse("playground:profile_new")
    response = alice_client.post(
        url, _profile_post(**{"p0-score_enabled": "TaintToleration:-2\nNodeAffinity:5"})
    )
    assert response.status_code == 200
    assert Profile.objects.count() == 0
    errors = " ".join(response.context["entries"][0].errors["score_enabled"])
    assert "line 1" in errors  # the negative weight's own line
    assert "weight -2 of TaintToleration: kube-scheduler v1.35 refuses it here" in errors
    assert "total score of Score plugins could overflow" in errors
    swapped = alice_client.post(
        url, _profile_post(**{"p0-score_enabled": "NodeAffinity:5\nTaintToleration:-2"})
    )
    assert swapped.status_code == 302


OLD_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1beta2
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 4}]
      disabled: [{name: NodeLabel}]
"""


def test_editor_yaml_pane_takes_an_older_version_and_lists_the_changes(alice_client, user):
    url = reverse("playground:profile_effective")
    body = alice_client.post(url, _profile_post(mode="yaml", config_yaml=OLD_CONFIG)).json()
    assert body["ok"] is True, body["problems"]
    assert body["migration"]["source"] == "kubescheduler.config.k8s.io/v1beta2"
    assert any("default score weights rose in v1beta3" in c for c in body["migration"]["changes"])
    converted = yaml.safe_load(body["config_yaml"])
    assert converted["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    saved = alice_client.post(
        reverse("playground:profile_new"), _profile_post(mode="yaml", config_yaml=OLD_CONFIG)
    )
    assert saved.status_code == 302
    config = Profile.objects.get(owner=user).config
    assert config["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert config["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 4},
        {"name": "InterPodAffinity", "weight": 1},  # the v1beta2 default weights, kept
        {"name": "NodeAffinity", "weight": 1},
        {"name": "TaintToleration", "weight": 1},
    ]


def test_editor_yaml_pane_names_the_field_of_an_older_version_it_cannot_convert(alice_client):
    url = reverse("playground:profile_effective")
    bad = "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n"
    body = alice_client.post(url, _profile_post(mode="yaml", config_yaml=bad + "profiles: 5\n"))
    assert body.json()["ok"] is False
    assert "profiles: must be a list, got number" in str(body.json()["errors"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cluster", "profile"),
    [
        ("Approval gate", "Approval gate"),
        ("Blinking lights", "Custom plugins"),
        ("Three zones", "Default"),
    ],
)
def test_the_run_form_opens_with_the_profile_a_demo_cluster_is_meant_for(
    client, user, cluster, profile
):
    demo_load()
    client.force_login(user)
    stored = Cluster.objects.get(is_demo=True, name=cluster)
    page = client.get(reverse("playground:cluster", args=[stored.pk])).content.decode()
    chosen = re.search(r'<select name="profile" id="run-profile">.*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="\d+" selected>([^<]*)</option>', chosen) == [profile]


@pytest.mark.django_db
def test_a_lesson_cluster_and_a_users_copy_of_a_demo_keep_their_profile(client, user):
    demo_load()
    client.force_login(user)
    lesson = next(lesson for lesson in course() if lesson.slug == "preemption")
    stored = Cluster.objects.get(is_demo=True, name=lesson.cluster_name)
    copy = services.cluster_copy(
        cluster=Cluster.objects.get(is_demo=True, name="Approval gate"), owner=user
    )
    for target, profile in ((stored, lesson.profile_name()), (copy, "Approval gate")):
        page = client.get(reverse("playground:cluster", args=[target.pk])).content.decode()
        chosen = re.search(r'<select name="profile" id="run-profile">.*?</select>', page, re.S)
        assert re.findall(r"selected>([^<]*)</option>", chosen.group(0)) == [profile]
