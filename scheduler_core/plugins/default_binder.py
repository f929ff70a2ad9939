"""DefaultBinder: bind the pod to the chosen node.

Mirrors plugins/defaultbinder in kube-scheduler v1.35; binding writes to the engine's cluster
through the ``binder`` callable the scheduler registers in the framework's extras.
"""

from __future__ import annotations

from typing import Any, Final

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import Handle
from scheduler_core.framework.status import SUCCESS, Status, error
from scheduler_core.objects.api import Pod
from scheduler_core.plugins import names

NAME: Final = names.DEFAULT_BINDER


class DefaultBinder:
    name = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        binder = self.handle.framework.extras.get("binder")
        if binder is None:
            return SUCCESS
        try:
            binder(pod, node_name)
        except Exception as err:  # the API call failed: the binding cycle un-reserves
            return error(str(err))
        return SUCCESS


def new(args: Any, handle: Handle) -> DefaultBinder:
    return DefaultBinder(handle)
