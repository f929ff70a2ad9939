"""Reading and writing Kubernetes manifests: documents with line numbers, kinds, checks, YAML.

``parse_documents`` turns pasted or uploaded YAML/JSON (one object, several documents, a ``List``,
``kubectl get ... -o yaml`` output) into objects that remember where they came from, so every
problem can name its document, line and field. ``clusters/controllers.py`` adds the objects a
controller would create.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import yaml
from django.conf import settings
from django.utils.translation import gettext, ngettext

from scheduler_core.dra import versions as dra_versions
from scheduler_core.workloads import check_object as check_engine_object

from . import jsontext, workload_api, yaml_limits
from .upstream import glossed, parser_said
from .yaml_limits import BoundedLoader

# kind -> (apiVersion, namespaced)
KINDS: Final[dict[str, tuple[str, bool]]] = {
    "Namespace": ("v1", False),
    "PriorityClass": ("scheduling.k8s.io/v1", False),
    "StorageClass": ("storage.k8s.io/v1", False),
    "CSIDriver": ("storage.k8s.io/v1", False),
    "PersistentVolume": ("v1", False),
    "PersistentVolumeClaim": ("v1", True),
    "Node": ("v1", False),
    "CSINode": ("storage.k8s.io/v1", False),
    "DeviceClass": ("resource.k8s.io/v1", False),
    "ResourceSlice": ("resource.k8s.io/v1", False),
    "ResourceClaimTemplate": ("resource.k8s.io/v1", True),
    "ResourceClaim": ("resource.k8s.io/v1", True),
    "Service": ("v1", True),
    "PodDisruptionBudget": ("policy/v1", True),
    "Deployment": ("apps/v1", True),
    "ReplicaSet": ("apps/v1", True),
    "StatefulSet": ("apps/v1", True),
    "DaemonSet": ("apps/v1", True),
    "ReplicationController": ("v1", True),
    "Job": ("batch/v1", True),
    "Workload": ("scheduling.k8s.io/v1alpha1", True),  # GenericWorkload; pods name it
    "Pod": ("v1", True),
}
# Export order: what an object refers to comes before it.
EXPORT_ORDER: Final = tuple(KINDS)


_META_FIELDS: Final = frozenset(
    {
        "name",
        "generateName",
        "namespace",
        "labels",
        "annotations",
        "uid",
        "ownerReferences",
        "creationTimestamp",
        "resourceVersion",
        "generation",
        "managedFields",
        "finalizers",
        "selfLink",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    }
)
_TOP_FIELDS: Final = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
_KNOWN_FIELDS: Final[dict[str, frozenset[str]]] = {
    "Node.spec": frozenset(
        {
            "podCIDR",
            "podCIDRs",
            "providerID",
            "taints",
            "unschedulable",
            "configSource",
            "externalID",
        }
    ),
    "Node.status": frozenset(
        {
            "capacity",
            "allocatable",
            "conditions",
            "addresses",
            "daemonEndpoints",
            "nodeInfo",
            "images",
            "volumesInUse",
            "volumesAttached",
            "config",
            "phase",
            "runtimeHandlers",
            "features",
            "declaredFeatures",
        }
    ),
    "Pod.spec": frozenset(
        {
            "volumes",
            "initContainers",
            "containers",
            "ephemeralContainers",
            "restartPolicy",
            "terminationGracePeriodSeconds",
            "activeDeadlineSeconds",
            "dnsPolicy",
            "nodeSelector",
            "serviceAccountName",
            "serviceAccount",
            "automountServiceAccountToken",
            "nodeName",
            "hostNetwork",
            "hostPID",
            "hostIPC",
            "shareProcessNamespace",
            "securityContext",
            "imagePullSecrets",
            "hostname",
            "subdomain",
            "affinity",
            "schedulerName",
            "tolerations",
            "hostAliases",
            "priorityClassName",
            "priority",
            "dnsConfig",
            "readinessGates",
            "runtimeClassName",
            "enableServiceLinks",
            "preemptionPolicy",
            "overhead",
            "topologySpreadConstraints",
            "setHostnameAsFQDN",
            "os",
            "hostUsers",
            "schedulingGates",
            "resourceClaims",
            "resources",
            "hostnameOverride",
            "workloadRef",
        }
    ),
    "Pod.status": frozenset(
        {
            "phase",
            "conditions",
            "message",
            "reason",
            "nominatedNodeName",
            "hostIP",
            "hostIPs",
            "podIP",
            "podIPs",
            "startTime",
            "initContainerStatuses",
            "containerStatuses",
            "qosClass",
            "ephemeralContainerStatuses",
            "resize",
            "resourceClaimStatuses",
            "observedGeneration",
            "extendedResourceClaimStatus",
        }
    ),
    "container": frozenset(
        {
            "name",
            "image",
            "command",
            "args",
            "workingDir",
            "ports",
            "envFrom",
            "env",
            "resources",
            "resizePolicy",
            "restartPolicy",
            "restartPolicyRules",
            "volumeMounts",
            "volumeDevices",
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
            "lifecycle",
            "terminationMessagePath",
            "terminationMessagePolicy",
            "imagePullPolicy",
            "securityContext",
            "stdin",
            "stdinOnce",
            "tty",
        }
    ),
    "resources": frozenset({"requests", "limits", "claims"}),
    "Workload.spec": frozenset({"controllerRef", "podGroups"}),
}


LINE_NUMBERS_UP_TO: Final = 1_000_000


_SURROGATE = re.compile("[\ud800-\udfff]")


class _Loader(BoundedLoader):
    """The bounded SafeLoader without the timestamp type: timestamps stay strings, as JSON."""

    def construct_yaml_str(self, node: yaml.ScalarNode) -> str:
        """A string, with JSON's escapes of an astral character (\\ud83d\\udca5, which PyYAML
        keeps as two UTF-16 halves that nothing can store) joined; a lone half is refused."""
        value = str(super().construct_yaml_str(node))
        if not _SURROGATE.search(value):
            return value
        try:
            return value.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "a \\u escape names half a character (a UTF-16 surrogate without its pair)",
                node.start_mark,
            ) from None


_Loader.add_constructor("tag:yaml.org,2002:str", _Loader.construct_yaml_str)

_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in BoundedLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True)
class Problem:
    """A problem with the input: which document, which line, which field, what."""

    message: str
    document: int | None = None  # 1-based
    line: int | None = None  # 1-based
    path: str = ""
    field: str = ""  # the form field it belongs to, when known
    upstream: bool = False  # the message is Kubernetes' (or the engine's) own English

    @property
    def said(self) -> str:
        """The message as the reader reads it: Kubernetes' own words glossed and labelled."""
        return glossed(self.message) if self.upstream else self.message

    def __str__(self) -> str:
        values = {"document": self.document, "line": self.line, "problem": self.said}
        if self.path:
            values["problem"] = gettext("%(path)s: %(problem)s") % {
                "path": self.path,
                "problem": self.said,
            }
        if self.document is not None and self.line is not None:
            return gettext("document %(document)s, line %(line)s: %(problem)s") % values
        if self.document is not None:
            return gettext("document %(document)s: %(problem)s") % values
        if self.line is not None:
            return gettext("line %(line)s: %(problem)s") % values
        return str(values["problem"])


