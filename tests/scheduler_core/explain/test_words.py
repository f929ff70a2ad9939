"""The explanations' translation hook: English without a translator, msgids translated whole,
and upstream's reasons with a note in the reader's language."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest

import scheduler_core.plugins
from scheduler_core.explain import at_cycle, explain_filter, explain_preemption
from scheduler_core.explain.preemption import _CRITERIA_WORDS
from scheduler_core.explain.reasons import reason_note, reasons_note
from scheduler_core.framework.preemption import CANDIDATE_CRITERIA
from scheduler_core.words import clauses, listed, sentences, set_translator
from tests.builders import make_node, make_pod

TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


@pytest.fixture
def english() -> Iterator[None]:
    """No translator (the playground registers Django's when it starts): English."""
    previous = set_translator()
    yield
    set_translator(*previous)


def _tainted() -> dict[str, Any]:
    return {
        "name": "t",
        "nodes": [make_node("n1", taints=[TAINT]), make_node("n2")],
        "pods": [],
        "queue": [make_pod("p")],
    }


def _taint_text() -> str:
    found = at_cycle(_tainted(), 1, lambda ctx: explain_filter(ctx, "TaintToleration", "n1"))
    return str(found["text"])


def test_without_a_translator_the_sentences_are_english(english: None) -> None:
    assert _taint_text() == (
        "TaintToleration on n1: UnschedulableAndUnresolvable — node(s) had untolerated "
        "taint(s). The taint dedicated=gpu:NoSchedule is not tolerated by any toleration of "
        "the pod."
    )


def test_a_translator_gets_whole_sentences_and_the_values_are_filled_in_after(
    english: None,
) -> None:
    asked: list[str] = []
    words = {
        "%(plugin)s on %(node)s: %(code)s — %(reasons)s.": "[%(node)s] %(plugin)s: %(code)s / "
        "%(reasons)s.",
        "The taint %(taint)s is not tolerated by any toleration of the pod.": "T(%(taint)s)",
    }

    def gettext(message: str) -> str:
        asked.append(message)
        return words.get(message, message)

    set_translator(gettext)
    text = _taint_text()
    # Upstream's code and reason stay as they are; the sentence around them is translated.
    assert text == (
        "[n1] TaintToleration: UnschedulableAndUnresolvable / node(s) had untolerated taint(s). "
        "T(dedicated=gpu:NoSchedule)"
    )
    assert set(words) <= set(asked)
    # A msgid is the literal sentence: no node, taint or number formatted into it first.
    assert not [m for m in asked if "n1" in m or "dedicated" in m]


def test_preemption_criteria_are_marked_for_translation_and_shown_by_label(english: None) -> None:
    assert list(_CRITERIA_WORDS) == [name for name, _ in CANDIDATE_CRITERIA]
    case = {
        "name": "t",
        "nodes": [make_node("n1", cpu="1")],
        "pods": [make_pod("low", cpu="1", node_name="n1")],
        "queue": [make_pod("high", cpu="1", priority=100)],
    }
    set_translator(lambda m: m.upper() if m in _CRITERIA_WORDS else m)
    ex = at_cycle(case, 1, explain_preemption)
    assert ex["value"]["nominatedNode"] == "n1"
    for c in ex["inputs"]["criteria"]:
        assert c["label"] == c["criterion"].upper()  # the key stays, the label is translated


def _plugin_reasons() -> list[tuple[str, str]]:
    """Every ERR_REASON* string constant of the in-tree plugins' modules."""
    found = []
    package = scheduler_core.plugins
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("ERR_REASON") and isinstance(value, str):
                found.append((f"{info.name}.{name}", value))
    return found


def test_every_filter_reason_of_the_plugins_has_a_note(english: None) -> None:
    reasons = _plugin_reasons()
    assert len(reasons) >= 25
    assert [name for name, reason in reasons if reason_note(reason) is None] == []


def test_reasons_with_a_name_are_matched_and_unknown_ones_have_no_note(english: None) -> None:
    note = reason_note("Insufficient nvidia.com/gpu")
    assert note is not None and "allocatable nvidia.com/gpu" in note
    gates = reason_note("waiting for scheduling gates: [example.com/hold]")
    assert gates is not None and "example.com/hold" in gates
    assert reason_note("Preemption is not helpful for scheduling") is not None
    assert reason_note("preemption: not eligible due to preemptionPolicy=Never.") is not None
    assert reason_note("the custom plugin said no") is None
    # Several reasons: each note once, in order.
    cpu = reason_note("Insufficient cpu")
    assert reasons_note(["Insufficient cpu", "Insufficient cpu", "x"]) == cpu
    assert reasons_note(["x"]) is None
    # One pattern's reasons share one sentence naming each.
    both = reasons_note(
        ["Insufficient cpu", "node(s) had untolerated taint(s)", "Insufficient memory"]
    )
    assert both is not None and both.startswith("The node's allocatable cpu, memory minus")
    assert both.count("The node") == 2


def test_sentences_and_clauses_join_as_the_language_joins_them(english: None) -> None:
    assert sentences(["A.", "", "B."]) == "A. B."
    assert clauses(["x", "y"]) == "x; y"
    chinese = {"%(sentence)s %(next)s": "%(sentence)s%(next)s", "; ": "；"}
    set_translator(lambda m: chinese.get(m, m))
    assert sentences(["甲。", "", "乙。", "丙。"]) == "甲。乙。丙。"
    assert clauses(["x", "y"]) == "x；y"


def test_names_are_listed_as_the_language_lists_them(english: None) -> None:
    assert listed(["n1", "n2", "n3"]) == "n1, n2, n3"
    set_translator(lambda m: {", ": "、"}.get(m, m))
    assert listed(["n1", "n2", "n3"]) == "n1、n2、n3"
    assert listed([]) == ""
