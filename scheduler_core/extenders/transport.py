"""The HTTP(S) opener of an HTTP extender: restclient.TLSConfigFor as far as ssl allows.

Mirrors the transport that pkg/scheduler/extender.go builds in kube-scheduler v1.35.
"""

from __future__ import annotations

import base64
import binascii
import http.client
import ipaddress
import os
import socket
import ssl
import tempfile
import urllib.request
from collections.abc import Mapping
from typing import Any

from scheduler_core.config import Extender
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.extenders.policy import (
    TLS_FILE_FIELDS,
    ExtenderPolicy,
    checked_address,
)


class TLSConfigError(SchedulerCoreError):
    """The extender's tlsConfig cannot be used."""


def build_opener(config: Extender, policy: ExtenderPolicy) -> urllib.request.OpenerDirector:
    """An opener for http and https only, following no redirects, checking each connection.

    Unlike urllib's default opener it has no file, ftp or data handler and no redirect handler:
    a 3xx reply is an HTTPError like any other status that is not 2xx.
    """
    context = _ssl_context(config, policy)
    server_name = str((config.tls_config or {}).get("serverName") or "")
    opener = urllib.request.OpenerDirector()
    for handler in (
        _LoopbackBypassProxyHandler(),
        _HTTPHandler(policy),
        _HTTPSHandler(context, server_name, policy),
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


def _ssl_context(config: Extender, policy: ExtenderPolicy) -> ssl.SSLContext:
    tls: Mapping[str, Any] = config.tls_config or {}
    if not policy.allow_tls_files:
        for key in TLS_FILE_FIELDS:
            if tls.get(key):
                raise TLSConfigError(f"tlsConfig.{key}: files on the server cannot be named")
    insecure = bool(tls.get("insecure"))
    ca_file = str(tls.get("caFile") or "")
    ca_data = _b64(tls.get("caData"), "caData")
    cert_file = str(tls.get("certFile") or "")
    key_file = str(tls.get("keyFile") or "")
    cert_data = _b64(tls.get("certData"), "certData")
    key_data = _b64(tls.get("keyData"), "keyData")
    has_ca = bool(ca_file or ca_data)
    if config.enable_https and not has_ca:
        insecure = True
    if insecure and has_ca:
        raise TLSConfigError(
            "specifying a root certificates file with the insecure flag is not allowed"
        )
    context = ssl.create_default_context()
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        if ca_file:
            context.load_verify_locations(cafile=ca_file)
        elif ca_data:
            context.load_verify_locations(cadata=ca_data.decode("utf-8"))
        if cert_file or key_file:
            if not (cert_file and key_file):
                raise TLSConfigError("tls: certFile and keyFile must be given together")
            context.load_cert_chain(cert_file, key_file)
        elif cert_data or key_data:
            if not (cert_data and key_data):
                raise TLSConfigError("tls: certData and keyData must be given together")
            _load_cert_data(context, cert_data, key_data)
    except (OSError, ssl.SSLError, UnicodeDecodeError) as exc:
        raise TLSConfigError(f"extender TLS configuration: {exc}") from exc
    return context


def _b64(value: Any, name: str) -> bytes:
    """A []byte field of the TLS config: base64 in the JSON/YAML form; bytes taken as they are."""
    if not value:
        return b""
    if isinstance(value, bytes):
        return value
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise TLSConfigError(f"tlsConfig.{name}: illegal base64 data") from exc


def _load_cert_data(context: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """ssl loads client certificates from files only: write them to a private temp dir."""
    with tempfile.TemporaryDirectory(prefix="extender-tls-") as tmp:
        cert_path = os.path.join(tmp, "cert.pem")
        key_path = os.path.join(tmp, "key.pem")
        for path, data in ((cert_path, cert), (key_path, key)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        context.load_cert_chain(cert_path, key_path)


class _LoopbackBypassProxyHandler(urllib.request.ProxyHandler):
    """Proxies from the environment, never for loopback hosts (as Go's ProxyFromEnvironment)."""

    def proxy_open(self, req: urllib.request.Request, proxy: str, type: str) -> Any:  # noqa: A002
        host = (req.host or "").rsplit(":", 1)[0].strip("[]") if req.host else ""
        if host == "localhost" or host.endswith(".localhost") or _is_loopback(host):
            return None
        return super().proxy_open(req, proxy, type)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _proxied(req: urllib.request.Request) -> bool:
    return req.has_proxy() or bool(getattr(req, "_tunnel_host", None))


def _guard(conn: http.client.HTTPConnection, policy: ExtenderPolicy) -> None:
    """Make ``conn`` resolve its host through the policy and connect to the address checked.

    Connecting to the very address that was checked means a name cannot resolve to a public
    address for the check and to a private one for the connection.
    """

    def create_connection(
        address: tuple[str, int], timeout: Any = None, source: Any = None
    ) -> socket.socket:
        host, port = address
        return socket.create_connection(
            (checked_address(host, port, policy), port), timeout, source
        )

    conn._create_connection = create_connection  # type: ignore[attr-defined]


class _HTTPHandler(urllib.request.HTTPHandler):
    """Plain HTTP whose direct connections go only where the policy allows."""

    def __init__(self, policy: ExtenderPolicy) -> None:
        super().__init__()
        self._policy = policy

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        if _proxied(req):  # the target was checked before the request; the proxy is the operator's
            return super().http_open(req)
        policy = self._policy

        class _Connection(http.client.HTTPConnection):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                _guard(self, policy)

        return self.do_open(_Connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    """HTTPS with our context and, when tlsConfig.serverName is set, that name for SNI/verify."""

    def __init__(self, context: ssl.SSLContext, server_name: str, policy: ExtenderPolicy) -> None:
        super().__init__(context=context)
        self._context = context
        self._server_name = server_name
        self._policy = policy

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        server_name = self._server_name
        context = self._context
        policy = None if _proxied(req) else self._policy

        class _Connection(http.client.HTTPSConnection):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                if policy is not None:
                    _guard(self, policy)

            def connect(self) -> None:
                if not server_name:
                    super().connect()
                    return
                http.client.HTTPConnection.connect(self)
                self.sock = context.wrap_socket(self.sock, server_hostname=server_name)

        return self.do_open(_Connection, req, context=context)
