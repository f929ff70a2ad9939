"""Sentences the run worker stores in English, shown in the reader's language.

The worker (an in-process thread or a Celery worker) has no visitor and so no language: it
stores its sentence in English as before (``Run.error_message``, ``summary["note"]``,
``summary["waiting"]``: tests, the CLI and logs read them) and, beside it, the sentence's msgid
and parameters in ``summary["said"]`` (``{"error": ..., "note": ..., "waiting": ...}``). A page,
a JSON answer or a websocket frame shows ``shown(...)``: the msgid translated in the reader's
language with its parameters, or the stored text when there is no structured form (a run from
before) or it no longer matches the text. A parameter may itself be a sentence (translated in
turn); the engine's own Error text is a plain parameter and stays in English, as kubectl shows it.

A msgid is marked with ``gettext_noop`` where it is written, so ``makemessages`` extracts it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from django.utils.translation import gettext, pgettext

SAID: Final = "said"  # the key of Run.summary that keeps the structured sentences


class Said(str):
    """An English sentence (a ``str``, as the callers always had) that keeps its msgid and
    parameters (``data``), or several sentences joined with "; " (``Said.joined``)."""

    data: dict[str, Any]

    def __new__(cls, msgid: str, **params: Any) -> Said:
        text = msgid % {k: str(v) for k, v in params.items()}
        said = super().__new__(cls, text)
        said.data = {"msgid": msgid, "params": {k: _data(v) for k, v in params.items()}}
        return said

    @classmethod
    def joined(cls, parts: Iterable[str]) -> Said:
        parts = list(parts)
        said = super().__new__(cls, "; ".join(parts))
        said.data = {"parts": [_data(p) for p in parts]}
        return said


def data_of(text: str) -> dict[str, Any] | None:
    """The structured form of a sentence (None for a plain string)."""
    return text.data if isinstance(text, Said) else None


def with_said(summary: Mapping[str, Any] | None, **texts: str) -> dict[str, Any]:
    """``summary`` with the structured forms of ``texts`` kept under ``said`` (a plain string
    drops an older structured form of the same name)."""
    out = dict(summary or {})
    said = dict(out.get(SAID) or {})
    for name, text in texts.items():
        data = data_of(text)
        if data is None:
            said.pop(name, None)
        else:
            said[name] = data
    if said:
        out[SAID] = said
    else:
        out.pop(SAID, None)
    return out


def render(data: Any, *, translate: bool = True) -> str | None:
    """The sentence ``data`` describes, in the active language (English without ``translate``);
    None when ``data`` is not such a form."""
    if not isinstance(data, dict):
        return None
    if "parts" in data:
        parts = [render(p, translate=translate) for p in data["parts"] or []]
        if not parts or any(p is None for p in parts):
            return None
        sep = pgettext("between sentences", "; ") if translate else "; "
        return sep.join(p for p in parts if p is not None)
    msgid, params = data.get("msgid"), data.get("params") or {}
    if not isinstance(msgid, str) or not isinstance(params, dict):
        return None
    values = {}
    for key, value in params.items():
        if isinstance(value, dict):
            value = render(value, translate=translate)
            if value is None:
                return None
        values[key] = value
    try:
        return (gettext(msgid) if translate else msgid) % values
    except (KeyError, TypeError, ValueError):
        return None


def shown(text: str, data: Any) -> str:
    """``text`` in the active language: ``data`` translated when it is the structured form of
    exactly this text, else ``text`` as stored."""
    if not text or render(data, translate=False) != text:
        return text
    return render(data) or text


def run_text(run: Any, name: str) -> str:
    """A run's stored sentence ``name`` ("error", "note" or "waiting") in the active language.

    Why a run waits is said only while it does (pending): a run that started, finished or was
    cancelled keeps the last reason in its summary, no longer true."""
    if name == "waiting" and run.status != "pending":
        return ""
    summary = run.summary or {}
    text = run.error_message if name == "error" else summary.get(name) or ""
    return shown(text, (summary.get(SAID) or {}).get(name))


def envelope_shown(envelope: dict[str, Any]) -> dict[str, Any]:
    """A ``finished`` envelope with its error and note in the active language (its structured
    forms, ``said``, dropped: they were for this)."""
    said = envelope.get(SAID) or {}
    out = {k: v for k, v in envelope.items() if k != SAID}
    if out.get("error"):
        out["error"] = shown(out["error"], said.get("error"))
    summary = out.get("summary")
    if isinstance(summary, dict) and summary.get("note"):
        out["summary"] = {**summary, "note": shown(summary["note"], said.get("note"))}
    return out


def _data(value: Any) -> Any:
    return value.data if isinstance(value, Said) else value
