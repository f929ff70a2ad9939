"""Field errors as upstream prints them (field.Error.Error(): Invalid value, Required value,
Duplicate value, Unsupported value, Forbidden), Go's quoting and JSON rendering of values, and
the name and label syntax checks of apimachinery (validate/content).

Shared by the validation of the configuration (validation.py) and of plugin args
(validate_args.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from scheduler_core.config.types import (
    FieldError,
)

# --- field errors, printed as field.Error.Error() prints them ----------------------------


def go_quote(text: str) -> str:
    """Quote a string as Go's %q does for printable text."""
    return json.dumps(text, ensure_ascii=False)


def go_json(value: Any) -> str:
    """Render a value as Go's json.Marshal would (compact, HTML characters escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def invalid(path: str, value: str, detail: str) -> FieldError:
    """field.Invalid; ``value`` is already rendered."""
    return FieldError(
        path, f"Invalid value: {value}: {detail}" if detail else f"Invalid value: {value}"
    )


def required(path: str, detail: str = "") -> FieldError:
    """field.Required."""
    return FieldError(path, f"Required value: {detail}" if detail else "Required value")


def duplicate(path: str, value: str) -> FieldError:
    """field.Duplicate; ``value`` is already rendered."""
    return FieldError(path, f"Duplicate value: {value}")


def not_supported(path: str, value: str, supported: Sequence[str]) -> FieldError:
    """field.NotSupported; ``value`` is already rendered."""
    valid = ", ".join(go_quote(s) for s in supported)
    return FieldError(path, f"Unsupported value: {value}: supported values: {valid}")


def forbidden(path: str, detail: str) -> FieldError:
    """field.Forbidden."""
    return FieldError(path, f"Forbidden: {detail}" if detail else "Forbidden")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# --- names and label syntax (apimachinery validate/content) -----------------------------

_LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _dns1123_subdomain_errors(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append(_max_len_error(253))
    if not re.fullmatch(_DNS1123_SUBDOMAIN_FMT, value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(value: str) -> list[str]:
    """Return why ``value`` is not a qualified name (label key); empty if it is one."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _dns1123_subdomain_errors(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len_error(63))
    if not re.fullmatch(_LABEL_KEY_FMT, name):
        errs.append(
            "name part "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """Return why ``value`` is not a valid label value; empty if it is one."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len_error(63))
    if not re.fullmatch(_LABEL_VALUE_FMT, value):
        errs.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs


def validate_label_name(path: str, value: str) -> list[FieldError]:
    return [invalid(path, go_quote(value), msg) for msg in label_key_errors(value)]


def is_extended_resource_name(name: str) -> bool:
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not label_key_errors("requests." + name)


def args_json(args: object) -> str:
    """Plugin args as upstream prints them in a message: its args struct as Go's JSON."""
    if args is None:
        return "null"
    if isinstance(args, Mapping):
        return go_json(args)
    # Upstream encodes its internal args struct, whose fields carry their Go names.
    return go_json(_go_names(dataclasses.asdict(args)))  # type: ignore[call-overload]


def _go_names(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            "".join(w.title() for w in str(k).split("_")): _go_names(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_go_names(v) for v in value]
    return value
