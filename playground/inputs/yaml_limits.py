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
# One object of a cluster import (a document, or an item of a List): a Node with its images and
# managed fields holds about a thousand values, a big CustomResourceDefinition some 50,000.
IMPORT_OBJECT_VALUES: Final = 100_000
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
    # values one object may expand to, aliases included: a document, or an item of the
    # ``items`` of a document's root mapping (a List: ``kubectl get -o yaml`` of a whole cluster)
    object_values: int = MAX_NODES


def import_budget() -> Budget:
    """The budget of a cluster import from the web (settings PLAYGROUND_IMPORT_MAX_*)."""
    from django.conf import settings

    return Budget(
        documents=getattr(settings, "PLAYGROUND_IMPORT_MAX_DOCUMENTS", IMPORT_DOCUMENTS),
        values=getattr(settings, "PLAYGROUND_IMPORT_MAX_VALUES", IMPORT_VALUES),
        object_values=IMPORT_OBJECT_VALUES,
    )


UNBOUNDED: Final = Budget(
    documents=10**12, values=10**12, object_values=10**12
)  # the command line: only the shape


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


def more_values(count: int) -> str:
    return gettext("more than %(count)s values") % {"count": f"{count:,}"}


def _expands(count: int) -> str:
    return gettext("expands to more than %(count)s values (aliases included)") % {
        "count": f"{count:,}"
    }


def _not_a_value(err: ValueError, node: yaml.Node) -> yaml.constructor.ConstructorError:
    """A scalar Python refuses to convert (an integer of more than 4,300 digits), as YAML's
    error at its line."""
    problem = "an integer of more than 4,300 digits" if "digits" in str(err) else str(err)
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias bombs, deep nesting and huge collections."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError as err:
            raise _not_a_value(err, node) from err

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


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_yaml_int)


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
                raise YAMLLimitError(_expands(max_nodes), node.start_mark)
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


def check_data(data: Any, budget: Budget) -> None:
    """Refuse plain data (parsed JSON) nested deeper than the budget allows, or holding an object
    of more values than one may: the document, or each item of its ``items`` (a List). Iterative;
    each collection counts its entries at once, so scalars cost nothing to visit."""
    items = data.get("items") if isinstance(data, dict) else None
    counts = [1]  # values per object; the document's first
    stack: list[tuple[Any, int, int]] = [(data, 1, 0)]  # (collection, depth, object)
    while stack:
        value, depth, obj = stack.pop()
        if not isinstance(value, dict | list):
            continue
        if depth > budget.depth:
            raise YAMLLimitError(_deeper(budget.depth), None)
        children = list(value.values()) if isinstance(value, dict) else value
        if value is items and isinstance(items, list):
            for child in children:  # each item of a List is an object of its own
                counts.append(1)
                stack.append((child, depth + 1, len(counts) - 1))
            continue
        counts[obj] += len(children) * (2 if isinstance(value, dict) else 1)  # keys and values
        if counts[obj] > budget.object_values:
            raise YAMLLimitError(_object_values(budget.object_values), None)
        stack.extend(
            (child, depth + 1, obj) for child in children if isinstance(child, dict | list)
        )


_NODE_EVENTS: Final = (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)


def scan(text: str, budget: Budget | None = None) -> Tally:
    """Read the parser's events of ``text`` and raise YAMLLimitError at the first bound passed.

    Nothing is kept but a counter per open collection, so the cost is at most the events read
    up to the bound. Syntax errors are left to the loader that builds the documents.
    """
    budget = budget or Budget()
    _check_markers(text, budget)
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
                    raise YAMLLimitError(more_values(budget.values), event.start_mark)
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
    """libyaml's parser with the safe types, for the texts ``build`` reads."""


_MERGE: Final = object()  # the "<<" key of a mapping: the mappings it names are merged into it
_TEXT: Final = object()  # a scalar built as its own text
_MISSING: Final = object()
_SEQ_TAGS: Final = frozenset({None, "!", "tag:yaml.org,2002:seq"})
_MAP_TAGS: Final = frozenset({None, "!", "tag:yaml.org,2002:map"})
_DEFAULT_STR: Final = yaml.SafeLoader.construct_yaml_str
_STR_TAG: Final = "tag:yaml.org,2002:str"
_KNOWN_LENGTH: Final = 40  # plain scalars up to this long are built once per text ...
_KNOWN_ENTRIES: Final = 4096  # ... the first this many of them


def _object_values(count: int) -> str:
    return gettext("more than %(count)s values in one object") % {"count": f"{count:,}"}


