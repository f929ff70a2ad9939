"""Kubernetes' CEL environment for DRA device selectors, on the ``cel`` library.

Mirrors k8s.io/dynamic-resource-allocation/cel/compile.go in v1.35: one variable ``device`` with
``driver``, ``attributes[domain][id]`` and ``capacity[domain][id]``; a name without a domain
belongs to the driver's domain; an unknown domain reads as an empty map while an unknown id
inside a domain is the runtime error ``no such key: <id>``. Quantities (``quantity()``,
``isQuantity()``, ``compareTo``, ``isLessThan``, ``isGreaterThan``, ``add``, ``sub``, ``sign``,
``isInteger``, ``asInteger``, ``asApproximateFloat``) and semantic versions (``semver()``,
``isSemver()``, ``major``, ``minor``, ``patch`` and the same comparisons) follow the apiserver's
CEL libraries. Each expression is compiled once (Cache), refused over upstream's 10 KiB, bounded
by the custom plugins' cost analysis (``scheduler_core.custom.cel_cost``) and evaluated in their
sandbox (``scheduler_core.custom.sandbox``: a worker process with hard CPU and memory limits).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from scheduler_core.dra.cel_functions import (
    _KNOWN_FUNCTIONS,
    _Q,
    quantity_value,
    semver_value,
)
from scheduler_core.dra.cel_functions import (
    CelError as CelError,
)
from scheduler_core.dra.types import Device

SELECTOR_MAX_LENGTH: Final = 10 * 1024  # resource.k8s.io's CELSelectorExpressionMaxLength
_CACHE_SIZE: Final = 4096  # compiled selectors a Cache keeps
_DOMAIN_INDEX: Final = re.compile(r"\b(attributes|capacity)\s*\[\s*(\"([^\"]*)\"|'([^']*)')\s*\]")
_FUNCTION_ERROR: Final = re.compile(r"Python function call failed: \w+: (.*?)\. Check function")
_PARSE_PREFIX: Final = re.compile(r"^Failed to parse expression .*?: (?=ERROR)", re.DOTALL)


# -- the device variable -------------------------------------------------------------------------


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def device_variable(driver: str, device: Device, domains: frozenset[str]) -> dict[str, Any]:
    """The ``device`` variable for one device; ``domains`` are pre-set to empty maps."""
    attributes: dict[str, dict[str, Any]] = {d: {} for d in domains}
    for name, attr in device.attributes:
        domain, ident = _split(name, driver)
        value: Any = attr.value
        if attr.kind == "version":
            value = semver_value(str(attr.value))
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict[str, Any]] = {d: {} for d in domains}
    for name, text in device.capacity:
        domain, ident = _split(name, driver)
        capacity.setdefault(domain, {})[ident] = quantity_value(text)
    return {"driver": driver, "attributes": attributes, "capacity": capacity}


# -- compiling and evaluating ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compiled:
    """One compiled selector, or the compile error upstream reports for it."""

    expression: str
    program: Any  # cel.Program, None when error is set
    domains: frozenset[str]
    error: str | None
    analysis: Any = None  # custom.cel_cost.Analysis: the bound checked before each call
    # Why the sandbox stopped this selector, once it did: not evaluated again (a missed shape
    # costs the sandbox's limit once, not once per device).
    stopped: list[str] = field(default_factory=list)

    def matches(self, driver: str, device: Device) -> bool:
        """Evaluate against one device; raise CelError with the runtime error's text."""
        if self.error is not None:
            raise CelError(self.error)
        if self.stopped:
            raise CelError(self.stopped[0])
        from scheduler_core.custom import sandbox

        variable = device_variable(driver, device, self.domains)
        if self.analysis is not None:
            from scheduler_core.custom.cel_cost import CALL_LIMIT

            cost = self.analysis.cost({"device": variable})
            if cost > CALL_LIMIT:  # not upstream's text: the playground's own limit
                raise CelError(f"cost limit exceeded ({cost:,} > {CALL_LIMIT:,} units)")
        try:  # in a worker process with hard CPU and memory limits, whatever the bound says
            result = sandbox.evaluate(self.expression, {"device": variable}, "dra")
        except sandbox.LimitExceeded as err:
            self.stopped.append(str(err))
            raise CelError(str(err)) from err
        except KeyError as err:
            raise CelError(f"no such key: {err.args[0] if err.args else ''}") from err
        except TypeError as err:
            raise CelError("no such overload") from err
        except ZeroDivisionError as err:
            raise CelError("division by zero") from err
        except (RuntimeError, ValueError) as err:
            # A function of ours failed: report its own message, as cel-go would.
            inner = _FUNCTION_ERROR.search(str(err))
            raise CelError(inner.group(1) if inner else str(err)) from err
        if not isinstance(result, bool):
            raise CelError(
                f"CEL result of type {_type_name(result)} could not be converted to bool"
            )
        return result


