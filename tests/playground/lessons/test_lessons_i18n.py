"""The course in Simplified Chinese as well as English: the loader's per-language text, the
pages in the request's language, and `lessons --check` for every language."""

from __future__ import annotations

import dataclasses
import io
import shutil

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.urls import reverse

from playground.lessons import checks, loader
from playground.lessons.languages import (
    glossary_problems,
    in_language,
    language_of,
    translation_problems,
)
from playground.lessons.selectors import glossary, glossary_entries
from playground.lessons.services import lesson_runs
from playground.lessons.text import number

pytestmark = pytest.mark.django_db
ZH = "zh-hans"


def _check(lesson, languages=("en", ZH)):
    return checks.check_lesson(lesson, lesson_runs(lesson=lesson), languages)


def _with_zh_step_text(lesson, step, extra):
    """The lesson with ``extra`` appended to its Chinese narrative step ``step``."""
    text = lesson.translations[ZH]
    steps = list(text.steps)
    steps[step - 1] = dataclasses.replace(
        steps[step - 1], body=f"{steps[step - 1].body}\n\n{extra}"
    )
    translations = {**lesson.translations, ZH: dataclasses.replace(text, steps=tuple(steps))}
    return dataclasses.replace(lesson, translations=translations)


def _told_zh(lesson):
    return [(f.question, f.message) for f in _check(lesson) if f.language == ZH]


# -- the loader ----------------------------------------------------------------------------------


def test_request_languages_map_to_the_course_languages():
    assert [language_of(c) for c in ("zh-hans", "zh-CN", "zh", "zh_SG")] == [ZH] * 4
    assert [language_of(c) for c in ("en", "en-us", "fr", None, "")] == ["en"] * 5


def test_a_lesson_reads_in_chinese_and_keeps_what_the_languages_share():
    en = loader.lesson_by_slug("scheduling-cycle")
    zh = in_language(en, "zh-CN")
    assert (zh.language, zh.title) == (ZH, "调度周期一览")
    assert zh.steps[1].title == "Filter：谁*能*运行它？"
    assert [s.show for s in zh.steps] == [s.show for s in en.steps]
    assert [(q.id, q.answer, q.choices, q.show) for q in zh.questions] == [
        (q.id, q.answer, q.choices, q.show) for q in en.questions
    ]
    assert zh.question("first-pod").prompt.startswith("有两个 Pod")
    # A word choice gets its label; the value answered and compared stays the English one.
    reject = zh.question("reject-node-3")
    assert ("none", "无") in reject.choice_items
    assert ("NodeResourcesFit", "NodeResourcesFit") in reject.choice_items
    # The demo cluster keeps its one name whatever the reader's language.
    assert zh.cluster_name == en.cluster_name == "Lesson 01: The scheduling cycle at a glance"
    assert in_language(en, "en") is en


def test_a_piece_not_translated_reads_in_english_on_a_page():
    en = loader.lesson_by_slug("resources")
    text = en.translations[ZH]
    partial = dataclasses.replace(
        text,
        title="",
        steps=text.steps[:-1],
        questions={**text.questions, "probe-score": loader.QuestionText(prompt="中文题目")},
    )
    lesson = dataclasses.replace(en, translations={ZH: partial})
    zh = in_language(lesson, ZH)
    assert zh.title == en.title
    assert zh.steps[-1] == en.steps[-1] and zh.steps[0].title == text.steps[0].title
    probe = zh.question("probe-score")
    assert (probe.prompt, probe.explanation) == ("中文题目", en.question("probe-score").explanation)


def test_chinese_numerals_are_read_as_counts():
    assert [number(t) for t in ("两", "三个", "十二", "二十一", "一百", "三百零五", "7")] == [
        2,
        3,
        12,
        21,
        100,
        305,
        7,
    ]
    assert number("节点") is None
    # A learner typing in Chinese is understood: a count in numerals, names split on "，" or "、".
    assert checks.matches("两", 2, "count")
    assert checks.matches("low-2，low-1", ["low-1", "low-2"], "names")
    assert checks.matches("low-1、low-2", ["low-1", "low-2"], "names")


# -- lessons --check in each language ------------------------------------------------------------


