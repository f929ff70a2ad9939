"""Reading an older configuration or a Policy file as kube-scheduler read it, within bounds.

kube-scheduler's decoder sniffs the bytes: text that starts with ``{`` is JSON (tabs allowed, as
in kubernetes' own Policy examples, which YAML refuses), anything else is YAML, of which only the
first document is read. Untrusted text is bounded here: nesting depth, aliases and the size of
the tree once aliases are expanded, so a malformed file is a ConfigError naming where it went
wrong, never a RecursionError or a process that grows without end.
"""

from __future__ import annotations

import json
from typing import Any, Final

import yaml

from scheduler_core.config.types import ConfigError, FieldError

MAX_DEPTH: Final = 64  # nesting levels; a real configuration needs about 12
MAX_ALIASES: Final = 100  # alias references in the document
MAX_NODES: Final = 200_000  # scalars and collections once aliases are expanded
MAX_BYTES: Final = 4 * 1024 * 1024


class _Loader(yaml.SafeLoader):
    """SafeLoader that counts nesting and aliases while composing (the composer recurses)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _limit(f"more than {MAX_ALIASES} aliases", mark)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _limit(f"nested deeper than {MAX_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _limit(problem: str, mark: Any) -> ConfigError:
    return ConfigError([FieldError(f"line {mark.line + 1}", problem)])


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """(nodes, height) of the tree ``root`` stands for, each shared node measured once."""
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in size and not done:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if not done:
            size[key] = -1  # on the stack: an alias back to an ancestor counts once
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in size)
            continue
        size[key] = 1 + sum(max(size.get(id(c), 1), 1) for c in children)
        height[key] = 1 + max((height.get(id(c), 1) for c in children), default=0)
        if size[key] > MAX_NODES:
            return size[key], height[key]
    return size.get(id(root), 1), height.get(id(root), 1)


def depth_of(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of parsed data, counted without recursion and stopping past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_depth(value: Any) -> None:
    """ConfigError when parsed data is nested deeper than a configuration can be."""
    if depth_of(value) > MAX_DEPTH:
        raise ConfigError([FieldError("", f"nested deeper than {MAX_DEPTH} levels")])


def read_document(text: str | bytes) -> Any:
    """The first document of ``text``: JSON when it starts with ``{`` or ``[``, else YAML."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ConfigError([FieldError("", f"not UTF-8 text: {err}")]) from err
    if len(text) > MAX_BYTES:
        raise ConfigError([FieldError("", f"more than {MAX_BYTES:,} bytes")])
    if text.lstrip().startswith(("{", "[")):
        try:
            data = json.loads(text)
        except RecursionError as err:
            raise ConfigError([FieldError("", f"nested deeper than {MAX_DEPTH} levels")]) from err
        except json.JSONDecodeError as err:
            try:  # a YAML flow mapping also starts with "{"
                return _read_yaml(text)
            except ConfigError:
                pass
            raise ConfigError(
                [FieldError(f"line {err.lineno}", f"invalid JSON: {err.msg}")]
            ) from err
        except ValueError as err:  # an integer of more digits than Python converts (4300)
            raise ConfigError([FieldError("", f"invalid JSON: {err}")]) from err
        check_depth(data)
        return data
    return _read_yaml(text)


def _read_yaml(text: str) -> Any:
    try:
        loader = _Loader(text)
    except yaml.YAMLError as err:  # a character YAML does not allow (the reader checks them)
        raise ConfigError([FieldError("", f"invalid YAML: {err}")]) from err
    try:
        node = loader.get_node() if loader.check_node() else None
        if node is None:
            return None
        nodes, height = _expanded_size(node)
        if nodes > MAX_NODES:
            raise _limit(
                f"more than {MAX_NODES:,} values once aliases are expanded", node.start_mark
            )
        if height > MAX_DEPTH:
            raise _limit(f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        if "\t" in text and "\t" in str(err):
            problem += " (tabs indent JSON only; YAML needs spaces)"
        raise ConfigError([FieldError(where, f"invalid YAML: {problem}")]) from err
    except RecursionError as err:
        raise ConfigError([FieldError("", f"nested deeper than {MAX_DEPTH} levels")]) from err
    except ConfigError:  # a bound above (a ValueError too, so before the next clause)
        raise
    except ValueError as err:  # an integer of more digits than Python converts (4300)
        raise ConfigError([FieldError("", f"invalid YAML: {err}")]) from err
    finally:
        loader.dispose()
