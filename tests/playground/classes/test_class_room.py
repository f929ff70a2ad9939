"""A class in a room: PLAYGROUND_PUBLIC_URL, ``serve --room``'s address, the presenter's warning
when the join link only opens on the lecturer's own machine."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError

from config.settings import allow_public_url, public_url_parts
from playground.management.commands import serve


def test_public_url_gives_its_origin_and_allowed_host():
    assert public_url_parts("http://192.0.2.10:8000") == ("http://192.0.2.10:8000", "192.0.2.10")
    assert public_url_parts("https://Class.Example.org/") == (
        "https://class.example.org",
        "Class.Example.org".lower(),
    )
    assert public_url_parts("http://[2001:db8::5]:8000") == (
        "http://[2001:db8::5]:8000",
        "[2001:db8::5]",
    )


@pytest.mark.parametrize(
    "bad",
    ["192.0.2.10:8000", "ftp://192.0.2.10", "http://", "http://h:port", "http://h/classes/"],
)
def test_a_bad_public_url_names_the_variable(bad):
    with pytest.raises(ImproperlyConfigured, match="PLAYGROUND_PUBLIC_URL"):
        public_url_parts(bad)


def test_allowing_a_public_url_adds_host_and_origin_once():
    hosts, origins = ["localhost"], []
    for _ in range(2):
        origin = allow_public_url("http://192.0.2.10:8000", hosts, origins)
    assert origin == "http://192.0.2.10:8000"
    assert hosts == ["localhost", "192.0.2.10"]
    assert origins == ["http://192.0.2.10:8000"]


def test_room_address_prefers_the_setting_then_the_host_then_the_detected_one(monkeypatch):
    monkeypatch.setattr(serve, "network_address", lambda: "192.0.2.77")
    assert serve.room_public_url("0.0.0.0", 8000, "https://class.example.org") == (
        "https://class.example.org"
    )
    assert serve.room_public_url("192.0.2.10", 8001, "") == "http://192.0.2.10:8001"
    assert serve.room_public_url("0.0.0.0", 8000, "") == "http://192.0.2.77:8000"
    assert serve.room_public_url("::", 8000, "") == "http://192.0.2.77:8000"
    monkeypatch.setattr(serve, "network_address", lambda: None)
    with pytest.raises(CommandError, match="PLAYGROUND_PUBLIC_URL"):
        serve.room_public_url("0.0.0.0", 8000, "")


def test_detected_address_is_never_loopback():
    address = serve.network_address()
    assert address is None or not serve.is_loopback(address)


@pytest.mark.django_db
def test_room_mode_refuses_debug_off_loopback(monkeypatch):
    from django.core.management import call_command

    with pytest.raises(CommandError, match="--debug"):
        call_command("serve", "--room", "--debug", "--no-demo")


@pytest.mark.django_db
def test_presenter_warns_when_the_join_link_only_opens_here(alice_client, lesson_class, settings):
    url = f"/classes/{lesson_class.code}/present/"
    html = alice_client.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert f"http://127.0.0.1:8000/join/?code={lesson_class.code}" in html
    assert 'id="join-local-only"' in html and "serve --room" in html

    settings.PLAYGROUND_PUBLIC_URL = "http://192.0.2.10:8000"
    html = alice_client.get(url, HTTP_HOST="127.0.0.1:8000").content.decode()
    assert f'href="http://192.0.2.10:8000/join/?code={lesson_class.code}"' in html
    assert 'id="join-local-only"' not in html
