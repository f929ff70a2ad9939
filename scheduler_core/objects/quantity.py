"""Kubernetes resource quantities, parsed exactly as apimachinery does.

Mirrors k8s.io/apimachinery/pkg/api/resource (quantity.go, suffix.go). A quantity is kept as an
exact integer number of nano-units: upstream rounds every parsed value up (away from zero) to a
multiple of 10^-9, so nothing finer is ever observable.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Final

from scheduler_core.errors import ManifestError

NANO: Final = 10**9

_DECIMAL_SUFFIXES: Final[dict[str, int]] = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES: Final[dict[str, int]] = {
    "Ki": 10,
    "Mi": 20,
    "Gi": 30,
    "Ti": 40,
    "Pi": 50,
    "Ei": 60,
}
_NUMBER: Final = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$")
_EXPONENT: Final = re.compile(r"^[eE][+-]?[0-9]+$")

# Bounds this implementation adds: upstream keeps any magnitude in an inf.Dec, but every
# quantity the scheduler reads goes through an int64 MilliValue or Value, and an unbounded
# exponent (1e1000000000) would make the exact arithmetic below unbounded too.
MAX_QUANTITY_CHARS: Final = 64
MAX_MILLI_VALUE: Final = 2**63 - 1  # |MilliValue| must fit an int64
_MIN_EXPONENT: Final = -40  # below 10^-40 any non-zero value rounds up to 1n


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


def parse_nanos(text: str) -> int:
    """Return the quantity ``text`` in nano-units (``"100m"`` -> 100_000_000).

    Raises QuantityError with upstream's wording for malformed input.
    """
    if isinstance(text, str):
        cached = _PARSED.get(text)
        if cached is not None:
            return cached
        value = _parse_nanos(text)
        if len(_PARSED) < 65536:
            _PARSED[text] = value
        return value
    return _parse_nanos(text)


_PARSED: dict[str, int] = {}


def _parse_nanos(text: str) -> int:
    """Return the quantity ``text`` in nano-units (``"100m"`` -> 100_000_000).

    Raises QuantityError with upstream's wording for malformed input.
    """
    if not isinstance(text, str):
        if isinstance(text, bool):
            raise QuantityError("quantities must match the regular expression")
        if isinstance(text, int):
            if abs(text) * 1000 > MAX_MILLI_VALUE:
                raise QuantityError(_TOO_LARGE)
            return text * NANO
        if isinstance(text, float):
            if text != text or abs(text) * 1000 > MAX_MILLI_VALUE:  # NaN, inf, too large
                raise QuantityError(_TOO_LARGE if text == text else "not a number")
            return _round_up(Fraction(text) * NANO)
        raise QuantityError("quantities must match the regular expression")
    if text == "":
        raise QuantityError("quantities must match the regular expression")
    if len(text) > MAX_QUANTITY_CHARS:
        raise QuantityError(f"quantities may be at most {MAX_QUANTITY_CHARS} characters long")
    match = _NUMBER.match(text)
    if match is None:
        raise QuantityError("quantities must match the regular expression")
    sign, whole, frac, suffix = match.groups()
    if whole == "" and frac is None:
        raise QuantityError("quantities must match the regular expression")
    digits = (whole or "0") + (frac or "")
    value = Fraction(int(digits), 10 ** len(frac or ""))
    if suffix in _DECIMAL_SUFFIXES:
        value *= Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
    elif suffix in _BINARY_SUFFIXES:
        value *= 2 ** _BINARY_SUFFIXES[suffix]
    elif _EXPONENT.match(suffix):
        exponent = int(suffix[1:])
        if value and exponent > len(digits) + 19:  # certainly beyond MAX_MILLI_VALUE
            raise QuantityError(_TOO_LARGE)
        value *= Fraction(10) ** max(exponent, _MIN_EXPONENT)
    else:
        raise QuantityError("unable to parse quantity's suffix")
    nanos = _round_up(value * NANO)
    if nanos > MAX_MILLI_VALUE * 10**6:
        raise QuantityError(_TOO_LARGE)
    return -nanos if sign == "-" else nanos


_TOO_LARGE: Final = f"quantity too large: the most is {MAX_MILLI_VALUE}m"


def _round_up(value: Fraction) -> int:
    """Round a non-negative value up to a whole number (upstream's inf.RoundUp)."""
    whole = value.numerator // value.denominator
    return whole if whole == value else whole + 1


def milli_value(nanos: int) -> int:
    """ceil(q * 1000), as Quantity.MilliValue."""
    return -((-nanos) // 10**6)


def value(nanos: int) -> int:
    """ceil(q), as Quantity.Value."""
    return -((-nanos) // NANO)


def parse_quantity(text: str, path: str = "") -> int:
    """Parse a quantity to nano-units, raising ManifestError that names ``path``."""
    try:
        return parse_nanos(text)
    except QuantityError as err:
        raise ManifestError(path, f"invalid quantity {text!r}: {err}") from err
