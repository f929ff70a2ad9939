"""Kubernetes' CEL environment for DRA device selectors."""

from __future__ import annotations

import pytest

from scheduler_core.dra.cel_env import Cache, CelError, compile_selector
from scheduler_core.dra.types import Attribute, Device

GPU = Device(
    "gpu-0",
    (
        ("model", Attribute("string", "a100")),
        ("index", Attribute("int", 1)),
        ("driverVersion", Attribute("version", "1.2.3-rc.1")),
        ("nic.example.com/rdma", Attribute("bool", True)),
    ),
    (("memory", "40Gi"),),
)
DRIVER = "gpu.example.com"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        pytest.param('device.driver == "gpu.example.com"', True, id="driver"),
        pytest.param('device.driver == "nic.example.com"', False, id="other-driver"),
        pytest.param(
            'device.attributes["gpu.example.com"].model == "a100"', True, id="unqualified-is-driver"
        ),
        pytest.param('device.attributes["gpu.example.com"].index < 1', False, id="int-attribute"),
        pytest.param('device.attributes["nic.example.com"].rdma', True, id="qualified-attribute"),
        pytest.param(
            'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
            True,
            id="quantity-compare-equal",
        ),
        pytest.param(
            'device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0',
            False,
            id="quantity-compare-less",
        ),
        pytest.param(
            'device.capacity["gpu.example.com"].memory.isLessThan(quantity("40961Mi"))',
            True,
            id="quantity-less-than-across-suffixes",
        ),
        pytest.param(
            'device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("42949672960"))',
            False,
            id="quantity-greater-than-equal-value",
        ),
        pytest.param(
            'quantity("1").add(quantity("500m")).compareTo(quantity("1.5")) == 0',
            True,
            id="quantity-add",
        ),
        pytest.param('quantity("2").sub(1).asInteger() == 1', True, id="quantity-sub-int"),
        pytest.param('isQuantity("1Gi") && !isQuantity("1 Gi")', True, id="is-quantity"),
        pytest.param(
            'device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.2.3"))',
            True,
            id="semver-prerelease-sorts-first",
        ),
        pytest.param(
            'device.attributes["gpu.example.com"].driverVersion.major() == 1',
            True,
            id="semver-major",
        ),
        pytest.param(
            '"model" in device.attributes["gpu.example.com"]', True, id="in-operator-on-domain"
        ),
        pytest.param(
            'device.attributes["tpu.example.com"].size() == 0', True, id="unknown-domain-is-empty"
        ),
    ],
)
def test_selector_evaluates_like_kubernetes(expression: str, expected: bool) -> None:
    assert compile_selector(expression).matches(DRIVER, GPU) is expected


def test_unknown_id_in_a_domain_is_upstreams_runtime_error() -> None:
    compiled = compile_selector('device.attributes["gpu.example.com"].rdma')
    with pytest.raises(CelError, match="^no such key: rdma$"):
        compiled.matches(DRIVER, GPU)


def test_mismatched_types_report_no_such_overload() -> None:
    compiled = compile_selector('device.attributes["gpu.example.com"].index < "2"')
    with pytest.raises(CelError, match="^no such overload$"):
        compiled.matches(DRIVER, GPU)


def test_syntax_error_keeps_cel_go_text() -> None:
    compiled = compile_selector('device.driver == "x" &&')
    assert compiled.error is not None
    assert compiled.error.startswith("compilation failed: ERROR: <input>:1:")
    assert "Syntax error" in compiled.error
    assert "\n | " in compiled.error
    with pytest.raises(CelError, match="^compilation failed"):
        compiled.matches(DRIVER, GPU)


def test_unknown_variable_is_an_undeclared_reference() -> None:
    compiled = compile_selector('gpu.driver == "x"')
    assert compiled.error is not None
    assert "undeclared reference to 'gpu'" in compiled.error


def test_non_bool_result_is_an_error() -> None:
    with pytest.raises(CelError, match="could not be converted to bool"):
        compile_selector("device.driver").matches(DRIVER, GPU)


def test_cache_compiles_each_expression_once() -> None:
    cache = Cache()
    first = cache.get_or_compile("device.driver == 'a'")
    assert cache.get_or_compile("device.driver == 'a'") is first
    assert cache.get_or_compile("device.driver == 'b'") is not first


def test_function_errors_carry_their_own_message() -> None:
    with pytest.raises(CelError, match="^unable to parse quantity's suffix$"):
        compile_selector('quantity("1 Gi").isInteger()').matches(DRIVER, GPU)
    with pytest.raises(CelError, match="^no such overload$"):
        compile_selector('device.capacity["gpu.example.com"].memory.compareTo(1) == 0').matches(
            DRIVER, GPU
        )
