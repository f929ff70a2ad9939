"""The course's text: Markdown rendered for the pages, flattened into sentences for the checks,
and numbers read from digits or words ("two", "twenty-one")."""

from __future__ import annotations

import functools
import re
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
    """An integer written in digits or in English words (0 to one hundred), else None."""
    text = " ".join(str(text).strip().lower().split())
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return NUMBER_WORDS.get(text)


@functools.cache
def html(text: str) -> str:
    """A block of the course's Markdown as HTML (the lesson files are trusted)."""
    return str(markdown.markdown(text, extensions=["tables", "fenced_code"]))


@functools.cache
def inline_html(text: str) -> str:
    """One line of Markdown (a heading) as inline HTML: emphasis and code, no paragraph."""
    out = str(markdown.markdown(text))
    return out.removeprefix("<p>").removesuffix("</p>")


# -- plain sentences -----------------------------------------------------------------------------

_CODE_SPAN: Final = re.compile(r"`([^`]*)`")
_LINK: Final = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_ITEM: Final = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+")


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


_TOKEN: Final = re.compile(r"[A-Za-z0-9](?:[\w./-]*[A-Za-z0-9])?")


def words(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, names kept whole (``node-231``, ``1500m``, ``v1.35``)."""
    return [w.lower().removeprefix("default/") for w in _TOKEN.findall(sentence)]