def test_a_missing_chinese_step_title_or_question_fails_naming_lesson_language_and_item():
    en = loader.lesson_by_slug("scheduling-cycle")
    text = en.translations[ZH]
    questions = dict(text.questions)
    questions["feasible"] = loader.QuestionText(prompt="有几个？")
    broken = dataclasses.replace(
        en,
        translations={
            ZH: dataclasses.replace(text, steps=text.steps[:-1], summary="", questions=questions)
        },
    )
    failures = [(f.language, f.item, f.message) for f in _check(broken)]
    assert failures == [
        (
            ZH,
            f"[{ZH}] narrative.{ZH}.md",
            "3 steps, but narrative.md has 4: the same steps in the same order",
        ),
        (ZH, f"[{ZH}] lesson.yaml {ZH}.summary", "is missing"),
        (ZH, f"[{ZH}] feasible", f"{ZH}.explanation missing"),
    ]
    assert str(_check(broken)[0]).startswith(f"01-scheduling-cycle [{ZH}] narrative.{ZH}.md: ")
    # Checking English alone does not look at the translation.
    assert _check(broken, ("en",)) == []


def test_a_changed_show_comment_or_a_label_of_no_choice_fails():
    en = loader.lesson_by_slug("taints")
    text = en.translations[ZH]
    steps = list(text.steps)
    steps[1] = dataclasses.replace(steps[1], show=loader.RunPointer(cycle=2, point="Filter"))
    questions = dict(text.questions)
    own = questions["feasible-web"]
    questions["feasible-web"] = dataclasses.replace(own, labels={"two": "二"})
    broken = dataclasses.replace(
        en, translations={ZH: dataclasses.replace(text, steps=tuple(steps), questions=questions)}
    )
    problems = translation_problems(broken, ZH)
    assert problems == [
        (
            "step 2",
            "show comment is cycle 2, Filter, narrative.md has cycle 1, Filter, TaintToleration: "
            "copy it unchanged",
        ),
        ("feasible-web", f"{ZH}.choices labels 'two', which is not a choice"),
    ]


def test_a_chinese_sentence_that_states_a_count_fails_but_ordinals_and_quantities_do_not():
    lesson = loader.lesson_by_slug("scheduling-cycle")  # "feasible" expects 2, in step 2
    said = 'told before asked: step 2 says "只有两个节点通过了 Filter。"'
    assert _told_zh(_with_zh_step_text(lesson, 2, "只有两个节点通过了 Filter。")) == [
        ("feasible", said)
    ]
    assert _told_zh(_with_zh_step_text(lesson, 2, "最后有 2 个节点是可行的。")) != []
    assert _told_zh(_with_zh_step_text(lesson, 2, "node-2 和 node-1 的 2 个 CPU 都通过。")) == []
    assert _told_zh(_with_zh_step_text(lesson, 2, "第二个节点也通过了 Filter。")) == []
    assert _told_zh(_with_zh_step_text(lesson, 2, "只有一个节点被过滤掉。")) == []


def test_a_chinese_sentence_that_names_the_winner_victims_or_rejector_fails():
    cycle = loader.lesson_by_slug("scheduling-cycle")
    failures = _told_zh(_with_zh_step_text(cycle, 3, "周期 1 中 node-2 胜出。"))
    assert [q for q, _ in failures] == ["winner-1"]
    # The cycle read in Chinese numerals tells the pod of that cycle.
    failures = _told_zh(_with_zh_step_text(cycle, 1, "第一个周期的 Pod 是 checkout。"))
    assert [q for q, _ in failures] == ["first-pod"]
    preemption = loader.lesson_by_slug("preemption")
    failures = _told_zh(
        _with_zh_step_text(preemption, 2, "在 node-1 上，抢占驱逐了 low-1 和 low-2。")
    )
    assert [q for q, _ in failures] == ["victims"]
    taints = loader.lesson_by_slug("taints")
    failures = _told_zh(_with_zh_step_text(taints, 2, "TaintToleration 拒绝了 web 的 node-2。"))
    assert [q for q, _ in failures] == ["reject-node-2"]
    assert _told_zh(_with_zh_step_text(taints, 2, "TaintToleration 是负责的插件。")) == []


