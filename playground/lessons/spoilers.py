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

An answer is also told without its literal words, by the verdict it follows from (``_verdict``),
in either language:

- "which plugin rejects node-2 for trainer? (none if feasible)": a sentence saying node-2 passes
  ("node-2 is open to it", "three nodes pass Filter: node-1, node-2 ...", "node-2 对它开放");
- "which plugin rejects node-1?": a step saying node-1 is out ("draining", "cordoned", "too
  small", "refuses"), which leaves only the plugin to name (the prompt itself may presuppose it);
- "where does analytics go in cycle 1?" (nowhere): "cycle 1 ends Unschedulable";
- "how many nodes are feasible / evaluated?" when the answer is none or all of them: every node
  or zone said to be out ("every zone would reach a skew of 2") or evaluated ("every node is
  filtered");
- "where does legacy-app land?": every other node named in one sentence, most of them said to be
  out ("node-2 is too small, node-3 is cordoned, node-4 ... and node-5 ...");
- "how many pods are pending at the end?": a step giving a pod's last outcome that no earlier
  question asked ("cycle 2 schedules report ... node-2", "the cycle ends Unschedulable").
- "what does Permit answer for trainer?" (Wait, or Skip): a step naming the plugin with the
  code's verb ("ApprovalGate makes pods annotated ... wait for a person").

A verdict counts only when said of the question's subject: its node (in the clause that names
it), its pod or cycle (named, or the cycle the sentence's step shows, unless the sentence states
a rule: "If ...", "如果……"), every node when the answer is all or none of them; not when said of
another pod, and not when a negation turns it round ("does not pass", "没有通过"). A table row is
read with its header, so a row marking node-1 "draining: yes" says node-1 is draining.
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


@dataclass(frozen=True, slots=True)
class Cycle:
    """What the run knows of a question's cycle: its pod, the nodes it looked at, and every pod
    of the run (a sentence naming another pod is about that pod, not this cycle)."""

    pod: str | None = None
    nodes: tuple[str, ...] = ()
    pods: frozenset[str] = frozenset()
    # How each pod's last cycle ends: (pod, cycle, node or None), for "how many are pending?"
    fates: tuple[tuple[str, int, str | None], ...] = ()


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
        for s in sentences(f"{narrative.title}\n\n{_read_tables(narrative.body)}"):
            yield f"step {n}", s
    order = sorted(lesson.questions, key=lambda q: q.step)  # stable: file order within a step
    for q in order[: order.index(question) + 1]:
        for s in sentences(q.prompt):
            yield f"question {q.id}'s prompt", s
        if q is not question:
            for s in sentences(q.explanation):
                yield f"question {q.id}'s explanation", s


def told_before_asked(
    lesson: Lesson, question: Question, pod: str | None = None, cycle: Cycle | None = None
) -> Told | None:
    """The first sentence read before ``question`` that states its answer, or the verdict its
    answer follows from, if any.

    ``pod`` is the pod of the question's cycle (a sentence naming it is about that cycle);
    ``cycle`` what the run knows of that cycle, for the verdicts (without it, those that need
    the cycle's nodes or the run's pods are not read).
    """
    if question.told:
        return None
    answers = _answers(question)
    cycle = cycle or Cycle(pod=pod)
    pod = pod or cycle.pod
    order = sorted(lesson.questions, key=lambda q: q.step)
    verdict = _verdict(question, cycle, order[: order.index(question)])
    chinese = lesson.language.startswith("zh")
    for where, sentence in visible_sentences(lesson, question):
        if sentence.rstrip().endswith(("?", "？")) or sentence.lstrip().startswith(_ASKING):
            continue  # a question, or a call to predict, asks: it does not tell
        tokens = words(zh_digits(sentence, counts_only=True) if chinese else sentence)
        for answer in answers:
            if _holds(tokens, answer) and _about(question, pod, answer, sentence, tokens):
                return Told(where, sentence)
        if verdict is None or where.endswith(f"{question.id}'s prompt"):
            continue
        if not verdict.narrative_only or where.startswith("step"):
            shown = _step_cycle(lesson, where)
            if verdict.said(sentence, tokens, cycle, pod, shown):
                return Told(where, sentence)
    return None


# -- verdicts ------------------------------------------------------------------------------------


# What a sentence may say of a node (or of a pod's cycle): it passes Filter, or it is out. A
# negation just before a word turns it round ("does not pass", "never rejects").
def _vocabulary(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[str, ...]:
    """Chinese words, found as parts of a sentence (Chinese has no spaces between words)."""
    return tuple(text.split())


_PASS: Final = _vocabulary(
    "pass passes passed feasible open fits fit survive survives survived allowed permitted "
    "tolerated welcome"
)
_OUT: Final = _vocabulary(
    "reject rejects rejected fail fails failed excluded excludes exclude draining drained "
    "cordoned unschedulable exceed exceeds exceeded violate violates violated trips refuses "
    "refuse refused"
)
_OUT_PHRASES: Final = re.compile(
    r"\b(?:too (?:small|big|full)|filtered out|ruled out|skew of \d+|no room)\b"
)
_NEGATION: Final = _vocabulary("not never no cannot t nothing none")
_ZH_PASS: Final = _phrases("通过 可行 开放 放得下 容得下 幸存 被允许 被容忍")
_ZH_OUT: Final = _phrases(
    "拒绝 淘汰 排除 过滤掉 筛掉 排空 封锁 太小 超过 违反 不可调度 无法调度 放不下 "
    "偏差都会达到 偏差会达到 不愿"
)
_ZH_NEGATION: Final = ("不", "没", "没有", "未", "无法", "不能", "从不", "不会", "并未")
# Words that say Filter looked at a node (all of them, for an "evaluated" answer of every node).
_EVALUATED: Final = _vocabulary(
    "evaluated filtered examined checked searched visited reached walked"
)
_ZH_EVALUATED: Final = _phrases(
    "被评估 被过滤 被检查 被搜索 会对每个节点做过滤 全部过滤 全部评估 遍历所有"
)
# A pod's cycle that ends without a node.
_UNPLACED: Final = re.compile(
    r"\bunschedulable\b|\bno node (?:fits|is feasible|passes|is big enough|is left)\b"
    r"|\bcannot be (?:placed|scheduled)\b|\bfits nowhere\b|\bgoes back to the queue\b"
)
_ZH_UNPLACED: Final = _phrases(
    "不可调度 无法调度 没有节点放得下 没有可行节点 哪里都放不下 回到调度队列 回到队列"
)
# A pod's cycle that ends on a node (said with the node's name).
_PLACED: Final = _vocabulary(
    "schedules scheduled lands landed land takes took goes went bound binds placed picks"
)
_ZH_PLACED: Final = _phrases("调度到 落到 落在 选中 选择了 取了 取第一个 绑定到 放到 调度的是")
_EVERY: Final = re.compile(
    r"\b(?:every|each|all|any)\s+(?:\w+\s+)?(?:nodes?|zones?|domains?)\b|\beverywhere\b"
    r"|\bno (?:node|zone|domain)\b"
)
_ZH_EVERY: Final = re.compile(
    r"(?:每个|每一个|所有|全部|各个|任何|没有)[^，。；]{0,6}?(?:节点|可用区|拓扑域)"
)
# The verbs that say a plugin's code, for the codes a plugin's description can give away.
_CODE_VERBS: Final = {
    "wait": (_vocabulary("wait waits waiting"), _phrases("等待")),
    "skip": (_vocabulary("skip skips skipped skipping"), _phrases("跳过")),
}
# A sentence opening with one of these states a rule, not what happens in the step's cycle.
_RULE: Final = ("if ", "when ", "whenever ", "unless ", "once ", "如果", "若", "当", "一旦", "只要")
_CLAUSE: Final = re.compile(r"[,;:()，；：（）、]|\s+(?:and|but)\s+|[和但]")


def _negated_zh(text: str, at: int) -> bool:
    before = text[:at].removesuffix("被")
    return any(before.endswith(n) for n in _ZH_NEGATION)


def _polarity(text: str, tokens: list[str]) -> set[str]:
    """What ``text`` says of what it names: "pass", "out", both or neither (a negation just
    before a word turns it round: "does not pass", "never rejects", "没有通过", "不会被拒绝")."""
    said: set[str] = set()
    turned = {"pass": "out", "out": "pass"}
    for i, token in enumerate(tokens):
        for kind, vocabulary in (("pass", _PASS), ("out", _OUT)):
            if token in vocabulary:
                negated = bool(_NEGATION & set(tokens[max(0, i - 3) : i]))
                said.add(turned[kind] if negated else kind)
    if _OUT_PHRASES.search(text.lower()):
        said.add("out")
    for kind, zh_words in (("pass", _ZH_PASS), ("out", _ZH_OUT)):
        for word in zh_words:
            for m in re.finditer(re.escape(word), text):
                said.add(turned[kind] if _negated_zh(text, m.start()) else kind)
    return said


_AFFIRMATIVE: Final = frozenset({"yes", "true", "✓", "x", "是", "√"})


def _read_tables(body: str) -> str:
    """``body`` with each table row's affirmative cells ("yes") read with their column's
    header ("draining yes"), so that a row says what its marks mean."""
    out: list[str] = []
    header: list[str] = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|"):
            header = []
        elif not header:
            header = cells
        elif not re.fullmatch(r"[\s|:-]+", line):
            cells = [
                f"{header[i]} {c}" if 0 < i < len(header) and c.lower() in _AFFIRMATIVE else c
                for i, c in enumerate(cells)
            ]
            line = "| " + " | ".join(cells) + " |"
        out.append(line)
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class _Verdict:
    """The verdict a question's answer follows from, and what it is said of."""

    says: str  # "pass", "out", "unplaced", "all", "none", "all-evaluated", "only", "fate", "code"
    node: str | None = None  # the node it is said of (for "code": the plugin)
    others: tuple[str, ...] = ()  # for "only": the nodes that must all be out
    cycle: int | None = None  # for "unplaced": the question's cycle
    fates: tuple[tuple[str, int, str | None], ...] = ()  # for "fate": the outcomes not asked
    code: str = ""  # for "code": the code whose verb the plugin's sentence must not hold
    narrative_only: bool = False  # said in a step (a prompt or explanation may presuppose it)

    def said(
        self,
        sentence: str,
        tokens: list[str],
        cycle: Cycle,
        pod: str | None,
        shown: int | None = None,
    ) -> bool:
        """Whether ``sentence`` says this verdict of its subject, in the question's cycle
        (``shown``: the cycle the sentence's step shows, what "the cycle" and "the pod" mean
        there)."""
        if pod and pod.lower() not in tokens and any(p in tokens for p in cycle.pods - {pod}):
            return False  # about another pod's cycle
        lower = sentence.lower()
        if lower.lstrip().startswith(_RULE):
            shown = None  # a rule ("If the binding cycle fails, ...") is not about the step's cycle
        if self.says in ("pass", "out"):
            said = _of_node(sentence, tokens, (self.node or "").lower(), cycle.nodes)
            return said == {self.says}
        if self.says == "unplaced":
            about = bool(pod and pod.lower() in tokens) or _names_cycle(lower, self.cycle)
            return (about or shown == self.cycle is not None) and _unplaced(sentence)
        if self.says == "fate":
            # A pod's last outcome, told in a step before "how many pods are pending?" asks:
            # the pod (or its last cycle) named with a node it lands on, or with no node.
            for name, k, node in self.fates:
                if name in tokens or _names_cycle(lower, k) or shown == k:
                    if node is None and _unplaced(sentence):
                        return True
                    placed = _PLACED & set(tokens) or any(w in sentence for w in _ZH_PLACED)
                    if node is not None and node.lower() in tokens and placed:
                        return True
            return False
        if self.says == "code":
            # The plugin (kept in ``node``) named with the verb of its answer, not negated.
            if (self.node or "").lower() not in tokens:
                return False
            verbs, zh_verbs = _CODE_VERBS[self.code]
            return any(
                t in verbs and not _NEGATION & set(tokens[max(0, i - 3) : i])
                for i, t in enumerate(tokens)
            ) or any(
                not _negated_zh(sentence, m.start())
                for w in zh_verbs
                for m in re.finditer(re.escape(w), sentence)
            )
        every = bool(_EVERY.search(lower) or _ZH_EVERY.search(sentence))
        if self.says == "all-evaluated":
            return every and bool(
                _EVALUATED & set(tokens) or any(w in sentence for w in _ZH_EVALUATED)
            )
        if self.says in ("all", "none"):
            want = "pass" if self.says == "all" else "out"
            if re.search(r"\bno (?:node|zone|domain)\b", lower) or "没有" in sentence:
                want = "out" if want == "pass" else "pass"  # "no node passes" is every node out
            return every and want in _polarity(sentence, tokens)
        # "only": every node but the answer named in one sentence, at least half of them said
        # to be out and none to pass (the rest left to be read off the reasons given).
        if not self.others or any(n.lower() not in tokens for n in self.others):
            return False
        each = [_of_node(sentence, tokens, n.lower(), cycle.nodes) for n in self.others]
        out = sum(1 for s in each if s == {"out"})
        return not any("pass" in s for s in each) and 2 * out >= len(self.others)


def _step_cycle(lesson: Lesson, where: str) -> int | None:
    """The cycle that the narrative step ``where`` ("step 3") shows, if it shows one."""
    if not where.startswith("step "):
        return None
    show = lesson.steps[int(where.removeprefix("step ")) - 1].show
    return show.cycle if show is not None else None


def _names_cycle(lower: str, k: int | None) -> bool:
    """Whether a (lower-cased) sentence names cycle ``k`` ("cycle 2", "周期 2", "第二个周期")."""
    if k is None:
        return False
    return bool(
        re.search(rf"\bcycle {k}\b", lower)
        or re.search(rf"周期\s*{k}(?!\d)|第\s*{k}\s*个?\s*(?:调度)?周期", zh_digits(lower))
    )


def _unplaced(sentence: str) -> bool:
    lower = sentence.lower()
    return bool(_UNPLACED.search(lower) or any(w in sentence for w in _ZH_UNPLACED))


def _of_node(sentence: str, tokens: list[str], node: str, nodes: Iterable[str] = ()) -> set[str]:
    """What ``sentence`` says of ``node``: what the clause that names it says; else what a
    list's lead-in says ("three nodes pass Filter: node-1 (busy), node-2 ..."); else what the
    sentence says, if it says one thing only and names no other of ``nodes``."""
    if node not in tokens:
        return set()
    for clause in _CLAUSE.split(sentence):
        if node in words(clause):
            said = _polarity(clause, words(clause))
            if said:
                return said
    lead, colon, listed = re.split(r"([:：])", sentence, maxsplit=1) + ["", ""] * (
        ":" not in sentence and "：" not in sentence
    )
    if colon and node in words(listed) and node not in words(lead):
        said = _polarity(lead, words(lead))
        if len(said) == 1:
            return said
    others = {n.lower() for n in nodes} - {node}
    said = _polarity(sentence, tokens)
    return said if len(said) == 1 and not others & set(tokens) else set()


def _verdict(question: Question, cycle: Cycle, earlier: Iterable[Question] = ()) -> _Verdict | None:
    """The verdict ``question``'s answer follows from, if the run tells enough to read it
    (``earlier``: the questions answered before it, whose outcomes the text may repeat)."""
    earlier = list(earlier)
    kind, params, answer = question.kind, question.params, str(question.answer).lower()
    if kind == "rejector" and answer == "none":
        return _Verdict("pass", node=str(params["node"]))
    if kind == "rejector":
        # The prompt asks which plugin rejects the node; a step saying the node is out already
        # leaves only the plugin to name from the reason beside it.
        return _Verdict("out", node=str(params["node"]), narrative_only=True)
    if kind == "code" and answer in _CODE_VERBS and "plugin" in params:
        # "ApprovalGate makes pods annotated ... wait" before "what does Permit answer?"
        return _Verdict("code", node=str(params["plugin"]), code=answer, narrative_only=True)
    if kind in ("winner", "placement") and answer == "none":
        return _Verdict("unplaced", cycle=int(params["cycle"]) if "cycle" in params else None)
    if kind == "winner" and len(cycle.nodes) > 1:
        others = tuple(n for n in cycle.nodes if n.lower() != answer)
        return _Verdict("only", others=others) if len(others) < len(cycle.nodes) else None
    if kind == "pending":
        # An outcome an earlier question asked is the learner's own by now: the text may say it.
        cycles = {int(q.params["cycle"]) for q in earlier if q.kind == "winner"}
        pods = {str(q.params["pod"]).lower() for q in earlier if q.kind == "placement"}
        fates = tuple(f for f in cycle.fates if f[1] not in cycles and f[0] not in pods)
        return _Verdict("fate", fates=fates, narrative_only=True) if fates else None
    n = number(answer)
    if kind == "feasible" and n == 0:
        return _Verdict("none")
    if kind == "feasible" and cycle.nodes and n == len(cycle.nodes):
        return _Verdict("all")
    if kind == "evaluated" and cycle.nodes and n == len(cycle.nodes):
        return _Verdict("all-evaluated")
    return None
