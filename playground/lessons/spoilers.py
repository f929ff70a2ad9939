"""Lessons ask before they tell: whether the text a learner reads before answering a question
states its answer.

What is read before answering is the lesson's title and summary, the narrative up to and
including the question's step (headings too), the prompts of the questions up to this one and
the explanations shown after the earlier ones. The choices of a question are not counted: they
hold the answer by design.

Names of nodes and pods appear everywhere in a lesson (the cluster has to be described), and a
small number is in half the sentences, so a sentence *states* an answer when it holds the answer
(as a whole word: ``node-2`` is not ``2``; a count also as a word, "two") together with what the
question is about: the node the question names (or "every node"), the pod or the number of the
cycle it asks about, or a word that says the kind of fact ("wins", "victims", "feasible").

Chinese text is read the same way: names are Latin in every language, counts are also read
in Chinese numerals (三, 两, 二十一; not an ordinal 第二 nor a lone 一), the cycle as 周期 2
or 第二个周期, the kind of fact in Chinese words (胜出, 牺牲者, 可行), and a sentence that
opens with 预测 (or ends with ？) asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .loader import Lesson, Question
from .text import NUMBER_WORDS, number, sentences, words, zh_digits

# Words that say what kind of fact a sentence gives, per question kind.
_CUES: Final[dict[str, frozenset[str]]] = {
    kind: frozenset(text.split())
    for kind, text in {
        "winner": "win wins won winner winning land lands landed goes placed picked picks pick "
        "chosen chooses selected selects bound ahead",
        "nominated": "nominate nominates nominated nomination chosen chooses picks picked",
        "victims": "victim victims evict evicts evicted eviction preempt preempts preempted go "
        "goes removed deleted",
        "feasible": "feasible pass passes passed survive survives",
        "evaluated": "evaluated evaluates examined examines filter filtered ran checks checked "
        "visits visited sees",
        "first_evaluated": "start starts started begins begin",
        "pending": "pending wait waits waiting unschedulable stays stay left remain remains",
        "pod": "pops popped pop hands takes took picks picked",
        "placement": "land lands landed goes placed bound",
        "profile": "schedules scheduled handles handled",
        "requeue": "move moves moved goes sent popped pops",
        "code": "answers answered returns returned says",
        "rejector": "reject rejects rejected rejecting fails failed removes",
        "score": "score scores scored gets get gives",
        "total": "total totals gets get sum",
        "device": "gets got get allocated allocates allocation receives received takes took holds",
    }.items()
}
# The same in Chinese, found as parts of the sentence (Chinese has no spaces between words).
_ZH_CUES: Final[dict[str, tuple[str, ...]]] = {
    kind: tuple(text.split())
    for kind, text in {
        "winner": "胜出 获胜 赢 选中 选定 选出 选择了 落到 落在 调度到 放到 放在 绑定到 领先 最高",
        "nominated": "提名 选中 选定",
        "victims": "牺牲者 驱逐 被抢占 抢占掉 移除 删除 腾出",
        "feasible": "可行 通过 留下 剩下 幸存",
        "evaluated": "评估 检查 考察 过滤 查看 看过",
        "first_evaluated": "开始 起点 起始 从这里",
        "pending": "等待 待调度 不可调度 无法调度 留在 剩下 剩余 仍在",
        "pod": "弹出 交给 取出 出队 选出",
        "placement": "落到 落在 调度到 放到 放在 绑定到",
        "profile": "负责 处理 调度了 来调度 交给",
        "requeue": "移到 移入 移回 送到 送回 放回 弹出 转到 进入",
        "code": "返回 回答 答复 给出",
        "rejector": "拒绝 淘汰 排除 过滤掉 筛掉 不通过 失败",
        "score": "打分 分数 得分 给出 得到",
        "total": "总分 合计 加起来 之和 总和 得到",
        "device": "分配 分给 得到 拿到 获得 占用",
    }.items()
}
_ZH_EVERY_NODE: Final = re.compile(r"(?:每个|每一个|所有|全部|各个|任何)[^，。；]{0,6}?节点")
# A sentence opening with one of these calls the reader to work the answer out: it asks.
_ASKING: Final = ("Predict", "预测", "请预测", "先预测", "想一想", "算一算", "猜一猜")
# A number directly followed by one of these is a quantity (2 CPUs), not a count or a score.
_QUANTITY: Final = frozenset(
    ("cpu", "cpus", "core", "cores", "millicores", "gi", "mi", "ki", "gib", "mib", "mb", "gb")
)
_EVERY_NODE: Final = re.compile(r"\b(?:every|each|all)\s+(?:\w+\s+)?nodes?\b|\beverywhere\b")
_NOT_STATABLE: Final = frozenset({"none", ""})
# Kinds whose answer is one of a few outcomes, which a rule may list together.
_OUTCOMES: Final = frozenset({"code", "requeue", "profile"})
# "one" is mostly a pronoun or an article ("one pod at a time"), not a count.
_NOT_A_COUNT: Final = frozenset({"one"})


@dataclass(frozen=True, slots=True)
class Told:
    """A sentence that states a question's answer before the question is asked."""

    where: str  # "step 3", "the lesson's title or summary", "question q's explanation"
    sentence: str

    def __str__(self) -> str:
        text = self.sentence if len(self.sentence) <= 160 else self.sentence[:157] + "..."
        return f'told before asked: {self.where} says "{text}"'


