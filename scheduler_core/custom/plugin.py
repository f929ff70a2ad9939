"""Custom plugins written as CEL expressions: a plugin factory built from a definition.

Not an upstream plugin: the playground's way to write an out-of-tree plugin without Go. A
definition names the extension points it implements, each with one CEL expression over
``pod``, ``node`` (labels, annotations, taints, allocatable, requested, the pods on it),
``state`` (what this plugin's PreFilter and PreScore returned earlier in the cycle) and ``args``
(the profile's pluginConfig for the plugin). Expressions are compiled once per profile; no
Python from users is ever run.

Cost: ``common-expression-language`` has no cost, step or memory limit of its own, so every
evaluation runs in ``sandbox`` (a worker process with hard CPU and memory limits, whatever the
analysis says) and each expression is also parsed and bounded by ``cel_cost`` at compile time
(refused when it cannot be bounded, when the tree disagrees with the evaluator's own parse, or
when it is too costly on a reference cluster) and, before every evaluation, for the sizes of
the values it reads: a call over ``CALL_LIMIT``, or one that would pass the cycle's or the
run's budget (``CYCLE_BUDGET``, ``RUN_BUDGET``, shared by all custom plugins of a registry), is
not made and is an Error status naming plugin, extension point and expression. A registry's
``Meter`` also calls its ``checkpoint`` before each evaluation: the playground renews its run's
lease there and stops a cancelled run mid-cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import cel

from scheduler_core.custom import sandbox
from scheduler_core.custom.cel_cost import (
    CALL_LIMIT,
    CYCLE_BUDGET,
    RUN_BUDGET,
    Analysis,
    Shape,
    shape_of,
)
from scheduler_core.custom.cel_parse import CostError, check_agrees
from scheduler_core.custom.values import node_value, pod_value
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.registry import Registry
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.framework.types import NodeInfo, NodeScore, PreFilterResult
from scheduler_core.objects.api import Pod
from scheduler_core.plugins.shared.helpers import default_normalize_score

# Extension point keys of a definition, in framework order.
POINTS: Final = (
    "queueSort",
    "preFilter",
    "filter",
    "preScore",
    "score",
    "normalizeScore",
    "reserve",
    "unreserve",
    "permit",
    "preBind",
    "postBind",
)
NORMALIZE_MODES: Final = ("none", "default", "reverse", "minmax")
MAX_EXPRESSION_LENGTH: Final = 2000
DEFAULT_WAIT_SECONDS: Final = 60.0
# The variables each point's expression may read ("args" everywhere).
_VARIABLES: Final = ("pod", "node", "state", "args")
VARIABLES: Final[Mapping[str, tuple[str, ...]]] = {
    **{point: _VARIABLES for point in POINTS},
    "queueSort": ("a", "b", "args"),
    "normalizeScore": (*_VARIABLES, "score", "scores", "max", "min"),
}
_SPENT_KEY: Final = "CustomPlugin/*cost"  # units spent by all custom plugins in this cycle
_POSITION: Final = re.compile(r"<input>:(\d+):(\d+)")


class CelPluginError(ValueError):
    """A definition that cannot be compiled; ``errors`` has one line per bad expression."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = tuple(errors)


@dataclass(frozen=True, slots=True)
class CustomPluginSpec:
    """A custom plugin: its name, one expression per extension point, and Filter's reason."""

    name: str
    expressions: Mapping[str, str]
    filter_reason: str = ""
    normalize: str = "none"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> CustomPluginSpec:
        """From the exported form ``{name, points: {point: expr}, filterReason, normalize}``.

        Raises CelPluginError when ``raw`` or its ``points`` is not a mapping."""
        if not isinstance(raw, Mapping):
            raise CelPluginError(["a custom plugin definition must be a mapping"])
        points = raw.get("points") or {}
        if not isinstance(points, Mapping):
            raise CelPluginError(["points: must map extension points to CEL expressions"])
        return cls(
            name=str(raw.get("name") or ""),
            expressions={k: str(v) for k, v in points.items() if str(v or "").strip()},
            filter_reason=str(raw.get("filterReason") or ""),
            normalize=str(raw.get("normalize") or "none"),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "points": dict(self.expressions)}
        if self.filter_reason:
            out["filterReason"] = self.filter_reason
        if self.normalize != "none":
            out["normalize"] = self.normalize
        return out