class _Frame:
    """One open collection while ``build`` reads: what it holds so far and what it counted."""

    __slots__ = ("anchor", "data", "height", "items", "key", "keyed", "lists", "merges", "start")

    def __init__(self, data: Any, anchor: str | None, start: int, lists: bool) -> None:
        self.data = data  # a list, or the dict being filled
        self.anchor = anchor
        self.start = start  # values counted before it: its expanded size is the difference
        self.height = 1  # collection levels, itself included
        self.items = 0  # entries: items of a sequence, keys and values of a mapping
        self.key: Any = None  # a mapping's key waiting for its value
        self.keyed = False
        self.lists = lists  # the ``items`` of a document's root mapping: each is an object
        self.merges: list[list[dict[Any, Any]]] = []  # the mappings each "<<" key names


class _Builder:
    """Python data straight from the parser's events, every bound counted on the way.

    Nothing is composed (PyYAML's composer keeps a node with two marks per value, several
    hundred bytes and microseconds each): each value is counted as its event arrives, then
    built, so an input stops at the first bound passed having cost no more than the values
    read up to it. An alias counts every value of what it refers to (a "billion laughs" stops
    at the budget; the data built shares them, as PyYAML's does).
    """

    def __init__(self, loader: Any, budget: Budget) -> None:
        self.loader = loader
        self.budget = budget
        self.constructors = loader.yaml_constructors
        self.values = 0  # in the whole text, aliases expanded
        self.object = 0  # in the current object: a document, or one item of a List's items
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # anchor -> (data, values, height)
        self.aliases = 0  # in the current document
        # plain scalars already built (_TEXT: the scalar's text); None stands for a quoted one
        self.known: dict[str | None, Any] = {}
        if self.constructors.get(_STR_TAG) is _DEFAULT_STR:
            self.known[None] = _TEXT
        self.root: Any = None  # the current document's data

    def run(self) -> list[Any]:
        documents: list[Any] = []
        get_event = self.loader.get_event
        while True:
            event = get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:
                self._add(self._scalar(event), 0, event)
            elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
                self._open(event, kind is yaml.MappingStartEvent)
            elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
                self._close(event)
            elif kind is yaml.AliasEvent:
                self._alias(event)
            elif kind is yaml.DocumentStartEvent:
                if len(documents) >= self.budget.documents:
                    raise YAMLLimitError(_documents(self.budget.documents), event.start_mark)
                self.anchors, self.aliases, self.object, self.root = {}, 0, 0, None
            elif kind is yaml.DocumentEndEvent:
                documents.append(self.root)
            elif kind is yaml.StreamEndEvent:
                return documents

    def _count(self, size: int, event: Any, aliased: bool = False) -> None:
        """Count ``size`` values (an alias: what it refers to) before they are built."""
        stack = self.stack
        if stack and stack[-1].lists:
            self.object = 0  # each item of a List's items is an object of its own
        self.values += size
        self.object += size
        budget = self.budget
        if self.values > budget.values:
            problem = _expands if aliased else more_values
            raise YAMLLimitError(problem(budget.values), event.start_mark)
        if self.object > budget.object_values:
            problem = _expands if aliased else _object_values
            raise YAMLLimitError(problem(budget.object_values), event.start_mark)

    def _scalar(self, event: Any) -> Any:
        self._count(1, event)
        value = event.value
        if event.tag is None and len(value) <= _KNOWN_LENGTH:
            # a plain scalar seen before (0, true, a label value) is resolved and built once;
            # a quoted one is its text (unless the loader builds strings its own way)
            plain = event.implicit[0]
            known = self.known.get(value if plain else None, _MISSING)
            if known is _TEXT:
                built = value
            elif known is not _MISSING:
                built = known
            else:
                built = self._construct(event, None)
                if plain and len(self.known) < _KNOWN_ENTRIES and value not in ("<<", "="):
                    self.known[value] = _TEXT if built is value else built
        else:
            built = self._construct(event, event.tag)
        if event.anchor is not None:
            self._anchor(event)
            self.anchors[event.anchor] = (built, 1, 0)
        return built

    def _construct(self, event: Any, tag: str | None) -> Any:
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        constructor = self.constructors.get(tag)
        if constructor is _DEFAULT_STR:
            return event.value
        parent = self.stack[-1] if self.stack else None
        if parent is not None and isinstance(parent.data, dict) and not parent.keyed:
            if tag == "tag:yaml.org,2002:merge":
                return _MERGE
            if tag == "tag:yaml.org,2002:value":
                return "="
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            return (constructor or self.constructors[None])(self.loader, node)
        except ValueError as err:  # an integer of more than 4,300 digits
            raise _not_a_value(err, node) from err

    def _anchor(self, event: Any) -> None:
        """Refuse an anchor defined twice in a document, as PyYAML's composers do."""
        if event.anchor in self.anchors or any(f.anchor == event.anchor for f in self.stack):
            raise yaml.composer.ComposerError(
                None, None, f"found duplicate anchor {event.anchor!r}", event.start_mark
            )

    def _alias(self, event: Any) -> None:
        self.aliases += 1
        if self.aliases > self.budget.aliases:
            raise YAMLLimitError(_aliases(self.budget.aliases), event.start_mark)
        if event.anchor not in self.anchors:
            if any(frame.anchor == event.anchor for frame in self.stack):
                problem = gettext("an alias refers to a node that contains it")
                raise YAMLLimitError(problem, event.start_mark)
            raise yaml.composer.ComposerError(
                None, None, f"found undefined alias {event.anchor!r}", event.start_mark
            )
        value, size, height = self.anchors[event.anchor]
        self._count(size, event, aliased=True)
        if len(self.stack) + height > self.budget.depth:
            raise YAMLLimitError(_deeper(self.budget.depth), event.start_mark)
        self._add(value, height, event)

    def _open(self, event: Any, is_map: bool) -> None:
        self._count(1, event)
        stack = self.stack
        if len(stack) >= self.budget.depth:
            raise YAMLLimitError(_deeper(self.budget.depth), event.start_mark)
        if event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"could not determine a constructor for the tag {event.tag!r}",
                event.start_mark,
            )
        if event.anchor is not None:
            self._anchor(event)
        root = stack[0] if len(stack) == 1 else None
        lists = not is_map and root is not None and root.keyed and root.key == "items"
        stack.append(_Frame({} if is_map else [], event.anchor, self.values - 1, lists))

    def _close(self, event: Any) -> None:
        frame = self.stack.pop()
        value = frame.data
        if frame.merges:
            value = _merged(frame.merges, value)
        if frame.anchor is not None:
            self.anchors[frame.anchor] = (value, self.values - frame.start, frame.height)
        self._add(value, frame.height, event)

    def _add(self, value: Any, height: int, event: Any) -> None:
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        parent.items += 1
        if parent.items > 2 * self.budget.items or (
            parent.items > self.budget.items and isinstance(parent.data, list)
        ):
            raise YAMLLimitError(_items(self.budget.items), event.start_mark)
        if height >= parent.height:
            parent.height = height + 1
        if isinstance(parent.data, list):
            parent.data.append(value)
        elif not parent.keyed:
            try:
                hash(value)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", None, "found unhashable key", event.start_mark
                ) from None
            parent.key, parent.keyed = value, True
        else:
            if parent.key is _MERGE:
                parent.merges.append(_merge_sources(value, event))
            else:
                parent.data[parent.key] = value
            parent.key, parent.keyed = None, False


