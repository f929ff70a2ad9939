"""Malformed older configurations and Policies: a ConfigError naming the field, nothing else."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scheduler_core.config import ConfigError
from scheduler_core.config.migrate import MAX_CUSTOM_PLUGINS, migrate

BETA1 = "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n"
ALPHA1 = "apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n"
BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['x'] * 9)}]\n"
    for prev, name in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True)
)


def _nested(depth: int) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for _ in range(depth):
        doc = {"profiles": [doc]}
    return {"kind": "Policy", "predicates": [doc]}


CASES = [
    ('{"kind": "Policy", "apiVersion": "v1", "predicates": 5}', "predicates", "must be a list"),
    ("kind: Policy\npriorities: x\n", "priorities", "must be a list"),
    ("kind: Policy\npriorities: [{name: A, weight: x}]\n", "priorities[0].weight", "integer"),
    ("kind: Policy\npredicates: [{name: 5}]\n", "predicates[0].name", "must be a string"),
    ("kind: Policy\npredicates: [null]\n", "predicates[0]", "must be an object"),
    ("kind: Policy\npredicates: [{name: R, argument: [1]}]\n", "predicates[0].argument", "object"),
    (
        "kind: Policy\npredicates: [{name: R, argument: {serviceAffinity: {labels: 5}}}]\n",
        "predicates[0].argument.serviceAffinity.labels",
        "list of strings",
    ),
    ("kind: Policy\nextenders: 5\n", "extenders", "must be a list"),
    (
        "kind: Policy\nextenders: [{urlPrefix: 'http://x', httpTimeout: true}]\n",
        "extenders[0].httpTimeout",
        "must be a duration",
    ),
    (
        "kind: Policy\nextenders: [{urlPrefix: 'http://x', httpTimeout: abc}]\n",
        "extenders[0].httpTimeout",
        "invalid duration",
    ),
    (
        "kind: Policy\npriorities: [{name: R, weight: 1, argument: "
        "{requestedToCapacityRatioArguments: {shape: 5}}}]\n",
        "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape",
        "refuses the result",
    ),
    (BETA1 + "profiles: 5\n", "profiles", "must be a list"),
    (BETA1 + "profiles: [null]\n", "profiles[0]", "must be an object"),
    (BETA1 + "profiles: [{plugins: [1]}]\n", "profiles[0].plugins", "must be an object"),
    (BETA1 + "profiles: [{plugins: {score: [1]}}]\n", "profiles[0].plugins.score", "object"),
    (
        BETA1 + "profiles: [{plugins: {score: {disabled: 5}}}]\n",
        "profiles[0].plugins.score.disabled",
        "must be a list",
    ),
    (
        BETA1 + "profiles: [{plugins: {score: {enabled: [{name: X, weight: x}]}}}]\n",
        "profiles[0].plugins.score.enabled[0].weight",
        "integer",
    ),
    (
        BETA1 + "profiles: [{plugins: {score: {enabled: [{name: 5}]}}}]\n",
        "profiles[0].plugins.score.enabled[0].name",
        "must be a string",
    ),
    (
        BETA1 + "profiles: [{pluginConfig: [{name: RequestedToCapacityRatio, args: [1]}]}]\n",
        "profiles[0].pluginConfig[0].args",
        "must be an object",
    ),
    (ALPHA1 + "leaderElection: [1]\n", "leaderElection", "must be an object"),
    (ALPHA1 + "algorithmSource: x\n", "algorithmSource", "must be an object"),
    (ALPHA1 + "hardPodAffinitySymmetricWeight: x\n", "hardPodAffinitySymmetricWeight", "integer"),
    ("apiVersion: [1]\nkind: KubeSchedulerConfiguration\n", "apiVersion", "unknown"),
    ("kind: [1]\n", "kind", "not a scheduler configuration"),
    ('{"kind": "Policy", "predicates": ' + "[" * 800 + "]" * 800 + "}", "", "nested deeper"),
    ("[" * 10_000 + "]" * 10_000, "", "nested deeper"),
    (BETA1 + "profiles: " + "[" * 900 + "]" * 900, "line 3", "nested deeper"),
    (BETA1 + "profiles: " + "[" * 10_000 + "]" * 10_000, "line 3", "nested deeper"),
    ("a:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(900)), "line 64", "nested deeper"),
    (BOMB, "line 1", "aliases are expanded"),
    (
        json.dumps({"kind": "Policy", "predicates": [{"name": f"P{i}"} for i in range(5000)]}),
        "predicates",
        "more than 500 items",
    ),
    (
        json.dumps(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1beta1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {"plugins": {"filter": {"enabled": [{"name": f"P{i}"} for i in range(400)]}}}
                ],
            }
        ),
        "profiles",
        f"400 plugins are not in-tree; at most {MAX_CUSTOM_PLUGINS}",
    ),
    (
        json.dumps({"kind": "Policy", "predicates": [{"name": f"P{i}"} for i in range(60)]}),
        "profiles",
        "60 plugins are not in-tree",
    ),
    (BETA1 + "profiles: [" + ", ".join(["{}"] * 51) + "]\n", "profiles", "more than 50"),
    ("profiles: [\n", "line 2", "invalid YAML"),
    ("kind: Policy\nhardPodAffinitySymmetricWeight: " + "9" * 5000 + "\n", "", "invalid YAML"),
    ('{"kind": "Policy", "hardPodAffinitySymmetricWeight": ' + "9" * 5000 + "}", "", "JSON"),
    ('{"kind": "Policy",\n\t"predicates": [}', "line 2", "invalid JSON"),
]


@pytest.mark.parametrize(("text", "path", "words"), CASES, ids=[c[1] or c[2] for c in CASES])
def test_malformed_input_is_a_config_error_naming_the_field(
    text: str, path: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        migrate(text)
    assert any(e.path == path and words in e.message for e in caught.value.errors), (
        caught.value.errors
    )


def test_a_parsed_mapping_nested_ten_thousand_deep_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="nested deeper than 64 levels"):
        migrate(_nested(10_000))


def test_a_tab_indented_yaml_file_says_tabs_indent_json_only() -> None:
    with pytest.raises(ConfigError, match="tabs indent JSON only"):
        migrate("kind: Policy\npredicates:\n\t- name: HostName\n")
