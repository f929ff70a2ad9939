"""The extender host policy on IPv6: an address that carries an IPv4 one is judged by it, and the
non-public IPv6 ranges are refused, whether written in the URL or resolved from a name."""

from __future__ import annotations

import ipaddress

import pytest

from scheduler_core.extenders.policy import (
    ExtenderPolicy,
    ExtenderPolicyError,
    check_url,
    checked_address,
    embedded_ipv4,
)

# (address, what the refusal says)
REFUSED = [
    pytest.param("::ffff:127.0.0.1", "loopback address (IPv4 127.0.0.1", id="v4-mapped-loopback"),
    pytest.param("::ffff:10.0.0.1", "private address (IPv4 10.0.0.1", id="v4-mapped-private"),
    pytest.param("::127.0.0.1", "loopback address (IPv4 127.0.0.1", id="v4-compatible"),
    pytest.param("::a9fe:a9fe", "link-local address (IPv4 169.254.169.254", id="v4-compat-hex"),
    pytest.param("::ffff:0:7f00:1", "loopback address (IPv4 127.0.0.1", id="v4-translated"),
    pytest.param("::ffff:0:a00:1", "private address (IPv4 10.0.0.1", id="v4-translated-10"),
    pytest.param("64:ff9b::7f00:1", "loopback address (IPv4 127.0.0.1", id="nat64"),
    pytest.param("64:ff9b::a9fe:a9fe", "link-local address (IPv4 169.254", id="nat64-metadata"),
    pytest.param("64:ff9b:1::5db8:d822", "local-use NAT64", id="nat64-local-use"),
    pytest.param("2002:7f00:1::1", "loopback address (IPv4 127.0.0.1", id="6to4-loopback"),
    pytest.param("2002:c0a8:101::1", "private address (IPv4 192.168.1.1", id="6to4-private"),
    # Teredo: server 65.54.227.120, client 127.0.0.1 (stored inverted: ~127.0.0.1).
    pytest.param("2001:0:4136:e378:0:0:80ff:fffe", "(IPv4 127.0.0.1", id="teredo-client"),
    pytest.param("2001:0:a00:1:0:0:a2b6:8e01", "(IPv4 10.0.0.1", id="teredo-server"),
    pytest.param("fec0::1", "site-local address", id="site-local"),
    pytest.param("feff::1", "site-local address", id="site-local-top"),
    pytest.param("fc00::1", "private address", id="unique-local-fc"),
    pytest.param("fd12:3456::1", "private address", id="unique-local-fd"),
    pytest.param("fe80::1", "link-local address", id="link-local"),
    pytest.param("ff02::1", "multicast address", id="multicast-link"),
    pytest.param("ff0e::1", "multicast address", id="multicast-global"),
    pytest.param("::", "unspecified address", id="unspecified"),
    pytest.param("::1", "loopback address", id="loopback"),
    pytest.param("100::1", "private address", id="discard"),
    pytest.param("2001:db8::1", "private address", id="documentation"),
]

# Public IPv4 93.184.216.34 in each IPv6 form, and a plain public IPv6 address.
ALLOWED = [
    pytest.param("::ffff:93.184.216.34", id="v4-mapped"),
    pytest.param("::93.184.216.34", id="v4-compatible"),
    pytest.param("::ffff:0:5db8:d822", id="v4-translated"),
    pytest.param("64:ff9b::5db8:d822", id="nat64"),
    pytest.param("2002:5db8:d822::1", id="6to4"),
    pytest.param("2001:0:4136:e378:0:0:a247:27dd", id="teredo"),
    pytest.param("2606:4700:4700::1111", id="global-unicast"),
]


def _no_dns(host: str, port: int) -> list[str]:
    raise AssertionError("an address literal must not be looked up")


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_non_public_ipv6_forms_are_refused_in_the_url(address: str, why: str) -> None:
    with pytest.raises(ExtenderPolicyError, match="is not in the extender allow-list") as err:
        check_url(f"http://[{address}]:8080/x", ExtenderPolicy(), _no_dns)
    assert why in str(err.value)


@pytest.mark.parametrize(("address", "why"), REFUSED)
def test_non_public_ipv6_forms_are_refused_when_a_name_resolves_to_them(
    address: str, why: str
) -> None:
    with pytest.raises(ExtenderPolicyError, match=why.replace("(", r"\(")):
        checked_address("ext.example", 80, ExtenderPolicy(), lambda h, p: [address])


@pytest.mark.parametrize("address", ALLOWED)
def test_public_ipv6_forms_pass(address: str) -> None:
    got = check_url(f"http://[{address}]/x", ExtenderPolicy(), _no_dns)
    assert got == str(ipaddress.IPv6Address(address))


def test_an_allow_listed_ipv4_network_covers_its_ipv6_forms() -> None:
    policy = ExtenderPolicy(allowed_hosts=("10.0.0.0/8",))
    for address in ("::ffff:10.1.2.3", "64:ff9b::a01:203", "2002:a01:203::1"):
        assert checked_address("ext.internal", 80, policy, lambda h, p, a=address: [a]) == address
    with pytest.raises(ExtenderPolicyError):
        checked_address("ext.internal", 80, policy, lambda h, p: ["::ffff:127.0.0.1"])


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("::ffff:1.2.3.4", ["1.2.3.4"]),
        ("::1.2.3.4", ["1.2.3.4"]),
        ("::ffff:0:102:304", ["1.2.3.4"]),
        ("64:ff9b::102:304", ["1.2.3.4"]),
        ("2002:102:304::", ["1.2.3.4"]),
        ("2001:0:4136:e378:0:0:fefd:fcfb", ["65.54.227.120", "1.2.3.4"]),
        ("::1", []),
        ("::", []),
        ("2606:4700::1", []),
    ],
)
def test_embedded_ipv4_reads_each_form(address: str, carried: list[str]) -> None:
    assert [str(a) for a in embedded_ipv4(ipaddress.IPv6Address(address))] == carried
