"""Compact JSON text for what a run stores and streams, by orjson (several times the json module's
speed: a run encodes tens of thousands of events, envelopes and record headers).

``dumps`` gives the text ``json.dumps(obj, separators=(",", ":"))`` would parse back to (tuples as
lists; non-ASCII kept as UTF-8 rather than escaped); ``loads`` reads any JSON text or bytes.
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # an integer key becomes a string, as the json module does


def _default(obj: Any) -> Any:
    """What orjson does not write itself: a tuple's subclass (a named tuple, an event's column)
    as a list."""
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def dumps(obj: Any) -> str:
    return orjson.dumps(obj, default=_default, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    return orjson.loads(text)
