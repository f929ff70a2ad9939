"""An upload handler that stops reading a file once it passes the import size cap."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile

SKIPPED_ATTR = "playground_oversized_uploads"


class CappedUploadHandler(FileUploadHandler):
    """Drop any file larger than PLAYGROUND_IMPORT_MAX_BYTES without buffering the rest.

    The names of dropped files are kept on the request so the form can say why the file is
    missing. Listed first in FILE_UPLOAD_HANDLERS; the standard handlers store what passes.
    """

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.received > settings.PLAYGROUND_IMPORT_MAX_BYTES:
            if self.request is not None:
                skipped = getattr(self.request, SKIPPED_ATTR, [])
                skipped.append(self.file_name)
                setattr(self.request, SKIPPED_ATTR, skipped)
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
