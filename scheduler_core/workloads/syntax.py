"""Names and labels as the API server checks them: apimachinery's IsDNS1123Subdomain,
IsQualifiedName and IsValidLabelValue, with the playground's messages.

The one statement of these rules: the playground's forms and import and ``simulate`` (through
``check_object``) all report a bad name or label with these same messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

_DNS1123_LABEL: Final = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_RE: Final = re.compile(rf"^{_DNS1123_LABEL}(\.{_DNS1123_LABEL})*$")
_QUALIFIED_NAME_RE: Final = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE_RE: Final = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def dns_subdomain_errors(name: str) -> list[str]:
    """Errors of an object's name or namespace (IsDNS1123Subdomain)."""
    if not name:
        return ["a name is required"]
    return _bounded_errors(
        name,
        253,
        _DNS1123_SUBDOMAIN_RE,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
        "'-' or '.', and must start and end with an alphanumeric character",
    )


def qualified_name_errors(key: str) -> list[str]:
    """Errors of a label key, annotation key or taint key (IsQualifiedName)."""
    if not key:
        return ["name part must be non-empty"]
    prefix, _, name = key.rpartition("/")
    errors = []
    if "/" in key:
        if not prefix:
            errors.append("prefix part must be non-empty")
        elif dns_subdomain_errors(prefix):
            errors.append("prefix part must be a lowercase RFC 1123 subdomain")
    if len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if not name or not _QUALIFIED_NAME_RE.match(name):
        errors.append(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character"
        )
    return errors


def label_value_errors(value: str) -> list[str]:
    """Errors of a label value (IsValidLabelValue); the empty value is valid."""
    return _bounded_errors(
        value,
        63,
        _LABEL_VALUE_RE,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character",
    )


def _bounded_errors(value: str, most: int, pattern: re.Pattern[str], message: str) -> list[str]:
    """The value's length above ``most``, and ``message`` unless ``pattern`` matches it."""
    errors = []
    if len(value) > most:
        errors.append(f"must be no more than {most} characters")
    if not pattern.match(value):
        errors.append(message)
    return errors


def check_labels(labels: Any, path: str) -> list[tuple[str, str]]:
    """(path, message) for every invalid key or value of a label map."""
    if labels is None:
        return []
    if not isinstance(labels, Mapping):
        return [(path, "must be a map of strings")]
    problems = []
    for key, value in labels.items():
        for message in qualified_name_errors(str(key)):
            problems.append((f"{path}.{key}", f"Invalid value: {key!r}: {message}"))
        if not isinstance(value, str):
            problems.append((f"{path}.{key}", f"Invalid value: {value!r}: must be a string"))
            continue
        for message in label_value_errors(value):
            problems.append((f"{path}.{key}", f"Invalid value: {value!r}: {message}"))
    return problems


def check_metadata(manifest: Mapping[str, Any], *, namespaced: bool) -> list[tuple[str, str]]:
    """(path, message) for the object's name, its namespace (if ``namespaced``) and labels;
    the metadata itself must be a map."""
    metadata = manifest.get("metadata")
    if not isinstance(metadata, dict):
        return [("metadata", "Required value: metadata.name is needed")]
    problems = [
        ("metadata.name", f"Invalid value: {metadata.get('name')!r}: {message}")
        for message in dns_subdomain_errors(str(metadata.get("name") or ""))
    ]
    if namespaced and metadata.get("namespace") is not None:
        for message in dns_subdomain_errors(str(metadata["namespace"])):
            problems.append(("metadata.namespace", f"Invalid value: {message}"))
    return problems + check_labels(metadata.get("labels"), "metadata.labels")
