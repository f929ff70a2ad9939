"""Reading and writing the v1 wire format: strict decoding, errors, round trips."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from scheduler_core.config import (
    ConfigError,
    DynamicResourcesArgs,
    Extender,
    ExtenderManagedResource,
    NodeAffinityArgs,
    PluginConfig,
    decode_config,
    default_config,
    dump_config,
    dump_config_yaml,
    load_config,
)
from scheduler_core.config.types import format_duration, parse_duration

FULL = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 8
percentageOfNodesToScore: 50
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
delayCacheUntilActive: true
leaderElection:
  leaderElect: false
  leaseDuration: 90s
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
  qps: 20.5
enableProfiling: false
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 30
  plugins:
    multiPoint:
      enabled:
      - name: MyPlugin
        weight: 3
      disabled:
      - name: ImageLocality
    score:
      disabled:
      - name: '*'
      enabled:
      - name: NodeResourcesFit
        weight: 4
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResourceGroups: [example.com]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 2}, {name: nvidia.com/gpu, weight: 5}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
  - name: MyPlugin
    args: {threshold: 3, labels: [a, b]}
  - name: Marker
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: zone, operator: In, values: [a]}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
  - name: DynamicResources
    args:
      filterTimeout: 1m30s
- schedulerName: second
  plugins:
    multiPoint:
      disabled:
      - name: DynamicResources
extenders:
- urlPrefix: https://extender:8443/api
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
  bindVerb: bind
  enableHTTPS: true
  tlsConfig: {insecure: true, serverName: extender}
  httpTimeout: 2500ms
  nodeCacheCapable: true
  managedResources: [{name: example.com/foo, ignoredByScheduler: true}, {name: example.com/bar}]
  ignorable: true
"""


def test_full_configuration_loads_as_written() -> None:
    cfg = load_config(FULL)
    assert (cfg.parallelism, cfg.percentage_of_nodes_to_score) == (8, 50)
    assert (cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (2, 20)
    assert cfg.delay_cache_until_active is True
    assert cfg.leader_election["leaseDuration"] == "1m30s"
    assert cfg.extenders == (
        Extender(
            url_prefix="https://extender:8443/api",
            filter_verb="filter",
            prioritize_verb="prioritize",
            weight=5,
            bind_verb="bind",
            enable_https=True,
            tls_config={"insecure": True, "serverName": "extender"},
            http_timeout_seconds=2.5,
            node_cache_capable=True,
            managed_resources=(
                ExtenderManagedResource("example.com/foo", True),
                ExtenderManagedResource("example.com/bar", False),
            ),
            ignorable=True,
        ),
    )
    first = cfg.profiles[0]
    assert first.percentage_of_nodes_to_score == 30
    assert first.args_for("MyPlugin") == {"threshold": 3, "labels": ["a", "b"]}
    assert first.plugin_config[2] == PluginConfig("Marker", None)
    assert first.args_for("DynamicResources") == DynamicResourcesArgs(filter_timeout_seconds=90.0)
    assert first.args_for("NodeAffinity") == NodeAffinityArgs(
        {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            }
        }
    )


@pytest.mark.parametrize("source", [FULL, ""], ids=["full", "defaults"])
@pytest.mark.parametrize(
    "encode",
    [
        pytest.param(lambda cfg: dump_config(cfg), id="dict"),
        pytest.param(lambda cfg: dump_config_yaml(cfg), id="yaml"),
        pytest.param(lambda cfg: json.dumps(dump_config(cfg)), id="json"),
        pytest.param(lambda cfg: json.dumps(dump_config(cfg)).encode(), id="json-bytes"),
    ],
)
def test_load_dump_load_round_trips(source: str, encode: Any) -> None:
    cfg = load_config(source)
    assert load_config(encode(cfg)) == cfg


def test_dump_is_stable_after_one_round_trip() -> None:
    once = dump_config(load_config(FULL))
    assert dump_config(load_config(once)) == once


