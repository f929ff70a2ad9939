"""Typed views of the Kubernetes objects the scheduler reads, built from plain manifests.

Manifests are dicts as ``kubectl get -o json`` prints them. Each class keeps its manifest in
``raw`` and parses, once, the fields the scheduler reads. Resource arithmetic mirrors
component-helpers/resource (PodRequests) and framework.Resource in Kubernetes v1.35.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scheduler_core.dra.manager import DraManager
from scheduler_core.objects import quantity as q
from scheduler_core.objects import shapes
from scheduler_core.objects.labels import (
    NodeSelector,
    PreferredTerm,
    Selector,
    SelectorError,
    label_selector,
    node_selector,
    preferred_scheduling_terms,
)
from scheduler_core.objects.shapes import check_shape

CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
PODS: Final = "pods"
HUGEPAGES_PREFIX: Final = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX: Final = "attachable-volumes-"
DEFAULT_MILLI_CPU_REQUEST: Final = 100
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
REGION_LABEL: Final = "topology.kubernetes.io/region"

Manifest = Mapping[str, Any]


def is_native_resource(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource(name: str) -> bool:
    """v1helper.IsExtendedResourceName (the quota-name check reduced to the prefix rules)."""
    return not is_native_resource(name) and not name.startswith("requests.")


def is_scalar_resource(name: str) -> bool:
    """schedutil.IsScalarResourceName."""
    return (
        is_extended_resource(name)
        or name.startswith(HUGEPAGES_PREFIX)
        or "kubernetes.io/" in name
        or name.startswith(ATTACHABLE_VOLUMES_PREFIX)
    )


class Resource:
    """framework.Resource: CPU in millicores, memory and storage in bytes, scalars by name."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalars")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalars: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalars: dict[str, int] = scalars if scalars is not None else {}

    @classmethod
    def from_list(cls, rl: Mapping[str, int]) -> Resource:
        """framework.NewResource over a list of nano-unit quantities."""
        r = cls()
        for name, nanos in rl.items():
            if name == CPU:
                r.milli_cpu += q.milli_value(nanos)
            elif name == MEMORY:
                r.memory += q.value(nanos)
            elif name == PODS:
                r.allowed_pod_number += q.value(nanos)
            elif name == EPHEMERAL_STORAGE:
                r.ephemeral_storage += q.value(nanos)
            elif is_scalar_resource(name):
                r.scalars[name] = r.scalars.get(name, 0) + q.value(nanos)
        return r

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalars),
        )

    def get(self, name: str) -> int:
        """The amount of one named resource (0 when absent)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalars.get(name, 0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (
            self.milli_cpu == other.milli_cpu
            and self.memory == other.memory
            and self.ephemeral_storage == other.ephemeral_storage
            and self.allowed_pod_number == other.allowed_pod_number
            and {k: v for k, v in self.scalars.items() if v}
            == {k: v for k, v in other.scalars.items() if v}
        )

    def __repr__(self) -> str:
        return (
            f"Resource(cpu={self.milli_cpu}m, mem={self.memory}, eph={self.ephemeral_storage},"
            f" pods={self.allowed_pod_number}, scalars={self.scalars})"
        )


def _quantities(raw: Mapping[str, Any] | None, path: str) -> dict[str, int]:
    out: dict[str, int] = {}
    if not raw:
        return out
    for name, text in raw.items():
        out[str(name)] = q.parse_quantity(text, f"{path}.{name}")
    return out


def _add(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], rl: Mapping[str, int]) -> None:
    for k, v in rl.items():
        if k not in into or v > into[k]:
            into[k] = v


def _is_supported_pod_level(name: str) -> bool:
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str
    requests: Mapping[str, int]
    limits: Mapping[str, int]
    restart_always: bool
    ports: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str
    operator: str
    value: str
    effect: str

    def tolerates(self, taint: Taint) -> bool:
        """v1.Toleration.ToleratesTaint (numeric comparison operators are gated off in v1.35)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return self.operator == "Exists"


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class HostPort:
    ip: str
    protocol: str
    port: int


