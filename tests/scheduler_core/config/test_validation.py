"""Validation messages, compared byte for byte with what upstream v1.35 prints."""

from __future__ import annotations

import pytest

from scheduler_core.config import (
    ConfigError,
    FieldError,
    KubeSchedulerConfiguration,
    NodeResourcesFitArgs,
    PluginConfig,
    Profile,
    ScoringStrategy,
    decode_config,
    default_config,
    load_config,
    set_defaults,
    validate_config,
    validate_plugin_args,
)

ARGS = "profiles[0].pluginConfig[0].args"
TERM = f"{ARGS}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
LABEL_KEY_NAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def _errors(text: str) -> list[str]:
    return [str(e) for e in validate_config(set_defaults(decode_config(text)))]


def _args(name: str, body: str) -> str:
    """A one-profile configuration whose first pluginConfig entry is ``name`` with ``body``."""
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    return f"profiles:\n- pluginConfig:\n  - name: {name}\n    args:\n{indented}"


def _affinity(expressions: str = "", fields: str = "") -> str:
    body = "addedAffinity:\n  requiredDuringSchedulingIgnoredDuringExecution:\n"
    body += "    nodeSelectorTerms:\n    - matchExpressions:\n"
    body += "".join(
        f"      {line}\n" for line in (expressions or "- {key: a, operator: Exists}").splitlines()
    )
    if fields:
        body += "      matchFields:\n" + "".join(f"      {line}\n" for line in fields.splitlines())
    return _args("NodeAffinity", body)


