"""What the lessons tell students, in every language: the order of the two cycles as upstream runs
them, and no note meant for who runs the playground."""

from __future__ import annotations

import re

import pytest

from playground.lessons.languages import in_language
from playground.lessons.loader import LANGUAGES, course

# How each language names the binding cycle where lesson 1 lists its extension points.
BINDING_CYCLE = {"en": "the binding cycle:", "zh-hans": "绑定周期依次是"}
POINTS = re.compile(r"\b(?:WaitOnPermit|Reserve|Permit|PreBind|Bind|PostBind)\b")
# Where the full order begins: PreEnqueue gates a pod before QueueSort orders the active queue.
FULL_ORDER = {"en": "The full order of the extension points:", "zh-hans": "扩展点的完整顺序："}


@pytest.mark.parametrize("language", LANGUAGES)
def test_lesson_one_ends_the_scheduling_cycle_with_reserve_and_permit(language):
    """Upstream's schedulingCycle runs Reserve and Permit; bindingCycle runs WaitOnPermit,
    PreBind, Bind and PostBind (pkg/scheduler/schedule_one.go)."""
    lesson = in_language(course()[0], language)
    text = "\n".join(step.body for step in lesson.steps)
    before, marker, after = text.partition(BINDING_CYCLE[language])
    assert marker, f"lesson 1 ({language}) no longer lists the binding cycle's points"
    assert POINTS.findall(before)[-2:] == ["Reserve", "Permit"]
    binding = POINTS.findall(after.split("\n\n")[0])
    assert binding == ["WaitOnPermit", "PreBind", "Bind", "PostBind"]
    order = before.partition(FULL_ORDER[language])[2]
    names = re.findall(r"\b(PreEnqueue|QueueSort|PreFilter)\b", order)
    assert list(dict.fromkeys(names)) == ["PreEnqueue", "QueueSort", "PreFilter"], names


# Words of a note about running the playground, not about scheduling.
OPERATOR_WORDS = re.compile(r"Celery|127\.0\.0\.1|embedded mode|嵌入模式|the check runs|检查在运行")


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_lesson_note_is_meant_for_operators(language):
    said = {
        lesson.slug: in_language(lesson, language).note
        for lesson in course()
        if OPERATOR_WORDS.search(in_language(lesson, language).note)
    }
    assert not said


def test_a_chinese_ordinal_is_never_broken_across_lines():
    from playground.lessons.text import html, inline_html

    assert html("见第 7 课，第 2 个周期。") == "<p>见第\u00a07\u00a0课，第\u00a02\u00a0个周期。</p>"
    assert inline_html("第 1 步：*Filter*") == "第\u00a01\u00a0步：<em>Filter</em>"
    assert html("node 2 and 3") == "<p>node 2 and 3</p>"


def test_the_chinese_glossary_is_in_chinese_order():
    """By pinyin for a Chinese term, letters and pinyin interleaved A to Z: 绑定周期 (bang)
    before CycleState before 调度队列 (diao) before Filter; English stays by English term."""
    from playground.lessons.selectors import glossary, glossary_entries

    for entry in glossary_entries():
        zh = entry.get("zh-hans") or {}
        if "\u4e00" <= str(zh.get("term", "a"))[0] <= "\u9fff":
            assert zh.get("pinyin"), f"{zh['term']}: a Chinese term needs its pinyin to be sorted"
    terms = [e["term"] for e in glossary("zh-hans")]
    assert terms.index("绑定周期") < terms.index("CycleState") < terms.index("调度队列")
    assert terms.index("调度队列") < terms.index("Filter") < terms.index("节点亲和性")
    english = [e["term"].lower() for e in glossary("en")]
    assert english == sorted(english)