@dataclass(slots=True)
class Meter:
    """What the custom plugins of one registry (one run) spent, and the hook called before
    each evaluation (it may raise a ``BaseException`` to stop the engine mid-cycle: the
    runtime turns an ``Exception`` from a plugin into an Error status). ``stopped``: the
    expressions the sandbox stopped in this run, not evaluated again (a missed shape costs the
    run the sandbox's limit once, not once per node and pod)."""

    checkpoint: Callable[[], None] | None = None
    spent: int = 0
    stopped: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class _Spent:
    """The units custom plugins spent in this cycle."""

    units: int = 0

    def clone(self) -> _Spent:
        return _Spent(self.units)


@dataclass(frozen=True, slots=True)
class _Compiled:
    point: str
    source: str
    program: Any
    analysis: Analysis


def _position(source: str, offset: int) -> str:
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{column}"


def analyse(point: str, source: str) -> Analysis:
    """The cost analysis of one point's expression; raises CostError (``offset`` in source)."""
    if len(source) > MAX_EXPRESSION_LENGTH:
        raise CostError(f"longer than {MAX_EXPRESSION_LENGTH} characters", 0)
    return Analysis(source, VARIABLES.get(point, _VARIABLES))


def compile_spec(spec: CustomPluginSpec) -> dict[str, _Compiled]:
    """Compile every expression of ``spec`` once, or raise CelPluginError listing the problems."""
    problems = []
    out: dict[str, _Compiled] = {}
    if spec.normalize not in (*NORMALIZE_MODES, "expression"):
        problems.append(f"normalize: {spec.normalize!r} is not one of {', '.join(NORMALIZE_MODES)}")
    for point, source in spec.expressions.items():
        if point not in POINTS:
            problems.append(f"{point}: not an extension point a custom plugin can implement")
            continue
        if len(source) > MAX_EXPRESSION_LENGTH:
            problems.append(f"{spec.name} {point}: longer than {MAX_EXPRESSION_LENGTH} characters")
            continue
        try:
            program = cel.compile(source)
        except (ValueError, RuntimeError) as err:
            problems.append(f"{spec.name} {point}: {_describe(err)}")
            continue
        try:
            analysis = analyse(point, source)
            check_agrees(analysis.tree, program.functions(), program.variables())
        except CostError as err:
            where = _position(source, err.offset)
            problems.append(f"{spec.name} {point}: at {where}: {err}")
            continue
        out[point] = _Compiled(point, source, program, analysis)
    if problems:
        raise CelPluginError(problems)
    return out


def _describe(err: BaseException) -> str:
    """The library's message, its ``<input>:line:col`` position put first as ``at line:col``."""
    text = str(err)
    match = _POSITION.search(text)
    first = text.splitlines()[0] if text else type(err).__name__
    if match:
        detail = text[match.end() :].lstrip(": ").splitlines()[0]
        return f"at {match.group(1)}:{match.group(2)}: {detail}"
    return first


def _reads_node_only(c: _Compiled) -> bool:
    """True when the expression reads nothing but the node's own fields and the args."""
    node = c.analysis.uses.get("node", frozenset())
    return set(c.analysis.uses) <= {"node", "args"} and (
        node is not None and not node & {"pods", "requested"}
    )


@dataclass(slots=True)
class _PluginState:
    """This plugin's cycle state: what its PreFilter and PreScore returned."""

    values: dict[str, Any] = field(default_factory=dict)

    def clone(self) -> _PluginState:
        return _PluginState(dict(self.values))


