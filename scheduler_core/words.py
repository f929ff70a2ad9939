"""The explanations' sentences in the reader's language: a translation hook, English by default.

The engine imports nothing from Django: its sentences are marked with ``_`` (and ``ngettext``),
which give the English source text back until a translator is registered. The playground
registers Django's ``gettext`` and ``ngettext`` at start-up (playground/apps.py), so a sentence
comes out in the language of the request that asked for it. A msgid is a literal string with
named placeholders, formatted after translation, so Django's makemessages extracts it:

    _("%(plugin)s on %(node)s: passes.") % {"plugin": plugin, "node": node}

Numbers, names, upstream's own reason strings and the arithmetic of a formula stay as they are.
A new sentence gets its translation in the engine's catalog: ``cd scheduler_core && ../.venv/bin/
python ../manage.py makemessages -l zh_Hans --no-obsolete``, then translate the new entries of
scheduler_core/locale/zh_Hans/LC_MESSAGES/django.po (the tests compile it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _identity(message: str) -> str:
    return message


def _identity_n(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


_translator: list[tuple[Gettext, Ngettext]] = [(_identity, _identity_n)]


def set_translator(
    gettext: Gettext | None = None, ngettext: Ngettext | None = None
) -> tuple[Gettext, Ngettext]:
    """Register the functions that translate the sentences (without arguments, English again);
    returns the ones registered before, to put them back."""
    previous = _translator[0]
    _translator[0] = (gettext or _identity, ngettext or _identity_n)
    return previous


def _(message: str) -> str:
    """``message`` in the reader's language (the English source text without a translator)."""
    return _translator[0][0](message)


gettext = _


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the reader's language."""
    return _translator[0][1](singular, plural, n)


def gettext_noop(message: str) -> str:
    """Mark a constant for extraction; it is translated where it is shown, with ``_``."""
    return message


def clauses(items: Iterable[str]) -> str:
    """Clauses of one sentence joined as the reader's language joins them ("; " in English)."""
    return _("; ").join(items)


def listed(items: Iterable[str]) -> str:
    """Names listed in a sentence as the reader's language lists them (", " in English, the
    enumeration comma in Chinese)."""
    return _(", ").join(items)


def sentences(items: Iterable[str]) -> str:
    """Sentences one after the other, as the reader's language writes them (a space between
    them in English, none in Chinese); empty ones left out."""
    out = ""
    for item in items:
        if item:
            out = _("%(sentence)s %(next)s") % {"sentence": out, "next": item} if out else item
    return out


def sentence_of(items: list[str]) -> str:
    """Clauses joined into one sentence, with its full stop (empty without clauses)."""
    return _("%(clauses)s.") % {"clauses": clauses(items)} if items else ""
