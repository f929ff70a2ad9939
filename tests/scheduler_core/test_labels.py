"""Label selectors, node selector terms and requirements match as upstream's labels package."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_core.objects.labels import (
    Selector,
    SelectorError,
    label_selector,
    node_selector,
)

LABELS = {"app": "web", "tier": "front", "gen": "7"}


@pytest.mark.parametrize(
    ("raw", "matches"),
    [
        pytest.param(None, False, id="nil-selector-matches-nothing"),
        pytest.param({}, True, id="empty-selector-matches-everything"),
        pytest.param({"matchLabels": {"app": "web"}}, True, id="match-labels"),
        pytest.param({"matchLabels": {"app": "db"}}, False, id="match-labels-differs"),
        pytest.param(
            {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "x"]}]},
            True,
            id="in",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["front"]}]},
            False,
            id="not-in",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a"]}]},
            True,
            id="not-in-absent-key",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, True, id="exists"
        ),
        pytest.param(
            {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]},
            False,
            id="does-not-exist",
        ),
    ],
)
def test_label_selector(raw: Any, matches: bool) -> None:
    assert label_selector(raw).matches(LABELS) is matches


@pytest.mark.parametrize(
    "expr",
    [
        {"key": "a", "operator": "In", "values": []},
        {"key": "a", "operator": "Exists", "values": ["x"]},
        {"key": "a", "operator": "Gt", "values": ["1"]},  # not a label selector operator
    ],
)
def test_label_selector_rejects_bad_requirements(expr: dict[str, Any]) -> None:
    with pytest.raises(SelectorError):
        label_selector({"matchExpressions": [expr]})


def _term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    term: dict[str, Any] = {"matchExpressions": list(exprs)}
    if fields:
        term["matchFields"] = fields
    return term


@pytest.mark.parametrize(
    ("terms", "matches"),
    [
        pytest.param([_term({"key": "gen", "operator": "Gt", "values": ["6"]})], True, id="gt"),
        pytest.param([_term({"key": "gen", "operator": "Lt", "values": ["7"]})], False, id="lt"),
        pytest.param(
            [_term({"key": "app", "operator": "Gt", "values": ["1"]})],
            False,
            id="gt-non-numeric-label",
        ),
        pytest.param([{}], False, id="only-empty-term-matches-nothing"),
        pytest.param(
            [{}, _term({"key": "app", "operator": "Exists"})], True, id="empty-term-skipped"
        ),
        pytest.param(
            [
                _term({"key": "app", "operator": "In", "values": ["db"]}),
                _term({"key": "tier", "operator": "In", "values": ["front"]}),
            ],
            True,
            id="terms-are-ored",
        ),
        pytest.param(
            [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}],
            True,
            id="match-fields-name",
        ),
        pytest.param(
            [{"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}],
            False,
            id="match-fields-not-in",
        ),
        pytest.param(
            [_term({"key": "app", "operator": "Bogus", "values": ["web"]})],
            False,
            id="bad-operator-term-fails",
        ),
    ],
)
def test_node_selector(terms: list[dict[str, Any]], matches: bool) -> None:
    assert node_selector({"nodeSelectorTerms": terms}).matches(LABELS, "n1") is matches


def test_selector_from_set_requires_every_pair() -> None:
    sel = Selector.from_set({"app": "web", "tier": "back"})
    assert not sel.matches(LABELS)
    assert Selector.from_set({"app": "web"}).matches(LABELS)