class CustomPlugin:
    """Base of the classes ``new_factory`` builds: one per definition, only its points."""

    name: str = ""

    def __init__(
        self,
        spec: CustomPluginSpec,
        compiled: dict[str, _Compiled],
        args: Any,
        handle: Any,
        meter: Meter | None = None,
    ) -> None:
        self.spec = spec
        self.meter = meter if meter is not None else Meter()
        self.compiled = compiled
        self.args = dict(args) if isinstance(args, Mapping) else {}
        self.handle = handle
        self._key = f"CustomPlugin/{spec.name}"
        # Points whose expression reads only the node's own fields (not its pods, not the pod
        # being scheduled, not the cycle state): evaluated once per node object, not per pod.
        self._node_only = {point for point, c in compiled.items() if _reads_node_only(c)}
        self._memo: dict[tuple[str, str], tuple[object, Any]] = {}
        # A node's value and the bound of what a point reads of it, while its NodeInfo and Node
        # are the same objects and the generation (pods added or removed bump it) the same.
        self._nodes: dict[tuple[str, str], tuple[NodeInfo, int, object, dict[str, Any], Shape]] = {}
        self._pod: tuple[Pod, dict[str, Any]] | None = None
        self._pod_shapes: dict[str, Shape] = {}  # of self._pod, per point

    # -- evaluation -----------------------------------------------------------------------------

    def _state(self, state: CycleState) -> _PluginState:
        data = state.get(self._key)
        if not isinstance(data, _PluginState):
            data = _PluginState()
            state.write(self._key, data)
        return data

    def _eval(
        self,
        point: str,
        variables: dict[str, Any],
        state: CycleState | None = None,
        known: Mapping[str, Shape] | None = None,
    ) -> tuple[Any, Status | None]:
        """The expression's value, or (None, Error status) naming plugin, point and position.

        The call is made only when its bound fits ``CALL_LIMIT`` and what is left of the
        cycle's budget (in ``state``) and of the run's (the meter).
        """
        c = self.compiled[point]
        variables["args"] = self.args
        cost = c.analysis.cost(variables, known)
        if cost > CALL_LIMIT:
            return None, self._error(
                point, f"cost limit exceeded ({cost:,} > {CALL_LIMIT:,} units) in {c.source!r}"
            )
        spent: _Spent | None = None
        if state is not None:
            data = state.get(_SPENT_KEY)
            spent = data if isinstance(data, _Spent) else _Spent()
            if spent.units + cost > CYCLE_BUDGET:
                return None, self._error(
                    point, f"the cycle's cost budget ({CYCLE_BUDGET:,} units) is spent"
                )
            spent.units += cost
            state.write(_SPENT_KEY, spent)
        meter = self.meter
        if c.source in meter.stopped:
            return None, self._error(point, f"{meter.stopped[c.source]} earlier in this run")
        if meter.spent + cost > RUN_BUDGET:
            return None, self._error(
                point, f"the run's cost budget ({RUN_BUDGET:,} units) is spent"
            )
        meter.spent += cost
        if meter.checkpoint is not None:
            meter.checkpoint()
        try:
            return sandbox.evaluate(c.source, c.analysis.variables(variables)), None
        except sandbox.LimitExceeded as err:
            meter.stopped[c.source] = f"{err} in {c.source!r}"
            return None, self._error(point, meter.stopped[c.source])
        except KeyError as err:
            return None, self._error(point, f"no such key: {err.args[0] if err.args else err}")
        except Exception as err:  # noqa: BLE001 - any evaluation failure is the plugin's Error
            return None, self._error(point, _describe(err))

    def _eval_on_node(
        self, point: str, state: CycleState, pod: Pod, info: NodeInfo
    ) -> tuple[Any, Status | None]:
        """``_eval`` at a per-node point, memoised per node object for node-only expressions."""
        key = (point, info.node.name)
        if point in self._node_only:
            hit = self._memo.get(key)
            if hit is not None and hit[0] is info.node:
                return hit[1], None
        entry = self._nodes.get(key)
        fresh = entry is not None and entry[0] is info and entry[2] is info.node
        if entry is None or not fresh or entry[1] != info.generation:
            node = node_value(info)
            fields = self.compiled[point].analysis.uses.get("node", frozenset())
            entry = (info, info.generation, info.node, node, shape_of(node, fields))
            self._nodes[key] = entry
        variables = self._variables(state, pod, entry[3])
        pod_shape = self._pod_shapes.get(point)
        if pod_shape is None:
            fields = self.compiled[point].analysis.uses.get("pod", frozenset())
            pod_shape = self._pod_shapes[point] = shape_of(variables["pod"], fields)
        value, err = self._eval(point, variables, state, {"node": entry[4], "pod": pod_shape})
        if err is None and point in self._node_only:
            self._memo[key] = (info.node, value)
        return value, err

    def reads(
        self, point: str, state: CycleState | None, pod: Pod, info: NodeInfo | None
    ) -> tuple[str, dict[str, Any], Any]:
        """(expression, the inputs it reads cut to the fields it reads, its value) at ``point``
        for ``pod`` on ``info``: for explanations. It spends no budget but is held to
        ``CALL_LIMIT`` and evaluated in the sandbox, like every evaluation."""
        c = self.compiled[point]
        variables = self._variables(state, pod, node_value(info) if info is not None else {})
        variables["args"] = self.args
        inputs = c.analysis.variables(variables)
        cost = c.analysis.cost(variables)
        if cost > CALL_LIMIT:
            return c.source, inputs, f"Error: cost limit exceeded ({cost:,} > {CALL_LIMIT:,} units)"
        try:
            value: Any = sandbox.evaluate(c.source, inputs)
        except Exception as err:  # noqa: BLE001 - shown as the run showed it: an Error
            value = f"Error: {_describe(err)}"
        return c.source, inputs, value

    def _error(self, point: str, message: str) -> Status:
        return Status(
            Code.ERROR,
            (f"custom plugin {self.name} {point} expression: {message}",),
            self.name,
        )

    def _variables(
        self, state: CycleState | None, pod: Pod, node: dict[str, Any]
    ) -> dict[str, Any]:
        values = self._state(state).values if state is not None else {}
        if self._pod is None or self._pod[0] is not pod:
            self._pod, self._pod_shapes = (pod, pod_value(pod)), {}
        return {"pod": self._pod[1], "node": node, "state": dict(values)}

    def _node_by_name(self, node_name: str) -> dict[str, Any]:
        info = None
        try:
            info = self.handle.snapshot().get(node_name)
        except (AttributeError, TypeError):
            info = None
        return node_value(info, node_name)

    def _note(self, state: CycleState, pod: Pod, node_name: str, point: str) -> Status:
        node = self._node_by_name(node_name)
        value, err = self._eval(point, self._variables(state, pod, node), state)
        if err is not None:
            return err
        text = "" if value is None or value is True else str(value)
        return Status(Code.SUCCESS, (text,), self.name) if text else SUCCESS


