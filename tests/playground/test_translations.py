"""translations --check: every marked string translated; the language switch and the JS catalog."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from playground.management.commands.translations import parse_po

PO_HEADER = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=1; plural=0;\\n"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _run(root: Path, *args: str) -> tuple[str, CommandError | None]:
    out = StringIO()
    try:
        call_command("translations", *args, root=str(root), stdout=out)
    except CommandError as err:
        return out.getvalue(), err
    return out.getvalue(), None


def test_parse_po_reads_flags_plurals_continuations_and_obsolete_entries():
    entries = parse_po(
        PO_HEADER
        + """
#: a.html:1 b.html:2
#, fuzzy, python-format
msgid "one %(n)s"
msgstr "一 %(n)s"

#: c.py:3
msgctxt "verb"
msgid ""
"Run "
"it"
msgid_plural "Run them"
msgstr[0] ""
"运行"

#~ msgid "gone"
#~ msgstr "没了"
"""
    )
    assert [(e.msgid, e.fuzzy, e.obsolete, e.translated) for e in entries] == [
        ("one %(n)s", True, False, True),
        ("Run it", False, False, True),
        ("gone", False, True, True),
    ]
    assert entries[0].references == ["a.html:1", "b.html:2"]
    assert entries[1].msgctxt == "verb"
    assert entries[1].msgid_plural == "Run them"
    assert entries[1].msgstr == {0: "运行"}


def test_check_fails_on_a_fresh_untranslated_string_then_a_fuzzy_one(tmp_path):
    _write(
        tmp_path / "templates" / "page.html",
        '{% load i18n %}<h1>{% translate "Clusters" %}</h1>\n<p>{% translate "Fresh" %}</p>\n',
    )
    _write(tmp_path / "static" / "page.js", 'const t = gettext("Replay");\n')
    po = tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES"
    _write(po / "djangojs.po", PO_HEADER + '\nmsgid "Replay"\nmsgstr "重放"\n')
    _write(po / "django.po", PO_HEADER + '\nmsgid "Clusters"\nmsgstr "集群"\n')

    out, err = _run(tmp_path, "--check", "--list")
    assert err is not None
    assert "translations: 3 strings, 1 untranslated, 0 fuzzy" in out
    assert "templates/page.html:2: untranslated in locale/zh_Hans/LC_MESSAGES/django.po" in out
    assert "'Fresh'" in out

    _write(
        po / "django.po",
        PO_HEADER + '\nmsgid "Clusters"\nmsgstr "集群"\n\n#, fuzzy\nmsgid "Fresh"\nmsgstr "新的"\n',
    )
    out, err = _run(tmp_path, "--check")
    assert err is not None
    assert out.strip() == "translations: 3 strings, 0 untranslated, 1 fuzzy"

    _write(
        po / "django.po",
        PO_HEADER + '\nmsgid "Clusters"\nmsgstr "集群"\n\nmsgid "Fresh"\nmsgstr "新的"\n',
    )
    out, err = _run(tmp_path, "--check")
    assert err is None
    assert out.strip() == "translations: 3 strings, 0 untranslated, 0 fuzzy"


def test_check_sees_every_literal_script_string_even_where_xgettext_loses_track(tmp_path):
    """xgettext reads the backtick of a regex literal after ")" as a template string opening and
    skips the strings after it; the check reads the module's gettext calls itself as well."""
    _write(
        tmp_path / "static" / "playground" / "classes" / "page.js",
        'import { gettext, pgettext } from "../i18n.js";\n'
        "if (ok) /`/.test(s);\n"
        'const a = gettext("Live");\n'
        'const b = pgettext("run status", "pending");\n'
        'const c = ngettext("%(n)s node", "%(n)s nodes", n);\n',
    )
    po = tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES"
    _write(po / "djangojs.po", PO_HEADER + '\nmsgid "Live"\nmsgstr "直播"\n')

    out, err = _run(tmp_path, "--check", "--list")
    assert err is not None
    assert "translations: 3 strings, 2 untranslated, 0 fuzzy" in out
    assert "static/playground/classes/page.js:4: untranslated" in out
    assert "'pending'" in out and "'%(n)s node'" in out


def test_check_leaves_the_tree_untouched(tmp_path):
    _write(tmp_path / "templates" / "page.html", '{% load i18n %}{% translate "Fresh" %}\n')
    _run(tmp_path, "--check")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "templates",
        "templates/page.html",
    ]


def test_committed_catalogs_are_complete():
    """Every string marked in the project has a translation in every language (0 and 0)."""
    out, err = _run(Path(__file__).resolve().parents[2], "--check", "--list")
    assert err is None, out
    assert out.strip().endswith(" 0 untranslated, 0 fuzzy")


def test_a_string_in_several_catalogs_reads_the_same_in_each():
    """The templates' catalog comes first for every string of the django domain, so a string
    translated twice shows one translation everywhere and the other nowhere; the scripts' catalog
    is apart. Either way a reader met two words for one thing: each string has one."""
    root = Path(__file__).resolve().parents[2]
    seen: dict[tuple[str, str | None, str], dict[str, str]] = {}
    for po in sorted(root.glob("*/locale/*/LC_MESSAGES/*.po")) + sorted(
        root.glob("locale/*/LC_MESSAGES/*.po")
    ):
        language = po.parts[-3]
        for entry in parse_po(po.read_text(encoding="utf-8")):
            if entry.obsolete or not entry.translated:
                continue
            said = seen.setdefault((language, entry.msgctxt, entry.msgid), {})
            said[str(po.relative_to(root))] = entry.msgstr[0]
    differ = {key: said for key, said in seen.items() if len(set(said.values())) > 1}
    assert len(seen) > 1000
    assert not differ, differ


@pytest.mark.django_db
def test_accept_language_chooses_and_the_switch_is_remembered(client):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert '<html lang="zh-hans">' in page.content.decode()
    assert "登录" in page.content.decode()

    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert '<html lang="en">' in page.content.decode()
    assert ">Log in<" in page.content.decode()


@pytest.mark.django_db
def test_javascript_catalog_is_served_in_the_active_language(client):
    script = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("text/javascript")
    assert "django.gettext" in script.content.decode()
