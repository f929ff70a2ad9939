"""A websocket frame flood on the run stream (issue 39, HIGH 3): every frame spends the socket's
and its owner's budget, refused frames are answered only a few times, and a socket that keeps
sending them is closed and its owner refused new sockets for a while.

Channels' WebsocketCommunicator over the in-memory channel layer (the measurement against a
live server is in ``tests/integration/test_ws_flood_live.py``).
"""

from __future__ import annotations

import asyncio

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from playground import throttle
from playground.demo import demo_load
from playground.models import Cluster, Profile
from playground.routing import websocket_urlpatterns
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5


@pytest.fixture(autouse=True)
def _fresh_budgets():
    """Each test starts with full budgets (the state is per event loop, which may be shared)."""
    throttle._owners.clear()


@pytest.fixture
def demo_run(user):
    """A public demo run that no task drives, started by ``user``."""
    from unittest import mock

    demo_load()
    cluster = Cluster.objects.get(is_demo=True, name="Three zones")
    profile = Profile.objects.get(is_demo=True, name="Default")
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        return runs.run_start(user=user, cluster=cluster, profile=profile)


def _communicator(run_id, user, address="203.0.113.7"):
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/runs/{run_ref(run_id)}/"
    )
    communicator.scope["user"] = user
    communicator.scope["client"] = (address, 50000)
    return communicator


async def _drain(communicator):
    while not await communicator.receive_nothing(timeout=0.2):
        await communicator.receive_output(timeout=TIMEOUT)


async def _outputs_until_closed(communicator):
    """Every output after the frames were sent, up to the close (which must come)."""
    out = []
    while True:
        message = await communicator.receive_output(timeout=TIMEOUT)
        out.append(message)
        if message["type"] == "websocket.close":
            return out


async def test_an_anonymous_cancel_flood_is_answered_a_few_times_then_closed(demo_run, monkeypatch):
    reads = []
    real = selectors.run_command_refusal
    monkeypatch.setattr(
        selectors, "run_command_refusal", lambda rid: reads.append(rid) or real(rid)
    )
    limits = throttle.frame_limits()
    watcher = _communicator(demo_run.pk, AnonymousUser())
    assert (await watcher.connect())[0]
    await _drain(watcher)
    for _ in range(500):
        await watcher.send_json_to({"command": "cancel"})
    out = await _outputs_until_closed(watcher)
    answers = [m for m in out if m["type"] == "websocket.send"]
    # 500 frames queued at once: the backlog alone closes it, before the budget answers many
    assert len(answers) <= limits.answered
    assert out[-1]["code"] == throttle.CLOSE_TOO_MANY
    assert len(reads) <= 1  # the refusal is read once at most, not once a frame
    # the same address is refused a new socket, before any database read
    again = _communicator(demo_run.pk, AnonymousUser())
    assert not (await again.connect())[0]
    # another visitor is not
    other = _communicator(demo_run.pk, AnonymousUser(), address="198.51.100.1")
    assert (await other.connect())[0]
    await other.disconnect()


async def test_an_owners_sockets_share_one_budget(demo_run, user, settings):
    settings.WS_FRAMES_BURST, settings.WS_OWNER_FRAMES_BURST = 20, 6
    settings.WS_OWNER_FRAMES_PER_SECOND = 0.001
    first, second = _communicator(demo_run.pk, user), _communicator(demo_run.pk, user)
    for communicator in (first, second):
        assert (await communicator.connect())[0]
        await _drain(communicator)
    replies = []
    for i in range(8):
        communicator = (first, second)[i % 2]
        await communicator.send_json_to({"command": "explode"})
        replies.append((await communicator.receive_json_from(timeout=TIMEOUT))["message"])
    limited = ["Too many messages" in message for message in replies]
    assert limited == [False] * 6 + [True] * 2
    await first.disconnect()
    await second.disconnect()


async def test_a_slower_flood_is_answered_a_few_times_then_closed(demo_run, monkeypatch):
    reads = []
    real = selectors.run_command_refusal
    monkeypatch.setattr(
        selectors, "run_command_refusal", lambda rid: reads.append(rid) or real(rid)
    )
    limits = throttle.frame_limits()
    watcher = _communicator(demo_run.pk, AnonymousUser(), address="192.0.2.9")
    assert (await watcher.connect())[0]
    await _drain(watcher)
    answered = 0
    for _ in range(int(limits.close_after) + 5):  # one at a time: no backlog
        await watcher.send_json_to({"command": "cancel"})
        out = (
            await watcher.receive_output(timeout=0.5)
            if not await watcher.receive_nothing(timeout=0.05)
            else None
        )
        if out is not None and out["type"] == "websocket.close":
            assert out["code"] == throttle.CLOSE_TOO_MANY
            break
        answered += out is not None
    else:
        raise AssertionError("never closed")
    assert answered == limits.answered
    assert len(reads) == 1  # the refusal is read once, not once a frame


async def test_refusals_are_forgotten_with_time_so_a_careful_client_stays(demo_run, user, settings):
    settings.WS_STRIKES_ANSWERED, settings.WS_STRIKES_CLOSE = 2, 4
    settings.WS_STRIKE_DECAY_PER_SECOND = 20
    communicator = _communicator(demo_run.pk, user)
    assert (await communicator.connect())[0]
    await _drain(communicator)
    for _ in range(6):  # a refusal every 0.2 s: strikes decay faster than they come
        await communicator.send_to(text_data="not json")
        assert (await communicator.receive_json_from(timeout=TIMEOUT))["kind"] == "error"
        assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()


async def test_a_socket_closed_for_flooding_lets_its_owner_back_after_the_penalty(
    demo_run, settings
):
    settings.WS_STRIKES_CLOSE, settings.WS_PENALTY_SECONDS = 10, 0.3
    watcher = _communicator(demo_run.pk, AnonymousUser())
    assert (await watcher.connect())[0]
    await _drain(watcher)
    for _ in range(20):
        await watcher.send_to(text_data="{")
    assert (await _outputs_until_closed(watcher))[-1]["code"] == throttle.CLOSE_TOO_MANY
    assert not (await _communicator(demo_run.pk, AnonymousUser()).connect())[0]
    await asyncio.sleep(0.35)
    back = _communicator(demo_run.pk, AnonymousUser())
    assert (await back.connect())[0]
    await back.disconnect()
