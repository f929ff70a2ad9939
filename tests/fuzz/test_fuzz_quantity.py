"""Fuzz: Kubernetes quantities parse to exact nano-units or raise QuantityError, nothing else."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal, localcontext

import pytest
from fuzzing import ODD_TEXT, budget, scalars
from hypothesis import given
from hypothesis import strategies as st

from scheduler_core.errors import ManifestError
from scheduler_core.objects.quantity import (
    MAX_MILLI_VALUE,
    NANO,
    QuantityError,
    milli_value,
    parse_nanos,
    parse_quantity,
    value,
)

SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
POWERS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
LIMIT = MAX_MILLI_VALUE * 10**6


@st.composite
def quantity_texts(draw):
    """Text shaped like a quantity: sign, digits, fraction, a suffix or an exponent."""
    sign = draw(st.sampled_from(["", "", "+", "-"]))
    whole = draw(st.text("0123456789", max_size=25))
    frac = draw(st.none() | st.text("0123456789", max_size=12))
    suffix = draw(
        st.sampled_from(SUFFIXES)
        | st.builds(
            lambda e, n: f"{e}{n}", st.sampled_from(["e", "E", "e+", "e-"]), st.integers(0, 10**6)
        )
        | st.sampled_from(["i", "KI", "ki", "mi", "e", "E+", "Ki ", " ", "m\n", "µ"])
    )
    return sign + whole + ("" if frac is None else "." + frac) + suffix


@st.composite
def well_formed(draw):
    """(text, expected nano-units): a valid decimal or binary-suffix quantity and its value."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text("0123456789", max_size=25))
    frac = draw(st.none() | st.text("0123456789", min_size=0 if whole else 1, max_size=12))
    if not whole and frac is None:
        whole = "0"
    suffix = draw(st.sampled_from(SUFFIXES))
    number = (whole or "0") + ("." + frac if frac else "")
    with localcontext() as ctx:
        ctx.prec = 200
        amount = Decimal(number)
        amount = amount * 2 ** BINARY[suffix] if suffix in BINARY else amount.scaleb(POWERS[suffix])
        nanos = int((amount * NANO).to_integral_value(rounding=ROUND_CEILING))
    text = sign + whole + ("" if frac is None else "." + frac) + suffix
    return text, -nanos if sign == "-" else nanos


@budget(300)
@given(well_formed())
def test_suffixed_quantities_are_exact(case):
    """Decimal and binary suffixes give exactly the value, rounded up to a nano-unit."""
    text, expected = case
    try:
        nanos = parse_nanos(text)
    except QuantityError:
        assert abs(expected) > LIMIT or len(text) > 64
        return
    assert nanos == expected


@budget(400)
@given(st.one_of(quantity_texts(), st.text(max_size=70), ODD_TEXT))
def test_text_parses_or_is_refused(text):
    try:
        nanos = parse_nanos(text)
    except QuantityError as err:
        assert str(err)
        return
    assert isinstance(nanos, int)
    assert abs(nanos) <= LIMIT
    assert milli_value(nanos) * 10**6 >= nanos > (milli_value(nanos) - 1) * 10**6
    assert value(nanos) * NANO >= nanos > (value(nanos) - 1) * NANO


@budget(200)
@given(scalars())
def test_non_text_values_parse_or_are_refused(raw):
    try:
        nanos = parse_nanos(raw)
    except QuantityError:
        return
    assert isinstance(nanos, int)
    assert abs(nanos) <= LIMIT


@budget(100)
@given(st.one_of(quantity_texts(), scalars()), st.text(max_size=30))
def test_parse_quantity_names_the_field(raw, path):
    try:
        parse_quantity(raw, path)
    except ManifestError as err:
        assert err.path == path
        assert "invalid quantity" in err.message


@pytest.mark.parametrize("text", ["1e1000000000", "9" * 64, "1" + "0" * 70])
def test_extreme_quantities_are_refused(text):
    with pytest.raises(QuantityError):
        parse_nanos(text)


def test_tiny_exponent_rounds_up_to_one_nano_unit():
    assert parse_nanos("1e-1000000") == 1
    assert parse_nanos("-1e-1000000") == -1
