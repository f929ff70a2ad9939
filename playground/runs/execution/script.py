"""A script of cluster changes made between a run's cycles: parsed, checked and applied.

One implementation for both the runs (``execution.Execution``) and the lesson checker
(``playground.lessons.checks``): a step "after cycle k" is applied once the engine has run k
scheduling cycles, or earlier when nothing is left to schedule before it (a pod that waits for
the change would otherwise never get its cycle). Stored on ``Run.script`` in the lesson format:
``[{"after_cycle": 2, "add_node": {...manifest...}}, {"after_cycle": 3, "remove_node": "n1"}]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.utils.translation import gettext, gettext_lazy

from scheduler_core.errors import ManifestError
from scheduler_core.loop.scheduler import Scheduler

from ... import engine
from ...inputs import kube

ACTIONS: Final = (
    "add_node",
    "remove_node",
    "set_labels",
    "set_taints",
    "delete_pod",
    "add_pod",
)
ACTION_LABELS: Final = {
    "add_node": gettext_lazy("add a node (manifest)"),
    "remove_node": gettext_lazy("remove a node"),
    "set_labels": gettext_lazy("set a node's labels"),
    "set_taints": gettext_lazy("set a node's taints"),
    "delete_pod": gettext_lazy("delete a pod"),
    "add_pod": gettext_lazy("add a pod (manifest)"),
}
MAX_STEPS: Final = 20


@dataclass(frozen=True, slots=True)
class ScriptStep:
    """One cluster change after cycle ``after_cycle``; ``value`` depends on ``action``:
    a manifest (add_node, add_pod), a name (remove_node, delete_pod) or
    {"node", "labels"} / {"node", "taints"} (set_labels, set_taints)."""

    after_cycle: int
    action: str
    value: Any

    def to_dict(self) -> dict[str, Any]:
        return {"after_cycle": self.after_cycle, self.action: self.value}

    def describe(self) -> str:
        """The change as the run page says it ("node n4 added")."""
        v = self.value
        if self.action == "add_node":
            return gettext("node %(node)s added") % {"node": _name(v)}
        if self.action == "remove_node":
            return gettext("node %(node)s removed") % {"node": v}
        if self.action == "set_labels":
            shown = ", ".join(f"{k}={val}" for k, val in v["labels"].items())
            return gettext("node %(node)s labels set to %(labels)s") % {
                "node": v["node"],
                "labels": shown or gettext("none"),
            }
        if self.action == "set_taints":
            shown = kube.format_taints(v["taints"]).replace("\n", ", ")
            return gettext("node %(node)s taints set to %(taints)s") % {
                "node": v["node"],
                "taints": shown or gettext("none"),
            }
        if self.action == "add_pod":
            return gettext("pod %(pod)s added") % {"pod": pod_key(_name(v), _namespace(v))}
        return gettext("pod %(pod)s deleted") % {"pod": pod_key(str(v))}


class ScriptError(ValueError):
    """A script that cannot be applied; ``errors`` holds (field path, message) pairs."""

    def __init__(self, errors: Sequence[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{p}: {m}" for p, m in errors))
        self.errors = list(errors)


def pod_key(name: str, namespace: str | None = None) -> str:
    if "/" in name:
        return name
    return f"{namespace or 'default'}/{name}"


def _name(manifest: Any) -> str:
    return str(((manifest or {}).get("metadata") or {}).get("name") or "")


def _namespace(manifest: Any) -> str:
    return str(((manifest or {}).get("metadata") or {}).get("namespace") or "default")


# -- parsing -----------------------------------------------------------------------------------


def _check_manifest(kind: str, value: Any, where: str) -> list[tuple[str, str]]:

    if not isinstance(value, dict):
        return [(where, f"must be a {kind} manifest (a mapping)")]
    if value.get("kind", kind) != kind:
        return [(f"{where}.kind", f"must be {kind}, not {value.get('kind')!r}")]
    if not _name(value):
        return [(f"{where}.metadata.name", "is required")]
    check = engine.check_node_manifest if kind == "Node" else engine.check_pod_manifest
    try:
        check({"apiVersion": "v1", "kind": kind, **value})
    except ManifestError as err:
        return [(f"{where}.{err.path}" if err.path else where, err.message)]
    return []


def _check_value(action: str, value: Any, where: str) -> list[tuple[str, str]]:
    if action == "add_node":
        return _check_manifest("Node", value, where)
    if action == "add_pod":
        return _check_manifest("Pod", value, where)
    if action in ("remove_node", "delete_pod"):
        ok = isinstance(value, str) and value.strip()
        return [] if ok else [(where, "must be a name")]
    if not isinstance(value, dict) or not isinstance(value.get("node"), str) or not value["node"]:
        return [(f"{where}.node", "must be a node name")]
    if action == "set_labels":
        labels = value.get("labels")
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            return [(f"{where}.labels", "must map label keys to string values")]
        try:
            kube.parse_key_values("\n".join(f"{k}={v}" for k, v in labels.items()))
        except kube.SyntaxProblem as err:
            return [(f"{where}.labels", str(err))]
        return []
    taints = value.get("taints")
    if not isinstance(taints, list) or not all(
        isinstance(t, dict) and t.get("key") and t.get("effect") for t in taints
    ):
        return [(f"{where}.taints", "must be a list of {key, value, effect}")]
    try:
        kube.parse_taints(kube.format_taints(taints))
    except kube.SyntaxProblem as err:
        return [(f"{where}.taints", str(err))]
    return []


def parse_script(raw: Any, where: str = "script") -> tuple[ScriptStep, ...]:
    """Steps from their stored (lesson) form; raises ScriptError with every problem found."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ScriptError([(where, "must be a list")])
    if len(raw) > MAX_STEPS:
        raise ScriptError([(where, gettext("at most %(max)s steps") % {"max": MAX_STEPS})])
    errors: list[tuple[str, str]] = []
    steps = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            errors.append((at, "must be a mapping"))
            continue
        after = item.get("after_cycle")
        if not isinstance(after, int) or isinstance(after, bool) or after < 0:
            errors.append((f"{at}.after_cycle", "must be a whole number, 0 or more"))
        actions = [a for a in ACTIONS if a in item]
        unknown = sorted(set(item) - {"after_cycle", *ACTIONS})
        if unknown:
            errors.append((f"{at}.{unknown[0]}", f"is not one of {', '.join(ACTIONS)}"))
        elif len(actions) != 1:
            errors.append((at, f"needs exactly one of {', '.join(ACTIONS)}"))
        if len(actions) != 1:
            continue
        problems = _check_value(actions[0], item[actions[0]], f"{at}.{actions[0]}")
        errors += problems
        if not problems and isinstance(after, int):
            steps.append(ScriptStep(after, actions[0], item[actions[0]]))
    if errors:
        raise ScriptError(errors)
    return tuple(steps)


