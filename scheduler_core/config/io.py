"""Reading and writing the KubeSchedulerConfiguration v1 wire format (YAML or JSON).

Mirrors the strict decoding of kube-scheduler v1.35 (pkg/scheduler/apis/config/scheme with
kube-scheduler/config/v1): unknown or repeated fields, values of the wrong type and numbers
out of their Go integer range are errors. Every decoding problem is reported at once.

This module holds the entry points (``load_config``, ``decode_config``, ``parse_text``) and the
strict YAML reading; the decoder is ``decode``, the encoder (``dump_config``) ``encode``, and the
constants of the wire format ``wire``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

import yaml

from scheduler_core.config.decode import (
    Decoder,
    json_kind,
)
from scheduler_core.config.defaults import set_defaults
from scheduler_core.config.types import (
    ConfigError,
    FieldError,
    KubeSchedulerConfiguration,
)
from scheduler_core.config.validation import validate_config
from scheduler_core.config.wire import (
    KIND,
)
from scheduler_core.features import V1_35_DEFAULTS, Features

# Bounds on what one configuration may cost to read: a configuration nests about 12 levels deep
# and needs no YAML aliases, while thousands of levels overflow the recursive YAML composer and
# copy.deepcopy, and aliases of aliases expand a few hundred bytes to gigabytes.
MAX_DEPTH: Final = 64
MAX_ALIASES: Final = 100

# --- public entry points ----------------------------------------------------------------


def load_config(
    source: str | bytes | Mapping[str, Any] | None, *, features: Features = V1_35_DEFAULTS
) -> KubeSchedulerConfiguration:
    """Read, default and validate a configuration.

    ``source`` is YAML or JSON text, or an already parsed mapping; None or empty text gives
    the defaults (under ``features``, the feature gates). Raises ConfigError listing every
    decoding or validation problem.
    """
    cfg = set_defaults(decode_config(source), features)
    errors = validate_config(cfg)
    if errors:
        raise ConfigError(errors)
    return cfg


def decode_config(source: str | bytes | Mapping[str, Any] | None) -> KubeSchedulerConfiguration:
    """Turn v1 wire data into a KubeSchedulerConfiguration without defaulting or validating.

    Fields the data leaves out take the dataclass defaults, which are upstream's v1 defaults
    for the scalar fields; the rest of defaulting is ``defaults.set_defaults``.
    """
    if isinstance(source, Mapping):
        data: Any = source
    elif source is None or isinstance(source, str | bytes):
        data = parse_text(source)
    else:  # parsed data of another shape, from a caller that did its own parsing
        data = source
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError([FieldError("", f"expected a {KIND} object, got {json_kind(data)}")])
    if _deeper_than(data, MAX_DEPTH):
        raise ConfigError([FieldError("", f"nested deeper than {MAX_DEPTH} levels")])
    if data is source:
        data = copy.deepcopy(data)
    decoder = Decoder()
    cfg = decoder.configuration(data)
    if decoder.errors:
        raise ConfigError(decoder.errors)
    return cfg


def parse_text(source: str | bytes | None) -> Any:
    """Parse YAML or JSON text; a syntax error or a repeated key raises ConfigError."""
    if source is None:
        return None
    if isinstance(source, bytes):
        try:
            source = source.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ConfigError([FieldError("", f"configuration is not UTF-8 text: {err}")]) from err
    if not source.strip():
        return None
    try:
        return yaml.load(source, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise ConfigError([FieldError("", f"invalid YAML or JSON: {_yaml_problem(err)}")]) from err
    except ValueError as err:  # an integer of more digits than Python converts (4300)
        raise ConfigError([FieldError("", f"invalid YAML or JSON: {err}")]) from err


# --- YAML ------------------------------------------------------------------------------


class _LimitError(yaml.MarkedYAMLError):
    """A document nested too deep or with too many aliases, with the place it went too far."""


class _StrictLoader(yaml.SafeLoader):
    """A SafeLoader that rejects a key repeated in one mapping, as the strict decoder does.

    It also refuses, while composing and before anything is built, nesting deeper than
    MAX_DEPTH (PyYAML's composer recurses once per level) and more than MAX_ALIASES aliases.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _LimitError(problem=f"more than {MAX_ALIASES} aliases", problem_mark=mark)
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _LimitError(
                    problem=f"nested deeper than {MAX_DEPTH} levels", problem_mark=mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether ``data`` nests mappings and lists more than ``limit`` levels (cycles do).

    Iterative; a value shared by several parents is walked again only when reached deeper.
    """
    deepest: dict[int, int] = {}
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, list | tuple):
            children = value
        else:
            continue
        if depth > limit:
            return True
        if deepest.get(id(value), 0) >= depth:
            continue
        deepest[id(value)] = depth
        stack.extend((child, depth + 1) for child in children)
    return False


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a string or a number", key_node.start_mark
            ) from None
        if key in out:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f'duplicate field "{key}" (line {mark.line + 1}, column {mark.column + 1})',
                None,
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def _yaml_problem(err: yaml.YAMLError) -> str:
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = " ".join(p for p in (err.context, err.problem) if p)
        return f"{where}{what}"
    return str(err)


# --- decoding --------------------------------------------------------------------------


# --- encoding --------------------------------------------------------------------------
