"""The in-tree plugins and their registry (``in_tree_registry``).

Mirrors pkg/scheduler/framework/plugins of kube-scheduler v1.35: one module per plugin, or a
package when a plugin has several modules.

- ``names``: every plugin name, as upstream's names.go;
- one plugin each: ``scheduling_gates``, ``priority_sort``, ``node_unschedulable``, ``node_name``,
  ``taint_toleration``, ``node_affinity``, ``node_ports``, ``volume_restrictions``,
  ``node_volume_limits``, ``volume_zone``, ``default_preemption``, ``dynamic_resources``,
  ``image_locality``, ``default_binder``;
- packages: ``node_resources`` (NodeResourcesFit, NodeResourcesBalancedAllocation),
  ``inter_pod_affinity``, ``pod_topology_spread``, ``volume_binding``, ``gang_scheduling``;
- ``shared/``: what several plugins share (upstream's plugins/helper): score normalisation and
  taint matching, piecewise-linear score functions, claims, classes and volumes.
"""

from __future__ import annotations

import importlib
from typing import Final

from scheduler_core.framework.registry import Registry
from scheduler_core.plugins import names

# plugin name -> module under scheduler_core.plugins exposing new(args, handle)
IN_TREE_MODULES: Final[dict[str, str]] = {
    names.SCHEDULING_GATES: "scheduling_gates",
    names.PRIORITY_SORT: "priority_sort",
    names.NODE_UNSCHEDULABLE: "node_unschedulable",
    names.NODE_NAME: "node_name",
    names.TAINT_TOLERATION: "taint_toleration",
    names.NODE_AFFINITY: "node_affinity",
    names.NODE_PORTS: "node_ports",
    names.NODE_RESOURCES_FIT: "node_resources.fit",
    names.NODE_RESOURCES_BALANCED_ALLOCATION: "node_resources.balanced_allocation",
    names.VOLUME_RESTRICTIONS: "volume_restrictions",
    names.NODE_VOLUME_LIMITS: "node_volume_limits",
    names.VOLUME_BINDING: "volume_binding.plugin",
    names.VOLUME_ZONE: "volume_zone",
    names.POD_TOPOLOGY_SPREAD: "pod_topology_spread.plugin",
    names.INTER_POD_AFFINITY: "inter_pod_affinity.plugin",
    names.DEFAULT_PREEMPTION: "default_preemption",
    names.DYNAMIC_RESOURCES: "dynamic_resources.plugin",
    names.IMAGE_LOCALITY: "image_locality",
    names.DEFAULT_BINDER: "default_binder",
    names.GANG_SCHEDULING: "gang_scheduling.plugin",
}


def in_tree_registry() -> Registry:
    """A Registry of every in-tree plugin.

    A plugin module that fails to import raises here (ImportError included): a registry that
    quietly lacked a plugin would only show later, as a profile that cannot be built.
    """
    reg = Registry()
    for name, module in IN_TREE_MODULES.items():
        mod = importlib.import_module(f"scheduler_core.plugins.{module}")
        reg.register(name, mod.new)
    return reg