class ManifestProblems(ValueError):
    """Every problem found in an input; nothing of it may be stored."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


@dataclass
class SourceObject:
    """One object read from the input, with enough of its origin to point at its lines."""

    manifest: dict[str, Any]
    document: int | None = None
    node: yaml.Node | None = None
    generated: bool = False

    @property
    def kind(self) -> str:
        return str(self.manifest.get("kind") or "")

    @property
    def name(self) -> str:
        return str((self.manifest.get("metadata") or {}).get("name") or "")

    @property
    def namespace(self) -> str:
        if not KINDS.get(self.kind, ("", True))[1]:
            return ""
        return str((self.manifest.get("metadata") or {}).get("namespace") or "default")

    def line_of(self, path: str) -> int | None:
        """The 1-based line of ``path`` (``spec.containers[0].image``), or of its closest parent."""
        node = self.node
        if node is None:
            return None
        best = node.start_mark.line + 1
        for part in _split_path(path):
            child = None
            if isinstance(node, yaml.MappingNode) and isinstance(part, str):
                child = next((v for k, v in node.value if k.value == part), None)
                if child is not None:
                    key_node = next(k for k, v in node.value if k.value == part)
                    best = key_node.start_mark.line + 1
            elif (
                isinstance(node, yaml.SequenceNode)
                and isinstance(part, int)
                and 0 <= part < len(node.value)
            ):
                child = node.value[part]
                best = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return best

    def problem(self, path: str, message: str, *, upstream: bool = False) -> Problem:
        return Problem(
            message, document=self.document, line=self.line_of(path), path=path, upstream=upstream
        )


@dataclass
class ParseResult:
    objects: list[SourceObject] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def _split_path(path: str) -> list[str | int]:
    parts: list[str | int] = []
    for piece in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts


def _compose_all(text: str, budget: yaml_limits.Budget) -> list[yaml.Node | None]:
    """Every document of a small input as nodes (with their lines), each expanding to no more
    values than one object may hold (aliases included)."""
    loader = _Loader(text)
    loader.max_nodes = min(budget.values, budget.object_values)
    try:
        nodes: list[yaml.Node | None] = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return nodes
    finally:
        loader.dispose()


def _construct(node: yaml.Node) -> Any:
    loader = _Loader("")  # composing happened in parse_documents, within the bounds
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


class _FastLoader(yaml.CSafeLoader):
    """libyaml's loader with the same types as ``_Loader`` (no line numbers kept)."""


_FastLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers


def _load_large_json(text: str, budget: yaml_limits.Budget) -> list[Any]:
    """A big JSON text (``kubectl get -o json``), its values bounded before it is parsed.

    Every value but the first follows a comma or a colon, or opens a list or an object, so
    counting those (at C speed) bounds the values from above; a text over the budget by that
    count is read by the event reader, which names the bound it passes (strings full of commas
    may pass none), and refused by the count if the YAML reader cannot follow it."""
    separators = sum(text.count(c) for c in ",:[{") + 1
    if separators > budget.values:
        tally = yaml_limits.scan(text, budget)
        if not tally.complete:
            raise yaml_limits.YAMLLimitError(yaml_limits.more_values(budget.values), None)
    try:
        data = jsontext.loads(text)
    except RecursionError as err:
        raise ValueError("nested too deeply") from err
    yaml_limits.check_data(data, budget)
    return [data]


def _parse_large(text: str, budget: yaml_limits.Budget) -> ParseResult:
    """Big inputs (a whole cluster): JSON, or YAML built straight from libyaml's events, counted
    while read; problems located by document and path."""
    try:
        if text.lstrip().startswith(("{", "[")):
            documents = _load_large_json(text, budget)
        else:
            documents = yaml_limits.build(text, budget, _FastLoader)
    except yaml_limits.YAMLLimitError as err:
        mark = err.problem_mark
        line = mark.line + 1 if mark is not None else None
        problem = yaml_limits.too_big(str(err.problem))
        raise ManifestProblems([Problem(problem, line=line)]) from err
    except (ValueError, yaml.YAMLError) as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else getattr(err, "lineno", None)
        raise ManifestProblems([Problem(parser_said(str(err), json=True), line=line)]) from err
    result = ParseResult()
    problems: list[Problem] = []
    for index, data in enumerate(documents, start=1):
        if data is not None:
            _collect(data, None, index, result, problems)
    if problems:
        raise ManifestProblems(_capped(problems))
    if not result.objects and not result.warnings:
        raise ManifestProblems([Problem(gettext("no Kubernetes objects found"))])
    return result


MAX_PROBLEMS: Final = 100  # problems reported for one input; the rest are counted
# One big input read at a time in a process: each costs seconds of CPU holding the GIL most of
# the time, and three read side by side (daphne runs each request in a thread) kept another
# user's GET / waiting 1.5 s; one at a time, under 0.5 s. Others wait their turn, a minute at
# most (a dozen inputs of the biggest kind), then are refused with a word to try again.
_ONE_BIG_INPUT: Final = threading.Lock()
BIG_INPUT_WAIT_SECONDS = 60.0
PURE_PYTHON_VALUES: Final = 50_000  # above this many values the fast parser reads the input


