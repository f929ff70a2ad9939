"""Services: imports are all-or-nothing, round trips, copy-on-edit, profiles, demo content."""

import pytest
import yaml
from builders import make_deployment, make_node, make_pod

from playground.clusters import selectors, services
from playground.demo import demo_load
from playground.inputs.manifests import ManifestProblems
from playground.models import Cluster, KubeObject, Node, Pod, Profile
from playground.profiles import selectors as profile_selectors
from playground.profiles import services as profile_services

pytestmark = pytest.mark.django_db


def _yaml(*objs):
    return yaml.safe_dump_all(objs, sort_keys=False)


def _counts():
    return (
        Cluster.objects.count(),
        Node.objects.count(),
        Pod.objects.count(),
        KubeObject.objects.count(),
        Profile.objects.count(),
    )


@pytest.fixture
def cluster(user):
    return services.cluster_create(owner=user, name="c1")


def test_import_stores_objects_and_indexed_fields(cluster, user):
    text = _yaml(
        make_node("n1", zone="a"),
        make_pod("p1", namespace="ns", node_name="n1"),
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb", "namespace": "ns"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}},
        },
    )
    _, report = services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert report.counts == {"Node": 1, "Pod": 1, "PodDisruptionBudget": 1}
    pod = cluster.pods.get()
    assert (pod.namespace, pod.name, pod.node_name, pod.phase) == ("ns", "p1", "n1", "Running")
    assert cluster.kube_objects.get().kind == "PodDisruptionBudget"


def test_one_bad_object_stores_nothing(cluster, user):
    before = _counts()
    text = _yaml(make_node("n1"), make_node("n2"), make_pod("p", cpu="1x1"))
    with pytest.raises(ManifestProblems) as info:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert _counts() == before
    problem = info.value.problems[0]
    assert problem.document == 3
    assert problem.path == "spec.containers[0].resources.requests.cpu"


def test_broken_yaml_stores_nothing(cluster, user):
    before = _counts()
    with pytest.raises(ManifestProblems):
        services.cluster_import_yaml(cluster=cluster, user=user, text="kind: Node\n  : - x\n")
    assert _counts() == before


def test_oversized_input_is_refused(cluster, user, settings):
    settings.PLAYGROUND_IMPORT_MAX_BYTES = 100
    with pytest.raises(ManifestProblems, match="limit"):
        services.cluster_import_yaml(cluster=cluster, user=user, text=_yaml(make_node("n1")))
    assert cluster.nodes.count() == 0


def test_name_clash_with_existing_object_stores_nothing(cluster, user):
    services.cluster_import_yaml(cluster=cluster, user=user, text=_yaml(make_node("n1")))
    with pytest.raises(ManifestProblems, match="already exists"):
        services.cluster_import_yaml(
            cluster=cluster, user=user, text=_yaml(make_node("n2"), make_node("n1"))
        )
    assert list(cluster.nodes.values_list("name", flat=True)) == ["n1"]


def test_deployment_import_creates_its_replicaset_and_pods(cluster, user):
    _, report = services.cluster_import_yaml(
        cluster=cluster, user=user, text=_yaml(make_deployment("web", replicas=4))
    )
    assert report.counts == {"Deployment": 1, "ReplicaSet": 1, "Pod": 4}
    assert report.generated == 5


def test_export_then_import_gives_identical_manifests(cluster, user):
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {
                "metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "pg"}]},
            },
        },
    }
    text = _yaml(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        },
        make_node("n1", zone="a", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        make_node("n2", zone="b"),
        make_pod("solo", node_name="n1", priorityClassName="high"),
        make_deployment("web", replicas=3),
        sts,
    )
    services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    exported = selectors.cluster_export_yaml(cluster)
    second = services.cluster_create(owner=user, name="c2")
    services.cluster_import_yaml(cluster=second, user=user, text=exported)
    assert selectors.cluster_manifests(second) == selectors.cluster_manifests(cluster)
    assert selectors.cluster_export_yaml(second).splitlines()[1:] == exported.splitlines()[1:]
    assert second.pods.count() == 6  # solo + 3 web + 2 db, nothing expanded twice


