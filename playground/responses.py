"""HTTP responses shared by several features' views (downloads)."""

from __future__ import annotations

from django.http import HttpResponse


def yaml_response(text: str, filename: str) -> HttpResponse:
    """A YAML file download named ``filename``."""
    response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