@dataclass(slots=True)
class AffinityTerm:
    """A pod (anti-)affinity term with its selector and namespaces resolved (fwk.AffinityTerm)."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """Whether ``pod`` is selected: namespace listed or selected, and labels match."""
        # A namespace the listers do not know has no labels; {} and DoesNotExist still select it.
        if pod.namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(pod.labels)
        return False


@dataclass(slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


class Pod:
    """A pod as the scheduler sees it."""

    def __init__(self, raw: Manifest) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.name: str = meta.get("name", "")
        self.namespace: str = meta.get("namespace") or "default"
        self.uid: str = meta.get("uid") or f"{self.namespace}/{self.name}"
        self.labels: dict[str, str] = dict(meta.get("labels") or {})
        self.annotations: dict[str, str] = dict(meta.get("annotations") or {})
        self.owner_references: tuple[Mapping[str, Any], ...] = tuple(
            meta.get("ownerReferences") or ()
        )
        self.deleting: bool = meta.get("deletionTimestamp") is not None
        self.creation_timestamp: str = meta.get("creationTimestamp") or ""
        self.node_name: str = spec.get("nodeName") or ""
        self.scheduler_name: str = spec.get("schedulerName") or "default-scheduler"
        self.priority: int = int(spec.get("priority") or 0)
        self.preemption_policy: str = spec.get("preemptionPolicy") or "PreemptLowerPriority"
        self.nominated_node_name: str = status.get("nominatedNodeName") or ""
        self.phase: str = status.get("phase") or ""
        self.start_time: str = status.get("startTime") or ""
        self.node_selector: dict[str, str] = dict(spec.get("nodeSelector") or {})
        gates = spec.get("schedulingGates")
        self.scheduling_gates: tuple[str, ...] = (
            tuple(g.get("name", "") for g in gates) if gates else ()
        )
        self.volumes: tuple[Mapping[str, Any], ...] = tuple(spec.get("volumes") or ())
        self.topology_spread_constraints: tuple[Mapping[str, Any], ...] = tuple(
            spec.get("topologySpreadConstraints") or ()
        )
        tolerations = spec.get("tolerations")
        self.tolerations: tuple[Toleration, ...] = (
            tuple(
                Toleration(
                    t.get("key") or "",
                    t.get("operator") or "",
                    str(t.get("value") or ""),
                    t.get("effect") or "",
                )
                for t in tolerations
            )
            if tolerations
            else ()
        )
        self.containers = tuple(
            self._container(c, f"spec.containers[{i}]")
            for i, c in enumerate(spec.get("containers") or ())
        )
        init_containers = spec.get("initContainers")
        self.init_containers = (
            tuple(
                self._container(c, f"spec.initContainers[{i}]")
                for i, c in enumerate(init_containers)
            )
            if init_containers
            else ()
        )
        self.overhead = _quantities(spec.get("overhead"), "spec.overhead")
        pod_res = spec.get("resources") or {}
        self.pod_requests_raw = _quantities(pod_res.get("requests"), "spec.resources.requests")
        self.affinity: Mapping[str, Any] = spec.get("affinity") or {}
        node_aff = self.affinity.get("nodeAffinity") or {}
        self._required_node_affinity_raw = node_aff.get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        self._preferred_node_affinity_raw = (
            node_aff.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        )
        self.host_ports: tuple[HostPort, ...] = tuple(
            HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(p["hostPort"]))
            for c in self.containers
            for p in c.ports
            if p.get("hostPort")
        ) + tuple(
            HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(p["hostPort"]))
            for c in self.init_containers
            if c.restart_always
            for p in c.ports
            if p.get("hostPort")
        )
        self.requests = self._compute_requests(non_missing=False)
        non0 = self._compute_non0()
        self.non0_cpu: int = non0[0]
        self.non0_mem: int = non0[1]
        self.resource = Resource.from_list(self.requests)
        pod_aff = self.affinity.get("podAffinity") or {}
        anti_aff = self.affinity.get("podAntiAffinity") or {}
        self.has_affinity = bool(
            self.affinity.get("podAffinity") is not None
            or self.affinity.get("podAntiAffinity") is not None
        )
        self.required_affinity_terms = self._terms(
            pod_aff.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        )
        self.required_anti_affinity_terms = self._terms(
            anti_aff.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        )
        self.preferred_affinity_terms = self._weighted(
            pod_aff.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        )
        self.preferred_anti_affinity_terms = self._weighted(
            anti_aff.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        )
        self._required_node_selector: NodeSelector | None | bool = False
        self._preferred_node_terms: tuple[PreferredTerm, ...] | None = None

    @classmethod
    def from_manifest(cls, raw: Manifest) -> Pod:
        """A Pod from a manifest of unknown origin: its fields' types are checked first."""
        check_shape(raw, shapes.POD)
        return cls(raw)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"Pod({self.key})"

    @staticmethod
    def _container(c: Mapping[str, Any], path: str) -> Container:
        res = c.get("resources") or {}
        return Container(
            name=c.get("name", ""),
            image=c.get("image", "") or "",
            requests=_quantities(res.get("requests"), f"{path}.resources.requests"),
            limits=_quantities(res.get("limits"), f"{path}.resources.limits"),
            restart_always=c.get("restartPolicy") == "Always",
            ports=tuple(c.get("ports") or ()),
        )

    def _compute_requests(
        self, non_missing: bool, missing: Mapping[str, int] | None = None
    ) -> dict[str, int]:
        """resourcehelper.PodRequests with pod-level resources and overhead."""
        reqs: dict[str, int] = {}
        for c in self.containers:
            cr = self._with_missing(c.requests, missing) if non_missing else c.requests
            _add(reqs, cr)
        restartable: dict[str, int] = {}
        init_reqs: dict[str, int] = {}
        for c in self.init_containers:
            cr = self._with_missing(c.requests, missing) if non_missing else c.requests
            if c.restart_always:
                _add(reqs, cr)
                _add(restartable, cr)
                effective = dict(restartable)
            else:
                effective = {}
                _add(effective, cr)
                _add(effective, restartable)
            _max(init_reqs, effective)
        _max(reqs, init_reqs)
        if self.pod_level_requests_set:
            for name, nanos in self.pod_requests_raw.items():
                if _is_supported_pod_level(name):
                    reqs[name] = nanos
        _add(reqs, self.overhead)
        return reqs

    @staticmethod
    def _with_missing(reqs: Mapping[str, int], missing: Mapping[str, int] | None) -> dict[str, int]:
        out = dict(reqs)
        for k, v in (missing or {}).items():
            if k not in reqs:
                out[k] = v
        return out

    @property
    def pod_level_requests_set(self) -> bool:
        if not self.pod_requests_raw:
            return False
        return any(_is_supported_pod_level(n) for n in self.pod_requests_raw)

    def _compute_non0(self) -> tuple[int, int]:
        if not self.pod_level_requests_set and all(
            CPU in c.requests and MEMORY in c.requests
            for c in self.containers + self.init_containers
        ):
            reqs: Mapping[str, int] = self.requests  # no request is missing: nothing to default
            return q.milli_value(reqs.get(CPU, 0)), q.value(reqs.get(MEMORY, 0))
        if self.pod_level_requests_set:
            missing: dict[str, int] = {}
            if CPU not in self.requests:
                missing[CPU] = DEFAULT_MILLI_CPU_REQUEST * 10**6
            if MEMORY not in self.requests:
                missing[MEMORY] = DEFAULT_MEMORY_REQUEST * q.NANO
        else:
            missing = {
                CPU: DEFAULT_MILLI_CPU_REQUEST * 10**6,
                MEMORY: DEFAULT_MEMORY_REQUEST * q.NANO,
            }
        reqs = (
            self._compute_requests(non_missing=True, missing=missing) if missing else self.requests
        )
        return q.milli_value(reqs.get(CPU, 0)), q.value(reqs.get(MEMORY, 0))

    def _term(self, raw: Mapping[str, Any]) -> AffinityTerm:
        namespaces = frozenset(raw.get("namespaces") or ())
        ns_sel_raw = raw.get("namespaceSelector")
        try:
            ns_selector = label_selector(ns_sel_raw)
        except SelectorError:
            ns_selector = Selector.nothing()
        if not namespaces and ns_sel_raw is None:
            namespaces = frozenset({self.namespace})
        try:
            selector = label_selector(raw.get("labelSelector"))
        except SelectorError:
            selector = Selector.nothing()
        # matchLabelKeys and mismatchLabelKeys are merged into labelSelector by the API server
        # when the pod is created; kube-scheduler reads labelSelector alone.
        return AffinityTerm(namespaces, selector, raw.get("topologyKey", ""), ns_selector)

    def _terms(self, raws: Iterable[Mapping[str, Any]]) -> tuple[AffinityTerm, ...]:
        if not raws:
            return ()
        return tuple(self._term(r) for r in raws)

    def _weighted(self, raws: Iterable[Mapping[str, Any]]) -> tuple[WeightedAffinityTerm, ...]:
        if not raws:
            return ()
        return tuple(
            WeightedAffinityTerm(
                self._term(r.get("podAffinityTerm") or {}), int(r.get("weight") or 0)
            )
            for r in raws
        )

    @property
    def has_required_anti_affinity(self) -> bool:
        return bool(self.required_anti_affinity_terms)

    @property
    def required_node_selector(self) -> NodeSelector | None:
        if self._required_node_selector is False:
            raw = self._required_node_affinity_raw
            self._required_node_selector = node_selector(raw) if raw is not None else None
        assert self._required_node_selector is not True
        return self._required_node_selector or None

    @property
    def preferred_node_terms(self) -> tuple[PreferredTerm, ...]:
        if self._preferred_node_terms is None:
            self._preferred_node_terms = preferred_scheduling_terms(
                self._preferred_node_affinity_raw
            )
        return self._preferred_node_terms

    def images(self) -> list[str]:
        return [c.image for c in self.init_containers] + [c.image for c in self.containers]

    def pvc_names(self) -> list[str]:
        return [
            v["persistentVolumeClaim"].get("claimName", "")
            for v in self.volumes
            if v.get("persistentVolumeClaim")
        ]


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int


