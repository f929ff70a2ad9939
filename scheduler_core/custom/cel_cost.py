"""A sound cost bound for the CEL expressions of custom plugins, and the budgets it is held to.

Not an upstream module. ``common-expression-language`` has no cost or memory limit. The hard
bound is ``sandbox`` (a worker process with CPU and
memory limits), which does not rely on this module; the analysis keeps runs fair and
predictable: an expression is known to be cheap before it runs, and the budgets below share a
cycle and a run between plugins. Over the tree ``cel_parse`` builds (which reads the source as
CEL's own lexer does, and is checked against the evaluator's parse), ``estimate`` bounds the
work of one evaluation for given upper sizes of the variables (``Shape``, measured from the
values at evaluation time).

The bound counts what the evaluator really does: every node of the tree, every iteration of
every comprehension over a literal, a variable or another comprehension's result, the copy of
the accumulator that ``map`` and ``filter`` make at each step (so ``l.map(x, l)`` is |l|^2 work
and gives |l| lists of |l|), the growth of strings and lists under ``+``, element-wise
comparison and ``in``, the conversion of the variables from Python (counted again at each
use, to be safe) and of the result.

Budgets, in units. One unit measured at up to 0.125 microseconds of evaluation on this
project's 2-core machine under a load average of 11 (the bench table and a 90 s random search
over 223 accepted expressions that took 0.5 ms or more: ``python -m
scheduler_core.custom.cel_bench --search 90``; an idle machine is several times faster):

- ``CALL_LIMIT`` 200,000 per evaluation (at most ~25 ms);
- ``CYCLE_BUDGET`` 10,000,000 per scheduling cycle, all custom plugins at all points and nodes
  together (at most ~1.25 s);
- ``RUN_BUDGET`` 600,000,000 per run (at most ~75 s).

At compile time an expression is refused when its bound already passes ``CALL_LIMIT`` with
empty variables (literals alone) or on ``REFERENCE`` sizes (a 100-node cluster, 16 labels,
16 pods on the node). At evaluation time a call that would pass the limit or a budget is not
made: the plugin returns an Error status naming the expression instead.

An expression the analysis cannot bound is refused: an unknown variable or function, a
construct outside the subset (message construction, ``.?``), deep nesting, or a regular
expression that is not a short literal.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from scheduler_core.custom.cel_parse import CostError, Expr, parse

STEP: Final = 4  # units for evaluating one node of the tree
ENTRY: Final = 60  # units for converting or copying one map entry, beyond its key and value
ENTRY_COPY: Final = 8  # cells for copying one map entry, beyond its key and value
COPY: Final = 4  # units for copying one cell (``Shape.c``) of map's or filter's accumulator
MAX_PATTERN: Final = 100  # characters of a literal regular expression
MAX_REPEAT: Final = 20  # largest counted repetition in a pattern, ``a{20}``
_REPEAT: Final = re.compile(r"\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")
_UNICODE_CLASS: Final = re.compile(r"\\+[wWdDsSpP]")
_CLASS_UNITS: Final = 100_000  # compiling one Unicode class
# CEL's type names, which read as values (``type(x) == int``).
TYPE_NAMES: Final = frozenset(
    {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"}
)
# Functions and methods the analysis knows; anything else is refused at compile time.
_SCALAR_FUNCTIONS: Final = frozenset(
    {"int", "uint", "double", "bool", "dyn", "type", "timestamp", "duration"}
)
_STRING_METHODS: Final = frozenset({"contains", "startsWith", "endsWith", "matches"})
_TIME_METHODS: Final = frozenset(
    {
        "getDate",
        "getDayOfMonth",
        "getDayOfWeek",
        "getDayOfYear",
        "getFullYear",
        "getHours",
        "getMilliseconds",
        "getMinutes",
        "getMonth",
        "getSeconds",
    }
)

# -- sizes ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """An upper bound on a value: ``n`` its length (characters, items or entries), ``w`` the
    units of converting it from or to Python, ``c`` the cells the evaluator copies when it
    copies it (deeply: measured), ``elem`` its items' or values' bound, ``key`` a map's keys'
    bound, and ``fields`` the bounds of known fields (``node.labels``)."""

    n: int = 0
    w: int = 1
    elem: Shape | None = None
    key: Shape | None = None
    fields: tuple[tuple[str, Shape], ...] = ()
    c: int = 1
    _hash: int = dataclasses.field(default=0, compare=False, repr=False)

    def __hash__(self) -> int:
        # Shapes key the estimate cache at every call: hash a nested shape once.
        if not self._hash:
            value = hash((self.n, self.w, self.c, self.elem, self.key, self.fields)) or 1
            object.__setattr__(self, "_hash", value)
        return self._hash

    def field(self, name: str) -> Shape:
        for key, shape in self.fields:
            if key == name:
                return shape
        return self.elem or SCALAR


SCALAR: Final = Shape()


def join(a: Shape | None, b: Shape | None) -> Shape:
    """The least bound covering both."""
    if a is None or a is b:
        return b or SCALAR
    if b is None:
        return a
    flat = a.elem is None and b.elem is None and a.key is None and b.key is None
    if flat and not a.fields and not b.fields:  # texts and scalars: the larger, when one is
        if a.n >= b.n and a.w >= b.w and a.c >= b.c:
            return a
        if b.n >= a.n and b.w >= a.w and b.c >= a.c:
            return b
    names = sorted({k for k, _ in a.fields} | {k for k, _ in b.fields})
    return Shape(
        max(a.n, b.n),
        max(a.w, b.w),
        join(a.elem, b.elem) if a.elem or b.elem else None,
        join(a.key, b.key) if a.key or b.key else None,
        tuple((k, join(a.field(k), b.field(k))) for k in names),
        max(a.c, b.c),
    )


def _up(n: int) -> int:
    """``n`` rounded up to three significant bits (at most 1/8 more): nearby sizes share one
    bound, so an estimate made for one node serves the next."""
    if n < 16:
        return n
    step = 1 << (n.bit_length() - 3)
    return -(-n // step) * step


@functools.lru_cache(maxsize=1024)
def _text(n: int) -> Shape:
    n = _up(n)
    return Shape(n=n, w=2 + n // 16, c=2 + n // 64)


def shape_of(value: Any, fields: Iterable[str] | None = None) -> Shape:
    """A bound of a Python value as expressions see it (sizes rounded up a little); with
    ``fields``, of a dict's named fields only (the others are never read). A nested dict's
    fields are bounded together (``elem``)."""
    if isinstance(value, (str, bytes)):
        return _text(len(value))
    if isinstance(value, (list, tuple)):
        elem: Shape | None = None
        w = c = 2
        for item in value:
            s = shape_of(item)
            elem, w, c = join(elem, s), w + s.w + 1, c + s.c
        return Shape(_up(len(value)), _up(w), elem, c=_up(c))
    if isinstance(value, Mapping):
        if fields is not None:
            known = tuple((f, shape_of(value[f])) for f in sorted(fields) if f in value)
            w = 2 * ENTRY + sum(s.w + ENTRY for _, s in known)
            c = 2 + sum(s.c + ENTRY_COPY for _, s in known)
            return Shape(len(value), w, None, None, known, c)
        elem = key = None
        w, c = 2 * ENTRY, 2
        for k, v in value.items():
            ks, vs = shape_of(k), shape_of(v)
            key, elem = join(key, ks), join(elem, vs)
            w, c = w + ks.w + vs.w + ENTRY, c + ks.c + vs.c + ENTRY_COPY
        return Shape(_up(len(value)), _up(w), elem, key, c=_up(c))
    return SCALAR


# -- the bound --------------------------------------------------------------------------------


def uses(tree: Expr) -> dict[str, frozenset[str] | None]:
    """Free variables -> the fields read of them (None: the variable is used whole)."""
    out: dict[str, set[str] | None] = {}

    def walk(e: Expr, bound: frozenset[str]) -> None:
        if e.kind == "ident" and e.name not in bound:
            if e.name not in TYPE_NAMES:
                out[e.name] = None
            return
        if e.kind in ("select", "has") and e.args[0].kind == "ident":
            name = e.args[0].name
            if name not in bound:
                if name not in out:
                    out[name] = set()
                seen = out[name]
                if seen is not None:
                    seen.add(e.name)
                return
        if e.kind == "comprehension":
            walk(e.args[0], bound)
            for sub in e.args[1:]:
                walk(sub, bound | {e.var})
            return
        for sub in e.args:
            walk(sub, bound)

    walk(tree, frozenset())
    return {k: (frozenset(v) if v is not None else None) for k, v in out.items()}


def _pattern_cost(e: Expr, source: str) -> tuple[int, int]:
    """(compile units, units per character matched) of a literal regular expression.

    Measured: the pattern is compiled at each call; a Unicode class (``\\w``, ``\\d``,
    ``\\s``, ``\\p{..}`` and their negations) costs ~7 ms to compile and its counted
    repetition multiplies that (``(\\w{20}){20}``: 0.9 s before the library refuses it).
    """
    if e.kind != "lit" or not e.value:
        raise CostError("matches() needs a string literal pattern", e.offset)
    text = source[e.offset : e.offset + e.value]
    if e.value > MAX_PATTERN + 2:
        raise CostError(f"a pattern is at most {MAX_PATTERN} characters", e.offset)
    counts = [int(n or 0) for pair in _REPEAT.findall(text) for n in pair]
    if any(c > MAX_REPEAT for c in counts) or len(_REPEAT.findall(text)) > 2:
        raise CostError(f"a pattern repeats at most {MAX_REPEAT} times, twice", e.offset)
    product = 1
    for c in _REPEAT.findall(text):
        product *= max(1, *(int(n or 0) for n in c))
    classes = len(_UNICODE_CLASS.findall(text))
    compile_units = (200 * e.value + _CLASS_UNITS * classes) * product
    return compile_units, 20 * e.value * product


class _Bound:
    """Cost and result bound of each sub-expression, for variables of the given shapes."""

    def __init__(
        self, source: str, env: Mapping[str, Shape], functions: frozenset[str] = frozenset()
    ) -> None:
        self.source = source
        self.env = env
        self.functions = functions  # the environment's own, each a small Python function
        self.culprit = 0  # 1 + offset of the innermost sub-expression over CALL_LIMIT, if any

    def cost(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        """(units, result bound) of ``e``: ``STEP`` for the node itself, plus its work."""
        c, s = self._cost(e, scope)
        if c + STEP > CALL_LIMIT and not self.culprit:  # children come first: the innermost
            self.culprit = e.offset + 1
        return c + STEP, s

    def _cost(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        k = e.kind
        if k == "lit":
            return 1, _text(e.value) if e.value else SCALAR
        if k == "ident":
            if e.name in scope:  # a comprehension's variable is a copy of the item
                return 1 + scope[e.name].c, scope[e.name]
            if e.name in self.env:  # measured: a variable's use costs an eighth of a copy
                return 1 + self.env[e.name].c // 8, self.env[e.name]
            if e.name in TYPE_NAMES:
                return 1, SCALAR
            raise CostError(f"unknown variable {e.name!r}", e.offset)
        if k in ("select", "has"):
            c, s = self.cost(e.args[0], scope)
            if k == "has":
                return c + 2, SCALAR
            found = s.field(e.name)  # a field's value is copied out of its map
            return c + 2 + found.c, found
        if k == "index":
            (c1, s1), (c2, s2) = self.cost(e.args[0], scope), self.cost(e.args[1], scope)
            found = s1.elem or SCALAR
            return c1 + c2 + s2.c + 2 + found.c, found
        if k in ("list", "map"):
            return self._literal(e, scope)
        if k == "unary":
            c, _ = self.cost(e.args[0], scope)
            return c + 1, SCALAR
        if k == "binary":
            return self._binary(e, scope)
        if k == "cond":
            c0, _ = self.cost(e.args[0], scope)
            (c1, s1), (c2, s2) = self.cost(e.args[1], scope), self.cost(e.args[2], scope)
            return c0 + max(c1, c2) + 1, join(s1, s2)
        if k == "comprehension":
            return self._comprehension(e, scope)
        return self._call(e, scope)

    def _literal(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        cost, w, copies = 0, 2 if e.kind == "list" else 2 * ENTRY, 2
        elem: Shape | None = None
        key: Shape | None = None
        for i, sub in enumerate(e.args):
            c, s = self.cost(sub, scope)
            cost, w, copies = cost + c + 1, w + s.w + 1, copies + s.c + 1
            if e.kind == "map" and i % 2 == 0:
                key = join(key, s)
                w, copies = w + ENTRY, copies + ENTRY_COPY
            else:
                elem = join(elem, s)
        n = len(e.args) // 2 if e.kind == "map" else len(e.args)
        return cost + copies, Shape(n, w, elem, key, c=copies)

    def _binary(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        (c1, s1), (c2, s2) = self.cost(e.args[0], scope), self.cost(e.args[1], scope)
        op, base = e.name, c1 + c2 + 1
        if op == "+":  # numbers, or strings and lists growing: both copied
            grown = Shape(
                s1.n + s2.n,
                s1.w + s2.w,
                join(s1.elem, s2.elem) if s1.elem or s2.elem else None,
                join(s1.key, s2.key) if s1.key or s2.key else None,
                c=s1.c + s2.c,
            )
            return base + s1.c + s2.c, grown
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return base + s1.c + s2.c, SCALAR
        if op == "in":
            return base + s2.c + (s2.n + 1) * s1.c, SCALAR
        return base, SCALAR  # && || - * / %

    def _comprehension(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        c0, target = self.cost(e.args[0], scope)
        items = target.n
        var = (target.key if target.key is not None else target.elem) or SCALAR
        inner = {**scope, e.var: var}
        body = [self.cost(sub, inner) for sub in e.args[1:]]
        step = sum(c for c, _ in body) + 2 * STEP + var.c  # the item bound to the variable
        cost = c0 + target.c + items * step
        if e.name in ("all", "exists", "exists_one"):
            return cost, SCALAR
        out = body[-1][1] if e.name == "map" else var
        # The accumulator is copied at each step: item i copies the i results before it.
        cost += items * (items + 1) // 2 * out.c * COPY
        return cost, Shape(items, 2 + items * (out.w + 1), out, c=2 + items * out.c)

    def _call(self, e: Expr, scope: Mapping[str, Shape]) -> tuple[int, Shape]:
        name = e.name
        if e.method and name in _STRING_METHODS and len(e.args) == 2:
            c1, s1 = self.cost(e.args[0], scope)
            if name == "matches":
                compiled, per_char = _pattern_cost(e.args[1], self.source)
                return c1 + compiled + per_char * (s1.n + 8), SCALAR
            c2, s2 = self.cost(e.args[1], scope)
            return c1 + c2 + s1.c + s2.c + (s1.n + s2.n) // 8 + 1, SCALAR
        if name == "matches" and not e.method and len(e.args) == 2:
            c1, s1 = self.cost(e.args[0], scope)
            compiled, per_char = _pattern_cost(e.args[1], self.source)
            return c1 + compiled + per_char * (s1.n + 8), SCALAR
        if e.method and name in _TIME_METHODS and len(e.args) in (1, 2):
            return sum(self.cost(a, scope)[0] for a in e.args) + 2, SCALAR
        if len(e.args) == 1 and (
            name == "size" or name in _SCALAR_FUNCTIONS or name in ("string", "bytes")
        ):
            c, s = self.cost(e.args[0], scope)
            if name == "size":
                return c + 1 + s.n // 8, SCALAR
            if name in ("string", "bytes"):
                return c + s.c + 2, _text(max(s.n, 32))
            return c + s.c + 2, (s if name == "dyn" else SCALAR)
        if name in self.functions:  # a Python function: its arguments converted, a small result
            costs = [self.cost(a, scope) for a in e.args]
            widest = max((s.w for _, s in costs), default=1)
            return sum(c + 2 * s.w for c, s in costs) + 50, Shape(
                max((s.n for _, s in costs), default=0),
                widest + 8,
                c=max((s.c for _, s in costs), default=1) + 2,
            )
        where = "method" if e.method else "function"
        raise CostError(f"{where} {name}() is not supported here", e.offset)


def estimate(
    tree: Expr, source: str, env: Mapping[str, Shape], functions: frozenset[str] = frozenset()
) -> int:
    """Units of work one evaluation does at most, variables within ``env``'s bounds (their
    conversion and the result's included); raises CostError for an unknown name.
    ``functions``: the environment's own functions (Python, small results)."""
    return estimate_at(tree, source, env, functions)[0]


