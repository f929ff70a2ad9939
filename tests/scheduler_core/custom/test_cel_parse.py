"""The analysis reads an expression as the evaluator does: raw strings, escapes, comments.

Issue 39, HIGH 1: ``r"\\"`` was lexed as an unterminated string with an escaped quote while CEL
ends it at the second quote, so everything up to the next quote was a string to the analysis
and code to the evaluator (a comprehension over literals estimated at ~100 units ran 6-15 s).
"""

from __future__ import annotations

import cel
import pytest

from scheduler_core.custom.cel_parse import CostError, Expr, check_agrees, decode, parse
from scheduler_core.custom.plugin import CelPluginError, CustomPluginSpec, compile_spec
from scheduler_core.dra.cel_env import compile_selector

ZEROS = "[" + ",".join(["0"] * 300) + "]"
HIDDEN = f"string(size({ZEROS}.map(x, {ZEROS})))"
RAW_ATTACKS = [
    f'r"\\" + {HIDDEN} + "//"',
    f"r'\\' + {HIDDEN} + '//'",
    f'R"\\" + {HIDDEN} + "//"',
    f"R'\\' + {HIDDEN} + \"//\"",
    f'br"\\" + b{HIDDEN[6:]} + "//"',
]


def _tokens(source: str) -> list[tuple[str, str]]:
    from scheduler_core.custom.cel_parse import _Parser

    return [(kind, text) for kind, text, _ in _Parser(source).tokens[:-1]]


@pytest.mark.parametrize("source", RAW_ATTACKS[:4])
def test_the_raw_string_attack_is_refused_for_its_cost(source: str) -> None:
    with pytest.raises(CelPluginError) as err:
        compile_spec(CustomPluginSpec("P", {"filter": f"{source} != ''"}))
    assert "cost limit" in err.value.errors[0], err.value.errors


def test_the_raw_string_attack_is_refused_as_a_dra_selector() -> None:
    compiled = compile_selector(f'{RAW_ATTACKS[0]} != ""')
    assert compiled.program is None
    assert "cost limit" in (compiled.error or "")


@pytest.mark.parametrize(
    ("source", "tokens"),
    [
        ('r"\\" + x', [("string", 'r"\\"'), ("op", "+"), ("ident", "x")]),
        ("r'\\' + x", [("string", "r'\\'"), ("op", "+"), ("ident", "x")]),
        ('br"\\" + x', [("string", 'br"\\"'), ("op", "+"), ("ident", "x")]),
        ('rb"x"', [("ident", "rb"), ("string", '"x"')]),  # not a prefix CEL knows
        ('"a\\"b"', [("string", '"a\\"b"')]),
        ('"""a\\""""', [("string", '"""a\\""""')]),
        ('r"""a\\"""', [("string", 'r"""a\\"""')]),
        ("1.e3", [("number", "1"), ("op", "."), ("ident", "e3")]),
        (".5e-3", [("number", ".5e-3")]),
        ("0x1Fu", [("number", "0x1Fu")]),
        ("1 // ' \n + x", [("number", "1"), ("op", "+"), ("ident", "x")]),
    ],
)
def test_tokens_are_cels(source: str, tokens: list[tuple[str, str]]) -> None:
    assert _tokens(source) == tokens


@pytest.mark.parametrize(
    "source",
    ['"\\q"', '"a\nb"', "1\u00a0+ 2", "1\v+ 2", "\u0661", "a\u00e9", "'''a\\'''"],
)
def test_what_cel_cannot_lex_is_refused(source: str) -> None:
    with pytest.raises(ValueError):
        cel.compile(source)
    with pytest.raises(CostError):
        parse(source)


@pytest.mark.parametrize(
    "literal",
    [
        '"a\\x41\\101\\u00e9\\U0001F600\\n\\\\\\"\\`\\?"',
        "b'\\xff\\377\u00e9\\n'",
        'r"\\n\\"',
        'br"\\n"',
        '"""a\nb\\""""',
        "'''x'y'''",
        'R"""a\\b"""',
        '"""a\r\nb\rc"""',
        '"\u00e9\u4e2d"',
    ],
)
def test_literals_decode_to_what_cel_evaluates(literal: str) -> None:
    tree = parse(literal)
    assert tree.kind == "lit"
    assert decode(literal) == cel.evaluate(literal)


def test_a_tree_that_disagrees_with_the_evaluators_parse_is_refused() -> None:
    hidden = f'"\\" + {HIDDEN} + "'  # what the old lexer made of the attack: one string
    program = cel.compile(RAW_ATTACKS[0])
    with pytest.raises(CostError, match="reads differently to the evaluator"):
        check_agrees(parse(hidden), program.functions(), program.variables())
    check_agrees(parse(RAW_ATTACKS[0]), program.functions(), program.variables())


@pytest.mark.parametrize(
    "source",
    [
        "a.exists(x, x > 1) && -a < 2",
        "!!a || b[1]",
        "-1 + a.filter(y, y in b).size()",
        "[1].exists_one(x, x == 1) ? 1 : 2",
        "has(a.b) && a.b.matches('x') && type(a) == map",
        "[1].all(int, int > 0) && [2].map(y, y > 1, y * 2) == [4]",
    ],
)
def test_the_trees_of_ordinary_expressions_agree(source: str) -> None:
    program = cel.compile(source)
    tree: Expr = parse(source)
    check_agrees(tree, program.functions(), program.variables())
