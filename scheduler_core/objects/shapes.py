"""The JSON types of the manifest fields the scheduler reads, checked as the API server decodes.

The API server decodes every object into typed Go structs: a string where a list of
NodeSelectorRequirements belongs, or a number where a label value belongs, is refused at
decoding ("cannot unmarshal string into Go struct field ..."), so kube-scheduler never sees it.
``check_shape`` makes the same refusal for the fields the engine reads, with the field's path,
so that a manifest ``from_manifest`` accepts cannot fail later inside a plugin. Unknown fields
and fields the engine ignores are not checked; null is accepted anywhere (Go leaves the field
unset). Quantities are left to ``quantity``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from scheduler_core.errors import ManifestError

# A shape is "str", "int", "bool", "intstr", "any", a dict of field -> shape (an object), a
# one-item list [shape] (a list of that shape) or ("map", shape) (string keys to that shape).
Shape = Any

_STRINGS: Final = ("map", "str")
_REQUIREMENT: Final = {"key": "str", "operator": "str", "values": ["str"]}
_LABEL_SELECTOR: Final = {"matchLabels": _STRINGS, "matchExpressions": [_REQUIREMENT]}
_NODE_SELECTOR_TERM: Final = {"matchExpressions": [_REQUIREMENT], "matchFields": [_REQUIREMENT]}
_NODE_SELECTOR: Final = {"nodeSelectorTerms": [_NODE_SELECTOR_TERM]}
_POD_AFFINITY_TERM: Final = {
    "labelSelector": _LABEL_SELECTOR,
    "namespaceSelector": _LABEL_SELECTOR,
    "namespaces": ["str"],
    "topologyKey": "str",
    "matchLabelKeys": ["str"],
    "mismatchLabelKeys": ["str"],
}
_POD_AFFINITY: Final = {
    "requiredDuringSchedulingIgnoredDuringExecution": [_POD_AFFINITY_TERM],
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": "int", "podAffinityTerm": _POD_AFFINITY_TERM}
    ],
}
_RESOURCES: Final = {"requests": ("map", "any"), "limits": ("map", "any")}
_CONTAINER: Final = {
    "name": "str",
    "image": "str",
    "restartPolicy": "str",
    "resources": _RESOURCES,
    "ports": [{"containerPort": "int", "hostPort": "int", "hostIP": "str", "protocol": "str"}],
}
_METADATA: Final = {
    "name": "str",
    "namespace": "str",
    "uid": "str",
    "labels": _STRINGS,
    "annotations": _STRINGS,
    "ownerReferences": [{"kind": "str", "name": "str", "uid": "str", "controller": "bool"}],
    "creationTimestamp": "str",
}
POD: Final = {
    "metadata": _METADATA,
    "spec": {
        "nodeName": "str",
        "schedulerName": "str",
        "priority": "int",
        "priorityClassName": "str",
        "preemptionPolicy": "str",
        "nodeSelector": _STRINGS,
        "schedulingGates": [{"name": "str"}],
        "volumes": [
            {
                "name": "str",
                "persistentVolumeClaim": {"claimName": "str", "readOnly": "bool"},
                "ephemeral": {"volumeClaimTemplate": "any"},
            }
        ],
        "topologySpreadConstraints": [
            {
                "maxSkew": "int",
                "minDomains": "int",
                "topologyKey": "str",
                "whenUnsatisfiable": "str",
                "labelSelector": _LABEL_SELECTOR,
                "matchLabelKeys": ["str"],
                "nodeAffinityPolicy": "str",
                "nodeTaintsPolicy": "str",
            }
        ],
        "tolerations": [
            {
                "key": "str",
                "operator": "str",
                "value": "str",
                "effect": "str",
                "tolerationSeconds": "int",
            }
        ],
        "containers": [_CONTAINER],
        "initContainers": [_CONTAINER],
        "overhead": ("map", "any"),
        "resources": _RESOURCES,
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": _NODE_SELECTOR,
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": "int", "preference": _NODE_SELECTOR_TERM}
                ],
            },
            "podAffinity": _POD_AFFINITY,
            "podAntiAffinity": _POD_AFFINITY,
        },
        "resourceClaims": [
            {"name": "str", "resourceClaimName": "str", "resourceClaimTemplateName": "str"}
        ],
    },
    "status": {"phase": "str", "nominatedNodeName": "str", "startTime": "str"},
}
NODE: Final = {
    "metadata": _METADATA,
    "spec": {
        "unschedulable": "bool",
        "taints": [{"key": "str", "value": "str", "effect": "str", "timeAdded": "str"}],
    },
    "status": {
        "capacity": ("map", "any"),
        "allocatable": ("map", "any"),
        "images": [{"names": ["str"], "sizeBytes": "int"}],
    },
}
_GO_TYPES: Final = {
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "intstr": "integer or string",
}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _fits(value: Any, scalar: str) -> bool:
    if scalar == "str":
        return isinstance(value, str)
    if scalar == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if scalar == "bool":
        return isinstance(value, bool)
    if scalar == "intstr":
        return isinstance(value, str | int) and not isinstance(value, bool)
    return True  # "any"


def _refuse(path: str, value: Any, expected: str) -> ManifestError:
    return ManifestError(path, f"Invalid value: {_kind(value)}: must be {expected}")


def _check(value: Any, shape: Shape, path: str) -> None:
    if value is None:
        return
    if isinstance(shape, str):
        if not _fits(value, shape):
            raise _refuse(path, value, f"a {_GO_TYPES[shape]}")
    elif isinstance(shape, dict):
        if not isinstance(value, Mapping):
            raise _refuse(path, value, "an object")
        for key, inner in shape.items():
            if key in value:
                _check(value[key], inner, f"{path}.{key}" if path else key)
    elif isinstance(shape, list):
        if not isinstance(value, list | tuple):
            raise _refuse(path, value, "a list")
        for index, item in enumerate(value):
            _check(item, shape[0], f"{path}[{index}]")
    else:  # ("map", shape of the values)
        if not isinstance(value, Mapping):
            raise _refuse(path, value, "an object")
        for key, item in value.items():
            if not isinstance(key, str):
                raise _refuse(f"{path}[{key!r}]", key, "a string key")
            _check(item, shape[1], f"{path}.{key}")


def check_shape(manifest: Any, shape: Shape) -> None:
    """Raise ManifestError naming the first field whose JSON type is not the one it must have."""
    if not isinstance(manifest, Mapping):
        raise _refuse("", manifest, "an object")
    _check(manifest, shape, "")
