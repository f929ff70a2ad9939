"""Configurations from public repositories (migrate_corpus/README.md) brought to v1 and run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scheduler_core.config import load_config
from scheduler_core.config.migrate import Migration, migrate
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry
from scheduler_core.record.events import (
    CycleEnd,
    Filter,
)

CORPUS = Path(__file__).parent / "migrate_corpus"
FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".yaml", ".json"))

# A pass-through stand-in for each plugin that is not in-tree, with the methods of the points
# the configuration enables it at (multiPoint: PreFilter, Filter and Score).
_METHODS: dict[str, dict[str, Any]] = {
    "queueSort": {"less": lambda self, a, b: False},
    "preFilter": {"pre_filter": lambda self, state, pod, nodes: (None, SUCCESS)},
    "filter": {"filter": lambda self, state, pod, node: SUCCESS},
    "postFilter": {"post_filter": lambda self, s, p, m: (None, Status(Code.UNSCHEDULABLE))},
    "preScore": {"pre_score": lambda self, state, pod, nodes: SUCCESS},
    "score": {"score": lambda self, state, pod, node: (0, SUCCESS)},
    "reserve": {
        "reserve": lambda self, state, pod, node: SUCCESS,
        "unreserve": lambda self, state, pod, node: None,
    },
    "permit": {"permit": lambda self, state, pod, node: (SUCCESS, 0.0)},
    "preBind": {"pre_bind": lambda self, state, pod, node: SUCCESS},
    "postBind": {"post_bind": lambda self, state, pod, node: None},
}
_METHODS["multiPoint"] = {**_METHODS["preFilter"], **_METHODS["filter"], **_METHODS["score"]}


def _stand_ins(result: Migration) -> Registry:
    methods: dict[str, dict[str, Any]] = {name: {} for name in result.custom_plugins}
    for profile in result.config["profiles"]:
        for point, pset in (profile.get("plugins") or {}).items():
            for entry in pset.get("enabled") or []:
                if entry["name"] in methods:
                    methods[entry["name"]].update(_METHODS.get(point, {}))
    registry = Registry()
    for name, body in methods.items():
        cls = type(name, (), {"name": name, **body})
        registry.register(name, lambda args, handle, cls=cls: cls())
    return registry


def _node(name: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": zone,
                "region": "r1",
                "zone": zone,
            },
        },
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def _pod(name: str, scheduler: str, **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "c",
        "image": "nginx",
        "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}},
    }
    if "ports" in spec:
        container["ports"] = spec.pop("ports")
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {"schedulerName": scheduler, "containers": [container], **spec},
    }


def _cluster(schedulers: list[str]) -> list[dict[str, Any]]:
    objects = [_node(f"node-{z}", z) for z in ("a", "b", "c")]
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
    for i, name in enumerate(schedulers):
        objects += [
            _pod(f"plain-{i}", name),
            _pod(f"host-port-{i}", name, ports=[{"containerPort": 80, "hostPort": 8080}]),
            _pod(f"spread-{i}", name, topologySpreadConstraints=spread),
            _pod(f"zone-b-{i}", name, nodeSelector={"zone": "b"}),
            _pod(f"scratch-{i}", name, volumes=[{"name": "tmp", "emptyDir": {}}]),
        ]
    return objects


@pytest.mark.parametrize("name", FILES)
def test_corpus_file_migrates_to_an_accepted_v1_configuration_that_schedules(name: str) -> None:
    result = migrate((CORPUS / name).read_text())
    config = load_config(result.config)
    schedulers = [p.scheduler_name for p in config.profiles]
    registry = in_tree_registry().merged(_stand_ins(result))
    # Extenders would be called over HTTP; the corpus checks the configuration, not them.
    events: list[Any] = []
    sched = Scheduler(
        config, _cluster(schedulers), registry=registry, extenders=[], on_event=events.append
    )
    sched.run_until_idle()
    ends = [e.result for e in events if isinstance(e, CycleEnd)]
    assert ends == ["Scheduled"] * len(ends)
    assert not [e for e in events if isinstance(e, Filter) and "Error" in e.codes]
    outcomes = {key: (o.node, o.message) for key, o in sched.outcomes.items()}
    assert len(outcomes) == 5 * len(schedulers)
    assert {key: node for key, (node, _) in outcomes.items() if node is None} == {}
    for i in range(len(schedulers)):
        assert outcomes[f"default/zone-b-{i}"][0] == "node-b"


def _plugins(result: Migration, point: str, profile: int = 0) -> list[str]:
    pset = result.config["profiles"][profile].get("plugins", {}).get(point, {})
    return [e["name"] for e in pset.get("enabled", [])]


@pytest.mark.parametrize(
    "name",
    [
        "policy-kubernetes-examples-tabs.json",
        "policy-kubernetes-examples-extender-tabs.json",
        "policy-openshift-region-zone.yaml",
        "policy-gpushare-extender.json",
    ],
)
def test_policy_no_disk_conflict_enables_volume_restrictions_at_pre_filter_and_filter(
    name: str,
) -> None:
    result = migrate((CORPUS / name).read_text())
    assert "VolumeRestrictions" in _plugins(result, "filter")
    assert "VolumeRestrictions" in _plugins(result, "preFilter")
    assert any("VolumeRestrictions enabled at preFilter too" in c for c in result.changes)


def test_tab_indented_policy_with_extender_keeps_its_extender_in_v1_spelling() -> None:
    result = migrate((CORPUS / "policy-kubernetes-examples-extender-tabs.json").read_text())
    assert result.config["extenders"] == [
        {
            "urlPrefix": "http://127.0.0.1:12346/scheduler",
            "filterVerb": "filter",
            "bindVerb": "bind",
            "prioritizeVerb": "prioritize",
            "weight": 5,
            "nodeCacheCapable": False,
            "enableHTTPS": False,
        }
    ]


def test_policy_extender_nanoseconds_become_a_duration_and_its_api_version_goes() -> None:
    result = migrate((CORPUS / "policy-stork-extender.json").read_text())
    (extender,) = result.config["extenders"]
    assert extender["httpTimeout"] == "300s"
    assert "apiVersion" not in extender
    assert load_config(result.config).extenders[0].http_timeout_seconds == 300


def test_openshift_policy_drops_node_condition_predicates_and_service_affinity() -> None:
    result = migrate((CORPUS / "policy-openshift-region-zone.yaml").read_text())
    assert "ServiceAffinity" not in _plugins(result, "filter")
    assert any("CheckNodeMemoryPressure dropped" in c for c in result.changes)
    assert any("ServiceAffinity has no v1 equivalent" in c for c in result.changes)


def test_multi_document_file_is_read_as_its_first_document() -> None:
    result = migrate((CORPUS / "v1beta2-website-my-scheduler-multidoc.yaml").read_text())
    assert [p["schedulerName"] for p in result.config["profiles"]] == ["my-scheduler"]
    assert result.config["leaderElection"] == {"leaderElect": False}


def test_v1beta1_default_constraints_keep_list_defaulting() -> None:
    result = migrate((CORPUS / "v1beta1-website-default-constraints.yaml").read_text())
    (entry,) = result.config["profiles"][0]["pluginConfig"]
    assert entry["args"]["defaultingType"] == "List"
    spread = load_config(result.config).profiles[0].plugin_config[0]
    assert spread.name == "PodTopologySpread"


def test_v1alpha1_leader_election_is_renamed_and_its_lock_is_leases() -> None:
    result = migrate((CORPUS / "v1alpha1-policy-configmap-leader-election.yaml").read_text())
    election = result.config["leaderElection"]
    assert election["resourceName"] == "kube-scheduler"
    assert election["resourceNamespace"] == "kube-system"
    assert election["resourceLock"] == "leases"
    assert "lockObjectName" not in election
    assert "healthzBindAddress" not in result.config
    assert result.config["percentageOfNodesToScore"] == 50


def test_v1beta3_disabling_a_plugin_gone_since_v1beta2_is_dropped() -> None:
    result = migrate((CORPUS / "v1beta3-openshift-secondary-scheduler.yaml").read_text())
    score = result.config["profiles"][0]["plugins"]["score"]
    assert score == {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}


def test_v1alpha2_unreserve_becomes_reserve_and_queue_sort_stays_custom() -> None:
    result = migrate((CORPUS / "v1alpha2-scheduler-plugins-coscheduling.yaml").read_text())
    assert _plugins(result, "reserve") == ["Coscheduling"]
    assert _plugins(result, "queueSort") == ["Coscheduling"]
    assert "unreserve" not in result.config["profiles"][0]["plugins"]
    assert result.custom_plugins == ("Coscheduling",)