def test_dump_writes_the_v1_wire_format() -> None:
    dumped = dump_config(load_config(FULL))
    assert (dumped["apiVersion"], dumped["kind"]) == (
        "kubescheduler.config.k8s.io/v1",
        "KubeSchedulerConfiguration",
    )
    assert dumped["extenders"][0]["httpTimeout"] == "2.5s"
    assert dumped["enableProfiling"] is False
    fit = dumped["profiles"][0]["pluginConfig"][0]["args"]
    assert fit["kind"] == "NodeResourcesFitArgs"
    assert fit["scoringStrategy"]["requestedToCapacityRatio"] == {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
    }
    multi = dumped["profiles"][0]["plugins"]["multiPoint"]
    assert {"name": "TaintToleration", "weight": 3} in multi["enabled"]
    assert {"name": "NodePorts"} in multi["enabled"]
    assert multi["disabled"] == [{"name": "ImageLocality"}]
    assert "pluginConfig" in dumped["profiles"][1]


def test_dump_yaml_is_yaml_of_the_dump() -> None:
    cfg = default_config()
    assert yaml.safe_load(dump_config_yaml(cfg)) == dump_config(cfg)


def test_json_text_is_accepted() -> None:
    cfg = load_config('{"parallelism": 4, "profiles": [{"schedulerName": "x"}]}')
    assert (cfg.parallelism, cfg.profiles[0].scheduler_name) == (4, "x")


def test_mapping_source_is_not_modified() -> None:
    source: dict[str, Any] = {"profiles": [{"pluginConfig": [{"name": "Mine", "args": {"a": 1}}]}]}
    cfg = load_config(source)
    assert cfg.profiles[0].args_for("Mine") == {"a": 1}
    assert source == {"profiles": [{"pluginConfig": [{"name": "Mine", "args": {"a": 1}}]}]}