def test_default_config_is_valid() -> None:
    assert validate_config(default_config()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "parallelism: 0",
            ["parallelism: Invalid value: 0: should be an integer value greater than zero"],
            id="parallelism-must-be-positive",
        ),
        pytest.param(
            "percentageOfNodesToScore: 101",
            ["percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"],
            id="percentage-above-100",
        ),
        pytest.param(
            "profiles:\n- percentageOfNodesToScore: -1",
            ["profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"],
            id="profile-percentage-below-0",
        ),
        pytest.param(
            "podInitialBackoffSeconds: 0\npodMaxBackoffSeconds: 0",
            ["podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"],
            id="initial-backoff-must-be-positive",
        ),
        pytest.param(
            "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4",
            [
                "podMaxBackoffSeconds: Invalid value: 4: "
                "must be greater than or equal to PodInitialBackoffSeconds"
            ],
            id="max-backoff-below-initial",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- schedulerName: a",
            ["profiles[1].schedulerName: Duplicate value: {}"],
            id="duplicate-scheduler-name-prints-upstreams-empty-path-value",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n- {}",
            ["profiles[1].schedulerName: Required value"],
            id="scheduler-name-required-when-several-profiles",
        ),
        pytest.param(
            "profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled:\n"
            "      - name: PrioritySort\n- schedulerName: b",
            [
                'profiles[1].plugins.queueSort: Invalid value: {"Enabled":null,"Disabled":null}: '
                "must be the same for all profiles"
            ],
            id="queue-sort-must-match-across-profiles",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    queueSort:\n      enabled:\n      - name: A\n      - "
            "name: B",
            [
                "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: "
                "only one queue sort plugin can be enabled"
            ],
            id="one-queue-sort-plugin-in-first-profile",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n"
            "      - name: EBSLimits",
            [
                'profiles[0].plugins.filter.enabled[1]: Invalid value: "EBSLimits": was invalid in '
                'version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
                '"kubescheduler.config.k8s.io/v1")'
            ],
            id="removed-plugin-in-an-extension-point",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n    args: {}",
            [
                'profiles[0].pluginConfig[0]: Invalid value: "GCEPDLimits": was invalid in '
                'version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version '
                '"kubescheduler.config.k8s.io/v1")'
            ],
            id="removed-plugin-in-plugin-config",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: CinderLimits",
            [],
            id="removed-plugin-in-multi-point-is-left-to-the-framework-as-upstream-does",
        ),
        pytest.param(
            "profiles:\n- pluginConfig:\n  - name: Foo\n  - name: Foo",
            ['profiles[0].pluginConfig[1]: Duplicate value: "Foo"'],
            id="duplicate-plugin-config",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: A\n      - name: B\n"
            "      - name: A\n        weight: 2",
            ['profiles[0].plugins.score.enabled[2]: Duplicate value: "A"'],
            id="plugin-enabled-twice-at-one-extension-point",
        ),
        pytest.param(
            "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Mine\n"
            "      - name: Mine",
            ['profiles[0].plugins.multiPoint.enabled[20]: Duplicate value: "Mine"'],
            id="plugin-enabled-twice-in-multi-point",
        ),
        pytest.param(
            "leaderElection:\n  resourceLock: endpoints",
            [
                'leaderElection.resourceLock: Invalid value: "endpoints": '
                'resourceLock value must be "leases"'
            ],
            id="leader-election-lock-must-be-leases",
        ),
        pytest.param(
            "leaderElection:\n  leaseDuration: 5s",
            [
                'leaderElection.leaseDuration: Invalid value: "10s": '
                "must be greater than `RenewDeadline`"
            ],
            id="lease-duration-must-exceed-renew-deadline",
        ),
        pytest.param(
            "leaderElection:\n  leaderElect: false\n  leaseDuration: 5s",
            [],
            id="leader-election-settings-unchecked-when-disabled",
        ),
        pytest.param(
            "clientConnection:\n  burst: -1",
            ["clientConnection.burst: Invalid value: -1: must be non-negative"],
            id="client-burst-non-negative",
        ),
    ],
)
def test_configuration_rules(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "extenders:\n- urlPrefix: http://x\n  prioritizeVerb: prioritize",
            ["extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"],
            id="prioritizing-extender-needs-positive-weight",
        ),
        pytest.param(
            "extenders:\n- {urlPrefix: a, bindVerb: bind}\n- {urlPrefix: b, bindVerb: bind}",
            [
                'extenders: Invalid value: "found 2 extenders implementing bind": '
                "only one extender can implement bind"
            ],
            id="only-one-binder",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  managedResources: [{name: example.com/foo}]\n"
            "- urlPrefix: b\n  managedResources: [{name: example.com/foo}]",
            [
                'extenders[1].managedResources[0].name: Invalid value: "example.com/foo": '
                "duplicate extender managed resource name"
            ],
            id="managed-resource-names-unique-across-extenders",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  managedResources: [{name: memory}]",
            [
                'extenders[0].managedResources[0].name: Invalid value: "memory": '
                "is an invalid extended resource name"
            ],
            id="managed-resource-must-be-extended",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  managedResources: [{name: example.com/a b}]",
            [
                'extenders[0].managedResources[0].name: Invalid value: "example.com/a b": '
                f"{LABEL_KEY_NAME_MSG}"
            ],
            id="managed-resource-must-be-qualified-name",
        ),
        pytest.param(
            "extenders:\n- urlPrefix: a\n  weight: -3\n  httpTimeout: 1m30s",
            [],
            id="weight-and-timeout-unchecked-without-prioritize-as-upstream",
        ),
    ],
)
def test_extender_rules(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            _args("DefaultPreemption", "minCandidateNodesPercentage: 101"),
            [
                f"{ARGS}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, "
                "100]"
            ],
            id="preemption-percentage-range",
        ),
        pytest.param(
            _args("DefaultPreemption", "minCandidateNodesAbsolute: -1"),
            [f"{ARGS}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"],
            id="preemption-absolute-range",
        ),
        pytest.param(
            _args(
                "DefaultPreemption", "minCandidateNodesPercentage: 0\nminCandidateNodesAbsolute: 0"
            ),
            [
                f"{ARGS}.minCandidateNodesPercentage: Invalid value: 0: "
                "cannot be zero at the same time as minCandidateNodesAbsolute",
                f"{ARGS}.minCandidateNodesAbsolute: Invalid value: 0: "
                "cannot be zero at the same time as minCandidateNodesPercentage",
            ],
            id="preemption-both-zero",
        ),
        pytest.param(
            _args("InterPodAffinity", "hardPodAffinityWeight: -1"),
            [f"{ARGS}.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"],
            id="hard-pod-affinity-weight-range",
        ),
        pytest.param(
            _args("VolumeBinding", "bindTimeoutSeconds: -1"),
            [
                f"{ARGS}.bindTimeoutSeconds: Invalid value: -1: "
                "invalid BindTimeoutSeconds, should not be a negative value"
            ],
            id="bind-timeout-non-negative",
        ),
        pytest.param(
            _args("VolumeBinding", "shape:\n- {utilization: 0, score: 10}"),
            [
                f'{ARGS}.shape: Invalid value: [{{"Utilization":0,"Score":10}}]: unexpected field '
                "`shape`, remove it or turn on the feature gate StorageCapacityScoring"
            ],
            id="volume-binding-shape-refused-with-gate-off",
        ),
        pytest.param(
            _args(
                "NodeResourcesBalancedAllocation",
                "resources:\n- name: cpu\n- name: cpu\n  weight: 2",
            ),
            [
                f'{ARGS}.resources[1].name: Duplicate value: "cpu"',
                f"{ARGS}.resources[1].weight: Invalid value: 2: must be 1",
            ],
            id="balanced-allocation-unique-names-weight-one",
        ),
        pytest.param(
            _args("DynamicResources", "filterTimeout: -1m30s"),
            [f'{ARGS}.filterTimeout: Invalid value: "-1m30s": must be zero or positive'],
            id="dra-filter-timeout-non-negative",
        ),
        pytest.param(
            _args("DynamicResources", "bindingTimeout: 5m"),
            [
                f"{ARGS}.bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                "DRAResourceClaimDeviceStatus feature gate is disabled"
            ],
            id="dra-binding-timeout-forbidden-with-gate-off",
        ),
        pytest.param(
            _args("NodeResourcesFit", "scoringStrategy:\n  type: Balanced"),
            [
                f'{ARGS}.scoringStrategy.type: Unsupported value: "Balanced": supported values: '
                '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
            ],
            id="fit-strategy-type-supported",
        ),
        pytest.param(
            _args(
                "NodeResourcesFit",
                "scoringStrategy:\n  type: MostAllocated\n  resources:\n  - "
                "{name: cpu, weight: 101}",
            ),
            [
                f"{ARGS}.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight "
                "of cpu not in valid range (0, 100]"
            ],
            id="fit-resource-weight-range",
        ),
        pytest.param(
            _args("NodeResourcesFit", "ignoredResourceGroups: [example.com/foo]"),
            [
                f'{ARGS}.ignoredResourceGroups[0]: Invalid value: "example.com/foo": resource '
                "group name can't contain '/'"
            ],
            id="fit-ignored-group-no-slash",
        ),
        pytest.param(
            _args("NodeResourcesFit", "ignoredResources: ['-bad']"),
            [f'{ARGS}.ignoredResources[0]: Invalid value: "-bad": {LABEL_KEY_NAME_MSG}'],
            id="fit-ignored-resource-is-label-name",
        ),
        pytest.param(
            _args(
                "NodeResourcesFit",
                "scoringStrategy:\n  type: RequestedToCapacityRatio\n  requestedToCapacityRatio:\n"
                "    shape:\n    - {utilization: 50, score: 11}\n    - "
                "{utilization: 40, score: 1}\n"
                "    - {utilization: 101, score: 1}",
            ),
            [
                f"{ARGS}.scoringStrategy.shape[1].utilization: Invalid value: 40: values must be "
                "sorted in increasing order",
                f"{ARGS}.scoringStrategy.shape[0].score: Invalid value: 11: not in valid range "
                "[0, 10]",
                f"{ARGS}.scoringStrategy.shape[2].utilization: Invalid value: 101: not in valid "
                "range [0, 100]",
            ],
            id="fit-shape-sorted-and-in-range",
        ),
        pytest.param(
            _args(
                "NodeResourcesFit",
                "scoringStrategy:\n  type: RequestedToCapacityRatio\n  requestedToCapacityRatio: "
                "{}",
            ),
            [f"{ARGS}.scoringStrategy.shape: Required value: at least one point must be specified"],
            id="fit-shape-needs-a-point",
        ),
    ],
)
def test_plugin_args_rules(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


SPREAD = f"{ARGS}.defaultConstraints"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "defaultingType: Custom",
            [
                f'{ARGS}.defaultingType: Unsupported value: "Custom": supported values: "System", '
                '"List"'
            ],
            id="defaulting-type-supported",
        ),
        pytest.param(
            "defaultConstraints:\n- "
            "{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}",
            [
                f'{ARGS}.defaultingType: Invalid value: "System": when .defaultConstraints are '
                "not empty"
            ],
            id="system-defaulting-refuses-constraints",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- "
            "{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}",
            [f"{SPREAD}[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"],
            id="max-skew-positive",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- "
            "{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}",
            [f"{SPREAD}[0].topologyKey: Required value: can not be empty"],
            id="topology-key-required",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- "
            "{maxSkew: 1, topologyKey: 'a b', whenUnsatisfiable: DoNotSchedule}",
            [f'{SPREAD}[0].topologyKey: Invalid value: "a b": {LABEL_KEY_NAME_MSG}'],
            id="topology-key-is-label-name",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- {maxSkew: 1, topologyKey: zone}",
            [f"{SPREAD}[0].whenUnsatisfiable: Required value: can not be empty"],
            id="when-unsatisfiable-required",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- "
            "{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}",
            [
                f'{SPREAD}[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: '
                '"DoNotSchedule", "ScheduleAnyway"'
            ],
            id="when-unsatisfiable-supported",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n- maxSkew: 1\n  topologyKey: zone\n"
            "  whenUnsatisfiable: DoNotSchedule\n  labelSelector: {matchLabels: {a: b}}",
            [
                f"{SPREAD}[0].labelSelector: Forbidden: constraint must not define a selector, "
                "as they deduced for each pod"
            ],
            id="label-selector-forbidden",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n"
            "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"
            "- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}",
            [f'{SPREAD}[1]: Duplicate value: "{{zone, DoNotSchedule}}"'],
            id="constraints-unique-by-key-and-action",
        ),
        pytest.param(
            "defaultingType: List\ndefaultConstraints:\n"
            "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"
            "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}",
            [],
            id="same-key-different-action-is-fine",
        ),
    ],
)
def test_pod_topology_spread_args_rules(body: str, expected: list[str]) -> None:
    assert _errors(_args("PodTopologySpread", body)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            _affinity("- {key: a, operator: Has, values: [x]}"),
            [
                f'{TERM}.matchExpressions[0].operator: Unsupported value: "Has": supported values: '
                '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
            ],
            id="expression-operator-supported",
        ),
        pytest.param(
            _affinity("- {key: a, operator: In}"),
            [
                f"{TERM}.matchExpressions[0].values: Invalid value: null: "
                "for 'in', 'notin' operators, values set can't be empty"
            ],
            id="in-needs-values",
        ),
        pytest.param(
            _affinity("- {key: a, operator: Exists, values: [x]}"),
            [
                f'{TERM}.matchExpressions[0].values: Invalid value: ["x"]: '
                "values set must be empty for exists and does not exist"
            ],
            id="exists-takes-no-values",
        ),
        pytest.param(
            _affinity("- {key: a, operator: Gt, values: ['1', x]}"),
            [
                f'{TERM}.matchExpressions[0].values: Invalid value: ["1","x"]: '
                "for 'Gt', 'Lt' operators, exactly one value is required",
                f'{TERM}.matchExpressions[0].values[1]: Invalid value: "x": '
                "for 'Gt', 'Lt' operators, the value must be an integer",
            ],
            id="gt-takes-one-integer",
        ),
        pytest.param(
            _affinity("- {key: 'a b', operator: Exists}"),
            [f'{TERM}.matchExpressions[0].key: Invalid value: "a b": {LABEL_KEY_NAME_MSG}'],
            id="expression-key-is-label-key",
        ),
        pytest.param(
            _affinity("- {key: a, operator: In, values: ['b c']}"),
            [
                f'{TERM}.matchExpressions[0].values[0][a]: Invalid value: "b c": a valid label '
                "must "
                "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must "
                "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                "'12345', regex used for validation is "
                "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ],
            id="expression-values-are-label-values",
        ),
        pytest.param(
            _affinity(fields="- {key: metadata.name, operator: Exists}"),
            [
                f'{TERM}.matchFields[0].operator: Unsupported value: "Exists": supported values: '
                '"In", "NotIn"'
            ],
            id="field-operator-in-or-not-in",
        ),
        pytest.param(
            _affinity(fields="- {key: metadata.name, operator: In, values: [a, b]}"),
            [f'{TERM}.matchFields[0].values: Invalid value: ["a","b"]: must have one element'],
            id="field-takes-one-value",
        ),
        pytest.param(
            _args(
                "NodeAffinity",
                "addedAffinity:\n  preferredDuringSchedulingIgnoredDuringExecution:\n"
                "  - weight: 1\n    preference:\n      matchExpressions:\n"
                "      - {key: a, operator: Has}\n"
                "  - weight: 0\n    preference:\n      matchExpressions:\n"
                "      - {key: a, operator: Has}",
            ),
            [
                f"{ARGS}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
                '.matchExpressions[0].operator: Unsupported value: "Has": supported values: '
                '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
            ],
            id="preferred-terms-checked-unless-weight-zero",
        ),
    ],
)
def test_node_affinity_args_rules(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(
            "parallelism: -1\npercentageOfNodesToScore: 200\nprofiles:\n- pluginConfig:\n  - "
            "name: X\n  - name: X\n"
        )
    assert [str(e) for e in info.value.errors] == [
        "parallelism: Invalid value: -1: should be an integer value greater than zero",
        'profiles[0].pluginConfig[1]: Duplicate value: "X"',
        "percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]",
    ]
    assert str(info.value) == "\n".join(str(e) for e in info.value.errors)


def test_field_error_prints_path_then_message() -> None:
    assert (
        str(FieldError("parallelism", "Invalid value: 0: x")) == "parallelism: Invalid value: 0: x"
    )


def test_no_profiles_is_required() -> None:
    assert [str(e) for e in validate_config(KubeSchedulerConfiguration())] == [
        "profiles: Required value"
    ]


def test_args_of_the_wrong_type_must_match_the_plugin() -> None:
    cfg = set_defaults(
        KubeSchedulerConfiguration(
            profiles=(Profile(plugin_config=(PluginConfig("NodeAffinity", {"x": 1}),)),)
        )
    )
    assert [str(e) for e in validate_config(cfg)] == [
        'profiles[0].pluginConfig[0].args: Invalid value: {"x":1}: has to match plugin args'
    ]


def test_validate_plugin_args_paths_start_at_the_args_fields() -> None:
    args = NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(type="Nope"))
    assert [str(e) for e in validate_plugin_args("NodeResourcesFit", args)] == [
        'scoringStrategy.type: Unsupported value: "Nope": supported values: '
        '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
    ]


def test_validate_plugin_args_ignores_unknown_plugins() -> None:
    assert validate_plugin_args("Mine", {"anything": True}) == []
