"""The in-tree plugins and their registry."""

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
    names.VOLUME_BINDING: "volume_binding",
    names.VOLUME_ZONE: "volume_zone",
    names.POD_TOPOLOGY_SPREAD: "pod_topology_spread",
    names.INTER_POD_AFFINITY: "inter_pod_affinity",
    names.DEFAULT_PREEMPTION: "default_preemption",
    names.DYNAMIC_RESOURCES: "dynamic_resources",
    names.IMAGE_LOCALITY: "image_locality",
    names.DEFAULT_BINDER: "default_binder",
}


def in_tree_registry() -> Registry:
    """A Registry of every in-tree plugin."""
    reg = Registry()
    for name, module in IN_TREE_MODULES.items():
        try:
            mod = importlib.import_module(f"scheduler_core.plugins.{module}")
        except ModuleNotFoundError as err:
            if err.name and err.name.startswith("scheduler_core.plugins"):
                continue  # not written yet; a profile that uses it fails to build
            raise
        reg.register(name, mod.new)
    return reg
