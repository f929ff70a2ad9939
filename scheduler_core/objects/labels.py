"""Label selectors, node selectors and field selectors.

Mirrors k8s.io/apimachinery/pkg/labels (Requirement.Matches), metav1.LabelSelectorAsSelector and
component-helpers/scheduling/corev1/nodeaffinity in Kubernetes v1.35.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

IN: Final = "In"
NOT_IN: Final = "NotIn"
EXISTS: Final = "Exists"
DOES_NOT_EXIST: Final = "DoesNotExist"
GT: Final = "Gt"
LT: Final = "Lt"

_LABEL_OPERATORS: Final = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST})
_NODE_OPERATORS: Final = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT})


class SelectorError(ValueError):
    """A selector requirement that upstream refuses to build."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """One ``key op values`` requirement; ``number`` is set for Gt and Lt."""

    key: str
    op: str
    values: frozenset[str]
    number: int = 0

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.op
        if op == IN:
            value = labels.get(self.key)
            return value is not None and value in self.values
        if op == NOT_IN:
            value = labels.get(self.key)
            return value is None or value not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        value = labels.get(self.key)
        if value is None:
            return False
        parsed = _parse_int64(value)
        if parsed is None:
            return False
        return parsed > self.number if op == GT else parsed < self.number


def _parse_int64(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    if not body.isdigit() or not body.isascii():
        return None
    return int(text)


_NAME_RE: Final = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_VALUE_RE: Final = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_DNS1123_SUBDOMAIN_RE: Final = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)


def is_label_key(key: str) -> bool:
    """validation.IsQualifiedName: an optional DNS-subdomain prefix and a 63-character name."""
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_NAME_RE.match(name))


def is_label_value(value: str) -> bool:
    """validation.IsValidLabelValue."""
    return len(value) <= 63 and bool(_VALUE_RE.match(value))


def make_requirement(key: str, op: str, values: Sequence[str]) -> Requirement:
    """Build a requirement as labels.NewRequirement does, validating key, values and counts."""
    if not is_label_key(key):
        raise SelectorError(f"invalid label key {key!r}")
    for v in values:
        if not is_label_value(str(v)):
            raise SelectorError(f"invalid label value {v!r}")
    if op in (IN, NOT_IN):
        if not values:
            raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            raise SelectorError("values set must be empty for exists and does not exist")
    elif op in (GT, LT):
        if len(values) != 1:
            raise SelectorError("for 'Gt', 'Lt' operators, exactly one value is required")
        number = _parse_int64(str(values[0]))
        if number is None:
            raise SelectorError("for 'Gt', 'Lt' operators, the value must be an integer")
        return Requirement(key, op, frozenset(), number)
    else:
        raise SelectorError(f"operator {op!r} is not recognized")
    return Requirement(key, op, frozenset(str(v) for v in values))


class Selector:
    """A conjunction of requirements. ``Selector.nothing()`` matches no label set."""

    __slots__ = ("requirements", "_nothing", "_equals")

    def __init__(self, requirements: Sequence[Requirement], nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(requirements)
        self._nothing = nothing
        # The common matchLabels-only selector is checked as dict lookups.
        eq: dict[str, str] | None = {}
        for r in self.requirements:
            if r.op == IN and len(r.values) == 1 and eq is not None and r.key not in eq:
                eq[r.key] = next(iter(r.values))
            else:  # a repeated key (merged selectors) needs every requirement checked
                eq = None
        self._equals = eq

    @classmethod
    def nothing(cls) -> Selector:
        return cls((), nothing=True)

    @classmethod
    def everything(cls) -> Selector:
        return cls(())

    @classmethod
    def from_set(cls, labels: Mapping[str, str]) -> Selector:
        """labels.SelectorFromSet: every key must equal its value."""
        return cls([Requirement(k, IN, frozenset({str(v)})) for k, v in sorted(labels.items())])

    @property
    def is_nothing(self) -> bool:
        return self._nothing

    @property
    def is_empty(self) -> bool:
        return not self._nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self._nothing:
            return False
        eq = self._equals
        if eq is not None:  # every (key, value) among the labels': one C-level subset test
            return eq.items() <= labels.items()
        return all(r.matches(labels) for r in self.requirements)

    def add(self, extra: Sequence[Requirement]) -> Selector:
        if self._nothing:
            return self
        return Selector(self.requirements + tuple(extra))

    def __repr__(self) -> str:
        if self._nothing:
            return "Selector(<nothing>)"
        return f"Selector({list(self.requirements)!r})"


def label_selector(raw: Mapping[str, Any] | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None matches nothing, ``{}`` matches everything.

    Raises SelectorError for an unknown operator or a bad value count.
    """
    if raw is None:
        return Selector.nothing()
    match_labels = raw.get("matchLabels") or {}
    exprs = raw.get("matchExpressions") or []
    if not match_labels and not exprs:
        return Selector.everything()
    reqs = [make_requirement(k, IN, [str(v)]) for k, v in match_labels.items()]
    for expr in exprs:
        op = expr.get("operator", "")
        if op not in _LABEL_OPERATORS:
            raise SelectorError(f"{op!r} is not a valid label selector operator")
        reqs.append(make_requirement(expr.get("key", ""), op, expr.get("values") or []))
    reqs.sort(key=lambda r: r.key)
    return Selector(reqs)


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One parsed term: label requirements and metadata.name field requirements."""

    labels: Selector | None
    fields: tuple[tuple[str, bool], ...] | None  # (value, equal?) on metadata.name
    field_nothing: bool
    error: str | None

    def matches(self, node_labels: Mapping[str, str], node_name: str) -> bool:
        if self.error is not None:
            return False
        if self.labels is not None and not self.labels.matches(node_labels):
            return False
        if self.fields is not None and node_name:
            if self.field_nothing:
                return False
            for value, equal in self.fields:
                if (node_name == value) != equal:
                    return False
        return True


def node_selector_term(raw: Mapping[str, Any]) -> NodeSelectorTerm | None:
    """Parse a NodeSelectorTerm; None for an empty term (which upstream skips)."""
    exprs = raw.get("matchExpressions") or []
    fields_raw = raw.get("matchFields") or []
    if not exprs and not fields_raw:
        return None
    error: str | None = None
    labels_sel: Selector | None = None
    if exprs:
        reqs = []
        for expr in exprs:
            op = expr.get("operator", "")
            try:
                if op not in _NODE_OPERATORS:
                    raise SelectorError(f"unsupported operator {op!r}")
                reqs.append(make_requirement(expr.get("key", ""), op, expr.get("values") or []))
            except SelectorError as err:
                error = str(err)
        labels_sel = Selector(reqs)
    fields: tuple[tuple[str, bool], ...] | None = None
    if fields_raw:
        items = []
        for expr in fields_raw:
            op = expr.get("operator", "")
            values = expr.get("values") or []
            if op not in (IN, NOT_IN):
                error = f"unsupported operator {op!r}"
            elif len(values) != 1:
                error = "must have one element"
            elif expr.get("key") != "metadata.name":
                # Only metadata.name is a node field; any other key never matches.
                items.append(("\0", True))
            else:
                items.append((str(values[0]), op == IN))
        fields = tuple(items)
    return NodeSelectorTerm(labels_sel, fields, False, error)


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """Required node affinity terms (ORed); a selector whose terms are all empty matches nothing."""

    terms: tuple[NodeSelectorTerm, ...]

    def matches(self, node_labels: Mapping[str, str], node_name: str) -> bool:
        return any(t.matches(node_labels, node_name) for t in self.terms)


def node_selector(raw: Mapping[str, Any]) -> NodeSelector:
    terms = []
    for term_raw in raw.get("nodeSelectorTerms") or []:
        term = node_selector_term(term_raw)
        if term is not None:
            terms.append(term)
    return NodeSelector(tuple(terms))


@dataclass(frozen=True, slots=True)
class PreferredTerm:
    weight: int
    term: NodeSelectorTerm


def preferred_scheduling_terms(raw: Sequence[Mapping[str, Any]]) -> tuple[PreferredTerm, ...]:
    """Parse preferred node affinity; zero-weight and empty terms are dropped as upstream."""
    out = []
    for item in raw or []:
        weight = int(item.get("weight") or 0)
        term = node_selector_term(item.get("preference") or {})
        if weight == 0 or term is None:
            continue
        out.append(PreferredTerm(weight, term))
    return tuple(out)
