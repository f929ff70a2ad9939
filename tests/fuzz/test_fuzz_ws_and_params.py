"""Fuzz: websocket frames and the JSON endpoints' query parameters.

A run's websocket gets frames of any kind (JSON of any shape, command objects with fields of
the wrong type, deep nesting, text that is not JSON): each one gets a reply and the consumer
never raises; the owner's commands change nothing they may not. The run's pages and JSON
endpoints get arbitrary query strings (huge integers, odd unicode, repeated and unknown
parameters) and cycle numbers: never a 5xx, and a GET writes nothing.
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import quote, urlencode

import pytest
import yaml
from builders import make_node, make_pod
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from fuzzing import HUGE_INTS, ODD_TEXT, budget, nested, tally, values
from hypothesis import given
from hypothesis import strategies as st

from playground.clusters import services
from playground.models import Run, RunCommand, RunCycle, RunEvent
from playground.profiles import services as profile_services
from playground.routing import websocket_urlpatterns
from playground.runs import services as runs
from playground.runs.live.consumers import COMMANDS
from playground.runs.refs import run_ref

TIMEOUT = 5


@pytest.fixture
def finished_run(user, monkeypatch):
    cluster = services.cluster_create(owner=user, name="fuzz")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all(
            [make_node("n1"), make_node("n2"), make_pod("a"), make_pod("b"), make_pod("c")]
        ),
    )
    profile = profile_services.profile_create(owner=user, name="default", config={})
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED
    return run


# --- websocket frames -------------------------------------------------------------------------

FIELD_VALUES = st.one_of(
    st.sampled_from([*COMMANDS, "default/a", "default/zz", "NodeResourcesFit"]),
    ODD_TEXT,
    values(json_safe=True),
)
COMMAND_FRAMES = st.dictionaries(
    st.sampled_from(["command", "pod", "plugin", "message", "step", "x"]),
    FIELD_VALUES,
).map(json.dumps)
STEP_FRAMES = st.builds(
    lambda step, as_text: json.dumps(
        {"command": "change", "step": json.dumps(step) if as_text else step}
    ),
    st.one_of(
        values(json_safe=True),
        st.fixed_dictionaries(
            {"action": st.sampled_from(["add_node", "delete_pod", "add_pod", "x"])},
            optional={"node": values(json_safe=True), "pod": values(json_safe=True)},
        ),
        st.integers(100, 600).map(lambda n: nested(n)),
    ),
    st.booleans(),
)
DEEP_STEPS = st.integers(900, 1900).map(
    lambda n: '{"command": "change", "step": "' + "[" * n + "]" * n + '"}'
)
FRAMES = st.one_of(
    COMMAND_FRAMES,
    STEP_FRAMES,
    DEEP_STEPS,
    values(json_safe=True).map(json.dumps),
    st.text(max_size=60),
    st.integers(100, 2000).map(lambda n: "[" * n + "]" * n),
    st.sampled_from(["", "null", "{", '{"command": "cancel"', "\ud800", "x" * 5000]),
    st.binary(max_size=20),
)


async def _exchange(run, user, frames):
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/runs/{run_ref(run.pk)}/"
    )
    communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    while json.loads(await communicator.receive_from(timeout=TIMEOUT))["kind"] != "finished":
        pass  # the catch-up, up to the finished run's last frame
    replies = []
    for frame in frames:
        kind = "bytes" if isinstance(frame, bytes) else "text"
        await communicator.send_input({"type": "websocket.receive", kind: frame})
        replies.append(json.loads(await communicator.receive_from(timeout=TIMEOUT)))
    await communicator.disconnect()
    return replies


@pytest.mark.django_db(transaction=True)
@budget(50)
@given(frames=st.lists(FRAMES, min_size=1, max_size=4))
def test_every_frame_gets_a_reply(finished_run, user, frames):
    commands = RunCommand.objects.count()
    replies = asyncio.run(_exchange(finished_run, user, frames))
    for reply in replies:
        assert reply["kind"] in ("error", "ack"), reply
        tally(f"reply {reply['kind']}")
    finished_run.refresh_from_db()
    assert finished_run.status == Run.Status.SUCCEEDED
    assert RunCommand.objects.count() == commands  # a finished run takes no command


def _handshake_app():
    from config.asgi import application

    return application


@pytest.mark.django_db(transaction=True)
@budget(30)
@given(
    ref=st.one_of(
        st.text(alphabet="0123456789abcdef.", max_size=40),
        st.builds(lambda n: f"{n}.{'0' * 20}", st.integers(0, 10**30)),
        st.text(max_size=20).map(lambda s: quote(s, safe="")),
    ),
    query=st.text(max_size=40),
)
def test_forged_run_references_are_refused(user, ref, query):
    """Through the project's ASGI application, as daphne serves it: refused, never an error."""

    async def handshake():
        communicator = WebsocketCommunicator(
            _handshake_app(),
            f"/ws/runs/{ref}/?{quote(query, safe='=&')}",
            headers=[(b"host", b"testserver"), (b"origin", b"http://testserver")],
        )
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        await communicator.disconnect()
        return connected

    assert asyncio.run(handshake()) is False


# --- query parameters ---------------------------------------------------------------------

PARAMS = st.sampled_from(
    ["after", "offset", "limit", "q", "detail", "share", "node", "plugin", "page", "cycle", "x"]
)
PARAM_VALUES = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    HUGE_INTS.map(str),
    st.sampled_from(["99999999999999999999", "-99999999999999999999", "1e9", "NaN", "0x10"]),
    ODD_TEXT,
    st.text(max_size=30),
)
QUERIES = st.one_of(
    st.lists(st.tuples(PARAMS, PARAM_VALUES), max_size=5).map(urlencode),
    st.text(max_size=60).map(lambda s: quote(s, safe="=&%+")),
)
CYCLES = st.one_of(st.integers(0, 5), st.integers(0, 10**30))


def _endpoints(run, cycle):
    ref = run_ref(run.pk)
    return [
        f"/runs/{ref}/",
        f"/runs/{ref}/events.json",
        f"/runs/{ref}/cycles.json",
        f"/runs/{ref}/changes.json",
        f"/runs/{ref}/usage.json",
        f"/runs/{ref}/cycles/{cycle}.json",
        f"/runs/{ref}/cycles/{cycle}/explain.json",
        f"/compare/{ref}/{ref}/",
        f"/clusters/{run.cluster_id}/",
    ]


def _counts():
    return [m.objects.count() for m in (Run, RunCycle, RunEvent, RunCommand)]


@pytest.mark.django_db
@budget(10)
@given(query=QUERIES, cycle=CYCLES)
def test_query_strings_never_give_a_5xx(alice_client, finished_run, query, cycle):
    before = _counts()
    for url in _endpoints(finished_run, cycle):
        response = alice_client.get(f"{url}?{query}")
        assert response.status_code < 500, (url, query, response.status_code)
        tally(f"{url.split('/')[-1] or url.split('/')[-2]}: {response.status_code}")
    assert _counts() == before


@pytest.mark.django_db
def test_endpoints_answer_without_parameters(alice_client, finished_run):
    """The fuzzed URLs are the real ones: without a query string each answers 200."""
    for url in _endpoints(finished_run, 1):
        assert alice_client.get(url).status_code == 200, url


@pytest.mark.django_db
@pytest.mark.parametrize("cycle", [99999999999999999999, 2**63, 2**63 - 1])
def test_huge_cycle_numbers_are_a_404(alice_client, finished_run, cycle):
    for url in _endpoints(finished_run, cycle)[5:7]:
        assert alice_client.get(url).status_code == 404, url
