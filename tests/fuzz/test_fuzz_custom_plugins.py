"""Fuzz: custom plugin definitions compile or are refused with CelPluginError, and what compiles
runs through the scheduler without an exception (a failing expression is an Error status).

Expressions are generated from CEL's grammar over the variables a custom plugin sees (``pod``,
``node``, ``state``, ``args``): literals of every type (huge integers, odd unicode, big list
literals), operators, indexing, conversions, string functions and the comprehension macros,
with now and then a token that does not belong.
"""

from __future__ import annotations

import pytest
from builders import make_node, make_pod
from fuzzing import ODD_TEXT, budget, mutated, tally, values
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.custom.examples import EXAMPLES
from scheduler_core.custom.plugin import (
    POINTS,
    CelPluginError,
    CustomPluginSpec,
    compile_spec,
    registry_of,
)
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry

pytestmark = pytest.mark.timeout(600)

VARIABLES = st.sampled_from(
    [
        "pod",
        "pod.name",
        "pod.namespace",
        "pod.labels",
        "pod.requests",
        "node",
        "node.name",
        "node.labels",
        "node.allocatable",
        "node.requested",
        "node.taints",
        "node.pods",
        "state",
        "state.preFilter",
        "state.preScore",
        "args",
        "args.x",
        "x",
    ]
)
LITERALS = st.one_of(
    st.integers(-5, 5).map(str),
    st.sampled_from(
        ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e308"]
    ),
    st.sampled_from(["0u", "18446744073709551615u", "1.5", ".5", "true", "false", "null"]),
    st.one_of(st.text(max_size=6), ODD_TEXT).map(lambda s: '"' + s.replace('"', "") + '"'),
    st.sampled_from(['b"\\xff"', "'''multi\nline'''", 'r"\\d+"', '"\\u00e9"', '"\\']),
    st.integers(0, 400).map(lambda n: "[" + ",".join(["0"] * n) + "]"),
)
BINARY = st.sampled_from(
    ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", " in "]
)
UNARY = st.sampled_from(["!", "-", "int", "string", "double", "size", "type", "bool", "uint"])
METHODS = st.sampled_from(
    [".size()", '.startsWith("a")', '.endsWith("")', '.contains("x")', '.matches("a+")']
)
MACROS = st.sampled_from(["map", "filter", "all", "exists", "exists_one"])
STRAY = st.sampled_from(["(", ")", "[", "]", "{", "}", ",", ".", "?", ":", "@", "#", "\x00", ";"])


def _extend(inner):
    return st.one_of(
        st.tuples(inner, BINARY, inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(UNARY, inner).map(
            lambda t: f"{t[0]}{t[1]}" if t[0] in "!-" else f"{t[0]}({t[1]})"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, METHODS).map("".join),
        st.tuples(inner, MACROS, inner).map(lambda t: f"{t[0]}.{t[1]}(x, {t[2]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: "{" + f"{t[0]}: {t[1]}" + "}"),
        st.tuples(inner, STRAY).map("".join),
    )


EXPRESSIONS = st.recursive(st.one_of(VARIABLES, LITERALS), _extend, max_leaves=8)
SPECS = st.builds(
    CustomPluginSpec,
    name=st.just("Fuzzed"),
    expressions=st.dictionaries(st.sampled_from(POINTS), EXPRESSIONS, min_size=1, max_size=3),
    filter_reason=st.one_of(st.just(""), ODD_TEXT),
    normalize=st.sampled_from(["none", "reverse", "max", "expression", "bogus"]),
)
CLUSTER = [
    make_node("n1", labels={"example.com/blinking-lights": "3", "zone": "a"}),
    make_node("n2", labels={"example.com/maintenance": "true"}),
    make_node("n3", cpu="1", memory="1Gi"),
    make_pod("web-0", labels={"app": "web"}),
    make_pod("web-1", labels={"app": "web", "example.com/hold": "wait 1"}),
    make_pod("big", cpu="2"),
]


def _config(name):
    return {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"enabled": [{"name": name}]}},
                "pluginConfig": [{"name": name, "args": {"x": 1, "waitSeconds": 1}}],
            }
        ]
    }


def _compile(spec):
    try:
        compiled = compile_spec(spec)
    except CelPluginError as err:
        assert err.errors and all(isinstance(e, str) and e for e in err.errors)
        tally("refused at compile")
        return None
    tally("compiled")
    return compiled


@budget(150)
@given(SPECS)
def test_expressions_compile_or_are_refused(spec):
    _compile(spec)


@budget(60)
@given(SPECS)
def test_compiled_plugins_run_without_exceptions(spec):
    if _compile(spec) is None:
        return
    registry = in_tree_registry().merged(registry_of([spec]))
    try:
        scheduler = Scheduler(_config(spec.name), CLUSTER, registry=registry)
        scheduler.run_until_idle(max_cycles=12)
    except SchedulerCoreError:
        tally("refused by the scheduler")


DEFINITIONS = st.sampled_from([s.to_dict() for s in EXAMPLES]).flatmap(
    lambda d: mutated(d, json_safe=True)
)


@budget(80)
@given(DEFINITIONS)
def test_exported_definitions_load_or_are_refused(definition):
    """A definition as an export holds it, with wrong types anywhere: refused, not a crash."""
    try:
        spec = CustomPluginSpec.from_dict(definition)
    except CelPluginError:
        return
    _compile(spec)


@budget(100)
@given(
    st.dictionaries(
        st.sampled_from(
            ["name", "description", "filter_reason", "normalize", *(f"point_{p}" for p in POINTS)]
        ),
        st.one_of(EXPRESSIONS, st.text(max_size=40), ODD_TEXT),
    )
)
def test_form_validates_or_reports_errors(data):
    from playground.custom_plugins.forms import CustomPluginForm

    form = CustomPluginForm(data)
    if form.is_valid():
        assert form.definition()["name"]
    else:
        assert all(isinstance(str(m), str) for ms in form.errors.values() for m in ms)


@budget(60)
@given(values(json_safe=True))
def test_definitions_of_any_shape(raw):
    try:
        spec = CustomPluginSpec.from_dict(raw if isinstance(raw, dict) else {"points": raw})
    except CelPluginError:
        return
    _compile(spec)


@pytest.mark.parametrize("raw", [None, 201, {"points": 201}, {"points": ["x"]}])
def test_crashes_found_are_definition_errors(raw):
    """What the fuzzing found raising AttributeError before."""
    with pytest.raises(CelPluginError):
        CustomPluginSpec.from_dict(raw)
