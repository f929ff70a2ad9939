"""Where HTTP extenders may be reached from: the host policy applied to every extender call.

Not part of kube-scheduler, whose operator writes the configuration. A playground runs
configurations written by its users, so an extender URL must not become a way into the server's
own network (SSRF): only http and https, no redirects, no host that resolves to a loopback,
private, link-local or otherwise non-public address unless that host is allow-listed, TLS
material inline only, a bounded timeout and a bounded reply. The same policy is checked when a
configuration is validated (``config_problems``) and again at each connection (``checked_address``)
so that a name that later resolves elsewhere is still refused.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from scheduler_core.config.types import Extender, FieldError
from scheduler_core.errors import SchedulerCoreError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

ALLOWED_SCHEMES: Final = ("http", "https")
TLS_FILE_FIELDS: Final = ("caFile", "certFile", "keyFile")
EXCERPT_CHARS: Final = 200


class ExtenderPolicyError(SchedulerCoreError):
    """An extender URL or setting that the host policy refuses."""


class ExtenderBudgetExceeded(Exception):
    """A run's extender calls took longer in all than its ``ExtenderBudget``.

    Not a SchedulerCoreError on purpose: the scheduler takes those for one extender's failure in
    one cycle and goes on; this one must end the run.
    """


class ExtenderBudget:
    """The wall-clock time one run's extender calls may take in all (a playground's guard; the
    upstream scheduler has none). The decisions do not depend on it: it only stops a run."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spent = 0.0
        self.calls = 0

    def charge(self, url: str, seconds: float, *, timeout: float | None) -> None:
        """Count one call to ``url`` that took ``seconds`` (``timeout``: it timed out after
        that many); raises ExtenderBudgetExceeded once the run's calls took more than allowed."""
        self.spent += seconds
        self.calls += 1
        if self.spent <= self.seconds:
            return
        total = (
            f"{self.spent:.1f} s in all, more than a run's extender budget of {self.seconds:g} s"
        )
        if timeout is not None:
            raise ExtenderBudgetExceeded(
                f"the extender at {url} did not answer within {timeout:g} s in {self.calls} "
                f"calls ({total})"
            )
        raise ExtenderBudgetExceeded(
            f"the extenders took {total} ({self.calls} calls; the last to {url})"
        )


@dataclass(frozen=True, slots=True)
class ExtenderPolicy:
    """What extenders may reach.

    ``allowed_hosts`` lists host names (``extender.internal``), ``host:port`` pairs, addresses
    or networks (``10.1.0.0/16``) that may be reached even though they are not public. Public
    addresses are always allowed. ``allow_tls_files`` lets tlsConfig name files on the server
    (an operator's own configuration; never a user's). ``budget`` bounds the time a run's
    extender calls take in all.
    """

    allowed_hosts: tuple[str, ...] = ()
    max_timeout_seconds: float = 10.0
    max_reply_bytes: int = 4 * 1024 * 1024
    allow_tls_files: bool = False
    # One per run (a fresh policy for each run): the time its extender calls may take in all.
    budget: ExtenderBudget | None = field(default=None, compare=False)

    def host_allowed(self, host: str, port: int) -> bool:
        """Whether ``host`` (as written in the URL) is allow-listed by name or address."""
        host = host.lower().rstrip(".")
        for entry in self.allowed_hosts:
            entry = entry.strip().lower()
            if entry in (host, f"{host}:{port}", f"[{host}]:{port}"):
                return True
        return False

    def address_allowed(self, address: IPAddress) -> bool:
        """Whether a resolved address may be reached: public, or inside an allow-listed network.

        An IPv6 address that carries an IPv4 one (mapped, compatible, translated, NAT64, 6to4,
        Teredo) is judged by what it carries: each IPv4 address in it must pass.
        """
        carried = embedded_ipv4(address) if isinstance(address, ipaddress.IPv6Address) else ()
        if carried:
            return all(self.address_allowed(inner) for inner in carried)
        for entry in self.allowed_hosts:
            try:
                network = ipaddress.ip_network(entry.strip(), strict=False)
            except ValueError:
                continue
            if address.version == network.version and address in network:
                return True
        return _is_public(address)

    def timeout(self, configured: float, default: float) -> float:
        """The timeout to use: the configured one (or ``default``), capped by the policy."""
        return min(configured or default, self.max_timeout_seconds)


def split_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an extender URL; raises ExtenderPolicyError when it has none."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ExtenderPolicyError(f"not a valid URL: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f"{scheme!r}" if scheme else "none"
        raise ExtenderPolicyError(f"scheme {shown} is not allowed; use http or https")
    if not parts.hostname:
        raise ExtenderPolicyError("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise ExtenderPolicyError("credentials in the URL are not allowed")
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80)


def checked_address(
    host: str, port: int, policy: ExtenderPolicy, resolve: Resolver | None = None
) -> str:
    """Resolve ``host`` and return the first address to connect to; refuse a forbidden one.

    Every address the name resolves to must pass, so that a name with one public and one
    private address cannot be used to reach the private one.
    """
    if policy.host_allowed(host, port):
        addresses = _lookup(host, port, resolve)
        if not addresses:
            raise ExtenderPolicyError(f"host {host} does not resolve")
        return addresses[0]
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        raise ExtenderPolicyError(f"host {host} is the server itself {_HINT}")
    addresses = _lookup(host, port, resolve)
    if not addresses:
        raise ExtenderPolicyError(f"host {host} does not resolve")
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if not policy.address_allowed(address):
            shown = host if host == text else f"{host} ({text})"
            raise ExtenderPolicyError(f"host {shown} is {_describe(address)} {_HINT}")
    return addresses[0]