def _merge_sources(value: Any, event: Any) -> list[dict[Any, Any]]:
    sources = value if isinstance(value, list) else [value]
    if not all(isinstance(source, dict) for source in sources):
        raise yaml.constructor.ConstructorError(
            "while constructing a mapping",
            None,
            "expected a mapping or list of mappings for merging",
            event.start_mark,
        )
    return list(sources)


def _merged(groups: list[list[dict[Any, Any]]], own: dict[Any, Any]) -> dict[Any, Any]:
    """A mapping with "<<" keys, as PyYAML merges: its own keys win, then a later "<<" key's,
    and within one "<<" key's list the first mapping's."""
    result: dict[Any, Any] = {}
    for sources in groups:
        for source in reversed(sources):
            result.update(source)
    result.update(own)
    return result


def _check_markers(text: str, budget: Budget) -> None:
    # Each "---" at the start of a line begins a document (inside a scalar it is an error), so
    # counting them, at C speed and without parsing, refuses a stream of millions at once.
    markers = sum(text.count(f"\n---{end}") for end in (" ", "\n", "\r", "\t"))
    if markers + text.startswith("---") > budget.documents:
        raise YAMLLimitError(_documents(budget.documents), None)


def build(text: str, budget: Budget | None = None, loader_class: Any = _FastLoader) -> list[Any]:
    """Every document of ``text`` (libyaml's parser, the loader class's types), counted while
    read: raise YAMLLimitError at the first of the budget's bounds passed, before building more.
    """
    budget = budget or Budget()
    _check_markers(text, budget)
    loader = loader_class(text)
    try:
        return _Builder(loader, budget).run()
    finally:
        loader.dispose()


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
    if scan(text, budget).values > PURE_PYTHON_VALUES:
        return build(text, budget)
    loader = BoundedLoader(text)
    loader.max_nodes = min(budget.values, budget.object_values)
    try:
        documents = []
        while loader.check_data():  # type: ignore[no-untyped-call]
            documents.append(loader.get_data())
        return documents
    finally:
        loader.dispose()
