"""Python's cycle collector paused while the engine builds its state.

Setting up a Scheduler allocates hundreds of thousands of objects (nodes, pods, columns), none
of them garbage; the collector would walk them over and over as they pile up: a third of the
set-up of a 5,000-node cluster. The pause is scoped and leaves the collector as it found it (a
caller that had it disabled keeps it disabled), so the engine stays a well-behaved library.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection inside the block; the collector's state is restored after."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def with_collector_paused(fn: F) -> F:
    """The function runs with the collector paused (``collector_paused``)."""

    @functools.wraps(fn)
    def paused(*args: Any, **kwargs: Any) -> Any:
        with collector_paused():
            return fn(*args, **kwargs)

    return paused  # type: ignore[return-value]
