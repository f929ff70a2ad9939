"""The pod form's line-per-item fields: affinity terms, spread constraints, node affinity."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from ..inputs import kube

CONTAINER_FIELDS = (
    "name",
    "image",
    "cpu_request",
    "memory_request",
    "cpu_limit",
    "memory_limit",
    "other_requests",
    "host_ports",
)


def _weight_range(weight: int) -> str:
    return gettext("weight %(weight)s is not in [1, 100]") % {"weight": weight}


def parse_affinity_terms(text: str) -> list[tuple[str, int, str, dict[str, Any]]]:
    """``required TOPOLOGY_KEY SELECTOR`` or ``preferred WEIGHT TOPOLOGY_KEY SELECTOR``."""
    terms = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3 if line.startswith("preferred") else 2)
        kind = parts[0]
        try:
            if kind == "required" and len(parts) == 3:
                weight, key, selector = 0, parts[1], parts[2]
            elif kind == "preferred" and len(parts) == 4:
                weight, key, selector = int(parts[1]), parts[2], parts[3]
                if not 1 <= weight <= 100:
                    raise kube.line_problem(number, _weight_range(weight))
            else:
                raise ValueError
        except ValueError:
            raise kube.line_problem(
                number,
                gettext(
                    "write 'required TOPOLOGY_KEY SELECTOR' or 'preferred WEIGHT "
                    "TOPOLOGY_KEY SELECTOR'"
                ),
            ) from None
        for message in kube.qualified_name_errors(key):
            raise kube.line_problem(
                number,
                gettext("topology key %(key)s: %(error)s") % {"key": repr(key), "error": message},
            )
        try:
            expressions = kube.parse_requirements(selector.replace(";", "\n"))
        except kube.SyntaxProblem as err:
            raise kube.line_problem(number, str(err)) from None
        terms.append((kind, weight, key, kube.label_selector(expressions)))
    return terms


def format_affinity(section: dict[str, Any] | None) -> str:
    section = section or {}
    lines = []
    for term in section.get("requiredDuringSchedulingIgnoredDuringExecution") or []:
        lines.append(
            f"required {term.get('topologyKey', '')} "
            f"{kube.format_selector(term.get('labelSelector'))}"
        )
    for weighted in section.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        term = weighted.get("podAffinityTerm") or {}
        lines.append(
            f"preferred {weighted.get('weight', 1)} {term.get('topologyKey', '')} "
            f"{kube.format_selector(term.get('labelSelector'))}"
        )
    return "\n".join(lines)


def parse_spread(text: str) -> list[dict[str, Any]]:
    """``MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway SELECTOR`` per line."""
    constraints = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        if len(parts) < 3 or not parts[0].isdigit():
            raise kube.line_problem(
                number,
                gettext("write 'MAX_SKEW TOPOLOGY_KEY DoNotSchedule|ScheduleAnyway [SELECTOR]'"),
            )
        skew, key, when = int(parts[0]), parts[1], parts[2]
        if skew < 1:
            raise kube.line_problem(
                number, gettext("maxSkew %(skew)s must be greater than zero") % {"skew": skew}
            )
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise kube.line_problem(
                number,
                gettext("whenUnsatisfiable %(when)s is not DoNotSchedule or ScheduleAnyway")
                % {"when": repr(when)},
            )
        constraint: dict[str, Any] = {
            "maxSkew": skew,
            "topologyKey": key,
            "whenUnsatisfiable": when,
        }
        if len(parts) == 4:
            try:
                expressions = kube.parse_requirements(parts[3].replace(";", "\n"))
            except kube.SyntaxProblem as err:
                raise kube.line_problem(number, str(err)) from None
            constraint["labelSelector"] = kube.label_selector(expressions)
        constraints.append(constraint)
    return constraints


def format_spread(constraints: list[dict[str, Any]] | None) -> str:
    return "\n".join(
        f"{c.get('maxSkew', 1)} {c.get('topologyKey', '')} {c.get('whenUnsatisfiable', '')} "
        f"{kube.format_selector(c.get('labelSelector'))}".rstrip()
        for c in constraints or []
    )


def parse_node_terms(text: str) -> list[dict[str, Any]]:
    """One nodeSelectorTerm per line (requirements joined by ';'); terms are ORed."""
    terms = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            expressions = kube.parse_requirements(line.replace(";", "\n"), node=True)
        except kube.SyntaxProblem as err:
            raise kube.line_problem(number, err.detail or str(err)) from None
        terms.append({"matchExpressions": expressions})
    return terms


def parse_preferred_node(text: str) -> list[dict[str, Any]]:
    """``WEIGHT: requirements`` per line."""
    preferred = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        weight_text, sep, rest = line.partition(":")
        if not sep or not weight_text.strip().isdigit():
            raise kube.line_problem(number, gettext("write 'WEIGHT: requirements'"))
        weight = int(weight_text)
        if not 1 <= weight <= 100:
            raise kube.line_problem(number, _weight_range(weight))
        try:
            expressions = kube.parse_requirements(rest.replace(";", "\n"), node=True)
        except kube.SyntaxProblem as err:
            raise kube.line_problem(number, err.detail or str(err)) from None
        preferred.append({"weight": weight, "preference": {"matchExpressions": expressions}})
    return preferred
