"""The CEL functions of DRA device selectors: quantities and semantic versions.

Mirrors the apiserver's CEL libraries that k8s.io/dynamic-resource-allocation/cel/compile.go
adds in v1.35 (``quantity()`` and its methods, ``semver()`` and its methods). A quantity travels
through CEL as ``{"__quantity__": nano-units}``, a version as ``{"__semver__": [major, minor,
patch, [pre-release ids]]}``. Both the selector environment (``cel_env``) and the sandbox's
worker process (``scheduler_core.custom.sandbox``) register these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from scheduler_core.objects.quantity import QuantityError, parse_nanos

_Q: Final = "__quantity__"  # a quantity travels through CEL as {_Q: nano-units}
_V: Final = "__semver__"  # a version as {_V: [major, minor, patch, [pre-release ids]]}
_SEMVER: Final = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


_KNOWN_FUNCTIONS: Final = frozenset(
    {
        "quantity", "isQuantity", "semver", "isSemver", "compareTo", "isLessThan",
        "isGreaterThan", "add", "sub", "sign", "isInteger", "asInteger", "asApproximateFloat",
        "major", "minor", "patch", "size", "has", "all", "exists", "exists_one", "map", "filter",
        "contains", "startsWith", "endsWith", "matches", "int", "uint", "double", "string",
        "bool", "type", "lowerAscii", "upperAscii", "dyn",
    }
)  # fmt: skip


class CelError(Exception):
    """A selector that cannot be compiled or evaluated, in upstream's words."""


# -- quantity and semver values ----------------------------------------------------------------


def quantity_value(text: str) -> dict[str, int]:
    return {_Q: parse_nanos(text)}


def _quantity(text: Any) -> dict[str, int]:
    try:
        return quantity_value(str(text))
    except QuantityError as err:
        raise ValueError(str(err)) from err


def _is_quantity(text: Any) -> bool:
    try:
        parse_nanos(str(text))
    except QuantityError:
        return False
    return True


def _semver_parts(text: str) -> list[Any] | None:
    m = _SEMVER.match(text)
    if m is None:
        return None
    pre = m.group(4).split(".") if m.group(4) else []
    return [int(m.group(1)), int(m.group(2)), int(m.group(3)), pre]


def semver_value(text: str) -> dict[str, list[Any]]:
    parts = _semver_parts(text)
    if parts is None:
        raise ValueError(f"could not parse {text!r} as semver")
    return {_V: parts}


def _pre_key(ids: list[str]) -> tuple[Any, ...]:
    # A version without pre-release ids sorts after any with them; numeric ids before others.
    if not ids:
        return ((2,),)
    return tuple((0, int(i), "") if i.isdigit() else (1, 0, i) for i in ids)


def _compare(a: Any, b: Any) -> int:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if _Q in a and _Q in b:
            x, y = int(a[_Q]), int(b[_Q])
            return (x > y) - (x < y)
        if _V in a and _V in b:
            ka = (*a[_V][:3], _pre_key(list(a[_V][3])))
            kb = (*b[_V][:3], _pre_key(list(b[_V][3])))
            return (ka > kb) - (ka < kb)
    raise TypeError("no such overload")


def _arith(a: Any, b: Any, sign: int) -> dict[str, int]:
    if not (isinstance(a, Mapping) and _Q in a):
        raise TypeError("no such overload")
    if isinstance(b, Mapping) and _Q in b:
        return {_Q: a[_Q] + sign * b[_Q]}
    if isinstance(b, int) and not isinstance(b, bool):
        return {_Q: a[_Q] + sign * b * 1_000_000_000}
    raise TypeError("no such overload")


def _q(a: Any) -> int:
    if isinstance(a, Mapping) and _Q in a:
        return int(a[_Q])
    raise TypeError("no such overload")


def _v(a: Any, i: int) -> int:
    if isinstance(a, Mapping) and _V in a:
        return int(a[_V][i])
    raise TypeError("no such overload")


def _as_integer(a: Any) -> int:
    n = _q(a)
    if n % 1_000_000_000:
        raise ValueError("cannot convert value to integer")
    return n // 1_000_000_000


_FUNCTIONS: Final[dict[str, Callable[..., Any]]] = {
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "semver": lambda s: semver_value(str(s)),
    "isSemver": lambda s: _semver_parts(str(s)) is not None,
    "compareTo": _compare,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "add": lambda a, b: _arith(a, b, 1),
    "sub": lambda a, b: _arith(a, b, -1),
    "sign": lambda a: (_q(a) > 0) - (_q(a) < 0),
    "isInteger": lambda a: _q(a) % 1_000_000_000 == 0,
    "asInteger": _as_integer,
    "asApproximateFloat": lambda a: _q(a) / 1e9,
    "major": lambda a: _v(a, 0),
    "minor": lambda a: _v(a, 1),
    "patch": lambda a: _v(a, 2),
}
