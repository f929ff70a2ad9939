"""Numbers from query strings, form fields and websocket URLs: parsed once, always in range.

``int()`` on what a client sends fails on ``abc`` (a 500 where it is not caught) and succeeds on
``99999999999999999999``, which the database then refuses as an OFFSET or a seq (a 500 on SQLite
and PostgreSQL alike). Every such number goes through ``bounded_int``: a missing or malformed
value is the default, a number out of range is clamped to the nearest bound.
"""

from __future__ import annotations

from typing import Any, Final

MAX_OFFSET: Final = 10**9  # offsets and page numbers: more rows than any run has
MAX_ID: Final = 2**63 - 1  # database ids and stream sequence numbers (a signed 64-bit column)


def bounded_int(value: Any, default: int, *, low: int = 0, high: int = MAX_OFFSET) -> int:
    """``value`` as an int within ``low..high``; ``default`` when absent or not an integer."""
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):  # ValueError also for more than 4,300 digits
        return default
    return max(low, min(number, high))


def page_links(query: Any, name: str, number: int, pages: int) -> dict[str, str]:
    """The links (query string and ``#name``) to the first, previous, next and last page of
    the list ``name`` on page ``number`` of ``pages``; ``query`` (request.GET) keeps the
    other parameters, so the page's other lists stay where they are."""

    def link(to: int) -> str:
        params = query.copy()
        params[name] = str(to)
        return "?" + str(params.urlencode(safe="/")) + f"#{name}"

    links: dict[str, str] = {}
    if number > 1:
        links.update(first=link(1), prev=link(number - 1))
    if number < pages:
        links.update(next=link(number + 1), last=link(pages))
    return links