def estimate_at(
    tree: Expr, source: str, env: Mapping[str, Shape], functions: frozenset[str] = frozenset()
) -> tuple[int, int]:
    """``estimate``, and the offset of the innermost sub-expression over ``CALL_LIMIT`` (0)."""
    bound = _Bound(source, env, functions)
    cost, result = bound.cost(tree, {})
    return cost + result.w + sum(s.w for s in env.values()), max(bound.culprit - 1, 0)


CALL_LIMIT: Final = 200_000
CYCLE_BUDGET: Final = 10_000_000
RUN_BUDGET: Final = 600_000_000
_CACHE: Final = 512  # estimates kept per expression, by the variables' bounds


def _labels(count: int, value: int = 63) -> dict[str, str]:
    return {f"example.com/{i:0>51}": "v" * value for i in range(count)}


def _reference_pod() -> dict[str, Any]:
    return {
        "name": "p" * 63,
        "namespace": "n" * 63,
        "labels": _labels(16),
        "annotations": _labels(8, 256),
        "priority": 0,
        "schedulerName": "s" * 63,
        "nodeSelector": _labels(4),
        "requests": {"cpu": 1, "memory": 1, "pods": 1, "ephemeral-storage": 1},
    }


def _reference_node() -> dict[str, Any]:
    resources = {"cpu": 1, "memory": 1, "pods": 1, "ephemeral-storage": 1}
    return {
        "name": "n" * 63,
        "labels": _labels(16),
        "annotations": _labels(8, 256),
        "unschedulable": False,
        "taints": [{"key": "k" * 63, "value": "v" * 63, "effect": "NoSchedule"}] * 4,
        "allocatable": resources,
        "requested": resources,
        "pods": [{"name": "p" * 63, "namespace": "n" * 63, "labels": _labels(4)}] * 16,
    }