def _verdict(value: Any, *, default_reason: str) -> tuple[str, str]:
    """("pass" | "skip" | "reject", reason) from a bool or a string result."""
    if value is True or value is None:
        return "pass", ""
    if value is False:
        return "reject", default_reason
    text = str(value).strip()
    lowered = text.lower()
    if lowered in ("", "pass", "allow", "ok"):
        return "pass", ""
    if lowered == "skip":
        return "skip", ""
    for prefix in ("reject", "deny"):
        if lowered.startswith(prefix):
            return "reject", text[len(prefix) :].lstrip(" :") or default_reason
    return "reject", text


class _QueueSort(CustomPlugin):
    def less(self, a: Any, b: Any) -> bool:
        value, err = self._eval("queueSort", {"a": pod_value(a.pod), "b": pod_value(b.pod)})
        if err is not None or not isinstance(value, bool):
            p1, p2 = a.pod.priority, b.pod.priority  # an unusable answer sorts like PrioritySort
            return bool(p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp))
        return value


class _PreFilter(CustomPlugin):
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        value, err = self._eval("preFilter", self._variables(state, pod, {}), state)
        if err is not None:
            return None, err
        self._state(state).values["preFilter"] = value
        verdict, reason = _verdict(value, default_reason=f"rejected by {self.name}")
        if verdict == "skip":
            return None, Status(Code.SKIP, (), self.name)
        if verdict == "reject":
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,), self.name)
        return None, SUCCESS


class _Filter(CustomPlugin):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        value, err = self._eval_on_node("filter", state, pod, node_info)
        if err is not None:
            return err
        reason = self.spec.filter_reason or f"node(s) rejected by {self.name}"
        verdict, text = _verdict(value, default_reason=reason)
        if verdict == "reject":
            return Status(Code.UNSCHEDULABLE, (text,), self.name)
        return SUCCESS


class _PreScore(CustomPlugin):
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status:
        value, err = self._eval("preScore", self._variables(state, pod, {}), state)
        if err is not None:
            return err
        self._state(state).values["preScore"] = value
        return Status(Code.SKIP, (), self.name) if value == "skip" else SUCCESS


