"""Kubernetes syntax the playground checks itself: names, labels, selectors, taints, tolerations.

The rules follow apimachinery's validation (IsQualifiedName, IsValidLabelValue, IsDNS1123Subdomain)
and kubectl's selector syntax, so a form accepts exactly what the API server would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from django.utils.translation import gettext

# Names and labels: the one statement is the engine's, shared with ``simulate``.
from scheduler_core.words import listed
from scheduler_core.workloads import syntax
from scheduler_core.workloads.syntax import check_labels  # noqa: F401 (re-exported to the forms)

from .upstream import glossed_all

TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")
NODE_OPERATORS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


# apimachinery's checks, their messages glossed for the reader (``upstream.glossed``).
def dns_subdomain_errors(name: str) -> list[str]:
    return glossed_all(syntax.dns_subdomain_errors(name))


def label_value_errors(value: str) -> list[str]:
    return glossed_all(syntax.label_value_errors(value))


def qualified_name_errors(key: str) -> list[str]:
    return glossed_all(syntax.qualified_name_errors(key))


class SyntaxProblem(ValueError):
    """One line of a line-per-item field could not be understood.

    ``detail`` is the problem without its "line N: " prefix.
    """

    detail: str = ""


def _lines(text: str) -> list[tuple[int, str]]:
    """Non-empty, non-comment lines with their 1-based numbers."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append((number, line))
    return out


def line_problem(number: int, message: str) -> SyntaxProblem:
    problem = SyntaxProblem(
        gettext("line %(line)s: %(problem)s") % {"line": number, "problem": message}
    )
    problem.detail = message
    return problem


def _key_error(key: str, message: str) -> dict[str, str]:
    return {"key": repr(key), "error": message}


def _bad_effect(effect: str) -> str:
    return gettext("effect %(effect)s is not one of %(effects)s") % {
        "effect": repr(effect),
        "effects": listed(TAINT_EFFECTS),
    }


def parse_key_values(text: str, *, labels: bool = True) -> dict[str, str]:
    """``key=value`` per line (or comma separated) into a dict, validating label syntax."""
    result: dict[str, str] = {}
    for number, line in _lines(text):
        for item in (part.strip() for part in line.split(",")):
            if not item:
                continue
            key, sep, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not sep:
                raise line_problem(
                    number, gettext("%(item)s should be key=value") % {"item": repr(item)}
                )
            if labels:
                for message in qualified_name_errors(key):
                    raise line_problem(
                        number, gettext("key %(key)s: %(error)s") % _key_error(key, message)
                    )
                for message in label_value_errors(value):
                    raise line_problem(
                        number,
                        gettext("value %(value)s: %(error)s")
                        % {"value": repr(value), "error": message},
                    )
            if key in result:
                raise line_problem(
                    number, gettext("key %(key)s is given twice") % {"key": repr(key)}
                )
            result[key] = value
    return result


def format_key_values(values: Mapping[str, Any] | None) -> str:
    return "\n".join(f"{k}={v}" for k, v in (values or {}).items())


def parse_taints(text: str) -> list[dict[str, str]]:
    """``key[=value]:Effect`` per line, as ``kubectl taint`` writes them."""
    taints = []
    for number, line in _lines(text):
        spec, sep, effect = line.rpartition(":")
        if not sep:
            raise line_problem(
                number, gettext("%(line)s should be key[=value]:Effect") % {"line": repr(line)}
            )
        effect = effect.strip()
        if effect not in TAINT_EFFECTS:
            raise line_problem(number, _bad_effect(effect))
        key, has_value, value = spec.partition("=")
        key = key.strip()
        for message in qualified_name_errors(key):
            raise line_problem(
                number, gettext("taint key %(key)s: %(error)s") % _key_error(key, message)
            )
        taint = {"key": key}
        if has_value:
            value = value.strip()
            for message in label_value_errors(value):
                raise line_problem(
                    number,
                    gettext("taint value %(value)s: %(error)s")
                    % {"value": repr(value), "error": message},
                )
            taint["value"] = value
        taint["effect"] = effect
        taints.append(taint)
    return taints


def format_taints(taints: list[Mapping[str, Any]] | None) -> str:
    lines = []
    for taint in taints or []:
        value = f"={taint['value']}" if taint.get("value") else ""
        lines.append(f"{taint.get('key', '')}{value}:{taint.get('effect', '')}")
    return "\n".join(lines)


def parse_tolerations(text: str) -> list[dict[str, Any]]:
    """One toleration per line.

    ``key=value:Effect`` (Equal), ``key:Effect`` or ``key`` (Exists), ``*`` (tolerate
    everything), with an optional effect and ``for=SECONDS`` suffix: ``key:NoExecute for=30``.
    """
    tolerations = []
    for number, line in _lines(text):
        head, _, tail = line.partition(" for=")
        toleration: dict[str, Any] = {}
        head = head.strip()
        if head == "*":
            toleration["operator"] = "Exists"
        else:
            spec, sep, effect = head.rpartition(":") if ":" in head else (head, "", "")
            key, has_value, value = spec.partition("=")
            key = key.strip()
            if key:
                for message in qualified_name_errors(key):
                    raise line_problem(
                        number,
                        gettext("toleration key %(key)s: %(error)s") % _key_error(key, message),
                    )
                toleration["key"] = key
            if has_value:
                toleration["operator"] = "Equal"
                toleration["value"] = value.strip()
            else:
                toleration["operator"] = "Exists"
            if sep:
                effect = effect.strip()
                if effect not in TAINT_EFFECTS:
                    raise line_problem(number, _bad_effect(effect))
                toleration["effect"] = effect
        if tail:
            if toleration.get("effect") != "NoExecute":
                raise line_problem(
                    number, gettext("for=SECONDS only applies to the NoExecute effect")
                )
            try:
                toleration["tolerationSeconds"] = int(tail.strip())
            except ValueError:
                raise line_problem(
                    number,
                    gettext("for=%(value)s is not a whole number") % {"value": repr(tail.strip())},
                ) from None
        tolerations.append(toleration)
    return tolerations


