"""Stored stream envelopes for websocket readers: read once per page, encoded once for all.

Fifty readers of one run ask for the same pages (``after=-1``, then after each page's last
seq). A page is read from the database by the first reader that asks and its batch frame is
JSON-encoded once; the readers waiting meanwhile, and later ones, get the same page.

A full page (``PAGE`` envelopes) never changes: a run's stored events are never rewritten. A
shorter page is the end of what was stored when it was read; a reader may take it only if the
read started after the reader joined the run's group (``fresh_since``): whatever was stored
later reaches that reader live. Pages live ``TTL`` seconds, at most ``MAX_CHARS`` of JSON in all.

Everything here runs on the server's event loop (one thread); the database reads run on the
thread Channels gives database work.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

from channels.db import database_sync_to_async

from ...inputs.jsontext import dumps
from .. import selectors
from . import stream

PAGE: Final = 500  # envelopes per catch-up frame
TTL: Final = 120.0  # seconds a page is kept
MAX_CHARS: Final = 32_000_000  # JSON kept in all, about as many bytes

Key = tuple[int, int, int | None]  # run, after, upto


@dataclass(frozen=True)
class Page:
    envelopes: list[dict[str, Any]]
    text: str  # the batch frame, JSON-encoded ("" when there is nothing)
    read_at: float  # time.monotonic() when the read started
    expires: float

    @property
    def full(self) -> bool:
        return len(self.envelopes) >= PAGE

    @property
    def last(self) -> int | None:
        """The last seq the page stands for (None when it is empty)."""
        return stream.last_seq_of(self.envelopes[-1]) if self.envelopes else None


_pages: OrderedDict[Key, Page] = OrderedDict()
_locks: dict[Key, tuple[asyncio.Lock, list[int]]] = {}  # the lock, and how many hold or await it
_chars = 0


def _usable(page: Page | None, *, fresh_since: float, now: float) -> bool:
    return page is not None and page.expires > now and (page.full or page.read_at >= fresh_since)


def _read(run_id: int, after: int, upto: int | None, read_at: float) -> Page:
    envelopes = selectors.run_event_messages(run_id=run_id, after=after, upto=upto, limit=PAGE)
    text = dumps(stream.batch_message(run_id, envelopes)) if envelopes else ""
    return Page(envelopes, text, read_at, read_at + TTL)


def _remember(key: Key, page: Page) -> None:
    global _chars
    old = _pages.pop(key, None)
    if old is not None:
        _chars -= len(old.text)
    _pages[key] = page
    _chars += len(page.text)
    now = time.monotonic()
    while _pages and (_chars > MAX_CHARS or next(iter(_pages.values())).expires <= now):
        _, dropped = _pages.popitem(last=False)
        _chars -= len(dropped.text)


async def page(run_id: int, *, after: int, upto: int | None, fresh_since: float) -> Page:
    """The stored envelopes of ``(after, upto]``, at most ``PAGE``, in seq order.

    Concurrent callers for the same page wait for one read instead of each reading.
    """
    key = (run_id, after, upto)
    lock, users = _locks.setdefault(key, (asyncio.Lock(), [0]))
    users[0] += 1
    try:
        async with lock:
            cached = _pages.get(key)
            if _usable(cached, fresh_since=fresh_since, now=time.monotonic()):
                assert cached is not None
                _pages.move_to_end(key)
                return cached
            read_at = time.monotonic()
            fresh = await database_sync_to_async(_read)(run_id, after, upto, read_at)
            _remember(key, fresh)
            return fresh
    finally:
        users[0] -= 1
        if not users[0]:
            del _locks[key]


def clear() -> None:
    """Forget every page (tests)."""
    global _chars
    _pages.clear()
    _chars = 0