def test_a_chinese_question_or_call_to_predict_asks_it_does_not_tell():
    lesson = loader.lesson_by_slug("scheduling-cycle")
    for asking in ("周期 1 中 node-2 会胜出吗？", "预测一下：周期 1 中 node-2 是否胜出。"):
        assert _told_zh(_with_zh_step_text(lesson, 3, asking)) == []


def _course_copy(tmp_path, slug, monkeypatch):
    src = loader.lesson_by_slug(slug).path
    lesson_dir = tmp_path / src.name
    shutil.copytree(src, lesson_dir)
    monkeypatch.setattr(
        "playground.management.commands.lessons.load_course",
        lambda: loader.load_course(tmp_path),
    )
    return lesson_dir


def test_the_command_reports_each_language_and_fails_a_lesson_without_its_chinese(
    tmp_path, monkeypatch
):
    lesson_dir = _course_copy(tmp_path, "taints", monkeypatch)
    (lesson_dir / f"narrative.{ZH}.md").unlink()
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("lessons", "--check", "03", stdout=out)
    text = out.getvalue()
    assert f"  [{ZH}] narrative.{ZH}.md: file is missing: every step is untranslated" in text
    assert "lessons (en): 1 passed, 0 failed" in text
    assert f"lessons ({ZH}): 0 passed, 1 failed" in text
    assert text.strip().splitlines()[-1] == "lessons: 0 passed, 1 failed"
    english = io.StringIO()
    call_command("lessons", "--check", "--lang", "en", "03", stdout=english)
    assert english.getvalue().strip().splitlines()[-1] == "lessons: 1 passed, 0 failed"


def test_the_command_fails_a_lesson_folder_whose_chinese_question_tells(tmp_path, monkeypatch):
    lesson_dir = _course_copy(tmp_path, "scheduling-cycle", monkeypatch)
    path = lesson_dir / "questions.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    raw[0][ZH]["explanation"] += "周期 1 中 node-2 胜出。"
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("lessons", "--check", "--lang", ZH, stdout=out)
    said = f"  [{ZH}] winner-1: told before asked: question first-pod's explanation says "
    assert said in out.getvalue()


def test_every_glossary_entry_is_translated_and_a_missing_one_is_named():
    entries = glossary_entries()
    assert glossary_problems(entries, ZH) == []
    broken = [{**entries[0], ZH: {"term": "调度队列"}}, *entries[1:]]
    assert glossary_problems(broken, ZH) == [(entries[0]["term"], f"{ZH}.text missing")]


# -- pages in the request's language -------------------------------------------------------------


def test_a_first_visit_in_chinese_reads_the_lesson_in_chinese(client):
    url = reverse("playground:lesson", args=["scheduling-cycle"]) + "?step=2"
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert "调度周期一览" in body and "Filter：谁<em>能</em>运行它？" in body
    assert "在周期 1 中，哪个插件为 checkout 拒绝了 node-3？" in body
    assert '<input type="radio" name="answer" value="none" required> 无</label>' in body
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The scheduling cycle at a glance" in english and "调度周期一览" not in english


def test_an_answer_in_chinese_gets_the_chinese_explanation_and_label(client):
    url = reverse("playground:lesson_answer", args=["resources", "reject-node-4"])
    result = client.post(url, {"answer": "none"}, HTTP_ACCEPT_LANGUAGE="zh-CN").json()
    assert result["correct"] is True
    assert result["answer"] == "无"
    assert result["explanation"].startswith("只有资源请求才算数")
    english = client.post(url, {"answer": "none"}, HTTP_ACCEPT_LANGUAGE="en").json()
    assert (english["answer"], english["explanation"][:19]) == ("none", "Only requests count")


