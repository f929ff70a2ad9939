"""The course's text: Markdown rendered for the pages, flattened into sentences for the checks,
numbers read from digits or words ("two", "twenty-one", "二十一", "两") and counts typed as
answers ("2个", "八十七分", "2 nodes", "没有")."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final

import markdown

_UNITS: Final = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
)
_TENS: Final = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
NUMBER_WORDS: Final[dict[str, int]] = {
    **{word: n for n, word in enumerate(_UNITS)},
    **{word: 20 + 10 * i for i, word in enumerate(_TENS)},
    "hundred": 100,
    "a hundred": 100,
    "one hundred": 100,
}
for _i, _ten in enumerate(_TENS):
    for _n in range(1, 10):
        NUMBER_WORDS[f"{_ten}-{_UNITS[_n]}"] = 20 + 10 * _i + _n
        NUMBER_WORDS[f"{_ten} {_UNITS[_n]}"] = 20 + 10 * _i + _n


def number(text: str) -> int | None:
    """An integer written in digits, in English words (0 to one hundred) or in Chinese numerals
    ("三", "两", "二十一", "一百"), else None."""
    text = " ".join(str(text).strip().lower().split())
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if text in NUMBER_WORDS:
        return NUMBER_WORDS[text]
    return zh_number(text.removesuffix("个").strip())


# A count as a learner types it: the number, then maybe a measure word and what is counted,
# maybe said of which ones ("2个", "87分", "两个节点", "2 nodes", "2 feasible nodes", "3 次",
# "2 个可行节点"); a word for none ("没有", "无", "none") is 0.
_COUNTED: Final = re.compile(
    r"^(?P<n>.*?)\s*(?:个|次|分|台|位)?\s*(?:(?:feasible|evaluated|pending)\s+|可行的?|待调度的?)?"
    r"(?:节点|pods?|nodes?|points?|times?|cycles?|victims?|周期|分数)?[。.!！]?$"
)
_NONE_WORDS: Final = frozenset({"none", "no", "nothing", "zero", "没有", "无", "零", "一个也没有"})


def count(text: str) -> int | None:
    """A count typed as an answer ("2", "2个", "两个节点", "八十七分", "2 nodes", "没有"), else
    None. Full-width digits count as digits; a measure word or a noun alone is not a count."""
    text = " ".join(unicodedata.normalize("NFKC", str(text)).strip().lower().split())
    found = _COUNTED.match(text)
    head = found["n"].strip() if found else ""
    if head in _NONE_WORDS or text in _NONE_WORDS:
        return 0
    return number(head) if head else None


_ZH_DIGITS: Final = {
    **{c: n for n, c in enumerate("零一二三四五六七八九")},
    **{"〇": 0, "两": 2},
}
_ZH_UNITS: Final = {"十": 10, "百": 100, "千": 1000}
_ZH_RUN: Final = re.compile(r"[零〇一二两三四五六七八九十百千]+")


def zh_number(text: str) -> int | None:
    """A Chinese numeral ("七", "十二", "二十一", "三百零五") as an integer, else None."""
    if not text or any(c not in _ZH_DIGITS and c not in _ZH_UNITS for c in text):
        return None
    total = current = 0
    for c in text:
        if c in _ZH_DIGITS:
            current = _ZH_DIGITS[c]
        else:
            total += (current or 1) * _ZH_UNITS[c]
            current = 0
    return total + current


def zh_digits(sentence: str, *, counts_only: bool = False) -> str:
    """``sentence`` with its Chinese numerals as digits ("第二个周期" -> "第 2 个周期").

    With ``counts_only`` only the numerals that count are turned into digits: not an ordinal
    (after 第), not a lone 一 (mostly "a", "once", "together": 一个, 一次, 一起, 唯一), not 十分
    ("very") or 百分 ("per cent"); a core (核) reads as the quantity it is."""

    def digits(m: re.Match[str]) -> str:
        run, before, after = m[0], sentence[m.start() - 1 : m.start()], sentence[m.end() :]
        if counts_only and (
            before == "第" or run == "一" or (run in ("十", "百") and after.startswith("分"))
        ):
            return run
        value = zh_number(run)
        return run if value is None else f" {value} "

    out = _ZH_RUN.sub(digits, sentence)
    return out.replace("核", " cores ") if counts_only else out


# A Chinese ordinal ("第 7 课", "第 2 个周期") is one word: no line break inside it.
_ORDINAL: Final = re.compile(r"第 (\d+) (?=[\u4e00-\u9fff])")


def unbroken(text: str) -> str:
    """``text`` with the spaces of its Chinese ordinals made non-breaking."""
    return _ORDINAL.sub("第\u00a0\\1\u00a0", text)


@functools.cache
def html(text: str) -> str:
    """A block of the course's Markdown as HTML (the lesson files are trusted)."""
    return unbroken(str(markdown.markdown(text, extensions=["tables", "fenced_code"])))


@functools.cache
def inline_html(text: str) -> str:
    """One line of Markdown (a heading) as inline HTML: emphasis and code, no paragraph."""
    out = unbroken(str(markdown.markdown(text)))
    return out.removeprefix("<p>").removesuffix("</p>")


# -- plain sentences -----------------------------------------------------------------------------

_CODE_SPAN: Final = re.compile(r"`([^`]*)`")
_LINK: Final = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_ITEM: Final = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")


def _plain(line: str) -> str:
    # A code span with spaces quotes a message or an expression (`0/4 nodes are available: ...`),
    # not a sentence of the lesson; one without is a name (`web-3`) and stays.
    line = _CODE_SPAN.sub(lambda m: m[1] if " " not in m[1].strip() else " ", line)
    line = _LINK.sub(r"\1", line)
    return line.replace("**", "").replace("*", "")


def sentences(text: str) -> list[str]:
    """The Markdown ``text`` as plain sentences: a table row, a list item, a code line or a
    sentence of a paragraph each, in order (what a reader takes in as one statement)."""
    blocks: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            blocks.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("```"):
            close()
        elif line.lstrip().startswith("|"):
            close()
            if not re.fullmatch(r"[\s|:-]+", line):
                blocks.append(line.replace("|", " ; "))
        elif line.startswith("    "):
            close()
            blocks.append(line.strip())
        elif _ITEM.match(line):
            close()
            current.append(_ITEM.sub("", line))
        else:
            current.append(line.strip())
    close()
    out: list[str] = []
    for block in blocks:
        out.extend(s for s in _SENTENCE_END.split(_plain(block)) if s.strip())
    return out


# ASCII only: in Chinese text a name ends where the Chinese begins ("node-2上" is node-2).
_TOKEN: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_./-]*[A-Za-z0-9])?")


def words(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, names kept whole (``node-231``, ``1500m``, ``v1.35``)."""
    return [w.lower().removeprefix("default/") for w in _TOKEN.findall(sentence)]
