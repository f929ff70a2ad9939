"""The extender host policy: refused when a configuration is validated and again at each call."""

from __future__ import annotations

import time
from typing import Any

import pytest
from extender_server import LOCAL_POLICY, ExtenderServer

from scheduler_core.config import Extender
from scheduler_core.extenders.extender import (
    ExtenderError,
    HTTPExtender,
)
from scheduler_core.extenders.policy import (
    ExtenderPolicy,
    ExtenderPolicyError,
    check_url,
    checked_address,
    config_problems,
    excerpt,
)
from scheduler_core.framework.types import NodeInfo
from scheduler_core.objects.api import (
    Node,
    Pod,
)

FORBIDDEN = [
    pytest.param("http://127.0.0.1:8080/x", "loopback", id="loopback"),
    pytest.param("http://10.0.0.1/x", "private", id="private-10"),
    pytest.param("http://192.168.1.5/x", "private", id="private-192"),
    pytest.param("http://169.254.169.254/latest", "link-local", id="cloud-metadata"),
    pytest.param("http://[::1]:80/x", "loopback", id="ipv6-loopback"),
    pytest.param("http://[::ffff:10.0.0.1]/x", "not in the extender allow-list", id="v4-mapped"),
    pytest.param("http://0.0.0.0/x", "not in the extender allow-list", id="unspecified"),
    pytest.param("http://localhost:9000/x", "server itself", id="localhost-name"),
    pytest.param("file:///etc/passwd", "scheme 'file' is not allowed", id="file-scheme"),
    pytest.param("ftp://example.com/x", "scheme 'ftp' is not allowed", id="ftp-scheme"),
    pytest.param("gopher://1.2.3.4/x", "scheme 'gopher' is not allowed", id="gopher"),
    pytest.param("http://user:pw@93.184.216.34/x", "credentials", id="userinfo"),
    pytest.param("http:///x", "no host", id="no-host"),
]


def _pod() -> Pod:
    return Pod({"metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": []}})


def _nodes() -> list[NodeInfo]:
    return [NodeInfo(Node({"metadata": {"name": "n1"}, "status": {}}))]


def _no_dns(host: str, port: int) -> list[str]:
    raise AssertionError("an address literal must not be looked up")


@pytest.mark.parametrize(("url", "why"), FORBIDDEN)
def test_forbidden_url_is_refused_at_validation(url: str, why: str) -> None:
    errs = config_problems([Extender(url_prefix=url, filter_verb="filter")], ExtenderPolicy())
    assert [e.path for e in errs] == ["extenders[0].urlPrefix"]
    assert why in errs[0].message and errs[0].message.startswith("Forbidden: ")


@pytest.mark.parametrize(("url", "why"), FORBIDDEN)
def test_forbidden_url_is_refused_at_run_time_without_a_connection(url: str, why: str) -> None:
    ext = HTTPExtender(Extender(url_prefix=url, filter_verb="filter"))
    with pytest.raises(ExtenderError, match=why):
        ext.filter(_pod(), _nodes())


def test_public_address_passes_and_is_not_looked_up() -> None:
    assert check_url("https://93.184.216.34:8443/s", ExtenderPolicy(), _no_dns) == "93.184.216.34"


def test_name_resolving_to_a_private_address_is_refused() -> None:
    def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.1.2.3"]  # one bad address is enough

    with pytest.raises(ExtenderPolicyError, match=r"ext\.example \(10\.1\.2\.3\) is a private"):
        checked_address("ext.example", 80, ExtenderPolicy(), resolve)


def test_name_resolving_to_a_private_address_is_refused_at_validation() -> None:
    errs = config_problems(
        [Extender(url_prefix="http://ext.example/s")],
        ExtenderPolicy(),
        resolve=lambda host, port: ["172.16.0.9"],
    )
    assert [e.path for e in errs] == ["extenders[0].urlPrefix"]


@pytest.mark.parametrize(
    "allowed",
    [
        pytest.param(("ext.internal",), id="by-name"),
        pytest.param(("ext.internal:8888",), id="by-name-and-port"),
        pytest.param(("10.0.0.0/8",), id="by-network"),
    ],
)
def test_allow_listed_host_may_be_private(allowed: tuple[str, ...]) -> None:
    policy = ExtenderPolicy(allowed_hosts=allowed)
    got = checked_address("ext.internal", 8888, policy, lambda host, port: ["10.9.8.7"])
    assert got == "10.9.8.7"


