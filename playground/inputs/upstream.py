"""Kubernetes' own validation messages (apimachinery's wording, as kubectl prints them) as a
reader of the page's language reads them: the message stays in upstream's English, labelled as
Kubernetes' words, after a short gloss in the reader's language for the common cases (names,
label keys and values, quantities, required and unsupported values). A gloss shows only where the
catalog has one: an English reader gets the message alone, as before. A YAML or JSON reader's
message (broken YAML) is glossed and labelled the same way (``parser_said``).
"""

from __future__ import annotations

import re
from typing import Final

from django.utils.translation import gettext, gettext_noop, pgettext

# (a pattern of what upstream's message says, the gloss's msgid): the first match glosses it.
_GLOSSES: Final = (
    (
        r"RFC 1123 subdomain must consist",
        gettext_noop(
            "a name takes lower-case letters, digits, '-' and '.', and starts and ends with a "
            "letter or digit"
        ),
    ),
    (
        r"RFC 1123 label must consist",
        gettext_noop(
            "a name takes lower-case letters, digits and '-', and starts and ends with a letter "
            "or digit"
        ),
    ),
    (
        r"name part must consist of alphanumeric",
        gettext_noop(
            "a label key's name takes letters, digits, '-', '_' and '.', and starts and ends "
            "with a letter or digit"
        ),
    ),
    (
        r"prefix part must be",
        gettext_noop(
            "a label key's prefix (before '/') must be a DNS subdomain such as example.com"
        ),
    ),
    (
        r"valid label must be an empty string or consist",
        gettext_noop(
            "a label value is empty, or letters, digits, '-', '_' and '.' starting and ending "
            "with a letter or digit"
        ),
    ),
    (
        r"quantities must match the regular expression",
        gettext_noop("a quantity is a number with an optional unit, such as 500m, 2 or 4Gi"),
    ),
    (
        r"must be no more than \d+ (?:characters|bytes)",
        gettext_noop("it is too long"),
    ),
    (r"^Required value", gettext_noop("a required field is missing")),
    (r"^Unsupported value", gettext_noop("this value is not one the API accepts")),
)


def glossed(message: str) -> str:
    """Upstream's ``message`` labelled as Kubernetes' words, glossed where the catalog can."""
    for pattern, gloss in _GLOSSES:
        said = gettext(gloss)
        if re.search(pattern, message) and said != gloss:
            return pgettext(
                "a Kubernetes validation message, glossed", "%(gloss)s (Kubernetes: %(message)s)"
            ) % {"gloss": said, "message": message}
    return pgettext("a Kubernetes validation message in upstream's English", "%(message)s") % {
        "message": message
    }


def glossed_all(messages: list[str]) -> list[str]:
    return [glossed(m) for m in messages]


def parser_said(message: str, *, json: bool = False) -> str:
    """What the YAML (or JSON) reader said of text it could not read, in its own English:
    labelled as its words after a gloss ("invalid YAML: ..." to an English reader)."""
    if json:
        return pgettext(
            "a YAML or JSON reader's message in its English", "invalid YAML/JSON: %(message)s"
        ) % {"message": message}
    return pgettext("a YAML reader's message in its English", "invalid YAML: %(message)s") % {
        "message": message
    }
