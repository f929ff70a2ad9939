"""The cycle an explanation is computed from: what the engine held right after scheduling it.

Explanations are never stored: given this context they are recomputed by the plugins' own code,
so an explained number and the engine's number come from the same functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scheduler_core.errors import SchedulerCoreError
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.explaining import FilterView
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.types import NodeInfo, Snapshot
from scheduler_core.loop.cycle import CycleRecord
from scheduler_core.objects.api import Pod
from scheduler_core.words import gettext_noop


class ExplainError(SchedulerCoreError):
    """An explanation was asked for something the cycle did not do (unknown node or plugin)."""


@dataclass(frozen=True, slots=True)
class CycleContext:
    """A scheduling cycle as the engine left it, before anything changed the cluster.

    ``state`` holds what PreFilter and PreScore wrote; ``snapshot`` is the cluster the cycle saw;
    ``nominated`` maps each node to the pods nominated to it when the cycle began.
    """

    cycle: int
    pod: Pod
    fwk: Framework
    snapshot: Snapshot
    state: CycleState
    record: CycleRecord
    nominated: Mapping[str, tuple[Pod, ...]]
    # Results worth keeping while one cycle is explained many times (a normalized column).
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def plugin(self, name: str) -> Any:
        found = self.fwk.plugins.get(name)
        if found is None:
            raise ExplainError(f"plugin {name!r} is not in profile {self.fwk.profile_name!r}")
        return found

    def scored_info(self, name: str) -> NodeInfo:
        """The NodeInfo Score saw: the snapshot's, or the copy an extender's filter returned."""
        copies = self.record.scored_infos
        if copies is not None and name in copies:
            return copies[name]
        return self.node_info(name)

    def node_info(self, name: str) -> NodeInfo:
        ni = self.snapshot.get(name)
        if ni is None:
            raise ExplainError(f"node {name!r} is not in the cycle's snapshot")
        return ni

    def filter_views(self, node: str) -> list[FilterView]:
        """The Filter passes the cycle ran over ``node`` (one, or two with nominated pods)."""
        ni = self.node_info(node)
        plain = FilterView(gettext_noop("as it is"), self.state, ni)
        if not self.nominated.get(node):
            return [plain]
        added, state, info, err = self.fwk.add_nominated_pods(
            self.pod, self.state, ni, list(self.nominated[node])
        )
        if err is not None or not added:
            return [plain]
        names = tuple(
            p.key
            for p in self.nominated[node]
            if p.priority >= self.pod.priority and p.uid != self.pod.uid
        )
        return [
            FilterView(gettext_noop("with the pods nominated to it"), state, info, names),
            plain,
        ]


def observing(fn: Callable[[CycleContext], None]) -> Callable[..., None]:
    """A ``CaseRun.cycles`` observer that hands ``fn`` each cycle as a CycleContext."""

    def observe(*parts: Any) -> None:
        fn(CycleContext(*parts))

    return observe
