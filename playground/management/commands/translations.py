"""translations --check: is every string marked for translation translated in every language?

Each area keeps its own catalog (settings.LOCALE_PATHS): the web app's Python in
playground/locale, the engine's explanations in scheduler_core/locale, the templates and the
JavaScript in locale/. For each area and each language other than the source language (English),
the marked strings are extracted afresh from a copy of the area's sources in a temporary directory
(Django's makemessages there, so the working tree is never written) and compared with the
committed .po: a string missing from it or with an empty translation is untranslated, an entry
marked fuzzy is fuzzy (gettext does not use it). The scripts are also read for their literal
gettext calls directly (``script_strings``), so that a call xgettext's JavaScript parser loses
track of (an ES module's syntax it misreads) is still checked, not silently left out.

    translations --check   prints "translations: N strings, M untranslated, K fuzzy";
                           fails when M or K is not 0
    translations --list    also prints each untranslated or fuzzy string with its file:line
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import to_locale

# (sources, catalog): the directory whose files are extracted and the catalog holding their
# translations, relative to the project root. makemessages run inside each source directory
# writes to the same catalog (the first of LOCALE_PATHS whose parent holds the file).
AREAS: Final = (
    ("playground", "playground/locale"),
    ("scheduler_core", "scheduler_core/locale"),
    ("templates", "locale"),
    ("static", "locale"),
)
DOMAINS: Final = ("django", "djangojs")
_EXTENSIONS: Final = {"django": (".py", ".html", ".txt"), "djangojs": (".js",)}
# Not sources: catalogs themselves, caches, hidden directories.
_SKIP_DIRS: Final = {"__pycache__", "locale", "node_modules", ".mypy_cache", ".ruff_cache"}


@dataclass
class Entry:
    """One message of a .po file: its key, translation state and source references."""

    msgctxt: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)
    fuzzy: bool = False
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.msgctxt, self.msgid)

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


def parse_po(text: str) -> list[Entry]:
    """The entries of a .po (or .pot) file, the header (msgid "") left out."""
    entries: list[Entry] = []
    current = Entry()
    started = False
    last: tuple[str, int] | None = None

    def finish() -> None:
        nonlocal current, started, last
        if started and current.msgid:
            entries.append(current)
        current, started, last = Entry(), False, None

    for raw in text.splitlines():
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            finish()
            continue
        if line.startswith("#:"):
            if started:
                finish()
            current.references.extend(line[2:].split())
        elif line.startswith("#,"):
            if started:
                finish()
            current.fuzzy = "fuzzy" in (flag.strip() for flag in line[2:].split(","))
        elif line.startswith("#"):
            continue
        elif line.startswith('"') and last is not None:
            _append(current, last, _unquote(line))
        else:
            word, _, rest = line.partition(" ")
            if word in ("msgctxt", "msgid") and started and current.msgstr:
                finish()
            started = True
            current.obsolete = current.obsolete or obsolete
            value = _unquote(rest)
            if word == "msgctxt":
                current.msgctxt, last = value, ("msgctxt", 0)
            elif word == "msgid":
                current.msgid, last = value, ("msgid", 0)
            elif word == "msgid_plural":
                current.msgid_plural, last = value, ("msgid_plural", 0)
            elif word == "msgstr":
                current.msgstr[0], last = value, ("msgstr", 0)
            elif word.startswith("msgstr["):
                index = int(word[7:-1])
                current.msgstr[index], last = value, ("msgstr", index)
    finish()
    return entries


def _unquote(text: str) -> str:
    value = ast.literal_eval(text)
    if not isinstance(value, str):
        raise ValueError(f"not a PO string: {text}")
    return value


def _append(entry: Entry, where: tuple[str, int], text: str) -> None:
    name, index = where
    if name == "msgctxt":
        entry.msgctxt = (entry.msgctxt or "") + text
    elif name == "msgid":
        entry.msgid += text
    elif name == "msgid_plural":
        entry.msgid_plural = (entry.msgid_plural or "") + text
    else:
        entry.msgstr[index] = entry.msgstr.get(index, "") + text


@dataclass
class Problem:
    """A string of the code without a usable translation in one catalog."""

    catalog: str
    kind: str  # "untranslated" or "fuzzy"
    msgid: str
    references: list[str]


@dataclass
class Report:
    strings: int = 0
    untranslated: int = 0
    fuzzy: int = 0
    problems: list[Problem] = field(default_factory=list)


def _copy_sources(source: Path, target: Path, domain: str) -> bool:
    """Copy the files of ``domain`` under ``source`` to ``target``; False when there are none."""
    found = False
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in filenames:
            if name.endswith(_EXTENSIONS[domain]):
                rel = Path(dirpath, name).relative_to(source)
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(dirpath, name), target / rel)
                found = True
    return found


def extract(source: Path, domain: str, locale: str, workdir: Path) -> list[Entry]:
    """The strings marked in ``source`` for ``domain``, as makemessages extracts them."""
    copy = workdir / f"{source.name}-{domain}"
    if not _copy_sources(source, copy, domain):
        return []
    # A 'locale' directory inside the walked tree comes first among makemessages' catalogs,
    # so the fresh catalog is written there, inside the temporary copy.
    (copy / "locale").mkdir()
    cwd = Path.cwd()
    os.chdir(copy)
    try:
        call_command("makemessages", locale=[locale], domain=domain, verbosity=0, no_wrap=True)
    finally:
        os.chdir(cwd)
    po = copy / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
    if not po.exists():
        return []
    entries = parse_po(po.read_text(encoding="utf-8"))
    for entry in entries:
        entry.references = [f"{source.name}/{ref}" for ref in entry.references]
    return entries


_JS_STRING: Final = r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`$\\]*`)"""
_JS_CALL: Final = re.compile(
    r"(?<![\w$.])(gettext|ngettext|pgettext|npgettext)\(\s*"
    + _JS_STRING
    + r"(?:\s*,\s*"
    + _JS_STRING
    + ")?"
)


