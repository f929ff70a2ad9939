"""YAML with bounds: every text a user sends is read through ``BoundedLoader``.

PyYAML's SafeLoader is safe from code execution but not from cost: a few hundred bytes of
aliases expand to gigabytes once the result is serialised (the "billion laughs"), and deep
nesting overflows the recursive composer (RecursionError). The loader counts aliases and
nesting while it composes, and refuses a document whose expanded tree is too large or too deep,
before anything is constructed, with an error that carries the line like any YAML error.
"""

from __future__ import annotations

from typing import Any, Final

import yaml

MAX_DEPTH: Final = 64  # nesting levels, after alias expansion; manifests need about 15
MAX_ALIASES: Final = 100  # alias references per document
MAX_NODES: Final = 500_000  # scalars and collections per document, after alias expansion
MAX_LIST: Final = 10_000  # items in one sequence or mapping


class YAMLLimitError(yaml.MarkedYAMLError):
    """A document beyond the loader's bounds; ``problem`` says which, ``problem_mark`` where."""

    def __init__(self, problem: str, mark: Any) -> None:
        super().__init__(problem=problem, problem_mark=mark)


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias bombs, deep nesting and huge collections."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_document(self) -> Any:
        self._aliases = 0
        node = super().compose_document()
        _check_expanded(node)
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise YAMLLimitError(f"more than {MAX_ALIASES} aliases in one document", mark)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise YAMLLimitError(f"nested deeper than {MAX_DEPTH} levels", mark)
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
                    f"expands to more than {max_nodes} values (aliases included)", node.start_mark
                )
            if height[key] > MAX_DEPTH:
                raise YAMLLimitError(
                    f"nested deeper than {MAX_DEPTH} levels (aliases included)", node.start_mark
                )
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise YAMLLimitError("an alias refers to a node that contains it", node.start_mark)
        if len(node.value) > MAX_LIST and not isinstance(node, yaml.ScalarNode):
            raise YAMLLimitError(f"more than {MAX_LIST} items in one collection", node.start_mark)
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


def load(text: str) -> Any:
    """One YAML (or JSON) document, as ``yaml.safe_load`` reads it, within the bounds."""
    return yaml.load(text, Loader=BoundedLoader)  # noqa: S506  (a SafeLoader subclass)