class Node:
    """A node as the scheduler sees it."""

    def __init__(self, raw: Manifest) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        spec = raw.get("spec") or {}
        status = raw.get("status") or {}
        self.name: str = meta.get("name", "")
        self.uid: str = meta.get("uid") or self.name
        self.labels: dict[str, str] = dict(meta.get("labels") or {})
        self.annotations: dict[str, str] = dict(meta.get("annotations") or {})
        self.unschedulable: bool = bool(spec.get("unschedulable"))
        self.taints: tuple[Taint, ...] = tuple(
            Taint(t.get("key") or "", str(t.get("value") or ""), t.get("effect") or "")
            for t in spec.get("taints") or ()
        )
        alloc = status.get("allocatable")
        if alloc is None:
            alloc = status.get("capacity")
        self.allocatable_list = _quantities(alloc, "status.allocatable")
        self.allocatable = Resource.from_list(self.allocatable_list)
        self.images: tuple[ContainerImage, ...] = tuple(
            ContainerImage(tuple(img.get("names") or ()), int(img.get("sizeBytes") or 0))
            for img in status.get("images") or ()
        )

    @classmethod
    def from_manifest(cls, raw: Manifest) -> Node:
        """A Node from a manifest of unknown origin: its fields' types are checked first."""
        check_shape(raw, shapes.NODE)
        return cls(raw)

    def __repr__(self) -> str:
        return f"Node({self.name})"


