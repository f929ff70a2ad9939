"""PodTopologySpread's constraints: parsed from a pod's spec or the plugin's defaults, the
selector DefaultSelector builds from the pod's controllers, and Go's rounding for the scores.

Apart from the plugin (plugin.py) because the queueing hints and the explanations
read constraints too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from scheduler_core.objects.api import (
    HOSTNAME_LABEL,
    ZONE_LABEL,
    ClusterObjects,
    KubeObject,
    Pod,
)
from scheduler_core.objects.labels import (
    Selector,
    SelectorError,
    label_selector,
)

DO_NOT_SCHEDULE: Final = "DoNotSchedule"
SCHEDULE_ANYWAY: Final = "ScheduleAnyway"
NODE_INCLUSION_HONOR: Final = "Honor"

# The hostname constraint comes first: scores add up in this order, and float sums are
# order-sensitive.
SYSTEM_DEFAULT_CONSTRAINTS: Final[tuple[Mapping[str, Any], ...]] = (
    {"topologyKey": HOSTNAME_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE_LABEL, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)

# (group, version, kind) of the controllers whose selector DefaultSelector adds.
_RC_KIND: Final = ("", "v1", "ReplicationController")
_RS_KIND: Final = ("apps", "v1", "ReplicaSet")
_SS_KIND: Final = ("apps", "v1", "StatefulSet")


@dataclass(frozen=True, slots=True)
class Constraint:
    """A TopologySpreadConstraint with its selector parsed and its optional fields defaulted."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_node_taints: bool = False


def parse_constraints(
    raws: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[Constraint]:
    """The constraints whose whenUnsatisfiable is ``action``; raises SelectorError on a bad one.

    matchLabelKeys present in the pod's labels are merged into the selector as equalities.
    """
    out: list[Constraint] = []
    for raw in raws:
        if raw.get("whenUnsatisfiable") != action:
            continue
        selector = label_selector(raw.get("labelSelector"))
        match_labels = {
            key: pod_labels[key] for key in raw.get("matchLabelKeys") or () if key in pod_labels
        }
        if match_labels and not selector.is_nothing:
            selector = Selector.from_set(match_labels).add(selector.requirements)
        min_domains = raw.get("minDomains")
        affinity_policy = raw.get("nodeAffinityPolicy")
        taints_policy = raw.get("nodeTaintsPolicy")
        out.append(
            Constraint(
                max_skew=int(raw.get("maxSkew") or 0),
                topology_key=str(raw.get("topologyKey") or ""),
                selector=selector,
                min_domains=1 if min_domains is None else int(min_domains),
                honor_node_affinity=(
                    affinity_policy is None or affinity_policy == NODE_INCLUSION_HONOR
                ),
                honor_node_taints=taints_policy == NODE_INCLUSION_HONOR,
            )
        )
    return out


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion; None for a string it refuses."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def _find(objects: Sequence[KubeObject], namespace: str, name: str) -> KubeObject | None:
    for obj in objects:
        if obj.namespace == namespace and obj.name == name:
            return obj
    return None


def _string_map(raw: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in (raw or {}).items()}


def default_selector(pod: Pod, objects: ClusterObjects) -> Selector:
    """helper.DefaultSelector: the selectors of the pod's Services and of its controller.

    Services in the pod's namespace whose selector matches the pod contribute their selector
    labels; a controlling ReplicationController adds its selector map, a controlling ReplicaSet
    or StatefulSet adds its label selector's requirements (a nil or invalid one adds nothing).
    """
    label_set: dict[str, str] = {}
    for svc in objects.services:
        if svc.namespace != pod.namespace:
            continue
        raw = svc.spec.get("selector")
        if raw is None:
            continue
        sel = _string_map(raw)
        if all(pod.labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    selector = Selector.from_set(label_set)

    owner = next((ref for ref in pod.owner_references if ref.get("controller") is True), None)
    if owner is None:
        return selector
    gv = _parse_group_version(str(owner.get("apiVersion") or ""))
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], owner.get("kind") or "")
    name = str(owner.get("name") or "")
    if gvk == _RC_KIND:
        rc = _find(objects.replication_controllers, pod.namespace, name)
        if rc is not None:
            label_set.update(_string_map(rc.spec.get("selector")))
            selector = Selector.from_set(label_set)
    elif gvk in (_RS_KIND, _SS_KIND):
        listed = objects.replica_sets if gvk == _RS_KIND else objects.stateful_sets
        controller = _find(listed, pod.namespace, name)
        if controller is not None:
            try:
                other = label_selector(controller.spec.get("selector"))
            except SelectorError:
                return selector
            if not other.is_nothing:
                selector = selector.add(other.requirements)
    return selector


def go_log(x: int) -> float:
    """math.Log as Go computes it on amd64 (its own reduction and polynomial).

    The C library's log differs from it in the last bit for some integers (3 among them),
    which is enough to move a rounded score; the topology weights must use this one.
    """
    cached = _LOG_CACHE.get(x)
    if cached is not None:
        return cached
    frac, exp = math.frexp(float(x))
    if frac < _HALF_SQRT2:
        frac *= 2
        exp -= 1
    f = frac - 1
    k = float(exp)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_LG1 + s4 * (_LG3 + s4 * (_LG5 + s4 * _LG7)))
    t2 = s4 * (_LG2 + s4 * (_LG4 + s4 * _LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    result = k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)
    _LOG_CACHE[x] = result
    return result


_HALF_SQRT2: Final = 7.07106781186547524401e-01
_LN2_HI: Final = 6.93147180369123816490e-01
_LN2_LO: Final = 1.90821492927058770002e-10
_LG1: Final = 6.666666666666735130e-01
_LG2: Final = 3.999999999940941908e-01
_LG3: Final = 2.857142874366239149e-01
_LG4: Final = 2.222219843214978396e-01
_LG5: Final = 1.818357216161805012e-01
_LG6: Final = 1.531383769920937332e-01
_LG7: Final = 1.479819860511658591e-01
_LOG_CACHE: dict[int, float] = {}
