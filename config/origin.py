"""Who may open a websocket, and who is served while DEBUG is on (used by config/asgi.py).

``SameOriginValidator``: a websocket's Origin must be the page's own origin, scheme, host and
port all equal, as Django's CSRF check demands of a form post: ``http://localhost:8000`` may
connect to ``ws://localhost:8000``, not ``https://localhost:8000``, ``http://localhost:8001`` or
``http://evil.example``. The host must also be in ALLOWED_HOSTS; an origin in
CSRF_TRUSTED_ORIGINS is accepted as it is for forms. The connection is secure when the scope
says so or, behind a TLS-terminating proxy (``DJANGO_HTTPS=1``), when the proxy's header does.

``LoopbackOnlyWhileDebug``: DEBUG's error pages show settings and source, so while it is on
(however it was switched on: ``DJANGO_DEBUG``, ``serve --debug``, a settings module) a request
from any address but this machine's is refused, whichever server serves the application.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

Scope = dict[str, Any]
DEFAULT_PORTS = {"http": 80, "https": 443}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            try:
                return str(value.decode("latin-1"))
            except (UnicodeDecodeError, AttributeError):
                return None
    return None


def _secure(scope: Scope) -> bool:
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not proxy:
        return False
    name, expected = proxy
    meta_name = name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin-1")
    value = _header(scope, meta_name)
    return value is not None and value.split(",", 1)[0].strip() == expected


def _origin_parts(text: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin, ports made explicit; None when it is no origin."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def origin_allowed(scope: Scope) -> bool:
    """Whether the websocket's Origin is the origin of the page that may open it."""
    origin = _header(scope, b"origin")
    host_header = _header(scope, b"host")
    if origin is None or host_header is None:
        return False
    given = _origin_parts(origin)
    if given is None:
        return False
    trusted = {_origin_parts(o) for o in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])}
    if given in trusted:
        return True
    host, port_text = split_domain_port(host_header)
    if not host or not validate_host(host, settings.ALLOWED_HOSTS):
        return False
    scheme = "https" if _secure(scope) else "http"
    try:
        port = int(port_text) if port_text else DEFAULT_PORTS[scheme]
    except ValueError:
        return False
    return given == (scheme, host.strip("[]"), port)


class SameOriginValidator:
    """Websockets whose Origin is not the page's own (scheme, host, port) are refused."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def _loopback(client: Any) -> bool:
    if not client:  # a Unix socket: this machine
        return True
    try:
        return ipaddress.ip_address(str(client[0]).split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class LoopbackOnlyWhileDebug:
    """While DEBUG is on, only this machine is served: others get 403 (a websocket, refused)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        web = scope["type"] in ("http", "websocket")
        if web and settings.DEBUG and not _loopback(scope.get("client")):
            if scope["type"] == "websocket":
                return await WebsocketDenier()(scope, receive, send)
            return await _forbidden(send)
        return await self.application(scope, receive, send)


async def _forbidden(send: Any) -> None:
    body = b"DEBUG is on: this server answers this machine only.\n"
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": body})
