"""gzip for JSON responses only.

A class of 200 students fetches each step's run JSON (30 KB and more a cycle) at once; gzip
makes it a few KB. HTML pages stay uncompressed: they carry the CSRF token, which compressing a
page that also reflects input would expose (BREACH); no JSON response carries a token or a
session secret. Static files are compressed ahead of time by WhiteNoise (config.static).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class JsonGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (Accept-Encoding, Vary, ETag, streaming handled there), for
    ``application/json`` responses alone."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if not response.get("Content-Type", "").startswith("application/json"):
            return response
        return super().process_response(request, response)
