"""The compose stack's image (Dockerfile) carries what the pages need: every translation catalog,
compiled (the .mo files are build output, not in the repository)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_copies_and_compiles_every_translation_catalog():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    copied = {line.split()[1].rstrip("/") for line in lines if line.startswith("COPY ")}
    for catalog in settings.LOCALE_PATHS:
        top = Path(catalog).relative_to(ROOT).parts[0]
        assert top in copied, f"the image leaves out {top}/ (translation catalog {catalog})"
    text = "\n".join(lines)
    assert "gettext" in text and "manage.py compilemessages" in text
    assert text.index("manage.py compilemessages") > text.index("COPY locale")