def _scan(text: str, budget: yaml_limits.Budget) -> yaml_limits.Tally:
    """Count documents and values while reading, and stop at the budget's bounds; JSON that the
    YAML reader cannot follow is bounded by its commas and colons (at least its values, less 1)."""
    try:
        tally = yaml_limits.scan(text, budget)
    except yaml_limits.YAMLLimitError as err:
        mark = err.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise ManifestProblems([Problem(yaml_limits.too_big(str(err.problem)), line=line)]) from err
    if not tally.complete and text.lstrip().startswith(("{", "[")):
        values = text.count(",") + text.count(":") + 1
        if values > budget.values:
            message = yaml_limits.too_big(yaml_limits.more_values(budget.values))
            raise ManifestProblems([Problem(message)])
    return tally


def _capped(problems: list[Problem]) -> list[Problem]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    more = len(problems) - MAX_PROBLEMS
    said = ngettext("… and %(count)s more problem", "… and %(count)s more problems", more)
    return [*problems[:MAX_PROBLEMS], Problem(said % {"count": f"{more:,}"})]


def parse_documents(text: str, budget: yaml_limits.Budget | None = None) -> ParseResult:
    """Read YAML or JSON text into objects; raise ManifestProblems on syntax or shape errors.

    Unknown kinds are skipped and reported as warnings; unknown fields are kept and reported.
    ``budget`` bounds the documents and values read (default: a web import's), counted while
    reading. Inputs over ``LINE_NUMBERS_UP_TO`` characters or ``PURE_PYTHON_VALUES`` values are
    read by a fast parser, so their problems name the document and field but not the line.
    """
    budget = budget or yaml_limits.import_budget()
    if len(text) > LINE_NUMBERS_UP_TO or _scan(text, budget).values > PURE_PYTHON_VALUES:
        if not _ONE_BIG_INPUT.acquire(timeout=BIG_INPUT_WAIT_SECONDS):
            message = gettext("the server is reading other big inputs; try again in a minute")
            raise ManifestProblems([Problem(message)])
        try:
            return _parse_large(text, budget)
        finally:
            _ONE_BIG_INPUT.release()
    if "\t" in text and not text.lstrip().startswith(("{", "[")):
        line = text[: text.index("\t")].count("\n") + 1
        raise ManifestProblems(
            [Problem(gettext("tab characters are not allowed in YAML indentation"), line=line)]
        )
    try:
        nodes = _compose_all(text, budget)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err)
        context = getattr(err, "context", None)
        message = parser_said(f"{problem}" + (f" ({context})" if context else ""))
        raise ManifestProblems(
            [Problem(message, line=mark.line + 1 if mark is not None else None)]
        ) from err
    result = ParseResult()
    problems: list[Problem] = []
    for index, node in enumerate(nodes, start=1):
        if node is None:
            continue
        try:
            data = _construct(node)
        except (yaml.YAMLError, ValueError) as err:  # ValueError: an int of over 4,300 digits
            mark = getattr(err, "problem_mark", None)
            problems.append(
                Problem(parser_said(str(err)), document=index, line=mark.line + 1 if mark else None)
            )
            continue
        if data is None:
            continue
        _collect(data, node, index, result, problems)
    if problems:
        raise ManifestProblems(_capped(problems))
    if not result.objects and not result.warnings:
        raise ManifestProblems([Problem(gettext("no Kubernetes objects found"))])
    return result