def _decode_errors(source: Any) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(source)
    return [str(e) for e in info.value.errors]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "parallelizm: 3", ["parallelizm: unknown field"], id="unknown-top-level-field"
        ),
        pytest.param(
            "profiles:\n- plugins:\n    scoree: {}\n    score:\n      enabled:\n      - nam: x",
            [
                "profiles[0].plugins.scoree: unknown field",
                "profiles[0].plugins.score.enabled[0].nam: unknown field",
            ],
            id="unknown-nested-fields-all-reported",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      "
            "scoringStrategy:\n"
            "        typ: MostAllocated",
            ["profiles[0].pluginConfig[0].args.scoringStrategy.typ: unknown field"],
            id="unknown-field-in-typed-args",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n"
            "      defaultConstraints:\n      - {maxSkew: 1, topologyKeys: zone}",
            ["profiles[0].pluginConfig[0].args.defaultConstraints[0].topologyKeys: unknown field"],
            id="unknown-field-in-raw-constraint",
        ),
        pytest.param(
            "leaderElection:\n  leaderElection: true",
            ["leaderElection.leaderElection: unknown field"],
            id="unknown-field-in-leader-election",
        ),
        pytest.param(
            "parallelism: '16'",
            ["parallelism: cannot unmarshal string into Go value of type int32"],
            id="string-for-int",
        ),
        pytest.param(
            "parallelism: 1.5",
            ["parallelism: cannot unmarshal number 1.5 into Go value of type int32"],
            id="float-for-int",
        ),
        pytest.param(
            "parallelism: true",
            ["parallelism: cannot unmarshal bool into Go value of type int32"],
            id="bool-for-int",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    score:\n      enabled:\n      - "
            "{name: a, weight: 2147483648}",
            [
                "profiles[0].plugins.score.enabled[0].weight: "
                "cannot unmarshal number 2147483648 into Go value of type int32"
            ],
            id="weight-beyond-int32",
        ),
        pytest.param(
            "profiles: {schedulerName: a}",
            ["profiles: cannot unmarshal object into Go value of type array"],
            id="object-for-array",
        ),
        pytest.param(
            "delayCacheUntilActive: 'yes'",
            ["delayCacheUntilActive: cannot unmarshal string into Go value of type bool"],
            id="string-for-bool",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  httpTimeout: 30",
            ["extenders[0].httpTimeout: cannot unmarshal number 30 into Go value of type string"],
            id="number-for-duration",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  httpTimeout: 30 seconds",
            ['extenders[0].httpTimeout: time: unknown unit " seconds" in duration "30 seconds"'],
            id="bad-duration",
        ),
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1beta3",
            [
                'apiVersion: Unsupported value: "kubescheduler.config.k8s.io/v1beta3": '
                'supported values: "kubescheduler.config.k8s.io/v1"'
            ],
            id="other-api-version",
        ),
        pytest.param(
            "kind: Pod",
            ['kind: Unsupported value: "Pod": supported values: "KubeSchedulerConfiguration"'],
            id="other-kind",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n"
            "      kind: InterPodAffinityArgs",
            [
                "profiles[0].pluginConfig[0].args: args for plugin VolumeBinding were not of type "
                "VolumeBindingArgs.kubescheduler.config.k8s.io, got "
                "InterPodAffinityArgs.kubescheduler.config.k8s.io"
            ],
            id="args-of-another-kind",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: Mine\n    args: [1, 2]",
            [
                "profiles[0].pluginConfig[0].args: cannot unmarshal array into Go value of type "
                "object"
            ],
            id="raw-args-must-be-an-object",
        ),
        pytest.param(
            "- a\n- b",
            ["expected a KubeSchedulerConfiguration object, got array"],
            id="not-an-object",
        ),
    ],
)
def test_strict_decoding_errors(text: str, expected: list[str]) -> None:
    assert _decode_errors(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "parallelism: 4\nprofiles: [\n",
            "invalid YAML or JSON: line 3, column 1: while parsing a flow node "
            "expected the node content, but found '<stream end>'",
            id="unclosed-flow-sequence",
        ),
        pytest.param(
            "parallelism: 4\n  podMaxBackoffSeconds: 3\n",
            "invalid YAML or JSON: line 2, column 23: mapping values are not allowed here",
            id="bad-indentation",
        ),
        pytest.param(
            "parallelism: 4\nprofiles: []\nparallelism: 5\n",
            'invalid YAML or JSON: duplicate field "parallelism" (line 3, column 1)',
            id="repeated-key",
        ),
        pytest.param(
            '{"parallelism": 4',
            None,
            id="unclosed-json-object",
        ),
        pytest.param(
            b"\xff\xfe",
            None,
            id="not-utf8",
        ),
    ],
)
def test_bad_text_gives_a_clear_config_error(text: Any, expected: str | None) -> None:
    errors = _decode_errors(text)
    assert len(errors) == 1
    if expected is not None:
        assert errors[0] == expected
    assert errors[0].startswith(("invalid YAML or JSON", "configuration is not UTF-8"))


def test_decode_config_neither_defaults_nor_validates() -> None:
    cfg = decode_config("parallelism: 0")
    assert cfg.parallelism == 0
    assert cfg.profiles == ()


@pytest.mark.parametrize(
    ("text", "seconds", "canonical"),
    [
        ("0", 0.0, "0s"),
        ("30s", 30.0, "30s"),
        ("90s", 90.0, "1m30s"),
        ("1h", 3600.0, "1h0m0s"),
        ("1.5h", 5400.0, "1h30m0s"),
        ("2500ms", 2.5, "2.5s"),
        ("500ms", 0.5, "500ms"),
        ("1500us", 0.0015, "1.5ms"),
        ("-1m30s", -90.0, "-1m30s"),
        ("+10s", 10.0, "10s"),
    ],
)
def test_go_durations(text: str, seconds: float, canonical: str) -> None:
    assert parse_duration(text) == pytest.approx(seconds)
    assert format_duration(seconds) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("10", 'time: missing unit in duration "10"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        ("s", 'time: invalid duration "s"'),
    ],
)
def test_bad_go_durations(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(") + "$"):
        parse_duration(text)