def test_allow_list_by_port_does_not_open_other_ports() -> None:
    policy = ExtenderPolicy(allowed_hosts=("127.0.0.1:8888",))
    assert checked_address("127.0.0.1", 8888, policy) == "127.0.0.1"
    with pytest.raises(ExtenderPolicyError, match="loopback"):
        checked_address("127.0.0.1", 6379, policy)


def test_redirect_is_not_followed() -> None:
    with ExtenderServer() as target, ExtenderServer(redirect_to=target.url + "/filter") as srv:
        ext = HTTPExtender(Extender(url_prefix=srv.url, filter_verb="filter"), policy=LOCAL_POLICY)
        with pytest.raises(ExtenderError, match="code 307: redirects are not followed"):
            ext.filter(_pod(), _nodes())
        assert srv.verbs() == ["redirect"]
        assert target.requests == []


def test_loopback_test_server_is_refused_without_the_allow_list() -> None:
    with ExtenderServer() as srv:
        ext = HTTPExtender(Extender(url_prefix=srv.url, filter_verb="filter"))
        with pytest.raises(ExtenderError, match="loopback address and is not in the extender"):
            ext.filter(_pod(), _nodes())
        assert srv.requests == []


def test_timeout_is_capped_and_validation_names_the_field() -> None:
    policy = ExtenderPolicy(max_timeout_seconds=10)
    cfg = Extender(url_prefix="http://93.184.216.34", http_timeout_seconds=87600 * 3600.0)
    assert HTTPExtender(cfg, policy=policy).timeout == 10
    errs = config_problems([cfg], policy, resolve=_no_dns)
    assert [e.path for e in errs] == ["extenders[0].httpTimeout"]
    assert "must be at most 10s" in errs[0].message


@pytest.mark.parametrize("key", ["caFile", "certFile", "keyFile"])
def test_tls_files_are_refused_from_user_configurations(key: str) -> None:
    cfg = Extender(url_prefix="https://93.184.216.34", tls_config={key: "/etc/passwd"})
    errs = config_problems([cfg], ExtenderPolicy(), resolve=_no_dns)
    assert [e.path for e in errs] == [f"extenders[0].tlsConfig.{key}"]
    with pytest.raises(ExtenderError, match=f"tlsConfig.{key}: files on the server"):
        HTTPExtender(cfg)


def test_reply_larger_than_the_cap_is_an_error() -> None:
    policy = ExtenderPolicy(allowed_hosts=("127.0.0.1",), max_reply_bytes=1000)
    big: dict[str, Any] = {"NodeNames": ["n1"], "Error": "", "Padding": "x" * 5000}
    with ExtenderServer(override=lambda verb, body: big) as srv:
        ext = HTTPExtender(
            Extender(url_prefix=srv.url, filter_verb="filter", node_cache_capable=True),
            policy=policy,
        )
        with pytest.raises(ExtenderError, match="larger than 1000 bytes"):
            ext.filter(_pod(), _nodes())


def test_remote_error_text_is_shown_as_a_short_escaped_excerpt() -> None:
    long_error = "<script>\x1b[31m" + "A" * 5000
    with ExtenderServer(filter_error=long_error) as srv:
        ext = HTTPExtender(Extender(url_prefix=srv.url, filter_verb="filter"), policy=LOCAL_POLICY)
        with pytest.raises(ExtenderError) as info:
            ext.filter(_pod(), _nodes())
    message = str(info.value)
    assert len(message) < 260 and "\x1b" not in message and "\\x1b" in message
    assert message.endswith("(5013 characters)")
    assert excerpt("short") == "short"


def test_policy_refusal_is_fast() -> None:
    ext = HTTPExtender(Extender(url_prefix="http://169.254.169.254/x", filter_verb="filter"))
    started = time.monotonic()
    with pytest.raises(ExtenderError):
        ext.filter(_pod(), _nodes())
    assert time.monotonic() - started < 0.1
