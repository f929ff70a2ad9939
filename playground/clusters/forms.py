"""Cluster forms: name and description, and the import of manifests (pasted or uploaded)."""

from __future__ import annotations

import zlib
from typing import Any, Final

from django import forms
from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from ..forms import textarea
from .services import too_big_message


class ClusterForm(forms.Form):
    name = forms.CharField(max_length=200, label=gettext_lazy("Name"))
    description = forms.CharField(
        required=False, widget=textarea(2), label=gettext_lazy("Description")
    )


GZIP_MAGIC: Final = b"\x1f\x8b"


def upload_text(upload: Any) -> tuple[str, bool]:
    """An uploaded file's text, unzipped if it is gzip; and whether it was.

    A gzip file may unzip to PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES, no more (read in steps, so a
    small file that unzips to gigabytes is refused without being unzipped whole).
    """
    raw = upload.read()
    zipped = raw[:2] == GZIP_MAGIC
    if zipped:
        limit = settings.PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = inflater.decompress(raw, limit + 1)
        except zlib.error as err:
            raise forms.ValidationError(
                gettext("%(file)s is not a valid gzip file: %(error)s")
                % {"file": upload.name, "error": err}
            ) from err
        if len(raw) > limit or inflater.unconsumed_tail:
            raise forms.ValidationError(
                gettext(
                    "%(file)s unzips to more than %(limit)s bytes; import it with "
                    "`python manage.py import_cluster FILE --name NAME`"
                )
                % {"file": upload.name, "limit": f"{limit:,}"}
            )
    try:
        return raw.decode("utf-8"), zipped
    except UnicodeDecodeError as err:
        raise forms.ValidationError(
            gettext("%(file)s is not UTF-8 text") % {"file": upload.name}
        ) from err


class ImportForm(forms.Form):
    manifests = forms.CharField(
        required=False,
        widget=textarea(14, "apiVersion: v1\nkind: Node\n..."),
        label=gettext_lazy("Paste YAML or JSON"),
        help_text=gettext_lazy(
            "one object, several documents separated by ---, a List, or kubectl get -o yaml"
        ),
    )
    file = forms.FileField(required=False, label=gettext_lazy("or upload a file"))

    def __init__(self, *args: Any, oversized: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.oversized = oversized or []

    def clean_file(self) -> Any:

        upload = self.cleaned_data.get("file")
        limit = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if self.oversized:
            raise forms.ValidationError(too_big_message(self.oversized[0], None, limit))
        if upload is not None and upload.size > limit:
            raise forms.ValidationError(too_big_message(upload.name, upload.size, limit))
        return upload

    def clean_manifests(self) -> str:
        text = self.cleaned_data.get("manifests") or ""
        limit = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if len(text.encode("utf-8")) > limit:
            raise forms.ValidationError(
                gettext("the pasted text is over the limit of %(limit)s bytes")
                % {"limit": f"{limit:,}"}
            )
        return text

    def _read_text(self, data: dict[str, Any], *, read_file: bool) -> None:
        """``text`` from the file (gzip or not) or the pasted manifests, and its size ``limit``."""
        upload = data.get("file")
        data["limit"] = settings.PLAYGROUND_IMPORT_MAX_BYTES
        if upload is not None and read_file:
            try:
                data["text"], zipped = upload_text(upload)
            except forms.ValidationError as err:
                self.add_error("file", err)
            else:
                if zipped:
                    data["limit"] = settings.PLAYGROUND_IMPORT_MAX_UNZIPPED_BYTES
        else:
            data["text"] = data.get("manifests") or ""

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        self._read_text(data, read_file=not self.errors)
        if not self.errors and not data["text"].strip():
            raise forms.ValidationError(gettext("paste some YAML or choose a file"))
        return data


class NewClusterForm(ClusterForm, ImportForm):
    """A cluster's name plus, optionally, manifests to start it with."""

    def clean(self) -> dict[str, Any]:
        data = forms.Form.clean(self)
        self._read_text(data, read_file="file" not in self.errors)
        return data