def _collect(
    data: Any, node: yaml.Node | None, document: int, result: ParseResult, problems: list[Problem]
) -> None:
    where = SourceObject({}, document, node)
    if not isinstance(data, dict):
        problems.append(
            where.problem(
                "", gettext("expected a Kubernetes object (a mapping with apiVersion and kind)")
            )
        )
        return
    kind = data.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in data:
        items = data.get("items") or []
        items_node = next((v for k, v in node.value if k.value == "items"), None) if node else None
        if not isinstance(items, list):
            problems.append(where.problem("items", gettext("must be a list")))
            return
        for i, item in enumerate(items):
            child = items_node.value[i] if isinstance(items_node, yaml.SequenceNode) else node
            _collect(item, child, document, result, problems)
        return
    obj = SourceObject(data, document, node)
    if not kind:
        message = "Required value: every object needs a kind"
        problems.append(obj.problem("kind", message, upstream=True))
        return
    if not isinstance(kind, str):
        problems.append(obj.problem("kind", "Invalid value: must be a string", upstream=True))
        return
    if kind not in KINDS:
        result.warnings.append(
            obj.problem(
                "kind",
                gettext("kind %(kind)s is not modelled by the playground; skipped")
                % {"kind": repr(kind)},
            )
        )
        return
    if dra_versions.is_older_dra(data):
        try:
            obj.manifest, source = dra_versions.to_v1(data)
        except dra_versions.ConversionError as err:
            problems.append(obj.problem(err.path, err.message, upstream=True))
            return
        result.warnings.append(
            obj.problem(
                "apiVersion",
                gettext("written for %(source)s: converted to %(v1)s as the API server converts it")
                % {"source": source, "v1": dra_versions.V1},
            )
        )
        data = obj.manifest
    result.objects.append(obj)
    for path in _unknown_fields(data):
        result.warnings.append(
            obj.problem(path, gettext("unknown field (kept, but ignored by the scheduler)"))
        )


def _unknown_fields(data: Mapping[str, Any]) -> list[str]:
    kind = data.get("kind")
    paths = [key for key in data if key not in _TOP_FIELDS]
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        paths += [f"metadata.{key}" for key in metadata if key not in _META_FIELDS]
    for part in ("spec", "status"):
        known = _KNOWN_FIELDS.get(f"{kind}.{part}")
        section = data.get(part)
        if known is None or not isinstance(section, dict):
            continue
        paths += [f"{part}.{key}" for key in section if key not in known]
    spec = data.get("spec")
    if kind == "Pod" and isinstance(spec, dict):
        for group in ("initContainers", "containers"):
            containers = spec.get(group)
            for i, container in enumerate(containers if isinstance(containers, list) else []):
                if not isinstance(container, dict):
                    continue
                base = f"spec.{group}[{i}]"
                paths += [f"{base}.{k}" for k in container if k not in _KNOWN_FIELDS["container"]]
                resources = container.get("resources")
                if isinstance(resources, dict):
                    paths += [
                        f"{base}.resources.{k}"
                        for k in resources
                        if k not in _KNOWN_FIELDS["resources"]
                    ]
    return paths


def check_object(obj: SourceObject) -> list[Problem]:
    """Every problem with one object: names, labels, apiVersion, and what the engine refuses.

    A shape no check foresaw is still a problem of the object, never an error of the request.
    """
    try:
        return _check_object(obj)
    except (TypeError, AttributeError, ValueError, KeyError) as err:
        message = f"not a valid {obj.kind}: {type(err).__name__}: {err}"
        return [obj.problem("", message, upstream=True)]


def _check_object(obj: SourceObject) -> list[Problem]:
    data = obj.manifest
    problems = []
    kind = obj.kind
    api_version = KINDS[kind][0]
    if data.get("apiVersion") != api_version:
        problems.append(
            obj.problem(
                "apiVersion",
                f"Unsupported value: {data.get('apiVersion')!r}: {kind} is {api_version!r}",
                upstream=True,
            )
        )
    # Names, labels, the API server's and the engine's checks, workloads: as simulate does.
    most = int(getattr(settings, "PLAYGROUND_BULK_MAX", 1000))  # each replica is a stored Pod
    for path, message in check_engine_object(data, most):
        problems.append(obj.problem(path, message, upstream=True))
    if kind == "Workload":
        for path, message in workload_api.check_workload(data):
            problems.append(obj.problem(path, message, upstream=True))
    elif kind == "Pod":
        for path, message in workload_api.check_workload_ref(data):
            problems.append(obj.problem(path, message, upstream=True))
    return problems


# --- export -------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Block style, lists indented under their key as kubectl prints them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def dump_yaml_documents(manifests: Iterable[Mapping[str, Any]]) -> str:
    return yaml.dump_all(
        [dict(m) for m in manifests],
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
    )


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True
    )
