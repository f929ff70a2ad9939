"""YAML with bounds: every text a user sends is read through ``BoundedLoader``.

PyYAML's SafeLoader is safe from code execution but not from cost: a few hundred bytes of
aliases expand to gigabytes once the result is serialised (the "billion laughs"), and deep
nesting overflows the recursive composer (RecursionError). The loader counts aliases and
nesting while it composes, and refuses a document whose expanded tree is too large or too deep,
before anything is constructed, with an error that carries the line like any YAML error.

``scan`` walks a whole stream's parser events first and stops at the first bound passed
(documents, values, nesting, aliases, one collection's items), holding nothing: an upload of
millions of empty documents or one list of millions of items is refused after reading as far as
the bound, before any tree is built. ``load`` and ``load_all`` scan, then build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import yaml
from django.utils.translation import gettext

MAX_DEPTH: Final = 64  # nesting levels, after alias expansion; manifests need about 15
MAX_ALIASES: Final = 100  # alias references per document
MAX_NODES: Final = 500_000  # scalars and collections per document, after alias expansion
MAX_LIST: Final = 10_000  # items in one sequence or mapping
MAX_DOCUMENTS: Final = 100  # documents in one text that is not a cluster import
MAX_STREAM_VALUES: Final = 200_000  # values in one text that is not a cluster import
# A cluster import from the web (settings PLAYGROUND_IMPORT_MAX_DOCUMENTS and _VALUES override):
# kubectl's YAML spends 20-40 bytes a value, so 4 million values fill the 64 MB unzipped cap.
IMPORT_DOCUMENTS: Final = 50_000
IMPORT_VALUES: Final = 4_000_000
# Up to this many values the pure-Python loader builds the documents (about 30 us a value, with
# its own error wording); above it libyaml's composer does (a tenth of that), after ``scan``.
PURE_PYTHON_VALUES: Final = 20_000

# libyaml's parser when PyYAML was built with it (several times faster), else the pure one.
_EVENT_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Budget:
    """What one text may hold, counted while it is read (aliases are counted, not expanded)."""

    documents: int = MAX_DOCUMENTS
    values: int = MAX_STREAM_VALUES  # scalars, collections and aliases in the whole text
    depth: int = MAX_DEPTH
    aliases: int = MAX_ALIASES  # per document
    items: int = MAX_LIST  # in one sequence or mapping


def import_budget() -> Budget:
    """The budget of a cluster import from the web (settings PLAYGROUND_IMPORT_MAX_*)."""
    from django.conf import settings

    return Budget(
        documents=getattr(settings, "PLAYGROUND_IMPORT_MAX_DOCUMENTS", IMPORT_DOCUMENTS),
        values=getattr(settings, "PLAYGROUND_IMPORT_MAX_VALUES", IMPORT_VALUES),
    )


UNBOUNDED: Final = Budget(documents=10**12, values=10**12)  # the command line: only the shape


@dataclass(frozen=True)
class Tally:
    """What ``scan`` counted; ``complete`` is False when a syntax error stopped it."""

    documents: int
    values: int
    complete: bool


class YAMLLimitError(yaml.MarkedYAMLError):
    """A document beyond the loader's bounds; ``problem`` says which, ``problem_mark`` where."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


def too_big(problem: str) -> str:
    """An import refused for its size, with the bound it went over."""
    return gettext("too big to import: %(problem)s") % {"problem": problem}


def _aliases(count: int) -> str:
    return gettext("more than %(count)s aliases in one document") % {"count": count}


def _deeper(count: int) -> str:
    return gettext("nested deeper than %(count)s levels") % {"count": count}


def _items(count: int) -> str:
    return gettext("more than %(count)s items in one collection") % {"count": count}


def _documents(count: int) -> str:
    return gettext("more than %(count)s documents") % {"count": f"{count:,}"}


def _values(count: int) -> str:
    return gettext("more than %(count)s values") % {"count": f"{count:,}"}


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias bombs, deep nesting and huge collections."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0
        self.max_nodes = MAX_NODES  # values a document may expand to, aliases included

    def compose_document(self) -> Any:
        self._aliases = 0
        node = super().compose_document()
        _check_expanded(node, self.max_nodes)
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise YAMLLimitError(_aliases(MAX_ALIASES), mark)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise YAMLLimitError(_deeper(MAX_DEPTH), mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_expanded(root: yaml.Node | None, max_nodes: int = MAX_NODES) -> None:
    """Size and depth of the tree the node graph stands for (aliases share nodes).

    Iterative, each node measured once: a graph with few nodes but many paths (an alias bomb)
    costs as little to measure as it did to compose.
    """
    if root is None:
        return
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            height[key] = 1 + max((height[id(k)] for k in kids), default=0)
            open_nodes.discard(key)
            if size[key] > max_nodes:
                raise YAMLLimitError(
                    gettext("expands to more than %(count)s values (aliases included)")
                    % {"count": max_nodes},
                    node.start_mark,
                )
            if height[key] > MAX_DEPTH:
                raise YAMLLimitError(
                    gettext("nested deeper than %(count)s levels (aliases included)")
                    % {"count": MAX_DEPTH},
                    node.start_mark,
                )
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise YAMLLimitError(
                gettext("an alias refers to a node that contains it"), node.start_mark
            )
        if len(node.value) > MAX_LIST and not isinstance(node, yaml.ScalarNode):
            raise YAMLLimitError(_items(MAX_LIST), node.start_mark)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in _children(node) if id(k) not in size)


