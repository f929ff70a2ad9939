"""Quantities parse exactly as Kubernetes parses them."""

from __future__ import annotations

import pytest

from scheduler_core.errors import ManifestError
from scheduler_core.objects import quantity as q


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        pytest.param("1", 10**9, id="plain-integer"),
        pytest.param("100m", 10**8, id="milli"),
        pytest.param("0.5", 5 * 10**8, id="decimal-fraction"),
        pytest.param(".5", 5 * 10**8, id="leading-dot"),
        pytest.param("1e3", 1000 * 10**9, id="exponent"),
        pytest.param("1E-3", 10**6, id="negative-exponent"),
        pytest.param("1Ki", 1024 * 10**9, id="kibi"),
        pytest.param("1.5Gi", 3 * 2**29 * 10**9, id="fractional-binary"),
        pytest.param("2k", 2000 * 10**9, id="kilo"),
        pytest.param("1n", 1, id="nano"),
        pytest.param("0.1n", 1, id="below-nano-rounds-up"),
        pytest.param("1u", 1000, id="micro"),
        pytest.param("-1m", -(10**6), id="negative"),
        pytest.param("+2", 2 * 10**9, id="explicit-plus"),
        pytest.param("0", 0, id="zero"),
        pytest.param(3, 3 * 10**9, id="json-number"),
    ],
)
def test_parse(text: str, nanos: int) -> None:
    assert q.parse_nanos(text) == nanos


@pytest.mark.parametrize("text", ["", "abc", "1.5.5", "1Zi", "1e", "m"])
def test_parse_rejects_malformed(text: str) -> None:
    with pytest.raises(q.QuantityError):
        q.parse_nanos(text)


@pytest.mark.parametrize(
    ("text", "milli", "value"),
    [
        ("1", 1000, 1),
        ("100m", 100, 1),  # Value() rounds up
        ("1.0001", 1001, 2),  # MilliValue() rounds up
        ("1Gi", 1024**3 * 1000, 1024**3),
    ],
)
def test_milli_value_and_value_round_up(text: str, milli: int, value: int) -> None:
    nanos = q.parse_nanos(text)
    assert q.milli_value(nanos) == milli
    assert q.value(nanos) == value


def test_bad_quantity_names_the_field() -> None:
    with pytest.raises(ManifestError) as err:
        q.parse_quantity("12 cores", "spec.containers[0].resources.requests.cpu")
    assert err.value.path == "spec.containers[0].resources.requests.cpu"
    assert "12 cores" in str(err.value)
