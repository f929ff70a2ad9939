"""A keyed binary heap whose order is a less function, broken by insertion order.

Mirrors backend/heap/heap.go of kube-scheduler v1.35 (a heap with a key index, AddOrUpdate,
Delete, Get, Peek, Pop). Each item carries a monotonic sequence number given when it is first
added: items the less function ranks equal leave in the order they came, so the order is total
and repeats on every run. Updating an item keeps its number, as heap.Fix keeps the item's slot.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

__all__ = ["Heap"]


class Heap(Generic[T]):
    """Items of type T keyed by ``key``, ordered by ``less`` then by insertion."""

    __slots__ = ("_key", "_less", "_items", "_seqs", "_index", "_counter")

    def __init__(self, key: Callable[[T], str], less: Callable[[T, T], bool]) -> None:
        self._key = key
        self._less = less
        self._items: list[T] = []
        self._seqs: list[int] = []
        self._index: dict[str, int] = {}
        self._counter = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._index

    def _before(self, i: int, j: int) -> bool:
        a, b = self._items[i], self._items[j]
        if self._less(a, b):
            return True
        if self._less(b, a):
            return False
        return self._seqs[i] < self._seqs[j]

    def _swap(self, i: int, j: int) -> None:
        items, seqs = self._items, self._seqs
        items[i], items[j] = items[j], items[i]
        seqs[i], seqs[j] = seqs[j], seqs[i]
        self._index[self._key(items[i])] = i
        self._index[self._key(items[j])] = j

    def _up(self, i: int) -> None:
        while i > 0:
            parent = (i - 1) // 2
            if not self._before(i, parent):
                break
            self._swap(i, parent)
            i = parent

    def _down(self, i: int) -> bool:
        start, n = i, len(self._items)
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            child = left
            if left + 1 < n and self._before(left + 1, left):
                child = left + 1
            if not self._before(child, i):
                break
            self._swap(i, child)
            i = child
        return i > start

    def _fix(self, i: int) -> None:
        if not self._down(i):
            self._up(i)

    def add_or_update(self, item: T) -> None:
        """Insert ``item``, or replace the item with the same key and restore the order."""
        key = self._key(item)
        i = self._index.get(key)
        if i is not None:
            self._items[i] = item
            self._fix(i)
            return
        self._counter += 1
        self._items.append(item)
        self._seqs.append(self._counter)
        self._index[key] = len(self._items) - 1
        self._up(len(self._items) - 1)

    def delete(self, key: str) -> bool:
        """Remove the item with ``key``; False when there is none."""
        i = self._index.pop(key, None)
        if i is None:
            return False
        last = len(self._items) - 1
        if i != last:
            self._items[i], self._seqs[i] = self._items[last], self._seqs[last]
            self._index[self._key(self._items[i])] = i
        self._items.pop()
        self._seqs.pop()
        if i != last:
            self._fix(i)
        return True

    def get(self, key: str) -> T | None:
        i = self._index.get(key)
        return None if i is None else self._items[i]

    def peek(self) -> T | None:
        return self._items[0] if self._items else None

    def pop(self) -> T | None:
        """Remove and return the first item; None when empty."""
        if not self._items:
            return None
        head = self._items[0]
        self.delete(self._key(head))
        return head

    def ordered(self) -> list[T]:
        """Every item in pop order (a copy; the heap is unchanged)."""
        pairs = list(zip(self._items, self._seqs, strict=True))

        def cmp(a: tuple[T, int], b: tuple[T, int]) -> int:
            if self._less(a[0], b[0]):
                return -1
            if self._less(b[0], a[0]):
                return 1
            return -1 if a[1] < b[1] else (1 if a[1] > b[1] else 0)

        return [item for item, _ in sorted(pairs, key=functools.cmp_to_key(cmp))]
