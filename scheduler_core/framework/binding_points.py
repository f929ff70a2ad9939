"""The binding cycle's extension points of a Framework: Reserve (and Unreserve), Permit,
PreBind, Bind and PostBind, each run in the profile's order with its result recorded as a step;
and the helpers every extension point uses to call a plugin and report its failure.

Apart from the scheduling cycle's points (runtime.py): these run after a node is chosen, one
plugin after another, with none of the per-node batching of Filter and Score.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

from scheduler_core.framework import interfaces as fi
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SUCCESS, Code, Status
from scheduler_core.objects.api import Pod

Steps = list[tuple[str, Status, float | None]]
MAX_PERMIT_TIMEOUT_SECONDS = 15 * 60.0


def failure(point: str, name: str, s: Status) -> Status:
    """A binding-cycle plugin's failure: a rejection names the plugin, anything else is an Error."""
    if s.is_rejected():
        return s.with_plugin(name)
    return Status(Code.ERROR, (f'running {point} plugin "{name}": {s.message()}',), name)


def step(steps: Steps | None, name: str, status: Status, timeout: float | None = None) -> None:
    if steps is not None:
        steps.append((name, status.with_plugin(name), timeout))


_P = ParamSpec("_P")


def call(pl: fi.Plugin, fn: Callable[_P, Status], /, *args: _P.args, **kwargs: _P.kwargs) -> Status:
    """Run one plugin method; an exception becomes an Error status naming the plugin."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:
        return Status(Code.ERROR, (f"{type(err).__name__}: {err}",), pl.name)


class BindingPoints:
    """Reserve .. PostBind: the part of Framework that runs the binding cycle's plugins."""

    reserve_plugins: list[fi.ReservePlugin]
    permit_plugins: list[fi.PermitPlugin]
    pre_bind_plugins: list[fi.PreBindPlugin]
    bind_plugins: list[fi.BindPlugin]
    post_bind_plugins: list[fi.PostBindPlugin]

    def run_reserve_plugins_reserve(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> Status:
        for pl in self.reserve_plugins:
            s = call(pl, pl.reserve, state, pod, node_name)
            step(steps, pl.name, s)
            if not s.is_success():
                return failure("Reserve", pl.name, s)
        return SUCCESS

    def run_reserve_plugins_unreserve(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> None:
        """Unreserve in reverse order of Reserve."""
        for pl in reversed(self.reserve_plugins):
            try:
                pl.unreserve(state, pod, node_name)
                step(steps, pl.name, SUCCESS)
            except Exception as err:
                step(steps, pl.name, Status(Code.ERROR, (f"{type(err).__name__}: {err}",)))

    def run_permit_plugins(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> tuple[Status, dict[str, float]]:
        """Run Permit; a Wait answer returns Code.WAIT and each waiting plugin's timeout."""
        waits: dict[str, float] = {}
        for pl in self.permit_plugins:
            try:
                s, timeout = pl.permit(state, pod, node_name)
            except Exception as err:
                s, timeout = Status(Code.ERROR, (f"{type(err).__name__}: {err}",)), 0.0
            step(steps, pl.name, s, timeout if s.is_wait() else None)
            if s.is_success():
                continue
            if s.is_rejected():
                return s.with_plugin(pl.name), {}
            if s.is_wait():
                waits[pl.name] = min(float(timeout), MAX_PERMIT_TIMEOUT_SECONDS)
                continue
            msg = f'running Permit plugin "{pl.name}": {s.message()}'
            return Status(Code.ERROR, (msg,), pl.name), {}
        if waits:
            return Status(Code.WAIT, ("one or more plugins asked to wait",)), waits
        return SUCCESS, {}

    def run_pre_bind_plugins(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> Status:
        for pl in self.pre_bind_plugins:
            s = call(pl, pl.pre_bind, state, pod, node_name)
            step(steps, pl.name, s)
            if s.is_skip():
                continue
            if not s.is_success():
                return failure("PreBind", pl.name, s)
        return SUCCESS

    def run_bind_plugins(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> Status:
        """The first Bind plugin that does not Skip binds the pod."""
        for pl in self.bind_plugins:
            s = call(pl, pl.bind, state, pod, node_name)
            step(steps, pl.name, s)
            if s.is_skip():
                continue
            if not s.is_success():
                return failure("Bind", pl.name, s)
            return s.with_plugin(pl.name)
        return SUCCESS

    def run_post_bind_plugins(
        self, state: CycleState, pod: Pod, node_name: str, steps: Steps | None = None
    ) -> None:
        for pl in self.post_bind_plugins:
            try:
                pl.post_bind(state, pod, node_name)
                step(steps, pl.name, SUCCESS)
            except Exception as err:
                step(steps, pl.name, Status(Code.ERROR, (f"{type(err).__name__}: {err}",)))