def _answers(question: Question) -> list[str]:
    """The answer as words to look for: a name, each name of a list, or a count (digits)."""
    raw = question.answer
    if question.answer_type == "count":
        n = number(str(raw))
        return [] if n is None else [str(n)]
    items = raw if isinstance(raw, list | tuple) else [raw]
    names = [str(i).strip().lower().removeprefix("default/") for i in items]
    return [n for n in names if n not in _NOT_STATABLE]


def _holds(tokens: list[str], answer: str) -> bool:
    if not answer.isdigit():
        return answer in tokens
    value = int(answer)
    for i, token in enumerate(tokens):
        if token.isdigit() or (token in NUMBER_WORDS and token not in _NOT_A_COUNT):
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            if number(token) == value and after not in _QUANTITY:
                return True
    return False


def _about(
    question: Question, pod: str | None, answer: str, sentence: str, tokens: list[str]
) -> bool:
    """Whether the sentence is about what the question asks (its node, pod, cycle or kind)."""
    params, kind = question.params, question.kind
    lower = sentence.lower()
    zh = zh_digits(lower)  # a Chinese sentence's numerals as digits ("第 2 个周期"); else as is
    cue = bool(_CUES[kind] & set(tokens)) or any(c in sentence for c in _ZH_CUES[kind])
    named = bool(pod and pod.lower() in tokens)
    others = [c for c in question.choices if c.lower() != answer]
    if (
        kind in _OUTCOMES
        and not named
        and any(
            c.lower() in tokens or (question.label(c) != c and question.label(c) in sentence)
            for c in others
        )
    ):
        return False  # a rule listing the outcomes side by side ("Success, a rejection, or Wait")
    if "node" in params:
        if str(params["node"]).lower() in tokens or "everywhere" in tokens:
            return True
        return cue and bool(_EVERY_NODE.search(lower) or _ZH_EVERY_NODE.search(sentence))
    if "pod" in params and str(params["pod"]).lower().removeprefix("default/") in tokens:
        return True
    k = int(params["cycle"]) if "cycle" in params else None
    cycle = k is not None and bool(
        re.search(rf"\bcycle {k}\b", lower)
        or re.search(rf"周期\s*{k}(?!\d)|第\s*{k}\s*个?\s*(?:调度)?周期", zh)
    )
    if kind == "winner":
        # "X wins", "cycle 2 picks X", "report-job goes to X"; not "X is empty".
        onto = re.search(rf"(?:\b(?:to|on|onto)\s+|[到在]\s*){re.escape(answer)}\b", lower)
        return cue or bool(onto and (cycle or named))
    # The pod a "which pod" question asks about is its answer: naming it says nothing more.
    if kind != "pod" and named:
        return True
    return bool(cycle) or cue


def visible_sentences(lesson: Lesson, question: Question) -> Iterable[tuple[str, str]]:
    """(where, sentence) for everything read before answering ``question``: the lesson's title
    and summary, the narrative up to its step, the prompts of the questions up to it and the
    explanations of those before it (questions are answered in their steps' order)."""
    for s in sentences(f"{lesson.title}\n\n{lesson.summary}"):
        yield "the lesson's title or summary", s
    for n, narrative in enumerate(lesson.steps[: question.step], start=1):
        for s in sentences(f"{narrative.title}\n\n{narrative.body}"):
            yield f"step {n}", s
    order = sorted(lesson.questions, key=lambda q: q.step)  # stable: file order within a step
    for q in order[: order.index(question) + 1]:
        for s in sentences(q.prompt):
            yield f"question {q.id}'s prompt", s
        if q is not question:
            for s in sentences(q.explanation):
                yield f"question {q.id}'s explanation", s


def told_before_asked(lesson: Lesson, question: Question, pod: str | None = None) -> Told | None:
    """The first sentence read before ``question`` that states its answer, if any.

    ``pod`` is the pod of the question's cycle (a sentence naming it is about that cycle).
    """
    if question.told:
        return None
    answers = _answers(question)
    if not answers:
        return None
    chinese = lesson.language.startswith("zh")
    for where, sentence in visible_sentences(lesson, question):
        if sentence.rstrip().endswith(("?", "？")) or sentence.lstrip().startswith(_ASKING):
            continue  # a question, or a call to predict, asks: it does not tell
        tokens = words(zh_digits(sentence, counts_only=True) if chinese else sentence)
        for answer in answers:
            if _holds(tokens, answer) and _about(question, pod, answer, sentence, tokens):
                return Told(where, sentence)
    return None
