"""Plugin names, as users write them in a KubeSchedulerConfiguration.

Mirrors framework/plugins/names/names.go in kube-scheduler v1.35.
"""

from __future__ import annotations

from typing import Final

PRIORITY_SORT: Final = "PrioritySort"
DEFAULT_BINDER: Final = "DefaultBinder"
DEFAULT_PREEMPTION: Final = "DefaultPreemption"
DYNAMIC_RESOURCES: Final = "DynamicResources"
GANG_SCHEDULING: Final = "GangScheduling"
IMAGE_LOCALITY: Final = "ImageLocality"
INTER_POD_AFFINITY: Final = "InterPodAffinity"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_DECLARED_FEATURES: Final = "NodeDeclaredFeatures"
NODE_NAME: Final = "NodeName"
NODE_PORTS: Final = "NodePorts"
NODE_RESOURCES_BALANCED_ALLOCATION: Final = "NodeResourcesBalancedAllocation"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
NODE_VOLUME_LIMITS: Final = "NodeVolumeLimits"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"
SCHEDULING_GATES: Final = "SchedulingGates"
TAINT_TOLERATION: Final = "TaintToleration"
VOLUME_BINDING: Final = "VolumeBinding"
VOLUME_RESTRICTIONS: Final = "VolumeRestrictions"
VOLUME_ZONE: Final = "VolumeZone"
