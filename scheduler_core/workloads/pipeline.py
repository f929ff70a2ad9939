"""The objects a cluster file stands for once the controllers have run: one pipeline for all.

``plan_objects`` takes the objects of a file in order and gives every object to store or
schedule: the objects themselves, what workload controllers create (ReplicaSets, pods, claims
of StatefulSets), and the ResourceClaims made from ResourceClaimTemplates; or every problem
found (a name given twice, one already taken, more generated objects than allowed), each naming
the input object it comes from. ``python -m scheduler_core simulate`` and the playground's
import both call it, so a file gives the same pods and the same placements in both.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.workloads.admission import admit
from scheduler_core.workloads.claims import claims_for_pod, template_index
from scheduler_core.workloads.controllers import CONTROLLER_KINDS, expand_controller, owner_keys
from scheduler_core.workloads.naming import GeneratedNames, Key
from scheduler_core.workloads.syntax import check_labels, check_metadata

CLUSTER_SCOPED: Final = frozenset(
    {
        "Namespace",
        "PriorityClass",
        "StorageClass",
        "PersistentVolume",
        "Node",
        "DeviceClass",
        "ResourceSlice",
        "CSINode",
        "CSIDriver",
    }
)


def object_key(manifest: Mapping[str, Any]) -> Key:
    """(kind, namespace, name); the namespace is "" for cluster-scoped kinds, else "default"
    when left out."""
    kind = str(manifest.get("kind") or "")
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    namespace = "" if kind in CLUSTER_SCOPED else str(metadata.get("namespace") or "default")
    return (kind, namespace, str(metadata.get("name") or ""))


@dataclass(frozen=True, slots=True)
class PlanProblem:
    """A problem with input object number ``source`` (0-based), at ``path`` in it."""

    source: int
    path: str
    message: str


class PlanProblems(SchedulerCoreError):
    """Every problem found; nothing of the input may be used."""

    def __init__(self, problems: Sequence[PlanProblem]) -> None:
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in problems))
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class Planned:
    """One object to store or schedule; ``source`` is the input object it comes from."""

    manifest: dict[str, Any]
    source: int
    generated: bool = False


@dataclass
class ClusterState:
    """What a cluster already holds, as far as the pipeline needs it."""

    keys: set[Key] = field(default_factory=set)  # object_key of every stored object
    owned: set[Key] = field(default_factory=set)  # owners named by stored objects
    nodes: list[Mapping[str, Any]] = field(default_factory=list)  # for DaemonSets
    claim_templates: list[Mapping[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Plan:
    objects: tuple[Planned, ...]
    generated: int


def check_controller(
    manifest: Mapping[str, Any], max_replicas: int | None
) -> list[tuple[str, str]]:
    """(path, message) for what a workload controller could not expand."""
    spec = manifest.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    problems = []
    template = spec.get("template")
    if not isinstance(template, Mapping) or not isinstance(template.get("spec"), Mapping):
        problems.append(("spec.template", "Required value: a pod template"))
    else:
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "x"},
            "spec": template["spec"],
        }
        problems += [(f"spec.template.{path}", message) for path, message in admit(pod)]
    for name in ("replicas", "parallelism", "completions"):
        value = spec.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            problems.append(
                (f"spec.{name}", f"Invalid value: {value!r}: must be greater than or equal to 0")
            )
        elif isinstance(value, int) and max_replicas is not None and value > max_replicas:
            problems.append(
                (
                    f"spec.{name}",
                    f"Invalid value: {value}: the playground creates at most {max_replicas} pods "
                    "per workload",
                )
            )
    return problems


def check_object(manifest: Mapping[str, Any], max_replicas: int | None) -> list[tuple[str, str]]:
    """(path, message) for every problem of one input object, as the playground's import
    reports them: its name, namespace and labels (``syntax``), what the API server and the
    engine refuse (``admit``), and for a workload its template's labels and check_controller.
    A shape no check foresaw is a problem of the object too, never a crash."""
    kind = str(manifest.get("kind") or "")
    try:
        problems = check_metadata(manifest, namespaced=kind not in CLUSTER_SCOPED)
        if not isinstance(manifest.get("metadata"), dict):
            return problems
        problems += admit(manifest)
        if kind in CONTROLLER_KINDS:
            template = (manifest.get("spec") or {}).get("template")
            if isinstance(template, dict):
                labels = (template.get("metadata") or {}).get("labels")
                problems += check_labels(labels, "spec.template.metadata.labels")
            problems += check_controller(manifest, max_replicas)
    except (TypeError, AttributeError, ValueError, KeyError) as err:
        return [("", f"not a valid {kind}: {type(err).__name__}: {err}")]
    return problems


def plan_objects(
    inputs: Sequence[Mapping[str, Any]],
    *,
    cluster: ClusterState | None = None,
    max_generated: int | None = None,
    max_replicas: int | None = None,
    admitted: bool = False,
) -> Plan:
    """Every object of ``inputs`` and what controllers make of them, in order; PlanProblems.

    Every object is checked as the playground's import checks it (``check_object``: names,
    labels, what the API server refuses, workloads), unless ``admitted`` says the caller did.
    A controller whose children are in the input or the cluster already (they name it as owner)
    is not expanded again. Generated names never clash with each other or with any object of
    the input or the cluster.
    """
    state = cluster if cluster is not None else ClusterState()
    problems: list[PlanProblem] = []
    for i, obj in enumerate(() if admitted else inputs):
        found = check_object(obj, max_replicas)
        problems += [PlanProblem(i, path, message) for path, message in found]
    if problems:
        raise PlanProblems(problems)
    owned = set(state.owned)
    for item in inputs:
        owned |= owner_keys(item)
    nodes = [*state.nodes, *(m for m in inputs if m.get("kind") == "Node")]
    names = GeneratedNames(state.keys | {object_key(m) for m in inputs})
    planned: list[Planned] = []
    generated = 0
    for i, source in enumerate(inputs):
        manifest = copy.deepcopy(dict(source))
        planned.append(Planned(manifest, i))
        if manifest.get("kind") not in CONTROLLER_KINDS or object_key(manifest) in owned:
            continue
        children = expand_controller(manifest, nodes=nodes, names=names)
        generated += len(children)
        if max_generated is not None and generated > max_generated:
            raise PlanProblems(
                [
                    PlanProblem(
                        i,
                        "spec",
                        f"the workloads of one import create more than {max_generated} objects",
                    )
                ]
            )
        planned += [Planned(child, i, generated=True) for child in children]
    claims = _claims(planned, state, names)
    planned += claims
    _check_names(planned, state.keys)
    return Plan(tuple(planned), generated + len(claims))


def _claims(planned: list[Planned], state: ClusterState, names: GeneratedNames) -> list[Planned]:
    """The claims the resourceclaim controller would create for the planned pods."""
    kind = "ResourceClaimTemplate"
    templates = template_index(
        [*state.claim_templates, *(p.manifest for p in planned if p.manifest.get("kind") == kind)]
    )
    if not templates:
        return []
    out = []
    for item in planned:
        if item.manifest.get("kind") == "Pod":
            for claim in claims_for_pod(item.manifest, templates, state.keys, names):
                out.append(Planned(claim, item.source, generated=True))
    return out


def _check_names(planned: Iterable[Planned], existing: set[Key]) -> None:
    problems = []
    seen: set[Key] = set()
    for item in planned:
        key = object_key(item.manifest)
        kind, namespace, name = key
        what = f"{kind} {namespace + '/' if namespace else ''}{name}"
        made = " (created by its controller)" if item.generated else ""
        if key in existing:
            problems.append(
                PlanProblem(
                    item.source, "metadata.name", f"{what}{made} already exists in the cluster"
                )
            )
        elif key in seen:
            problems.append(
                PlanProblem(item.source, "metadata.name", f"{what}{made} is given twice")
            )
        seen.add(key)
    if problems:
        raise PlanProblems(problems)