def _js_literal(text: str) -> str:
    if text.startswith("`"):
        return text[1:-1]
    return _unquote(text)


def script_strings(source: Path) -> list[Entry]:
    """The strings marked in the scripts under ``source`` by a gettext call whose arguments are
    literals, read without xgettext: (context, message) as the catalog keys them."""
    entries: list[Entry] = []
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(_EXTENSIONS["djangojs"]):
                continue
            path = Path(dirpath, name)
            text = path.read_text(encoding="utf-8")
            for m in _JS_CALL.finditer(text):
                first, second = _js_literal(m[2]), m[3] and _js_literal(m[3])
                context = first if m[1] in ("pgettext", "npgettext") else None
                msgid = second if context is not None else first
                if msgid:
                    line = text.count("\n", 0, m.start()) + 1
                    ref = f"{path.relative_to(source.parent)}:{line}"
                    entries.append(Entry(msgctxt=context, msgid=msgid, references=[ref]))
    return entries


def _with_script_strings(fresh: list[Entry], source: Path) -> list[Entry]:
    """``fresh`` and every literal script string it does not hold (once each)."""
    keys = {entry.key for entry in fresh}
    for entry in script_strings(source):
        if entry.key not in keys:
            keys.add(entry.key)
            fresh.append(entry)
    return fresh


def check(root: Path) -> Report:
    """Compare every area's fresh strings with its committed catalog, in every language."""
    report = Report()
    languages = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
    with tempfile.TemporaryDirectory(prefix="translations-") as tmp:
        for source_name, catalog in AREAS:
            source = root / source_name
            if not source.is_dir():
                continue
            for domain in DOMAINS:
                for language in languages:
                    locale = to_locale(language)
                    workdir = Path(tmp, locale)
                    workdir.mkdir(exist_ok=True)
                    fresh = extract(source, domain, locale, workdir)
                    if domain == "djangojs":
                        fresh = _with_script_strings(fresh, source)
                    if not fresh:
                        continue
                    po = root / catalog / locale / "LC_MESSAGES" / f"{domain}.po"
                    name = str(po.relative_to(root))
                    committed = {}
                    if po.exists():
                        committed = {
                            e.key: e
                            for e in parse_po(po.read_text(encoding="utf-8"))
                            if not e.obsolete
                        }
                    for entry in fresh:
                        report.strings += 1
                        known = committed.get(entry.key)
                        if known is not None and known.fuzzy:
                            report.fuzzy += 1
                            report.problems.append(
                                Problem(name, "fuzzy", entry.msgid, entry.references)
                            )
                        elif known is None or not known.translated:
                            report.untranslated += 1
                            report.problems.append(
                                Problem(name, "untranslated", entry.msgid, entry.references)
                            )
    return report


class Command(BaseCommand):
    help = "Check that every string marked for translation is translated (see module docstring)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--check", action="store_true", help="fail when any is missing")
        parser.add_argument("--list", action="store_true", help="list the missing ones")
        parser.add_argument(
            "--root", default=str(settings.BASE_DIR), help="project root (tests use a copy)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = check(Path(options["root"]).resolve())
        if options["list"]:
            for problem in report.problems:
                where = " ".join(problem.references) or "?"
                self.stdout.write(
                    f"{where}: {problem.kind} in {problem.catalog}: {problem.msgid!r}"
                )
        summary = (
            f"translations: {report.strings} strings, {report.untranslated} untranslated, "
            f"{report.fuzzy} fuzzy"
        )
        self.stdout.write(summary)
        if options["check"] and (report.untranslated or report.fuzzy):
            raise CommandError(f"{summary} (translations --list shows them)")
