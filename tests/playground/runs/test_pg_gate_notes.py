"""The run page's feature-gates line: each gate set otherwise than v1.35 ships it gets a sentence
saying what it changes in the run."""

from __future__ import annotations

from django.utils import translation

from playground.runs import gates
from scheduler_core.features import GATE_NAMES, V1_35_DEFAULTS


def test_every_gate_set_otherwise_than_v1_35_has_a_note_of_its_own():
    flipped = {name: not on for name, on in V1_35_DEFAULTS.to_gates().items()}
    notes = gates.gate_notes(flipped)
    assert [name for name, _, _ in notes] == list(GATE_NAMES)
    for name, on, note in notes:
        assert (name, on) in gates.GATE_NOTES, name
        assert note and note != str(gates.GATE_HELP[name]), name
    assert gates.gate_notes(V1_35_DEFAULTS.to_gates()) == []


def test_the_gang_gates_note_says_what_gang_scheduling_does_in_the_run():
    [workload, gang] = gates.gate_notes({"GenericWorkload": True, "GangScheduling": True})
    assert workload[:2] == ("GenericWorkload", True)
    assert gang[:2] == ("GangScheduling", True)
    assert "wait at Permit until minCount are assumed" in gang[2]
    with translation.override("zh-hans"):
        [_, (_, _, note)] = gates.gate_notes({"GenericWorkload": True, "GangScheduling": True})
    assert "Permit" in note and "minCount" in note and "wait" not in note
