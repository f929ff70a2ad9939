"""Run references in URLs: the run's id with a signature, so that ids cannot be guessed.

``/runs/12.4f0c.../`` instead of ``/runs/12/``: the ``runref`` path converter checks the
signature (an HMAC of the id under SECRET_KEY) and hands the view the plain id, so views,
reverse() and templates keep working with ``run.pk``. A reference with a wrong signature does
not match the route at all: a 404, the same as a run that does not exist.
"""

from __future__ import annotations

import hmac
import re
from typing import Final

from django.urls import register_converter
from django.utils.crypto import salted_hmac

_SALT: Final = "playground.runs.refs"
_SIGNATURE_CHARS: Final = 20
_REF: Final = re.compile(r"^([0-9]+)\.([0-9a-f]{20})$")


def _signature(run_id: int) -> str:
    return salted_hmac(_SALT, str(run_id), algorithm="sha256").hexdigest()[:_SIGNATURE_CHARS]


def run_ref(run_id: int) -> str:
    """The reference of a run for URLs: ``<id>.<signature>``."""
    return f"{int(run_id)}.{_signature(int(run_id))}"


def run_id_from_ref(ref: str) -> int | None:
    """The id a reference names, or None when it is malformed or its signature is wrong."""
    match = _REF.match(ref)
    if match is None:
        return None
    run_id = int(match.group(1))
    if not hmac.compare_digest(match.group(2), _signature(run_id)):
        return None
    return run_id


class RunRefConverter:
    """``<runref:pk>``: a signed reference in the URL, the run's id in the view."""

    regex = r"[0-9]+\.[0-9a-f]{20}"

    def to_python(self, value: str) -> int:
        run_id = run_id_from_ref(value)
        if run_id is None:
            raise ValueError("bad run reference")
        return run_id

    def to_url(self, value: int | str) -> str:
        return run_ref(int(value))


register_converter(RunRefConverter, "runref")  # once per process, for URLs and websocket routes