REFERENCE: Final[Mapping[str, Any]] = {
    "pod": _reference_pod(),
    "a": _reference_pod(),
    "b": _reference_pod(),
    "node": _reference_node(),
    "state": {"preFilter": "s" * 256, "preScore": "s" * 256},
    "args": _labels(8),
    "score": 0,
    "scores": list(range(100)),
    "max": 0,
    "min": 0,
}


@functools.lru_cache(maxsize=256)
def _reference_shape(name: str, fields: frozenset[str] | None) -> Shape:
    return shape_of(REFERENCE[name], fields) if name in REFERENCE else SCALAR


class Analysis:
    """One expression's tree, the variables it reads and the estimate for given values."""

    def __init__(
        self,
        source: str,
        names: Iterable[str],
        *,
        limit: bool = True,
        functions: frozenset[str] = frozenset(),
        reference: Mapping[str, Any] | None = None,
    ) -> None:
        """Parse and check ``source``, whose variables may be ``names``; raises CostError.

        ``limit=False`` skips the compile-time cost limit (to measure costly expressions);
        ``functions`` are the environment's own; ``reference`` values replace ``REFERENCE``.
        """
        self.source = source
        self.functions = functions
        self.tree = parse(source)
        self.uses = uses(self.tree)
        known = set(names)
        for name in self.uses:
            if name not in known:
                raise CostError(f"unknown variable {name!r}: use {', '.join(sorted(known))}", 0)
        self._cache: dict[tuple[Shape, ...], int] = {}
        if not limit:
            return
        empty, at = estimate_at(self.tree, source, dict.fromkeys(self.uses, SCALAR), functions)
        if empty > CALL_LIMIT:
            raise CostError(
                f"cost limit: {empty:,} units per evaluation even with empty variables "
                f"(limit {CALL_LIMIT:,})",
                at,
            )
        if reference is not None:
            env = {n: shape_of(reference[n], f) for n, f in self.uses.items() if n in reference}
            where = "on a reference value"
        else:
            env = {n: _reference_shape(n, f) for n, f in self.uses.items()}
            where = "on a 100-node cluster"
        typical, at = estimate_at(self.tree, source, env, functions)
        if typical > CALL_LIMIT:
            raise CostError(
                f"cost limit: {typical:,} units per evaluation {where} (limit {CALL_LIMIT:,})", at
            )

    def variables(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The variables to hand to the evaluator: those read, dicts cut to the fields read."""
        out: dict[str, Any] = {}
        for name, fields in self.uses.items():
            if name not in values:
                continue
            value = values[name]
            if fields is not None and isinstance(value, Mapping):
                value = {f: value[f] for f in fields if f in value}
            out[name] = value
        return out

    def cost(self, values: Mapping[str, Any], known: Mapping[str, Shape] | None = None) -> int:
        """Units one evaluation over ``values`` (as ``variables`` cuts them) does at most;
        ``known``: bounds already measured (of the fields this expression reads)."""
        known = known or {}
        shapes = tuple(
            known[name]
            if name in known
            else shape_of(values[name], fields)
            if name in values
            else SCALAR
            for name, fields in self.uses.items()
        )
        return self._estimate(shapes)

    def _estimate(self, shapes: tuple[Shape, ...]) -> int:
        hit = self._cache.get(shapes)
        if hit is None:
            env = dict(zip(self.uses, shapes, strict=True))
            hit = estimate(self.tree, self.source, env, self.functions)
            if len(self._cache) >= _CACHE:
                self._cache.clear()
            self._cache[shapes] = hit
        return hit