def check_url(url: str, policy: ExtenderPolicy, resolve: Resolver | None = None) -> str:
    """Check an extender URL against the policy; returns the address to connect to."""
    _, host, port = split_url(url)
    return checked_address(host, port, policy, resolve)


def config_problems(
    extenders: Sequence[Extender],
    policy: ExtenderPolicy,
    *,
    resolve: Resolver | None = None,
) -> list[FieldError]:
    """Every policy problem of the configured extenders, each with its field path.

    A host name that does not resolve now is not refused here (it may exist where the run
    happens); it is checked again at every connection.
    """
    errs: list[FieldError] = []
    for i, ext in enumerate(extenders):
        path = f"extenders[{i}]"
        try:
            _, host, port = split_url(ext.url_prefix)
        except ExtenderPolicyError as exc:
            errs.append(FieldError(f"{path}.urlPrefix", f"Forbidden: {exc}"))
        else:
            try:
                checked_address(host, port, policy, resolve or _resolve_or_nothing)
            except ExtenderPolicyError as exc:
                if "does not resolve" not in str(exc):
                    errs.append(FieldError(f"{path}.urlPrefix", f"Forbidden: {exc}"))
        if ext.http_timeout_seconds > policy.max_timeout_seconds:
            errs.append(
                FieldError(
                    f"{path}.httpTimeout",
                    f"Invalid value: {ext.http_timeout_seconds:g}s: must be at most "
                    f"{policy.max_timeout_seconds:g}s",
                )
            )
        if not policy.allow_tls_files:
            for key in TLS_FILE_FIELDS:
                if (ext.tls_config or {}).get(key):
                    errs.append(
                        FieldError(
                            f"{path}.tlsConfig.{key}",
                            "Forbidden: files on the server cannot be named; give the PEM "
                            f"data base64-encoded in {key.replace('File', 'Data')}",
                        )
                    )
    return errs


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A remote party's text as shown to users: control characters escaped, at most ``limit``."""
    escaped = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )
    if len(escaped) > limit:
        return escaped[:limit] + f"… ({len(text)} characters)"
    return escaped


_HINT: Final = "and is not in the extender allow-list"


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: IPv4-compatible (::/96, RFC
# 4291, deprecated), IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96, RFC 2765)
# and the well-known NAT64 prefix (64:ff9b::/96, RFC 6052).
_LAST_32_BITS: Final = tuple(
    ipaddress.IPv6Network(net)
    for net in ("::/96", "::ffff:0:0/96", "::ffff:0:0:0/96", "64:ff9b::/96")
)
# Prefixes never reachable from here whatever they carry: NAT64 for local use (RFC 8215; where
# the IPv4 address sits depends on the operator's prefix length) and site-local (fec0::/10,
# deprecated but still routed by some stacks).
_NEVER: Final = tuple(ipaddress.IPv6Network(net) for net in ("64:ff9b:1::/48", "fec0::/10"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries (none for a plain IPv6 address).

    ``::`` and ``::1`` are themselves (unspecified, loopback), not IPv4 ``0.0.0.0``/``0.0.0.1``.
    Teredo (2001::/32) carries two: its server and its (obfuscated) client.
    """
    if address in (ipaddress.IPv6Address("::"), ipaddress.IPv6Address("::1")):
        return ()
    for net in _LAST_32_BITS:
        if address in net:
            return (ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF),)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        return address.teredo
    return ()


def _is_public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded_ipv4(address)
        if carried:
            return all(_is_public(inner) for inner in carried)
        if any(address in net for net in _NEVER) or address.is_reserved:
            return False
    return (
        address.is_global
        and not address.is_multicast
        and not address.is_private
        and not address.is_link_local
        and not address.is_loopback
        and not address.is_unspecified
    )


def _describe(address: IPAddress) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        carried = embedded_ipv4(address)
        if carried:
            inner = next((a for a in carried if not _is_public(a)), carried[0])
            return f"{_describe(inner)} (IPv4 {inner} inside IPv6)"
        if address in _NEVER[1]:
            return "a site-local address"
        if address in _NEVER[0]:
            return "a local-use NAT64 address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_private:
        return "a private address"
    return "not a public address"


def _lookup(host: str, port: int, resolve: Resolver | None) -> list[str]:
    """An address literal is itself; a name is resolved."""
    try:
        return [str(ipaddress.ip_address(host.split("%", 1)[0]))]
    except ValueError:
        return (resolve or _resolve)(host, port)


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ExtenderPolicyError(f"host {host} does not resolve: {exc}") from exc
    seen: dict[str, None] = {}
    for info in infos:
        seen.setdefault(str(info[4][0]), None)
    return list(seen)


def _resolve_or_nothing(host: str, port: int) -> list[str]:
    try:
        return _resolve(host, port)
    except ExtenderPolicyError:
        return []