def check_node(node: yaml.Node | None, *, max_nodes: int = MAX_NODES) -> None:
    """Refuse a composed document (from any composer, libyaml's included) beyond the bounds."""
    _check_expanded(node, max_nodes)


def check_depth(data: Any, max_depth: int = MAX_DEPTH) -> None:
    """Refuse plain data (parsed JSON) nested deeper than ``max_depth``; iterative."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > max_depth:
                raise ValueError(f"nested deeper than {max_depth} levels")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))


_NODE_EVENTS: Final = (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)


def scan(text: str, budget: Budget | None = None) -> Tally:
    """Read the parser's events of ``text`` and raise YAMLLimitError at the first bound passed.

    Nothing is kept but a counter per open collection, so the cost is at most the events read
    up to the bound. Syntax errors are left to the loader that builds the documents.
    """
    budget = budget or Budget()
    # Each "---" at the start of a line begins a document (inside a scalar it is an error), so
    # counting them, at C speed and without parsing, refuses a stream of millions at once.
    markers = sum(text.count(f"\n---{end}") for end in (" ", "\n", "\r", "\t"))
    if markers + text.startswith("---") > budget.documents:
        raise YAMLLimitError(_documents(budget.documents), None)
    documents = values = aliases = 0
    # per open collection: values seen so far, and what one value weighs (a mapping item is a
    # key and a value, so each weighs 1 there and 2 in a sequence: ``items`` bounds both alike)
    counts: list[int] = []
    weights: list[int] = []
    events: Any = yaml.parse(text, Loader=_EVENT_LOADER)  # a generator: closed when done
    try:
        for event in events:
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                aliases = 0
                if documents > budget.documents:
                    raise YAMLLimitError(_documents(budget.documents), event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                counts.pop()
                weights.pop()
            elif isinstance(event, _NODE_EVENTS):
                values += 1
                if values > budget.values:
                    raise YAMLLimitError(_values(budget.values), event.start_mark)
                if counts:
                    counts[-1] += weights[-1]
                    if counts[-1] > 2 * budget.items:
                        raise YAMLLimitError(_items(budget.items), event.start_mark)
                if isinstance(event, yaml.AliasEvent):
                    aliases += 1
                    if aliases > budget.aliases:
                        raise YAMLLimitError(_aliases(budget.aliases), event.start_mark)
                elif isinstance(event, yaml.CollectionStartEvent):
                    counts.append(0)
                    weights.append(1 if isinstance(event, yaml.MappingStartEvent) else 2)
                    if len(counts) > budget.depth:
                        raise YAMLLimitError(_deeper(budget.depth), event.start_mark)
    except YAMLLimitError:
        raise
    except yaml.YAMLError:
        # a syntax error: the loader that builds the documents reports it in its words
        return Tally(documents, values, complete=False)
    finally:
        events.close()
    return Tally(documents, values, complete=True)


class _FastLoader(_EVENT_LOADER):  # type: ignore[misc]
    """libyaml's composer, for texts ``scan`` found big; nodes are checked by ``check_node``."""


def load_fast(text: str, loader_class: Any = _FastLoader, max_nodes: int = MAX_NODES) -> list[Any]:
    """Every document of a big text (libyaml), each checked for aliases, depth and expanded
    size by ``check_node`` before it is constructed; call ``scan`` first."""
    loader = loader_class(text)
    documents = []
    try:
        while loader.check_node():
            node = loader.get_node()
            check_node(node, max_nodes=max_nodes)
            documents.append(loader.construct_document(node))
    finally:
        loader.dispose()
    return documents


def load(text: str, budget: Budget | None = None) -> Any:
    """One YAML (or JSON) document, as ``yaml.safe_load`` reads it, within the bounds."""
    documents = load_all(text, budget)
    if len(documents) > 1:
        raise yaml.YAMLError("expected a single document in the stream, found several")
    return documents[0] if documents else None


def load_all(text: str, budget: Budget | None = None) -> list[Any]:
    """Every document of ``text`` (``None`` for empty ones), within the bounds; aliases may
    expand a document to no more than the budget's values."""
    budget = budget or Budget()
    max_nodes = min(budget.values, MAX_NODES)
    if scan(text, budget).values > PURE_PYTHON_VALUES:
        return load_fast(text, max_nodes=max_nodes)
    loader = BoundedLoader(text)
    loader.max_nodes = max_nodes
    try:
        documents = []
        while loader.check_data():  # type: ignore[no-untyped-call]
            documents.append(loader.get_data())
        return documents
    finally:
        loader.dispose()
