"""HTTPExtender: the scheduler's client for HTTP scheduler extenders.

Mirrors pkg/scheduler/extender.go and the wire types of k8s.io/kube-scheduler/extender/v1 in
kube-scheduler v1.35. Each call is one JSON POST to ``<urlPrefix>/<verb>``; the request and reply
bodies use the Go field names of the v1 extender API (the types carry no json tags), and replies
are decoded as Go's encoding/json would: keys match field names case-insensitively, unknown keys
are ignored, null leaves the zero value, and a value of the wrong type is an error.

How the scheduler drives its extenders is here too, as module functions the cycle calls:
find_nodes_that_pass_extenders and extender_priorities (schedule_one.go: sequential filtering, the
ignorable flag, scores scaled by weight * MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY),
call_extenders_for_preemption (preemption.go callExtenders) and bind_with_extenders
(extendersBinding).
"""

from __future__ import annotations

import base64
import datetime
import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from scheduler_core.config import (
    DEFAULT_EXTENDER_TIMEOUT_SECONDS,
    Extender,
    KubeSchedulerConfiguration,
)
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.policy import (
    ExtenderPolicy,
    ExtenderPolicyError,
    check_url,
    excerpt,
)
from scheduler_core.extenders.transport import (
    TLSConfigError,
    build_opener,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import (
    Node,
    Pod,
)

EXTENDER_NAME: Final = "Extender"  # the plugin name recorded when extenders reject nodes
MIN_EXTENDER_PRIORITY: Final = 0
MAX_EXTENDER_PRIORITY: Final = 10
MAX_NODE_SCORE: Final = 100
# Multiplies an extender score (with its weight) into the node score range.
EXTENDER_SCORE_SCALE: Final = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
_DEADLINE: Final = "context deadline exceeded"  # Go's words for a call that timed out

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


class ExtenderError(SchedulerCoreError):
    """An extender call failed: transport, HTTP status, undecodable reply, or a reported error."""


class NodeInfoGetter(Protocol):
    """What ProcessPreemption needs from the snapshot (upstream NodeInfoLister.Get)."""

    def get(self, name: str) -> NodeInfo | None: ...


class HTTPExtender:
    """One configured extender, speaking the v1 extender API over HTTP(S)."""

    def __init__(
        self,
        config: Extender,
        *,
        policy: ExtenderPolicy | None = None,
        opener: urllib.request.OpenerDirector | None = None,
    ) -> None:
        self.config = config
        self.policy = policy if policy is not None else ExtenderPolicy()
        self.name: str = config.url_prefix
        self.weight: int = config.weight
        self.timeout: float = self.policy.timeout(
            config.http_timeout_seconds, DEFAULT_EXTENDER_TIMEOUT_SECONDS
        )
        self._managed: frozenset[str] = frozenset(r.name for r in config.managed_resources)
        self._ignored: frozenset[str] = frozenset(
            r.name for r in config.managed_resources if r.ignored_by_scheduler
        )
        try:
            self._opener = opener if opener is not None else build_opener(config, self.policy)
        except TLSConfigError as exc:
            raise ExtenderError(str(exc)) from exc

    def __repr__(self) -> str:
        return f"HTTPExtender({self.name})"

    # --- capabilities -------------------------------------------------------------------

    def is_ignorable(self) -> bool:
        return self.config.ignorable

    def is_filter(self) -> bool:
        return self.config.filter_verb != ""

    def is_prioritizer(self) -> bool:
        return self.config.prioritize_verb != ""

    def is_binder(self) -> bool:
        return self.config.bind_verb != ""

    def supports_preemption(self) -> bool:
        return self.config.preempt_verb != ""

    def is_ignored_resource(self, name: str) -> bool:
        """Whether ``name`` is a managed resource the scheduler's resource fit must not count."""
        return name in self._ignored

    def is_interested(self, pod: Pod) -> bool:
        """True when the extender manages no resources, or a container names one of them."""
        if not self._managed:
            return True
        for containers in (pod.containers, pod.init_containers):
            for c in containers:
                if any(name in self._managed for name in c.requests):
                    return True
                if any(name in self._managed for name in c.limits):
                    return True
        return False

    # --- verbs --------------------------------------------------------------------------

    def filter(
        self, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """Return (feasible nodes, failed node -> reason, unresolvable node -> reason).

        With nodeCacheCapable the reply's NodeNames are mapped back to the given NodeInfos;
        otherwise (or when NodeNames is null) the reply's Nodes become new NodeInfos holding only
        the node, exactly as upstream does (they carry no pods).
        """
        verb = self.config.filter_verb
        if not verb:
            return list(nodes), {}, {}
        reply = _object(self._send(verb, self._extender_args(pod, nodes)), "ExtenderFilterResult")
        error = _string(_field(reply, "Error"), "ExtenderFilterResult.Error")
        if error:
            raise ExtenderError(excerpt(error))
        names = _field(reply, "NodeNames")
        node_list = _field(reply, "Nodes")
        result: list[NodeInfo] = []
        if self.config.node_cache_capable and names is not None:
            by_name = {ni.node.name: ni for ni in nodes}
            for name in _string_list(names, "ExtenderFilterResult.NodeNames"):
                ni = by_name.get(name)
                if ni is None:
                    raise ExtenderError(
                        f"extender {_go_quote(self.name)} claims a filtered node "
                        f"{excerpt(_go_quote(name))} which is not found in the input node list"
                    )
                result.append(ni)
        elif node_list is not None:
            items = _field(_object(node_list, "ExtenderFilterResult.Nodes"), "items")
            for i, item in enumerate(_list(items, "ExtenderFilterResult.Nodes.items")):
                raw = _object(item, f"ExtenderFilterResult.Nodes.items[{i}]")
                try:
                    node = Node(raw if raw is not None else {})
                except (SchedulerCoreError, ValueError, TypeError) as exc:
                    raise ExtenderError(f"decoding extender reply: {exc}") from exc
                result.append(NodeInfo(node))
        failed = _string_map(_field(reply, "FailedNodes"), "ExtenderFilterResult.FailedNodes")
        unresolvable = _string_map(
            _field(reply, "FailedAndUnresolvableNodes"),
            "ExtenderFilterResult.FailedAndUnresolvableNodes",
        )
        return result, failed, unresolvable

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """Return the extender's (host, score) list, in its order, and the extender's weight.

        Without a prioritize verb every node scores 0 and the weight is 0. The caller adds
        ``score * weight * EXTENDER_SCORE_SCALE`` to each listed node that is among its nodes.
        """
        verb = self.config.prioritize_verb
        if not verb:
            return [(ni.node.name, 0) for ni in nodes], 0
        reply = self._send(verb, self._extender_args(pod, nodes))
        out: list[tuple[str, int]] = []
        for i, item in enumerate(_list(reply, "HostPriorityList")):
            entry = _object(item, f"HostPriorityList[{i}]")
            out.append(
                (
                    _string(_field(entry, "Host"), f"HostPriorityList[{i}].Host"),
                    _int64(_field(entry, "Score"), f"HostPriorityList[{i}].Score"),
                )
            )
        return out, self.weight

    def process_preemption(
        self,
        pod: Pod,
        victims: Mapping[str, list[Pod]],
        num_pdb_violations: Mapping[str, int],
        snapshot: NodeInfoGetter,
    ) -> tuple[dict[str, list[Pod]], dict[str, int]]:
        """Ask the extender to trim the candidate nodes and their victims.

        Sends NodeNameToMetaVictims (UIDs) when nodeCacheCapable, full victim pods otherwise;
        the reply's NodeNameToMetaVictims are resolved against the pods on each snapshot node.
        Returns (node -> victim pods, node -> PDB violations), in the reply's order.
        """
        if not self.supports_preemption():
            raise ExtenderError(
                f"preempt verb is not defined for extender {self.name} but run into "
                "ProcessPreemption"
            )
        nodes = sorted(victims)  # Go marshals map keys sorted
        args: dict[str, Any] = {"Pod": pod.raw, "NodeNameToVictims": None}
        if self.config.node_cache_capable:
            args["NodeNameToMetaVictims"] = {
                n: {
                    "Pods": [{"UID": p.uid} for p in victims[n]],
                    "NumPDBViolations": num_pdb_violations.get(n, 0),
                }
                for n in nodes
            }
        else:
            args["NodeNameToVictims"] = {
                n: {
                    "Pods": [p.raw for p in victims[n]],
                    "NumPDBViolations": num_pdb_violations.get(n, 0),
                }
                for n in nodes
            }
            args["NodeNameToMetaVictims"] = None
        reply = _object(self._send(self.config.preempt_verb, args), "ExtenderPreemptionResult")
        meta = _object(
            _field(reply, "NodeNameToMetaVictims"), "ExtenderPreemptionResult.NodeNameToMetaVictims"
        )
        out_victims: dict[str, list[Pod]] = {}
        out_pdb: dict[str, int] = {}
        for node_name, mv in (meta or {}).items():
            path = f"NodeNameToMetaVictims[{_go_quote(node_name)}]"
            mv_obj = _object(mv, path)
            if mv_obj is None:
                # Upstream dereferences the nil entry and crashes; report it instead.
                raise ExtenderError(f"extender {self.name} returned null victims for {path}")
            ni = snapshot.get(node_name)
            if ni is None:
                raise ExtenderError(
                    f"nodeinfo not found for node name {excerpt(_go_quote(node_name))}"
                )
            pdb = _int64(_field(mv_obj, "NumPDBViolations"), f"{path}.NumPDBViolations")
            pods: list[Pod] = []
            for j, meta_pod in enumerate(_list(_field(mv_obj, "Pods"), f"{path}.Pods")):
                mp = _object(meta_pod, f"{path}.Pods[{j}]")
                if mp is None:
                    raise ExtenderError(
                        f"extender {self.name} returned a null pod in {path}.Pods[{j}]"
                    )
                uid = _string(_field(mp, "UID"), f"{path}.Pods[{j}].UID")
                found = next((p for p in ni.pods if p.uid == uid), None)
                if found is None:
                    raise ExtenderError(
                        f"extender: {self.name} claims to preempt pod "
                        f"(UID: &{{{excerpt(uid)}}}) on node: {ni.node.name}, "
                        "but the pod is not found on that node"
                    )
                pods.append(found)
            out_victims[node_name] = pods
            out_pdb[node_name] = pdb
        return out_victims, out_pdb

    def bind(self, pod: Pod, node_name: str) -> None:
        """Delegate binding ``pod`` to ``node_name``; an error reply raises ExtenderError."""
        if not self.is_binder():
            raise ExtenderError("unexpected empty bindVerb in extender")
        args = {
            "PodName": pod.name,
            "PodNamespace": pod.namespace,
            "PodUID": pod.uid,
            "Node": node_name,
        }
        reply = _object(self._send(self.config.bind_verb, args), "ExtenderBindingResult")
        error = _string(_field(reply, "Error"), "ExtenderBindingResult.Error")
        if error:
            raise ExtenderError(excerpt(error))

    # --- transport ----------------------------------------------------------------------

    def _extender_args(self, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, Any]:
        if self.config.node_cache_capable:
            return {"Pod": pod.raw, "Nodes": None, "NodeNames": [ni.node.name for ni in nodes]}
        items = [ni.node.raw for ni in nodes] or None
        return {"Pod": pod.raw, "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}

    def _send(self, verb: str, args: Mapping[str, Any]) -> Any:
        """POST ``args`` as JSON to ``<prefix>/<verb>`` and return the decoded reply."""
        url = self.name.rstrip("/") + "/" + verb
        try:
            body = json.dumps(args, separators=(",", ":"), default=_json_default).encode()
        except (TypeError, ValueError) as exc:
            raise ExtenderError(f"encoding extender request: {exc}") from exc
        try:
            request = urllib.request.Request(
                url, data=body, headers={"Content-Type": "application/json"}, method="POST"
            )
        except ValueError as exc:
            raise ExtenderError(f'Post "{url}": {exc}') from exc
        started = time.monotonic()
        try:
            status, data = self._post(url, request)
        except ExtenderError as exc:
            self._charge(url, started, timed_out=_DEADLINE in str(exc))
            raise
        self._charge(url, started, timed_out=False)
        if 300 <= status < 400:
            raise ExtenderError(
                f"failed {verb} with extender at URL {url}, code {status}: "
                "redirects are not followed"
            )
        if status != 200:
            raise ExtenderError(f"failed {verb} with extender at URL {url}, code {status}")
        if len(data) > self.policy.max_reply_bytes:
            raise ExtenderError(
                f"failed {verb} with extender at URL {url}: the reply is larger than "
                f"{self.policy.max_reply_bytes} bytes"
            )
        return _decode(data)

    def _charge(self, url: str, started: float, *, timed_out: bool) -> None:
        """Count the call against the run's extender budget, if the policy has one."""
        if self.policy.budget is not None:
            self.policy.budget.charge(
                url, time.monotonic() - started, timeout=self.timeout if timed_out else None
            )

    def _post(self, url: str, request: urllib.request.Request) -> tuple[int, bytes]:
        """The reply's status and body (empty unless 200); ExtenderError when there is none."""
        try:
            check_url(url, self.policy)
            with self._opener.open(request, timeout=self.timeout) as resp:
                status = resp.status
                data = resp.read(self.policy.max_reply_bytes + 1) if status == 200 else b""
        except ExtenderPolicyError as exc:
            raise ExtenderError(f'Post "{url}": {exc}') from exc
        except urllib.error.HTTPError as exc:
            status = exc.code
            exc.close()
            data = b""
        except TimeoutError as exc:
            raise ExtenderError(
                f'Post "{url}": {_DEADLINE} (Client.Timeout exceeded while awaiting headers)'
            ) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise ExtenderError(
                    f'Post "{url}": {_DEADLINE} (Client.Timeout exceeded while awaiting headers)'
                ) from exc
            raise ExtenderError(f'Post "{url}": {exc.reason}') from exc
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise ExtenderError(f'Post "{url}": {exc}') from exc
        return status, data


def extenders_from_config(
    cfg: KubeSchedulerConfiguration, policy: ExtenderPolicy | None = None
) -> list[HTTPExtender]:
    """Build the configured extenders, the ignorable ones moved to the end (buildExtenders).

    ``policy`` says which hosts they may reach; the default allows public addresses only.
    """
    built = [HTTPExtender(e, policy=policy) for e in cfg.extenders]
    return [e for e in built if not e.is_ignorable()] + [e for e in built if e.is_ignorable()]


def ignored_extended_resources(cfg: KubeSchedulerConfiguration) -> tuple[str, ...]:
    """Managed resources with ignoredByScheduler, in configuration order.

    Upstream replaces NodeResourcesFitArgs.ignoredResources of every profile with this list
    when it is not empty.
    """
    return tuple(
        r.name for e in cfg.extenders for r in e.managed_resources if r.ignored_by_scheduler
    )


def _json_default(value: Any) -> Any:
    """Values a YAML-loaded manifest may hold that JSON lacks: timestamps and dates."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.UTC).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# --- how the scheduler drives its extenders (schedule_one.go, preemption.go) ---------------


def find_nodes_that_pass_extenders(
    extenders: Sequence[HTTPExtender], pod: Pod, nodes: Sequence[NodeInfo]
) -> tuple[list[NodeInfo], dict[str, Status]]:
    """Run the interested filter extenders in turn, each on what the previous one kept.

    Returns the surviving nodes and the statuses to record for rejected nodes (unresolvable
    ones win over plain failures for the same node; later extenders overwrite earlier ones).
    An ignorable extender's error is skipped; any other raises ExtenderError. The caller adds
    ``EXTENDER_NAME`` to the unschedulable plugins when the node count shrank.
    """
    feasible = list(nodes)
    statuses: dict[str, Status] = {}
    for ext in extenders:
        if not feasible:
            break
        if not ext.is_interested(pod):
            continue
        try:
            kept, failed, unresolvable_nodes = ext.filter(pod, feasible)
        except ExtenderError:
            if ext.is_ignorable():
                continue
            raise
        for name, msg in unresolvable_nodes.items():
            statuses[name] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,))
        for name, msg in failed.items():
            if name not in unresolvable_nodes:
                statuses[name] = Status(Code.UNSCHEDULABLE, (msg,))
        feasible = kept
    return feasible, statuses


def extender_priorities(
    extenders: Sequence[HTTPExtender], pod: Pod, nodes: Sequence[NodeInfo]
) -> list[tuple[str, int, dict[str, int]]]:
    """(extender name, weight, host -> raw score) of every interested extender that answered,
    in configuration order. A host listed twice adds up, as upstream's combinedScores does;
    the raw scores are the extender's own 0-MaxExtenderPriority values, before the weight and
    the EXTENDER_SCORE_SCALE that bring them to the node score range. A failing extender gives
    no scores (errors are ignored, as upstream). Upstream calls the extenders concurrently;
    here they are called, and listed, in configuration order.
    """
    out: list[tuple[str, int, dict[str, int]]] = []
    if not nodes:
        return out
    for ext in extenders:
        if not ext.is_interested(pod):
            continue
        try:
            listed, weight = ext.prioritize(pod, nodes)
        except ExtenderError:
            continue
        raw: dict[str, int] = {}
        for host, score in listed:
            raw[host] = raw.get(host, 0) + score
        out.append((ext.name, weight, raw))
    return out


def call_extenders_for_preemption(
    extenders: Sequence[HTTPExtender],
    pod: Pod,
    victims: Mapping[str, list[Pod]],
    num_pdb_violations: Mapping[str, int],
    snapshot: NodeInfoGetter,
) -> tuple[dict[str, list[Pod]], dict[str, int]]:
    """Evaluator.callExtenders: let each preempting extender narrow the candidates in turn.

    A node the extender returns without victims is dropped for an ignorable extender and is an
    error otherwise; an ignorable extender's failure is skipped. Raises ExtenderError.
    """
    cur_victims = dict(victims)
    cur_pdb = dict(num_pdb_violations)
    if not cur_victims:
        return cur_victims, cur_pdb
    for ext in extenders:
        if not ext.supports_preemption() or not ext.is_interested(pod):
            continue
        try:
            new_victims, new_pdb = ext.process_preemption(pod, cur_victims, cur_pdb, snapshot)
        except ExtenderError:
            if ext.is_ignorable():
                continue
            raise
        for name in list(new_victims):
            if not new_victims[name]:
                if ext.is_ignorable():
                    del new_victims[name]
                    new_pdb.pop(name, None)
                    continue
                raise ExtenderError(
                    f"expected at least one victim pod on node {excerpt(_go_quote(name))}"
                )
        cur_victims, cur_pdb = new_victims, new_pdb
        if not cur_victims:
            break
    return cur_victims, cur_pdb


def bind_with_extenders(extenders: Sequence[HTTPExtender], pod: Pod, node_name: str) -> bool:
    """extendersBinding: the first interested binder binds; True when an extender did.

    An ignorable binder's error passes to the next binder; any other raises ExtenderError
    (the pod then counts as handled by the extender, and the binding failed).
    """
    for ext in extenders:
        if not ext.is_binder() or not ext.is_interested(pod):
            continue
        try:
            ext.bind(pod, node_name)
        except ExtenderError:
            if ext.is_ignorable():
                continue
            raise
        return True
    return False


# --- reply decoding, as encoding/json into the v1 types ------------------------------------


def _decode(data: bytes) -> Any:
    """Decode the first JSON value of the body (json.Decoder.Decode ignores what follows)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExtenderError(f"invalid character in extender reply: {exc}") from exc
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        raise ExtenderError("EOF")
    try:
        value, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ExtenderError(f"decoding extender reply: {exc}") from exc
    return value


def _field(obj: Mapping[str, Any] | None, name: str) -> Any:
    """A struct field: the last key equal to ``name`` ignoring case; None when absent or null."""
    if obj is None:
        return None
    value = None
    lowered = name.lower()
    for k, v in obj.items():
        if k.lower() == lowered:
            value = v
    return value


def _type_error(value: Any, go_type: str, path: str) -> ExtenderError:
    kind = {bool: "bool", str: "string", list: "array", dict: "object"}.get(type(value), "number")
    return ExtenderError(
        f"json: cannot unmarshal {kind} into Go struct field {path} of type {go_type}"
    )


def _object(value: Any, path: str) -> Mapping[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    raise _type_error(value, "object", path)


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return value
    raise _type_error(value, "array", path)


def _string(value: Any, path: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise _type_error(value, "string", path)


def _int64(value: Any, path: str) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and _INT64_MIN <= value <= _INT64_MAX:
        return value
    raise _type_error(value, "int64", path)


def _string_list(value: Any, path: str) -> list[str]:
    return [_string(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path))]


def _string_map(value: Any, path: str) -> dict[str, str]:
    obj = _object(value, path)
    if obj is None:
        return {}
    return {k: excerpt(_string(v, f"{path}[{_go_quote(k)}]")) for k, v in obj.items()}


def _go_quote(text: str) -> str:
    """Go's %q for printable text."""
    return json.dumps(text, ensure_ascii=False)
