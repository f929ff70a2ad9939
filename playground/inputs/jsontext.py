"""JSON by orjson for what the playground stores and streams in bulk.

A run reads its cluster's manifests and writes them as its snapshot (megabytes for a few thousand
nodes), and encodes tens of thousands of event payloads, stream envelopes and record headers; the
json module spends a noticeable part of a run on them, orjson several times less.

- ``dumps`` gives the text ``json.dumps(obj, separators=(",", ":"))`` would parse back to
  (tuples as lists, non-ASCII kept as UTF-8); ``loads`` reads JSON text or bytes.
- ``FastJSONEncoder`` and ``FastJSONDecoder`` plug the same into Django's
  ``JSONField(encoder=..., decoder=...)`` for the large fields (manifests, a run's snapshot,
  event payloads).

A value orjson refuses or would read differently (an integer beyond 64 bits in a manifest, NaN)
is written and read by the json module, as before.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # an integer key becomes a string, as the json module does
# orjson reads an integer beyond 64 bits as a float: text with a run of 19 digits or more (such an
# integer, or digits inside a string) is read by the json module instead. The run is found by
# mapping every digit to "0" and everything else to " " (bytes.translate, a C loop): a regular
# expression spends several times longer on a manifest's many short numbers.
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19


def _has_long_digits(text: str | bytes) -> bool:
    data = text.encode() if isinstance(text, str) else text
    return _LONG_RUN in data.translate(_DIGITS_AS_ZEROS)


def _default(obj: Any) -> Any:
    """What orjson does not write itself: a tuple's subclass (a named tuple, an event's column)
    as a list."""
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def dumps(obj: Any) -> str:
    try:
        return orjson.dumps(obj, default=_default, option=_OPTIONS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    if not _has_long_digits(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # NaN or Infinity, which the json module reads
    return json.loads(text)


class FastJSONEncoder(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        return dumps(o)


class FastJSONDecoder(json.JSONDecoder):
    def decode(self, s: str, *args: Any) -> Any:  # type: ignore[override]
        return loads(s)