class KubeObject:
    """Any other namespaced or cluster object: name, namespace, labels, and its manifest."""

    def __init__(self, raw: Manifest) -> None:
        self.raw = raw
        meta = raw.get("metadata") or {}
        self.kind: str = raw.get("kind", "")
        self.name: str = meta.get("name", "")
        self.namespace: str = meta.get("namespace") or "default"
        self.uid: str = meta.get("uid") or f"{self.namespace}/{self.name}"
        self.labels: dict[str, str] = dict(meta.get("labels") or {})
        self.annotations: dict[str, str] = dict(meta.get("annotations") or {})
        self.spec: Mapping[str, Any] = raw.get("spec") or {}
        self.status: Mapping[str, Any] = raw.get("status") or {}

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __repr__(self) -> str:
        return f"{self.kind}({self.key})"


@dataclass(slots=True)
class ClusterObjects:
    """Everything besides nodes and pods that plugins read through listers."""

    pvcs: dict[str, KubeObject] = field(default_factory=dict)  # "ns/name"
    pvs: dict[str, KubeObject] = field(default_factory=dict)  # name
    storage_classes: dict[str, KubeObject] = field(default_factory=dict)
    pdbs: list[KubeObject] = field(default_factory=list)
    services: list[KubeObject] = field(default_factory=list)
    replica_sets: list[KubeObject] = field(default_factory=list)
    stateful_sets: list[KubeObject] = field(default_factory=list)
    replication_controllers: list[KubeObject] = field(default_factory=list)
    namespaces: dict[str, KubeObject] = field(default_factory=dict)
    csi_nodes: dict[str, KubeObject] = field(default_factory=dict)
    dra: DraManager = field(default_factory=DraManager)  # claims, slices, device classes
    # scheduling.k8s.io/v1alpha1 Workloads (GenericWorkload), "ns/name"
    workloads: dict[str, KubeObject] = field(default_factory=dict)

    @classmethod
    def from_lists(cls, **lists: Sequence[Manifest]) -> ClusterObjects:
        objs = cls()
        for raw in lists.get("pvcs") or ():
            o = KubeObject(raw)
            objs.pvcs[o.key] = o
        for raw in lists.get("pvs") or ():
            o = KubeObject(raw)
            objs.pvs[o.name] = o
        for raw in lists.get("storage_classes") or ():
            o = KubeObject(raw)
            objs.storage_classes[o.name] = o
        objs.pdbs = [KubeObject(r) for r in lists.get("pdbs") or ()]
        objs.services = [KubeObject(r) for r in lists.get("services") or ()]
        objs.replica_sets = [KubeObject(r) for r in lists.get("replica_sets") or ()]
        objs.stateful_sets = [KubeObject(r) for r in lists.get("stateful_sets") or ()]
        objs.replication_controllers = [
            KubeObject(r) for r in lists.get("replication_controllers") or ()
        ]
        for raw in lists.get("namespaces") or ():
            o = KubeObject(raw)
            objs.namespaces[o.name] = o
        for raw in lists.get("csi_nodes") or ():
            o = KubeObject(raw)
            objs.csi_nodes[o.name] = o
        for raw in lists.get("workloads") or ():
            o = KubeObject(raw)
            objs.workloads[f"{o.namespace or 'default'}/{o.name}"] = o
        objs.dra = DraManager.from_lists(
            lists.get("resource_claims") or (),
            lists.get("resource_slices") or (),
            lists.get("device_classes") or (),
        )
        return objs

    def namespace_labels(self, namespace: str) -> dict[str, str] | None:
        ns = self.namespaces.get(namespace)
        return ns.labels if ns is not None else None
