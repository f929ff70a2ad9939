"""Status codes and the Status value every extension point returns.

Mirrors the Code and Status types of kube-scheduler v1.35 (staging k8s.io/kube-scheduler/framework).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Final


class Code(IntEnum):
    """Status codes in upstream order."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def upstream(self) -> str:
        """The spelling upstream prints (``UnschedulableAndUnresolvable``)."""
        return _SPELLING[self]


_SPELLING: Final = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


_SUCCESS: Final = Code.SUCCESS
_SKIP: Final = Code.SKIP
_WAIT: Final = Code.WAIT
_REJECTED: Final = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)


@dataclass(frozen=True, slots=True)
class Status:
    """The outcome of running a plugin: a code, reasons and the plugin that gave it."""

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    # The codes are compared with module constants: reading a member off the enum class is
    # several times slower than a global, and these run a few dozen times a cycle.

    def is_success(self) -> bool:
        return self.code == _SUCCESS

    def is_skip(self) -> bool:
        return self.code == _SKIP

    def is_wait(self) -> bool:
        return self.code == _WAIT

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in _REJECTED

    def message(self) -> str:
        """Reasons joined with ", ", as Status.Message."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        if self.plugin == plugin:
            return self
        key = (self.code, self.reasons, plugin)
        out = _WITH_PLUGIN.get(key)
        if out is None:
            out = replace(self, plugin=plugin)
            if len(_WITH_PLUGIN) > 4096:
                _WITH_PLUGIN.clear()
            _WITH_PLUGIN[key] = out
        return out

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code.upstream}
        if self.code != Code.SUCCESS:
            if self.plugin:
                out["plugin"] = self.plugin
            out["reasons"] = list(self.reasons)
        return out


# Statuses are immutable values and a cycle names the same few on thousands of nodes: naming the
# plugin on one is memoised by value.
_WITH_PLUGIN: dict[tuple[Code, tuple[str, ...], str], Status] = {}

SUCCESS: Final = Status()
SKIP: Final = Status(Code.SKIP)


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def error(message: str) -> Status:
    return Status(Code.ERROR, (message,))
