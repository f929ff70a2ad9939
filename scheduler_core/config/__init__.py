"""KubeSchedulerConfiguration v1: types, defaulting, validation and the YAML/JSON wire format.

Mirrors pkg/scheduler/apis/config in kube-scheduler v1.35.

Modules:

- ``types``: the configuration and the plugins' args as plain dataclasses;
- ``wire``: the v1 wire format's constants; ``io``: reading and writing it (YAML or JSON);
  ``decode``/``encode``: the strict decoder and the encoder behind ``io``;
- ``defaults``: defaulting; ``validation`` and ``validate_args``: every problem found, as
  ``field_errors`` prints them;
- ``migrate/``: migration of older files and legacy Policies to v1, one version step at a time;
- ``__main__``: ``python -m scheduler_core.config migrate FILE``.
"""

from __future__ import annotations

from scheduler_core.config.defaults import (
    DEFAULT_MULTI_POINT,
    DEFAULT_SCHEDULER_NAME,
    default_config,
    in_tree_args_defaults,
    set_defaults,
)
from scheduler_core.config.encode import dump_config, dump_config_yaml
from scheduler_core.config.io import decode_config, load_config
from scheduler_core.config.types import (
    DEFAULT_EXTENDER_TIMEOUT_SECONDS,
    ConfigError,
    DefaultPreemptionArgs,
    DynamicResourcesArgs,
    Extender,
    ExtenderManagedResource,
    FieldError,
    InterPodAffinityArgs,
    InTreeArgs,
    KubeSchedulerConfiguration,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    Plugin,
    PluginArgs,
    PluginConfig,
    Plugins,
    PluginSet,
    PodTopologySpreadArgs,
    Profile,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from scheduler_core.config.validate_args import validate_plugin_args
from scheduler_core.config.validation import validate_config
from scheduler_core.config.wire import API_VERSION, KIND

__all__ = [
    "API_VERSION",
    "DEFAULT_EXTENDER_TIMEOUT_SECONDS",
    "DEFAULT_MULTI_POINT",
    "DEFAULT_SCHEDULER_NAME",
    "KIND",
    "ConfigError",
    "DefaultPreemptionArgs",
    "DynamicResourcesArgs",
    "Extender",
    "ExtenderManagedResource",
    "FieldError",
    "InTreeArgs",
    "InterPodAffinityArgs",
    "KubeSchedulerConfiguration",
    "NodeAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "Plugin",
    "PluginArgs",
    "PluginConfig",
    "PluginSet",
    "Plugins",
    "PodTopologySpreadArgs",
    "Profile",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "decode_config",
    "default_config",
    "dump_config",
    "dump_config_yaml",
    "in_tree_args_defaults",
    "load_config",
    "set_defaults",
    "validate_config",
    "validate_plugin_args",
]
