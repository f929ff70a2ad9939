"""Structure-aware strategies shared by the fuzz tests.

Inputs start from real documents (the course's clusters and profiles, the older configurations
of the migration tests) and are then mutated where they are weakest: a field replaced by a
value of the wrong type, a huge or negative integer, odd unicode, deep nesting, an empty
collection, a missing field or an unknown one. ``budget(n)`` is the per-test example count:
``n`` in the ``ci`` profile, 25 times that with ``FUZZ_PROFILE=long``.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from hypothesis import currently_in_test_context, event, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "playground" / "lessons" / "course"
MIGRATIONS = ROOT / "tests" / "scheduler_core" / "config" / "migrations"
SCALE = 25 if os.environ.get("FUZZ_PROFILE") == "long" else 1


def budget(examples: int) -> settings:
    """Settings with ``examples`` examples (scaled by the profile), the rest from the profile."""
    return settings(max_examples=examples * SCALE)


ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "\u202e\u0041",
        "\U0001f4a5",
        "straße",
        "İ",
        "\ufeff",
        "a" * 300,
        "1e1000000",
        "0x1F",
        "-0",
        "NaN",
        ".inf",
        "100Mi",
        "1Ki",
        "9223372036854775807",
        "-9223372036854775808",
        "null",
        "~",
        "yes",
        "${x}",
        "../..",
        "a\nb",
        "kubernetes.io/hostname",
        "example.com/x",
        "In",
        "NotIn",
        "Exists",
        "Gt",
        "NoSchedule",
        "default",
        "NodeResourcesFit",
    ]
)
HUGE_INTS = st.sampled_from(
    [2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, -(10**30), 10**400]
)
KEYS = st.one_of(st.text(max_size=12), ODD_TEXT)


def scalars(*, json_safe: bool = False) -> st.SearchStrategy[Any]:
    floats = st.floats(allow_nan=not json_safe, allow_infinity=not json_safe)
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-1000, 1000),
        HUGE_INTS,
        floats,
        st.text(max_size=20),
        ODD_TEXT,
    )


def values(*, json_safe: bool = False) -> st.SearchStrategy[Any]:
    """Any small JSON-like value: scalars, lists and mappings of them."""
    return st.recursive(
        scalars(json_safe=json_safe),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
        max_leaves=12,
    )


def nested(depth: int, leaf: Any = 0, *, as_dict: bool = False) -> Any:
    out = leaf
    for _ in range(depth):
        out = {"a": out} if as_dict else [out]
    return out


def deep_values(max_depth: int = 120) -> st.SearchStrategy[Any]:
    return st.builds(nested, st.integers(2, max_depth), st.just(0), as_dict=st.booleans())


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _paths(value, (*prefix, index))


def _mutate_at(holder: list[Any], path: tuple[Any, ...], op: str, new: Any, key: Any) -> None:
    parent: Any = holder
    slot: Any = 0
    for part in path:
        parent, slot = parent[slot], part
    current = parent[slot]
    if op == "replace":
        parent[slot] = new
    elif op == "delete" and path:
        del parent[slot]
    elif op == "add" and isinstance(current, dict):
        current[key] = new
    elif op == "add" and isinstance(current, list):
        current.append(new)
    elif op == "wrap":
        parent[slot] = [current] if key else {"x": current}
    elif op == "empty":
        parent[slot] = type(current)() if isinstance(current, (dict, list, str)) else None
    elif op == "duplicate" and isinstance(current, list) and current:
        current.extend(copy.deepcopy(current[:1]) * 3)
    else:
        parent[slot] = new


PLAUSIBLE = st.one_of(
    st.integers(-2, 12),
    st.booleans(),
    st.sampled_from(
        [
            "0",
            "1",
            "3",
            "100m",
            "1500m",
            "2Gi",
            "512Mi",
            "110",
            "a",
            "zone-a",
            "node-1",
            "In",
            "NotIn",
            "Exists",
            "DoesNotExist",
            "Gt",
            "Lt",
            "Equal",
            "NoSchedule",
            "PreferNoSchedule",
            "NoExecute",
            "DoNotSchedule",
            "ScheduleAnyway",
            "Never",
            "default",
            "kubernetes.io/hostname",
            "topology.kubernetes.io/zone",
            "app",
            "web",
        ]
    ),
)
BREAKING_OPS = ["replace", "replace", "delete", "add", "wrap", "empty", "duplicate"]
GENTLE_OPS = ["replace", "replace", "replace", "delete", "duplicate"]


@st.composite
def mutated(
    draw: Any,
    base: Any,
    *,
    json_safe: bool = False,
    max_mutations: int = 4,
    gentle: bool = False,
) -> Any:
    """``base`` (a real document) with one to ``max_mutations`` random breakages.

    ``gentle``: values of the right vocabulary (quantities, operators, effects, label keys)
    put in place of scalars, fields dropped and list items repeated, so that much of what
    comes out is still valid and goes on to the engine.
    """
    holder = [copy.deepcopy(base)]
    new_values = PLAUSIBLE if gentle else st.one_of(values(json_safe=json_safe), deep_values(60))
    for _ in range(draw(st.integers(1, max_mutations))):
        paths = list(_paths(holder[0]))
        if gentle:
            paths = [p for p in paths if p] or paths
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(GENTLE_OPS if gentle else BREAKING_OPS))
        _mutate_at(holder, path, op, draw(new_values), draw(KEYS))
    return holder[0]


def to_text(doc: Any, as_json: bool) -> str:
    """A document as JSON or YAML text (YAML when it can be written, else JSON)."""
    if not as_json:
        try:
            return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        except (yaml.YAMLError, RecursionError):
            pass
    # ensure_ascii=False: "\ud83d\ude00" escapes of astral characters are refused by the import
    # (see test_fuzz_manifests.test_json_escapes_of_astral_characters_import)
    return json.dumps(doc, allow_nan=True, ensure_ascii=False)


def course_documents(name: str) -> list[Any]:
    """Every document of the course's ``name`` files (cluster.yaml, profile.yaml)."""
    out: list[Any] = []
    for path in sorted(COURSE.glob(f"*/{name}")):
        out += [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    return out


def deep_text() -> st.SearchStrategy[str]:
    """Deeply nested YAML or JSON text: flow lists and mappings, block mappings."""

    def build(depth: int, form: str) -> str:
        if form == "flow-list":
            return "[" * depth + "]" * depth
        if form == "flow-map":
            return "{a: " * depth + "1" + "}" * depth
        if form == "json":
            return '{"a": ' * depth + "1" + "}" * depth
        depth = min(depth, 900)  # indentation grows as the square of the depth
        return "".join(f"{'  ' * i}a{i}:\n" for i in range(depth)) + "  " * depth + "x: 1\n"

    return st.builds(
        build,
        st.sampled_from([70, 300, 900, 3000, 10000]),
        st.sampled_from(["flow-list", "flow-map", "json", "block"]),
    )


ODD_DOCUMENTS = [
    "a: " + "9" * 5000,  # more digits than Python converts to int
    "? [a]\n: 1\n",  # an unhashable key
    "? {a: 1}\n: 1\n",
    "&a [*a]\n",  # a list that holds itself
    "a: &a {b: *a}\n",
    "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",  # an alias bomb
    "!!python/object/apply:os.system ['true']\n",
    "!!binary AAAA\n",
    "a: !!timestamp 2001-12-14\n",
    "a: !!set {x, y}\n",
    "%YAML 9.9\n---\na: 1\n",
    "---\na: 1\n---\nb: 2\n",
    "{a: 1, a: 2}\n",
    "\x00\x01\x02",
    "\ufeffa: 1\n",
    "a:\tb\n",
    "- " * 200 + "x\n",
    '{"a": ' + "1" * 400 + "}",
    "a: 1e400\nb: .nan\nc: -.inf\n",
]


def odd_documents() -> st.SearchStrategy[str]:
    """YAML that is valid or nearly so and costly or surprising: huge numbers, odd keys, aliases."""
    return st.sampled_from(ODD_DOCUMENTS) | deep_text()


def tally(label: str) -> None:
    """Count ``label`` in the statistics (--hypothesis-show-statistics) when under hypothesis."""
    if currently_in_test_context():
        event(label)
