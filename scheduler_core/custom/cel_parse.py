"""A parser of the CEL subset custom plugins may use, into a small tree for the cost analysis.

Not an upstream module: ``cel_cost`` bounds the work of an expression over this tree. The
subset is CEL without message construction and optional syntax; comprehension macros become
``comprehension`` nodes. Nesting is limited (``MAX_DEPTH``, ``MAX_HEIGHT``) so neither the
parser nor the analysis can run out of stack.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

MAX_DEPTH: Final = 24  # parentheses, brackets and calls nested in one another
MAX_HEIGHT: Final = 100  # of the parse tree: also chains like a + b + c + ...
COMPREHENSIONS: Final = frozenset({"all", "exists", "exists_one", "map", "filter"})
# One escape in a quoted (not raw) literal, as CEL's lexer reads it (its ESC_SEQ).
_ESCAPE: Final = (
    r"""\\(?:[abfnrtv"'\\?`]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2})"""
)
# The tokens of CEL's own (ANTLR) lexer, so that the analysis reads what the evaluator reads: a
# string is ``[bB]?[rR]?`` and a quote (``rb"x"`` is the name ``rb``, then a string); in a raw
# string a backslash is a character (``r"\"`` ends at its second quote); a one-line string holds
# no line break; whitespace is tab, space, CR, LF and form feed only; a float has digits on both
# sides of its point (``1.e3`` is ``1 . e3``); digits are ASCII.
_TOKEN: Final = re.compile(
    r"""(?P<space>[\t\n\r\f ]+|//[^\n]*)
    |(?P<string>[bB]?(?:[rR](?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"[^"\n\r]*"|'[^'\n\r]*')
        |\"\"\"(?:ESC|[^\\])*?\"\"\"|'''(?:ESC|[^\\])*?'''
        |"(?:ESC|[^"\\\n\r])*"|'(?:ESC|[^'\\\n\r])*'))
    |(?P<number>[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+
        |\.[0-9]+(?:[eE][+-]?[0-9]+)?|0x[0-9a-fA-F]+[uU]?|[0-9]+[uU]?)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>&&|\|\||==|!=|<=|>=|[-+*/%!<>?:.,()\[\]{}])""".replace("ESC", _ESCAPE),
    re.VERBOSE,
)


class CostError(ValueError):
    """An expression the analysis refuses; ``offset`` is where, in characters."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


# -- the tree ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expr:
    """A node of the parse tree: ``kind`` says which, ``args`` are its sub-expressions.

    kinds: lit (``value``: the literal's length, 0 for a number), ident (``name``), select
    (``name``: the field), index, list, map (args alternate key, value), call (``name``; a
    method call has its target as ``args[0]`` and ``method`` set), comprehension (``name``: the
    macro, ``var``), unary, binary (``name``: the operator), cond, has.
    """

    kind: str
    offset: int
    args: tuple[Expr, ...] = ()
    name: str = ""
    value: int = 0
    method: bool = False
    var: str = ""
    height: int = 1


def _mk(kind: str, offset: int, args: Iterable[Expr] = (), **fields: Any) -> Expr:
    """A tree node; refused when the tree grows taller than ``MAX_HEIGHT``."""
    args = tuple(args)
    height = 1 + max((a.height for a in args), default=0)
    if height > MAX_HEIGHT:
        raise CostError(f"nests more than {MAX_HEIGHT} operations deep", offset)
    return Expr(kind, offset, args, height=height, **fields)


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(source):
            m = _TOKEN.match(source, pos)
            if m is None:
                raise CostError(f"unexpected character {source[pos]!r}", pos)
            if m.lastgroup != "space":
                self.tokens.append((m.lastgroup or "", m.group(), pos))
            pos = m.end()
        self.tokens.append(("eof", "", len(source)))
        self.i = 0
        self.depth = 0

    def peek(self, text: str | None = None) -> bool:
        kind, tok, _ = self.tokens[self.i]
        return (kind == "op" and tok == text) if text is not None else False

    def take(self) -> tuple[str, str, int]:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> int:
        kind, tok, at = self.take()
        if tok != text or kind not in ("op", "ident"):
            raise CostError(f"expected {text!r}", at)
        return at

    def enter(self, at: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CostError(f"nests deeper than {MAX_DEPTH}", at)

    # expr = or ['?' or ':' expr]
    def expr(self) -> Expr:
        at = self.tokens[self.i][2]
        self.enter(at)
        cond = self.binary(0)
        if self.peek("?"):
            self.take()
            then = self.binary(0)
            self.expect(":")
            other = self.expr()
            cond = _mk("cond", at, (cond, then, other))
        self.depth -= 1
        return cond

    _LEVELS: Final = (
        ("||",),
        ("&&",),
        ("==", "!=", "<", "<=", ">", ">=", "in"),
        ("+", "-"),
        ("*", "/", "%"),
    )

    def binary(self, level: int) -> Expr:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while True:
            kind, tok, at = self.tokens[self.i]
            if tok in self._LEVELS[level] and (kind == "op" or tok == "in"):
                self.take()
                right = self.binary(level + 1)
                left = _mk("binary", at, (left, right), name=tok)
            else:
                return left

    def unary(self) -> Expr:
        kind, tok, at = self.tokens[self.i]
        if kind == "op" and tok in ("!", "-"):
            self.take()
            self.enter(at)
            operand = self.unary()
            self.depth -= 1
            return _mk("unary", at, (operand,), name=tok)
        return self.member()

    def member(self) -> Expr:
        node = self.primary()
        while True:
            kind, tok, at = self.tokens[self.i]
            if kind == "op" and tok == ".":
                self.take()
                k2, name, at2 = self.take()
                if k2 != "ident":
                    raise CostError("expected a field or method name after '.'", at2)
                if self.peek("("):
                    args = self.call_args()
                    node = self.method(node, name, args, at2)
                else:
                    node = _mk("select", at2, (node,), name=name)
            elif kind == "op" and tok == "[":
                self.take()
                index = self.expr()
                self.expect("]")
                node = _mk("index", at, (node, index))
            elif kind == "op" and tok == "{":
                raise CostError("message construction is not supported", at)
            else:
                return node

    def call_args(self) -> list[Expr]:
        self.expect("(")
        args: list[Expr] = []
        while not self.peek(")"):
            args.append(self.expr())
            if not self.peek(","):
                break
            self.take()
        self.expect(")")
        return args

    def method(self, target: Expr, name: str, args: list[Expr], at: int) -> Expr:
        if name in COMPREHENSIONS:
            if not args or args[0].kind != "ident":
                raise CostError(f"{name} needs a variable name first", at)
            arity = (2, 3) if name == "map" else (2,)
            if len(args) not in arity:
                raise CostError(f"{name} takes {' or '.join(map(str, arity))} arguments", at)
            return _mk("comprehension", at, (target, *args[1:]), name=name, var=args[0].name)
        return _mk("call", at, (target, *args), name=name, method=True)

    def primary(self) -> Expr:
        kind, tok, at = self.take()
        if kind == "number":
            return _mk("lit", at)
        if kind == "string":
            return _mk("lit", at, value=len(tok))
        if kind == "ident":
            if tok in ("true", "false", "null"):
                return _mk("lit", at)
            if self.peek("("):
                args = self.call_args()
                if tok == "has":
                    if len(args) != 1 or args[0].kind != "select":
                        raise CostError("has() takes one field selection", at)
                    return _mk("has", at, (args[0].args[0],), name=args[0].name)
                return _mk("call", at, tuple(args), name=tok)
            return _mk("ident", at, name=tok)
        if kind == "op" and tok == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        if kind == "op" and tok == "[":
            items = self.sequence("]")
            return _mk("list", at, tuple(items))
        if kind == "op" and tok == "{":
            entries: list[Expr] = []
            while not self.peek("}"):
                entries.append(self.expr())
                self.expect(":")
                entries.append(self.expr())
                if not self.peek(","):
                    break
                self.take()
            self.expect("}")
            return _mk("map", at, tuple(entries))
        raise CostError(f"unexpected {tok!r}" if tok else "unexpected end", at)

    def sequence(self, close: str) -> list[Expr]:
        items: list[Expr] = []
        while not self.peek(close):
            items.append(self.expr())
            if not self.peek(","):
                break
            self.take()
        self.expect(close)
        return items


def parse(source: str) -> Expr:
    """The expression's tree; raises CostError outside the subset or nested too deep."""
    parser = _Parser(source)
    tree = parser.expr()
    kind, tok, at = parser.tokens[parser.i]
    if kind != "eof":
        raise CostError(f"unexpected {tok!r}", at)
    return tree


# -- agreement with the evaluator's own parse -------------------------------------------------

# The evaluator's name of each operator (``cel.Program.functions()``).
_OPERATOR_NAMES: Final = {
    **{op: f"_{op}_" for op in ("+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=")},
    **{op: f"_{op}_" for op in ("&&", "||")},
    "in": "@in",
}
# Operators a macro expands into, which the source does not spell.
_MACRO_OPERATORS: Final = {
    "map": {"_+_", "_?_:_"},
    "filter": {"_+_", "_?_:_"},
    "all": {"@not_strictly_false", "_&&_"},
    "exists": {"!_", "@not_strictly_false", "_||_"},
    "exists_one": {"_+_", "_==_", "_?_:_"},
}


def _references(tree: Expr) -> tuple[set[str], set[str], set[str], set[str]]:
    """(names read, functions called, operators used, operators macros add) of ``tree``."""
    names: set[str] = set()
    functions: set[str] = set()
    operators: set[str] = set()
    implied: set[str] = set()
    stack = [tree]
    while stack:
        e = stack.pop()
        stack.extend(e.args)
        if e.kind == "ident":
            names.add(e.name)
        elif e.kind == "call":
            functions.add(e.name)
        elif e.kind == "binary":
            operators.add(_OPERATOR_NAMES[e.name])
        elif e.kind == "unary":
            operators.add(f"{e.name}_")
        elif e.kind == "index":
            operators.add("_[_]")
        elif e.kind == "cond":
            operators.add("_?_:_")
        elif e.kind == "comprehension":
            implied |= _MACRO_OPERATORS[e.name]
            if e.name == "filter":  # its expansion reads the variable: acc + [var]
                names.add(e.var)
    return names, functions, operators, implied


def check_agrees(tree: Expr, functions: Iterable[str], variables: Iterable[str]) -> None:
    """Raise CostError unless ``tree`` names the same variables, functions and operators as the
    evaluator's own parse of the same source (``program.functions()``, ``.variables()``).

    A second line of defence behind the lexer: an expression read one way by the analysis and
    another by the evaluator (code hidden in what the analysis took for a string or a comment)
    is refused when the two disagree on what it calls. The evaluator folds ``-1`` and ``!!x``,
    so a unary operator of the tree may be missing from its list.
    """
    names, called, operators, implied = _references(tree)
    theirs = set(functions)
    their_calls = {f for f in theirs if f.isidentifier()}
    their_operators = theirs - their_calls
    problems = []
    if set(variables) != names:
        problems.append(f"names {sorted(set(variables) ^ names)}")
    if their_calls != called:
        problems.append(f"functions {sorted(their_calls ^ called)}")
    unary = {"-_", "!_"}
    if not (operators - unary <= their_operators <= operators | implied):
        problems.append(f"operators {sorted(their_operators ^ operators)}")
    if problems:
        raise CostError(
            "the expression reads differently to the evaluator (" + "; ".join(problems) + ")", 0
        )


_SIMPLE_ESCAPES: Final = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    '"': '"', "'": "'", "\\": "\\", "?": "?", "`": "`",
}  # fmt: skip
_ONE_ESCAPE: Final = re.compile(_ESCAPE)


def decode(token: str) -> str | bytes:
    """The value of a string or bytes literal token, as CEL reads it (tests compare the two)."""
    is_bytes = token[:1] in "bB"
    body = token[1:] if is_bytes else token
    raw = body[:1] in "rR"
    body = body[1:] if raw else body
    quote = 3 if body[:3] in ('"""', "'''") else 1
    text = body[quote:-quote]
    pieces: list[str | int] = []  # text, or one escaped code (a byte in a bytes literal)
    at = 0
    for m in () if raw else _ONE_ESCAPE.finditer(text):
        pieces.append(text[at : m.start()])
        esc = m.group()[1:]
        simple = _SIMPLE_ESCAPES.get(esc[0])
        pieces.append(
            ord(simple) if simple else int(esc, 8) if esc[0].isdigit() else int(esc[1:], 16)
        )
        at = m.end()
    pieces.append(text[at:])
    # Line breaks written in a (triple-quoted) literal are read as LF, as in the evaluator.
    pieces = [
        p.replace("\r\n", "\n").replace("\r", "\n") if isinstance(p, str) else p for p in pieces
    ]
    if not is_bytes:
        return "".join(p if isinstance(p, str) else chr(p) for p in pieces)
    return b"".join(p.encode() if isinstance(p, str) else bytes([p]) for p in pieces)