def check_targets(
    steps: Sequence[ScriptStep],
    nodes: Iterable[str],
    pods: Iterable[str],
    where: str = "script",
) -> list[tuple[str, str]]:
    """The steps that name a node or pod the cluster will not have then (in the order applied)."""
    have_nodes, have_pods = set(nodes), set(pods)
    errors = []
    for i, step in sorted(enumerate(steps), key=lambda p: p[1].after_cycle):
        at, v = f"{where}[{i}].{step.action}", step.value
        if step.action == "add_node":
            have_nodes.add(_name(v))
        elif step.action == "add_pod":
            key = pod_key(_name(v), _namespace(v))
            if key in have_pods:
                errors.append(
                    (f"{at}.metadata.name", gettext("pod %(pod)s already exists") % {"pod": key})
                )
            have_pods.add(key)
        elif step.action == "delete_pod":
            if pod_key(str(v)) not in have_pods:
                errors.append(
                    (at, gettext("no pod %(pod)s in the cluster") % {"pod": pod_key(str(v))})
                )
            have_pods.discard(pod_key(str(v)))
        else:
            name = v if step.action == "remove_node" else v["node"]
            field = at if step.action == "remove_node" else f"{at}.node"
            if name not in have_nodes:
                errors.append(
                    (field, gettext("no node %(node)s in the cluster") % {"node": repr(name)})
                )
            if step.action == "remove_node":
                have_nodes.discard(name)
    return errors


def script_json(steps: Iterable[ScriptStep]) -> list[dict[str, Any]]:
    return [s.to_dict() for s in steps]


def added_manifests(raw: Any) -> list[dict[str, Any]]:
    """The nodes and pods a stored script adds, as manifests (for the run's usage charts)."""
    kinds = {"add_node": "Node", "add_pod": "Pod"}
    return [
        {"apiVersion": "v1", "kind": kinds[s.action], **s.value}
        for s in parse_script(raw or [])
        if s.action in kinds
    ]


def script_described(raw: Any) -> list[dict[str, Any]]:
    """A stored script as the run page lists it: [{"after_cycle", "text"}]."""
    return [{"after_cycle": s.after_cycle, "text": s.describe()} for s in parse_script(raw or [])]


# -- applying ----------------------------------------------------------------------------------


def apply_step(sched: Scheduler, step: ScriptStep) -> None:
    """Make the change; the engine records it (ClusterChange) and the pods it moved."""
    v = step.value
    if step.action == "add_node":
        sched.add_node({"apiVersion": "v1", "kind": "Node", **v})
    elif step.action == "remove_node":
        sched.remove_node(str(v))
    elif step.action == "set_labels":
        sched.set_node_labels(v["node"], v["labels"])
    elif step.action == "set_taints":
        sched.set_node_taints(v["node"], v["taints"])
    elif step.action == "delete_pod":
        sched.delete_pod(pod_key(str(v)), record=True)
    elif step.action == "add_pod":
        sched.add_pod({"apiVersion": "v1", "kind": "Pod", **v}, record=True)


class ScriptPlayer:
    """The steps still to apply, handed out as the run's cycles pass."""

    def __init__(self, steps: Iterable[ScriptStep]) -> None:
        self.todo = sorted(steps, key=lambda s: s.after_cycle)

    def due(self, cycle: int, *, idle: bool = False) -> list[ScriptStep]:
        """Steps due after ``cycle`` cycles; when the engine is ``idle``, at least the next one."""
        n = next((i for i, s in enumerate(self.todo) if s.after_cycle > cycle), len(self.todo))
        if n == 0 and idle and self.todo:
            n = 1
        out, self.todo = self.todo[:n], self.todo[n:]
        return out

    def apply_due(self, sched: Scheduler, *, idle: bool = False) -> int:
        """Apply the due steps; returns how many."""
        steps = self.due(sched.cycle, idle=idle)
        for step in steps:
            apply_step(sched, step)
        return len(steps)


def play(sched: Scheduler, steps: Iterable[ScriptStep]) -> None:
    """Run the engine until idle, applying the steps as their cycles pass."""
    player = ScriptPlayer(steps)
    while True:
        player.apply_due(sched)
        if sched.run_until_idle(max_cycles=1):
            continue
        if not player.apply_due(sched, idle=True):
            return