def test_the_course_page_and_glossary_read_in_chinese_with_the_same_anchors(client):
    body = client.get(reverse("playground:course"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "调度周期一览" in body and "污点和容忍度" in body
    assert 'id="term-scheduling-queue"><dt>调度队列</dt>' in body
    zh = {e["key"]: e["term"] for e in glossary(ZH)}
    assert zh["taint"] == "污点（taint）" and zh["Score"] == "Score"
    # the same anchors; each language lists them in its own order (test_lesson_facts)
    assert sorted(e["key"] for e in glossary(ZH)) == sorted(e["key"] for e in glossary("en"))


# Chinese sentences the course once had above a question, each telling its answer by the verdict
# it follows from (issue 34): (lesson, step, sentence, the questions it tells).
ZH_TOLD_BY_VERDICT = [
    (
        "taints",
        4,
        "`trainer` 容忍 `dedicated=gpu:NoSchedule`，所以 node-2 对它开放。",
        ["reject-node-2-trainer"],
    ),
    (
        "taints",
        4,
        "现在有三个节点通过了 trainer 的 Filter：node-1（繁忙，没有污点）、"
        "node-2（空闲，带着 trainer 所容忍的 GPU 污点）和 node-4（空闲，带着软污点）。",
        ["reject-node-2-trainer"],
    ),
    (
        "topology-spread",
        4,
        "由于只有三个可用区，最小值按 0 计，每个可用区的偏差都会达到 2。",
        ["quorum-feasible"],
    ),
    (
        "nodes-to-score",
        4,
        "这样每个周期都会对每个节点做过滤和打分：理论上放置得更好，实际上周期更慢。",
        ["evaluated-all"],
    ),
    (
        "scheduling-queue",
        2,
        "周期 1 以 Unschedulable 结束，抢占也帮不上忙（即使把节点腾空，也没有足够大的节点），"
        "于是这个 Pod 被搁置在不可调度的 Pod 之中。",
        ["winner-1"],
    ),
    (
        "extenders",
        2,
        "| 节点 | draining | cost | 扩展器分数（10 − cost） | 加到总分中的值（× 2 × 10） |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| node-1 | 是 | 1 | — | — |\n"
        "| node-2 | | 8 | 2 | 40 |",
        ["reject-node-1"],
    ),
    (
        "history",
        4,
        "`legacy-app` 选择 `pool: general`，请求 2 个 CPU：node-2 太小，node-3 被封锁（cordon），"
        "node-4 在 GPU 池中，node-5 带有污点。",
        ["winner", "was-podfitsresources", "was-checknodeunschedulable"],
    ),
    (
        "resources",
        3,
        "没有哪个节点的可分配 CPU 超过 4 个，所以 Filter 拒绝了每一个节点，"
        "周期以 **Unschedulable** 结束，Pod 回到队列。",
        ["render-pending"],
    ),
    (
        "scheduling-cycle",
        4,
        "周期 2 调度的是 `report`，它的选择节点步骤出现了**并列**："
        "node-2 和 node-3 的总分都是 449。",
        ["pending-at-end"],
    ),
    (
        "binding-cycle",
        2,
        "playground 的 **ApprovalGate** 插件会让带有注解 "
        '`playground.k8s.io/require-approval: "true"` 的 Pod 等待人来审批，最多等 30 秒。',
        ["permit-code"],
    ),
    (
        "inter-pod-affinity",
        3,
        "node-4 上的 `auditor` 不愿与带 `app=batch` 标签的 Pod 共用节点，所以调度器必须拿已有 Pod "
        "的规则去检查新来的 Pod。",
        ["reject-node-4-batch"],
    ),
]


@pytest.mark.parametrize(("slug", "step", "sentence", "told"), ZH_TOLD_BY_VERDICT)
def test_a_chinese_verdict_told_before_its_question_fails_the_check(slug, step, sentence, told):
    failures = _told_zh(_with_zh_step_text(loader.lesson_by_slug(slug), step, sentence))
    assert sorted(q for q, _ in failures) == sorted(told)


@pytest.mark.parametrize(
    ("slug", "step", "sentence"),
    [
        ("taints", 4, "trainer 容忍 GPU 污点，但 node-2 没有通过 Filter。"),  # turned round
        ("scheduling-queue", 2, "如果没有节点放得下，周期就以 Unschedulable 结束。"),  # a rule
        ("nodes-to-score", 4, "对每个节点都做过滤和打分，花费的时间与集群规模成正比。"),
        ("topology-spread", 4, "每个可用区已经各有一个 quorum Pod。"),
    ],
)
def test_a_chinese_sentence_that_states_no_verdict_of_the_questions_subject_passes(
    slug, step, sentence
):
    assert _told_zh(_with_zh_step_text(loader.lesson_by_slug(slug), step, sentence)) == []