def format_tolerations(tolerations: list[Mapping[str, Any]] | None) -> str:
    lines = []
    for tol in tolerations or []:
        key = tol.get("key", "")
        if not key and tol.get("operator") == "Exists" and not tol.get("effect"):
            line = "*"
        else:
            line = key
            if tol.get("operator", "Equal") == "Equal":
                line += f"={tol.get('value', '')}"
            if tol.get("effect"):
                line += f":{tol['effect']}"
        if tol.get("tolerationSeconds") is not None:
            line += f" for={tol['tolerationSeconds']}"
        lines.append(line)
    return "\n".join(lines)


_SET_RE: Final = re.compile(r"^(\S+)\s+(in|notin)\s*\(([^)]*)\)$", re.IGNORECASE)
_CMP_RE: Final = re.compile(r"^([^\s<>=!]+)\s*(>|<|!=|==|=)\s*(\S*)$")


def parse_requirements(text: str, *, node: bool = False) -> list[dict[str, Any]]:
    """kubectl selector syntax into ``matchExpressions``.

    ``key in (a,b)``, ``key notin (a)``, ``key``, ``!key``, ``key=value``, ``key!=value``, and for
    node affinity also ``key > 3`` / ``key < 3`` (Gt/Lt). Separate requirements by ``;`` or lines.
    """
    expressions = []
    for number, line in _lines(text):
        for item in (part.strip() for part in line.split(";")):
            if item:
                expressions.append(_parse_requirement(item, number, node=node))
    return expressions


def _parse_requirement(item: str, number: int, *, node: bool) -> dict[str, Any]:
    expression: dict[str, Any]
    if match := _SET_RE.match(item):
        key, op, values_text = match.groups()
        values = [v.strip() for v in values_text.split(",") if v.strip()]
        if not values:
            raise line_problem(
                number,
                gettext("%(item)s: for 'In', 'NotIn' operators, values set can't be empty")
                % {"item": repr(item)},
            )
        expression = {
            "key": key,
            "operator": "In" if op.lower() == "in" else "NotIn",
            "values": values,
        }
    elif item.startswith("!"):
        expression = {"key": item[1:].strip(), "operator": "DoesNotExist"}
    elif match := _CMP_RE.match(item):
        key, op, value = match.groups()
        if op in {">", "<"}:
            if not node:
                raise line_problem(
                    number,
                    gettext("%(item)s: Gt and Lt only apply to node selectors")
                    % {"item": repr(item)},
                )
            if not re.fullmatch(r"[+-]?\d+", value):
                raise line_problem(
                    number,
                    gettext("%(item)s: for 'Gt', 'Lt' operators, the value must be an integer")
                    % {"item": repr(item)},
                )
            expression = {"key": key, "operator": "Gt" if op == ">" else "Lt", "values": [value]}
        else:
            expression = {
                "key": key,
                "operator": "NotIn" if op == "!=" else "In",
                "values": [value],
            }
    elif re.fullmatch(r"\S+", item):
        expression = {"key": item, "operator": "Exists"}
    else:
        raise line_problem(
            number,
            gettext(
                "%(item)s is not a selector requirement (try key in (a,b), key=value, key, !key)"
            )
            % {"item": repr(item)},
        )
    for message in qualified_name_errors(expression["key"]):
        raise line_problem(
            number, gettext("key %(key)s: %(error)s") % _key_error(expression["key"], message)
        )
    if expression["operator"] in {"In", "NotIn"}:
        for value in expression["values"]:
            for message in label_value_errors(value):
                raise line_problem(
                    number,
                    gettext("value %(value)s: %(error)s")
                    % {"value": repr(value), "error": message},
                )
    return expression


def format_requirements(expressions: list[Mapping[str, Any]] | None, sep: str = "\n") -> str:
    parts = []
    for expr in expressions or []:
        key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
        if op == "In" and len(values) == 1:
            parts.append(f"{key}={values[0]}")
        elif op == "NotIn" and len(values) == 1:
            parts.append(f"{key}!={values[0]}")
        elif op in {"In", "NotIn"}:
            parts.append(f"{key} {op.lower()} ({','.join(values)})")
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
        elif op in {"Gt", "Lt"}:
            parts.append(f"{key} {'>' if op == 'Gt' else '<'} {values[0] if values else ''}")
    return sep.join(parts)


def label_selector(expressions: list[dict[str, Any]]) -> dict[str, Any]:
    """A LabelSelector: single-value ``In`` requirements become ``matchLabels``."""
    match_labels = {}
    rest = []
    for expr in expressions:
        if (
            expr["operator"] == "In"
            and len(expr["values"]) == 1
            and expr["key"] not in match_labels
        ):
            match_labels[expr["key"]] = expr["values"][0]
        else:
            rest.append(expr)
    selector: dict[str, Any] = {}
    if match_labels:
        selector["matchLabels"] = match_labels
    if rest:
        selector["matchExpressions"] = rest
    return selector


def selector_expressions(selector: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    selector = selector or {}
    expressions = [
        {"key": k, "operator": "In", "values": [v]}
        for k, v in (selector.get("matchLabels") or {}).items()
    ]
    return expressions + list(selector.get("matchExpressions") or [])


def format_selector(selector: Mapping[str, Any] | None) -> str:
    return format_requirements(selector_expressions(selector), sep="; ")