class _Score(CustomPlugin):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        value, err = self._eval_on_node("score", state, pod, node_info)
        if err is not None:
            return 0, err
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return 0, self._error("score", f"must give a number, got {type(value).__name__}")
        return int(value), SUCCESS


class _Normalize(CustomPlugin):
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status:
        mode = self.spec.normalize
        if mode in ("default", "reverse"):
            default_normalize_score(MAX_NODE_SCORE, mode == "reverse", scores)
        elif mode == "minmax":
            values = [s.score for s in scores]
            low, high = min(values, default=0), max(values, default=0)
            for s in scores:
                s.score = MAX_NODE_SCORE * (s.score - low) // (high - low) if high > low else 0
        elif "normalizeScore" in self.compiled:
            values = [s.score for s in scores]
            high, low = max(values, default=0), min(values, default=0)
            for s in scores:
                variables = self._variables(state, pod, {"name": s.name})
                variables.update(score=s.score, scores=values, max=high, min=low)
                value, err = self._eval("normalizeScore", variables, state)
                if err is not None:
                    return err
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    return self._error("normalizeScore", "must give a number")
                s.score = int(value)
        return SUCCESS


class _Reserve(CustomPlugin):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return (
            self._note(state, pod, node_name, "reserve") if "reserve" in self.compiled else SUCCESS
        )

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if "unreserve" in self.compiled:
            self._note(state, pod, node_name, "unreserve")


class _Permit(CustomPlugin):
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status, float]:
        value, err = self._eval(
            "permit", self._variables(state, pod, self._node_by_name(node_name)), state
        )
        if err is not None:
            return err, 0.0
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return Status(Code.WAIT, (f"waiting at {self.name}",), self.name), float(value)
        text = "" if isinstance(value, bool) else str(value or "").strip()
        if text.lower().startswith("wait"):
            seconds = text[4:].strip(" :s") or str(DEFAULT_WAIT_SECONDS)
            try:
                timeout = float(seconds)
            except ValueError:
                return self._error("permit", f"wait needs seconds, got {seconds!r}"), 0.0
            return Status(Code.WAIT, (f"waiting at {self.name}",), self.name), timeout
        verdict, reason = _verdict(value, default_reason=f"denied by {self.name}")
        if verdict == "reject":
            return Status(Code.UNSCHEDULABLE, (reason,), self.name), 0.0
        return SUCCESS, 0.0


class _PreBind(CustomPlugin):
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return self._note(state, pod, node_name, "preBind")


class _PostBind(CustomPlugin):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self._note(state, pod, node_name, "postBind")


_MIXINS: Final = {
    "queueSort": _QueueSort,
    "preFilter": _PreFilter,
    "filter": _Filter,
    "preScore": _PreScore,
    "score": _Score,
    "reserve": _Reserve,
    "unreserve": _Reserve,
    "permit": _Permit,
    "preBind": _PreBind,
    "postBind": _PostBind,
}


def new_factory(spec: CustomPluginSpec, meter: Meter | None = None) -> Any:
    """A registry factory for ``spec``; raises CelPluginError when an expression does not compile.

    The class it builds has exactly the methods of the points the definition implements, so the
    runtime sorts it into those extension points like any plugin. Its plugins spend ``meter``'s
    run budget (a meter of their own without one).
    """
    compile_spec(spec)  # report problems when the registry is built, not in the first cycle
    bases: list[type] = []
    for point in spec.expressions:
        mixin = _MIXINS.get(point)
        if mixin is not None and mixin not in bases:
            bases.append(mixin)
    if "score" in spec.expressions and (
        spec.normalize != "none" or "normalizeScore" in spec.expressions
    ):
        bases.append(_Normalize)
    cls = type(spec.name or "CustomPlugin", tuple(bases) or (CustomPlugin,), {"name": spec.name})

    def factory(args: Any, handle: Any) -> Any:
        # compiled once per profile
        return cls(spec, compile_spec(spec), args, handle, meter if meter is not None else Meter())

    return factory


def registry_of(specs: Sequence[CustomPluginSpec], meter: Meter | None = None) -> Registry:
    """A registry of custom plugins, to merge into the in-tree one; they share one run budget
    (``meter``, or a new one: build one registry per run)."""
    meter = meter if meter is not None else Meter()
    return Registry({spec.name: new_factory(spec, meter) for spec in specs})
