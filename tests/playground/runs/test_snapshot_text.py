"""The cycle's first step says what the snapshot took in from the cache since the last cycle."""

from __future__ import annotations

from django.utils import translation

from playground.runs.panels import step_text


def _start(changes):
    return {
        "type": "CycleStart",
        "profile": "default-scheduler",
        "nodes": ["n1", "n2", "n3"],
        "snapshot_changes": changes,
    }


def test_the_first_cycle_copies_every_node():
    assert "every node is copied" in step_text.why(_start([["", "every node", ""]]), [])


def test_no_change_keeps_the_snapshot():
    assert "snapshot is used as it was" in step_text.why(_start([]), [])


def test_changes_name_the_pods_and_the_nodes_copied_in():
    text = step_text.why(
        _start(
            [
                ["n2", "pod assumed", "default/web"],
                ["n2", "pod confirmed", "default/web"],
                ["n4", "node added", ""],
                ["n3", "node removed", ""],
            ]
        ),
        [],
    )
    assert "web assumed on n2, web confirmed on n2, n4 added, n3 removed" in text
    assert "copies in n2, n4 and keeps the other nodes" in text  # a removed node is not copied


def test_many_changes_are_counted_after_the_first_few():
    changes = [[f"n{i}", "pod updated", f"default/v{i}"] for i in range(11)]
    text = step_text.why(_start(changes), [])
    assert (
        "v7 updated on n7, 3 more changes" in text and "v8" not in text.split("(")[1].split(")")[0]
    )


def test_a_run_from_before_the_field_says_nothing_of_it():
    ev = _start(None)
    assert step_text.why(ev, []) == "Profile default-scheduler; 3 nodes in the snapshot."


def test_in_chinese_with_the_enumeration_comma():
    with translation.override("zh-hans"):
        text = step_text.why(
            _start([["n2", "pod assumed", "default/web"], ["n4", "node added", ""]]), []
        )
    assert "web 被假定在 n2 上、新增 n4" in text and "n2、n4" in text


def test_a_batched_cycle_says_which_node_it_took_and_why():
    ev = {**_start([["n1", "pod assumed", "default/p0"]]), "batch_hint": "n2"}
    text = step_text.why(ev, [])
    assert "Opportunistic batching" in text and "offered n2" in text
    assert text.index("batching") < text.index("Since the last cycle")


def test_a_victim_terminating_is_named_so():
    text = step_text.why(_start([["n1", "pod terminating", "default/low"]]), [])
    assert "low terminating on n1" in text