def _type_name(value: Any) -> str:
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def compile_selector(expression: str) -> Compiled:
    """Compile ``expression`` as the DRA environment does, keeping any error as text."""
    if len(expression.encode()) > SELECTOR_MAX_LENGTH:  # upstream's API validation
        return Compiled(
            expression,
            None,
            frozenset(),
            f"Too long: may not be more than {SELECTOR_MAX_LENGTH} bytes",
        )
    domains = frozenset(
        m.group(3) if m.group(3) is not None else m.group(4)
        for m in _DOMAIN_INDEX.finditer(expression)
    )
    import cel

    try:
        program = cel.compile(expression)
    except (ValueError, RuntimeError) as err:
        # cel-go indents the source excerpt under the message with " | ".
        detail = _PARSE_PREFIX.sub("", str(err)).replace("\n| ", "\n | ")
        return Compiled(expression, None, domains, f"compilation failed: {detail}")
    for var in program.variables():
        if var != "device" and var not in _comprehension_vars(expression):
            return Compiled(
                expression,
                None,
                domains,
                f"compilation failed: ERROR: <input>:1:1: undeclared reference to {var!r} "
                "(in container '')",
            )
    for fn in program.functions():
        if fn.isidentifier() and fn not in _KNOWN_FUNCTIONS:  # operators are not identifiers
            return Compiled(
                expression,
                None,
                domains,
                f"compilation failed: ERROR: <input>:1:1: undeclared reference to {fn!r} "
                "(in container '')",
            )
    # The cel library has no cost limit: the selector's work is bounded first (custom/cel_cost),
    # on a device of upstream's largest, then evaluated in custom/sandbox.
    from scheduler_core.custom.cel_cost import Analysis
    from scheduler_core.custom.cel_parse import CostError, check_agrees

    try:
        analysis = Analysis(
            expression, ["device"], functions=_KNOWN_FUNCTIONS, reference=_REFERENCE
        )
        check_agrees(analysis.tree, program.functions(), program.variables())
    except CostError as err:
        return Compiled(expression, None, domains, f"compilation failed: {err}")
    return Compiled(expression, program, domains, None, analysis)


# A device as large as upstream allows (32 attributes and capacities), in four domains.
_REFERENCE: Final = {
    "device": {
        "driver": "d" * 63,
        "attributes": {
            f"{i}.example.com": {f"a{j:0>31}": "v" * 64 for j in range(8)} for i in range(4)
        },
        "capacity": {
            f"{i}.example.com": {f"c{j:0>31}": {_Q: 1} for j in range(8)} for i in range(4)
        },
    }
}


_MACRO_VAR: Final = re.compile(r"\.(?:all|exists|exists_one|map|filter)\s*\(\s*([A-Za-z_]\w*)")


def _comprehension_vars(expression: str) -> set[str]:
    return set(_MACRO_VAR.findall(expression))


class Cache:
    """Compiled selectors by expression (cel.Cache); compiles each expression once."""

    def __init__(self) -> None:
        self._compiled: dict[str, Compiled] = {}

    def get_or_compile(self, expression: str) -> Compiled:
        c = self._compiled.get(expression)
        if c is None:
            if len(self._compiled) >= _CACHE_SIZE:  # uploads bring any number of selectors
                self._compiled.clear()
            c = self._compiled[expression] = compile_selector(expression)
        return c


DEFAULT_CACHE: Final = Cache()
