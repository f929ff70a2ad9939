"""Python's cycle collector kept off the engine's state: paused while it is built, and told
to leave it alone while it is used.

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
from typing import Any, Final, TypeVar

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


# The collector's first threshold while the engine schedules: CPython's default (700 new
# container objects) starts a young-generation pass every few cycles; each pass, and the older
# passes they add up to, walk objects that are not garbage. Measured on the shared bench
# workloads: a tenth of a run's time at the default, under 2% at this.
SCHEDULING_THRESHOLD: Final = 10_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """The collector runs, but its young generation is collected after SCHEDULING_THRESHOLD
    new objects instead of CPython's 700; the thresholds are restored after. A threshold
    already that high (an outer block, or the embedding process's choice) is left alone."""
    old = gc.get_threshold()
    if old[0] >= SCHEDULING_THRESHOLD:
        yield
        return
    gc.set_threshold(SCHEDULING_THRESHOLD, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


@contextmanager
def existing_objects_frozen() -> Iterator[None]:
    """The collector leaves the objects that exist now alone until the block ends.

    For a caller that makes much short-lived garbage around a built Scheduler (the playground
    storing a run): without it, the collector walks the engine's state (millions of objects at
    5,000 nodes) a few hundred times a run. Process-wide and harmless to other threads: what
    they hold is collected as usual once the block ends.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
