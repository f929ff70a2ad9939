"""Fuzz: the cost analysis reads every CEL expression as the evaluator does.

Issue 39: the analysis lexed ``r"\\"`` differently from the evaluator, so code it took for a
string ran unbounded. For generated expressions (string literals of every form, raw and not,
with escapes, quotes, backslashes, ``//`` and unicode inside; comments; odd whitespace; numbers;
operators, macros, calls) that the evaluator compiles, the analysis's tree must either be
refused or

- name the same variables, functions and operators as the evaluator's own parse, and
- print back (literals re-encoded from the values the analysis decoded, every node in
  parentheses) to an expression that evaluates to the same value or the same error.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import cel
import pytest
from fuzzing import budget, tally
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.custom import sandbox
from scheduler_core.custom.cel_parse import _TOKEN, CostError, Expr, check_agrees, decode, parse

pytestmark = pytest.mark.timeout(600)

VALUES = {"x": 1, "s": "ab", "l": [1, 2], "m": {"k": "v", "a": 1}}
# Characters that lexers get wrong: quotes, backslashes, comment starts, line breaks, unicode.
TRICKY = st.sampled_from(
    ['"', "'", "\\", "/", "//", "\n", "\r", "\t", "r", "b", "u", "x", "0", "7", "é", "\u2028"]
)
ESCAPES = st.sampled_from(
    ["\\n", "\\\\", '\\"', "\\'", "\\`", "\\?", "\\x41", "\\101", "\\u00e9", "\\U0001F600", "\\a"]
)
BODY = st.lists(st.one_of(TRICKY, ESCAPES, st.text(max_size=3)), max_size=6).map("".join)
PREFIX = st.sampled_from(["", "r", "R", "b", "B", "br", "bR", "Rb", "rb", "u"])
QUOTE = st.sampled_from(['"', "'", '"""', "'''"])
STRINGS = st.tuples(PREFIX, QUOTE, BODY).map(lambda t: f"{t[0]}{t[1]}{t[2]}{t[1]}")
NUMBERS = st.sampled_from(
    [
        "0",
        "1",
        "07",
        "1u",
        "0x1F",
        "0x1Fu",
        "1.5",
        ".5",
        "1e3",
        "1.e3",
        "2.5e-3",
        "9223372036854775807",
    ]
)
ATOMS = st.one_of(STRINGS, NUMBERS, st.sampled_from(["x", "s", "l", "m", "true", "null", "[]"]))
SPACE = st.sampled_from([" ", "", "\t", "\n", "\f", "\v", "\u00a0", " // c'\"\\ \n", "//\n"])


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.sampled_from(["+", "-", "*", "==", "!=", "<", "&&", "||", "in"])
    macro = st.sampled_from(["map", "filter", "all", "exists", "exists_one"])
    return st.one_of(
        st.tuples(inner, SPACE, binary, SPACE, inner).map("".join),
        st.tuples(st.sampled_from(["-", "!", "size(", "string(", "int("]), inner).map(
            lambda t: t[0] + t[1] + (")" if t[0].endswith("(") else "")
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, macro, inner).map(lambda t: f"[{t[0]}, 1].{t[1]}(y, {t[2]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}"),
        st.tuples(inner, st.sampled_from([".size()", '.contains("a")', ".k", ".a"])).map("".join),
        st.tuples(inner, SPACE, inner).map("".join),  # juxtaposed: mostly not CEL
    )


EXPRESSIONS = st.recursive(ATOMS, _extend, max_leaves=6)
# Token soup: fragments glued with no grammar at all, the way the raw-string attack was built.
FRAGMENTS = st.sampled_from(
    ['r"', "r'", 'R"', 'b"', '"', "'", '"""', "'''", "\\", "//", "\n", " + ", "1", "x", "(", ")"]
    + ["[0, 0]", ".map(y, y)", "size(", "string(", " ", "é", "\t", "\\x41", "?", ":", "y"]
)
SOUP = st.lists(FRAGMENTS, min_size=1, max_size=14).map("".join)


def _literal(value: str | bytes) -> str:
    if isinstance(value, bytes):
        return 'b"' + "".join(f"\\x{b:02x}" for b in value) + '"'
    return '"' + "".join(f"\\U{ord(c):08x}" for c in value) + '"'


def reprint(e: Expr, source: str) -> str:
    """``e`` as CEL text: every node in parentheses, strings re-encoded from decode()."""
    k, a = e.kind, [reprint(sub, source) for sub in e.args]
    if k == "lit":
        token = _TOKEN.match(source, e.offset)
        assert token is not None
        text = token.group()
        return _literal(decode(text)) if token.lastgroup == "string" else text
    if k == "ident":
        return e.name
    if k == "select":
        return f"({a[0]}).{e.name}"
    if k == "has":
        return f"has({a[0]}.{e.name})" if e.args[0].kind == "ident" else f"has(({a[0]}).{e.name})"
    if k == "index":
        return f"({a[0]})[{a[1]}]"
    if k == "list":
        return "[" + ", ".join(a) + "]"
    if k == "map":
        return "{" + ", ".join(f"{a[i]}: {a[i + 1]}" for i in range(0, len(a), 2)) + "}"
    if k == "unary":
        if e.args[0].kind == "unary" or (e.name == "-" and e.args[0].kind == "lit"):
            # The evaluator folds "!!" and "--" away, but not "!(!": keep runs of them; and
            # -9223372036854775808 is one literal, -(9223372036854775808) an overflow.
            return f"{e.name}{a[0]}"
        return f"{e.name}({a[0]})"
    if k == "binary":
        return f"({a[0]}) {e.name} ({a[1]})"
    if k == "cond":
        return f"({a[0]}) ? ({a[1]}) : ({a[2]})"
    if k == "comprehension":
        return f"({a[0]}).{e.name}({e.var}, {', '.join(a[1:])})"
    if e.method:
        return f"({a[0]}).{e.name}({', '.join(a[1:])})"
    return f"{e.name}({', '.join(a)})"


def _outcome(source: str) -> tuple[str, Any]:
    try:
        return "value", sandbox.evaluate(source, VALUES)
    except sandbox.LimitExceeded:
        raise
    except Exception as err:  # noqa: BLE001 - the kind of error is compared
        return "error", type(err).__name__


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _check(source: str) -> None:
    try:
        program = cel.compile(source)
    except (ValueError, RuntimeError):
        tally("not CEL")
        with contextlib.suppress(CostError):
            parse(source)
        return
    try:
        tree = parse(source)
    except CostError:
        tally("CEL, refused by the analysis")
        return
    tally("CEL, read by the analysis")
    check_agrees(tree, program.functions(), program.variables())
    printed = reprint(tree, source)
    ours, theirs = _outcome(printed), _outcome(source)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1]), (source, printed, ours, theirs)


@budget(150)
@given(EXPRESSIONS)
def test_expressions_read_as_the_evaluator_reads_them(source: str) -> None:
    _check(source)


@budget(150)
@given(SOUP)
def test_token_soup_reads_as_the_evaluator_reads_it(source: str) -> None:
    _check(source)


@pytest.mark.parametrize(
    "source",
    [
        'r"\\" + string(size([0, 0].map(y, [0, 0]))) + "//"',
        "r'\\' + 'a' + '//'",
        '"""a\\"""" + "b"',
        "'\\'' + \"'\" // '",
        'b"\\377\\x41é" + br"\\"',
        "1.e3 == 1",
        "!!0",
        "--9223372036854775808",
    ],
)
def test_known_hard_cases(source: str) -> None:
    _check(source)