def test_reading_a_clusters_manifests_pauses_the_collector_and_restores_it(user, monkeypatch):
    import gc

    from playground.clusters import selectors as cluster_selectors

    cluster = services.cluster_create(owner=user, name="c1")
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump(make_node("n1")))
    seen: list[bool] = []
    real_loads = cluster_selectors.loads
    monkeypatch.setattr(
        cluster_selectors, "loads", lambda text: seen.append(gc.isenabled()) or real_loads(text)
    )
    assert gc.isenabled()
    assert [m["metadata"]["name"] for m in selectors.cluster_manifests(cluster)] == ["n1"]
    assert seen == [False] and gc.isenabled()
    gc.disable()  # a caller that had it off keeps it off
    try:
        selectors.cluster_manifests(cluster)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_editing_a_demo_cluster_edits_a_private_copy(user):
    demo_load()
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    demo_nodes = demo.nodes.count()
    copy, nodes = services.node_save(cluster=demo, user=user, manifest=make_node("extra"))
    assert copy.pk != demo.pk
    assert copy.owner == user and copy.copied_from == demo
    assert demo.nodes.count() == demo_nodes
    assert copy.nodes.count() == demo_nodes + 1
    assert copy.pods.count() == demo.pods.count()


def test_bulk_node_save_numbers_names(cluster, user):
    _, nodes = services.node_save(cluster=cluster, user=user, manifest=make_node("w"), count=3)
    assert [n.name for n in nodes] == ["w-1", "w-2", "w-3"]
    assert nodes[2].manifest["metadata"]["labels"]["kubernetes.io/hostname"] == "w-3"


def test_node_replace_keeps_name_unique(cluster, user):
    services.node_save(cluster=cluster, user=user, manifest=make_node("n1"))
    services.node_save(
        cluster=cluster, user=user, manifest=make_node("n1b", cpu="8"), original_name="n1"
    )
    assert list(cluster.nodes.values_list("name", flat=True)) == ["n1b"]


def test_workload_create_makes_deployment_of_n(cluster, user):
    _, report = services.workload_create(
        cluster=cluster, user=user, pod_manifest=make_pod("api", labels={"app": "api"}), replicas=5
    )
    assert report.counts["Pod"] == 5
    assert set(cluster.kube_objects.values_list("kind", flat=True)) == {"Deployment", "ReplicaSet"}


def test_invalid_profile_is_not_stored(user):
    before = _counts()
    with pytest.raises(profile_services.ProfileInvalid) as info:
        profile_services.profile_create(
            owner=user,
            name="bad",
            config={"percentageOfNodesToScore": 150, "profiles": [{"schedulerName": "x"}]},
        )
    assert _counts() == before
    assert [p.path for p in info.value.problems] == ["percentageOfNodesToScore"]


def test_profile_with_unknown_plugin_names_the_plugin(user):
    with pytest.raises(profile_services.ProfileInvalid) as info:
        profile_services.profile_create(
            owner=user,
            name="bad",
            config={
                "profiles": [
                    {
                        "schedulerName": "x",
                        "plugins": {
                            "score": {
                                "enabled": [
                                    {"name": "NodeAffinity", "weight": 2},
                                    {"name": "NoSuchPlugin"},
                                ]
                            }
                        },
                    }
                ]
            },
        )
    assert info.value.problems[0].path == "profiles[0].plugins.score.enabled[1].name"
    assert "NoSuchPlugin" in info.value.problems[0].message


def test_profile_export_is_a_valid_configuration(user):
    from playground import engine

    profile = profile_services.profile_create(
        owner=user,
        name="p",
        config={
            "profiles": [
                {
                    "schedulerName": "binpack",
                    "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 5}]}},
                }
            ]
        },
    )
    exported = yaml.safe_load(profile_selectors.profile_export_yaml(profile))
    assert exported["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert exported["kind"] == "KubeSchedulerConfiguration"
    assert engine.evaluate_config(exported).ok
    effective = yaml.safe_load(profile_selectors.profile_export_yaml(profile, effective=True))
    assert effective["profiles"][0]["schedulerName"] == "binpack"
    assert effective["profiles"][0]["pluginConfig"]  # upstream defaulting filled the args


def test_demo_load_is_idempotent():
    demo_load()
    first = _counts()
    manifests_before = [selectors.cluster_manifests(c) for c in Cluster.objects.order_by("name")]
    demo_load()
    assert _counts() == first
    assert [selectors.cluster_manifests(c) for c in Cluster.objects.order_by("name")] == (
        manifests_before
    )
    assert first[0] >= 3 and first[4] >= 4
