"""Fuzz: KubeSchedulerConfiguration decoding, defaulting and validation raise only ConfigError.

Documents start from the defaults as written out, a configuration that sets every kind of
field (two profiles, every scoring strategy, extenders, spread constraints, added affinity) and
the course's profiles; a configuration that loads must write out and load back to itself.
"""

from __future__ import annotations

import pytest
from fuzzing import budget, course_documents, mutated, nested, odd_documents, to_text
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.config import (
    ConfigError,
    FieldError,
    default_config,
    dump_config,
    load_config,
    validate_config,
)
from scheduler_core.config.io import decode_config

RICH = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "parallelism": 8,
    "percentageOfNodesToScore": 40,
    "podInitialBackoffSeconds": 2,
    "podMaxBackoffSeconds": 20,
    "leaderElection": {"leaderElect": False, "leaseDuration": "30s"},
    "clientConnection": {"qps": 10, "burst": 20},
    "extenders": [
        {
            "urlPrefix": "http://extender.example.com/scheduler",
            "filterVerb": "filter",
            "prioritizeVerb": "prioritize",
            "weight": 2,
            "httpTimeout": "5s",
            "nodeCacheCapable": True,
            "managedResources": [{"name": "example.com/gpu", "ignoredByScheduler": True}],
            "ignorable": True,
        }
    ],
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "percentageOfNodesToScore": 30,
            "plugins": {
                "score": {
                    "enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                    "disabled": [{"name": "ImageLocality"}],
                },
                "filter": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeName"}]},
            },
            "pluginConfig": [
                {
                    "name": "NodeResourcesFit",
                    "args": {
                        "ignoredResources": ["example.com/x"],
                        "ignoredResourceGroups": ["example.org"],
                        "scoringStrategy": {
                            "type": "RequestedToCapacityRatio",
                            "resources": [{"name": "cpu", "weight": 3}],
                            "requestedToCapacityRatio": {
                                "shape": [
                                    {"utilization": 0, "score": 0},
                                    {"utilization": 100, "score": 10},
                                ]
                            },
                        },
                    },
                },
                {
                    "name": "PodTopologySpread",
                    "args": {
                        "defaultingType": "List",
                        "defaultConstraints": [
                            {
                                "maxSkew": 1,
                                "topologyKey": "topology.kubernetes.io/zone",
                                "whenUnsatisfiable": "ScheduleAnyway",
                            }
                        ],
                    },
                },
                {
                    "name": "NodeAffinity",
                    "args": {
                        "addedAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchExpressions": [
                                            {"key": "zone", "operator": "In", "values": ["a"]}
                                        ]
                                    }
                                ]
                            }
                        }
                    },
                },
                {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 5}},
                {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 20}},
                {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": 30}},
            ],
        },
        {
            "schedulerName": "spread-scheduler",
            "plugins": {"multiPoint": {"enabled": [{"name": "PodTopologySpread", "weight": 9}]}},
            "pluginConfig": [
                {
                    "name": "NodeResourcesBalancedAllocation",
                    "args": {"resources": [{"name": "cpu", "weight": 1}]},
                }
            ],
        },
    ],
}
SEEDS = [dump_config(default_config()), RICH, *course_documents("profile.yaml")]
DOCUMENTS = st.sampled_from(SEEDS).flatmap(lambda seed: mutated(seed))


def _load(source):
    """load_config, asserting that only ConfigError with well-formed FieldErrors escapes."""
    try:
        return load_config(source)
    except ConfigError as err:
        assert err.errors
        for error in err.errors:
            assert isinstance(error, FieldError)
            assert isinstance(error.path, str) and isinstance(error.message, str)
        return None


@budget(150)
@given(DOCUMENTS)
def test_documents_load_or_are_refused(doc):
    cfg = _load(doc)
    if cfg is not None:
        assert validate_config(cfg) == []
        assert load_config(dump_config(cfg)) == cfg


@budget(80)
@given(DOCUMENTS, st.booleans())
def test_texts_load_or_are_refused(doc, as_json):
    _load(to_text(doc, as_json))


@budget(60)
@given(odd_documents())
def test_odd_documents_are_total(text):
    _load(text)


@budget(80)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_garbage_is_refused(raw):
    _load(raw)


@budget(60)
@given(DOCUMENTS)
def test_decoding_alone_is_total(doc):
    """decode_config without defaulting: a config or ConfigError, and validation returns a list."""
    try:
        cfg = decode_config(doc)
    except ConfigError:
        return
    assert isinstance(validate_config(cfg), list)


@pytest.mark.parametrize(
    "source",
    [
        "a: " + "9" * 5000,
        "? [a]\n: 1\n",
        "[" * 3000 + "]" * 3000,
        "&a [*a]\n",
        [],
        nested(2000, as_dict=True),
    ],
    ids=["5000-digits", "list-key", "3000-deep", "self-alias", "list", "2000-deep-mapping"],
)
def test_crashes_found_are_config_errors(source):
    """What the fuzzing found raising TypeError, ValueError or RecursionError before."""
    with pytest.raises(ConfigError):
        load_config(source)
