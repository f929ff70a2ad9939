"""The run websocket: catch-up after ?after, live relay without gaps, access, commands.

Channels' WebsocketCommunicator over the in-memory channel layer; the database is transactional
because the consumer reads it from other threads.
"""

from __future__ import annotations

import asyncio

import pytest
import yaml
from asgiref.sync import sync_to_async
from builders import make_node, make_pod, stored_events
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster, Profile, Run, RunCycle, RunEvent
from playground.profiles import services as profile_services
from playground.routing import websocket_urlpatterns
from playground.runs import services as runs
from playground.runs.execution import tasks
from playground.runs.live import stream as events
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5


@pytest.fixture
def cluster(user):
    cluster = services.cluster_create(owner=user, name="c1")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all(
            [make_node("n1"), make_node("n2"), make_pod("a"), make_pod("b"), make_pod("c")]
        ),
    )
    return cluster


@pytest.fixture
def profile(user):
    return profile_services.profile_create(owner=user, name="default", config={})


@pytest.fixture
def pending_run(cluster, profile, user, monkeypatch):
    """A run that no task drives: the tests play the task's part."""
    monkeypatch.setattr("playground.runs.services.transaction.on_commit", lambda fn: None)
    run = runs.run_start(user=user, cluster=cluster, profile=profile)
    monkeypatch.undo()
    return run


@pytest.fixture
def finished_run(pending_run):
    runs.run_execute(run_id=pending_run.pk)
    pending_run.refresh_from_db()
    assert pending_run.status == Run.Status.SUCCEEDED
    return pending_run


def _communicator(run_id, user, query=""):
    app = URLRouter(websocket_urlpatterns)
    communicator = WebsocketCommunicator(app, f"/ws/runs/{run_ref(run_id)}/{query}")
    communicator.scope["user"] = user
    return communicator


async def _receive_until_finished(communicator):
    """The envelopes received, batches opened, up to and with the ``finished`` frame."""
    out = []
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        out.extend(message["messages"] if message["kind"] == "batch" else [message])
        if message["kind"] == "finished":
            return out


async def _envelopes(communicator, count):
    """The next ``count`` envelopes, from as many frames as they come in."""
    out = []
    while len(out) < count:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        out.extend(message["messages"] if message["kind"] == "batch" else [message])
    return out


def _covered(envelopes):
    """The seqs the stream envelopes stand for, in order (a cycle covers seq..last)."""
    return [
        s
        for m in envelopes
        if m["kind"] in ("event", "cycle")
        for s in range(m["seq"], m.get("last", m["seq"]) + 1)
    ]


async def test_reconnect_after_seq_k_gets_exactly_the_rest(finished_run, user):
    total = len(await sync_to_async(stored_events)(finished_run))
    second = await sync_to_async(RunCycle.objects.get)(run=finished_run, cycle=2)
    k = second.seq_first - 1  # just before the second cycle
    communicator = _communicator(finished_run.pk, user, f"?after={k}")
    connected, _ = await communicator.connect()
    assert connected
    messages = await _receive_until_finished(communicator)
    assert _covered(messages) == list(range(k + 1, total))
    # The second cycle comes as its summary, never its per-node detail.
    assert messages[0] == {
        "kind": "cycle",
        "run": finished_run.pk,
        "seq": second.seq_first,
        "last": second.seq_last,
        "cycle": 2,
        "pod": second.pod,
        "profile": "default-scheduler",
        "result": "Scheduled",
        "node": second.node,
        "feasible": 2,
        "evaluated": 2,
        "message": None,
    }
    assert messages[-1]["seq"] == total and messages[-1]["status"] == "succeeded"
    assert await communicator.receive_nothing(timeout=0.1)
    await communicator.disconnect()


async def test_live_events_follow_stored_ones_without_gaps_or_duplicates(pending_run, user):
    stored = [{"type": "Pop", "seq": s, "cycle": 0, "pod": "default/a"} for s in range(6)]
    await sync_to_async(RunEvent.objects.bulk_create)(
        [RunEvent(run=pending_run, seq=p["seq"], type="Pop", payload=p) for p in stored[:3]]
    )
    communicator = _communicator(pending_run.pk, user, "?after=0")
    assert (await communicator.connect())[0]
    got = await _envelopes(communicator, 2)
    assert [m["seq"] for m in got] == [1, 2]
    # seq 2 again (a duplicate), then seq 5 while 3 and 4 are only in the database (a gap).
    await sync_to_async(RunEvent.objects.bulk_create)(
        [RunEvent(run=pending_run, seq=p["seq"], type="Pop", payload=p) for p in stored[3:]]
    )
    await events.abroadcast_many(
        pending_run.pk,
        [
            events.event_message(pending_run.pk, stored[2]),
            events.event_message(pending_run.pk, stored[5]),
        ],
    )
    frame = await communicator.receive_json_from(timeout=TIMEOUT)
    assert frame["kind"] == "batch"  # one frame: the gap filled from the database, in order
    assert [m["seq"] for m in frame["messages"]] == [3, 4, 5]
    await events.abroadcast(
        pending_run.pk, events.progress_message(pending_run.pk, scheduled=1, total=3)
    )
    assert (await _envelopes(communicator, 1))[0]["kind"] == "progress"
    await events.abroadcast(
        pending_run.pk, events.finished_message(pending_run.pk, seq=6, status="succeeded")
    )
    finished = await communicator.receive_json_from(timeout=TIMEOUT)
    assert finished == {"kind": "finished", "run": pending_run.pk, "seq": 6, "status": "succeeded"}
    await communicator.disconnect()


async def test_other_users_cannot_watch_a_private_run(finished_run, other_user):
    for who in (other_user, AnonymousUser()):
        communicator = _communicator(finished_run.pk, who)
        connected, _ = await communicator.connect()
        assert not connected
    communicator = _communicator(999999, other_user)
    assert not (await communicator.connect())[0]


async def test_anyone_watches_a_demo_run_but_only_its_starter_commands_it(user, other_user):
    await sync_to_async(demo_load)()
    cluster = await sync_to_async(Cluster.objects.get)(is_demo=True, name="Three zones")
    profile = await sync_to_async(Profile.objects.get)(is_demo=True, name="Default")

    def start():
        from unittest import mock

        with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
            return runs.run_start(user=user, cluster=cluster, profile=profile)

    run = await sync_to_async(start)()
    watcher = _communicator(run.pk, AnonymousUser())
    assert (await watcher.connect())[0]
    await watcher.send_json_to({"command": "cancel"})
    refused = await watcher.receive_json_from(timeout=TIMEOUT)
    assert refused["kind"] == "error"
    owner = _communicator(run.pk, user)
    assert (await owner.connect())[0]
    await owner.send_json_to({"command": "cancel"})
    ack = await owner.receive_json_from(timeout=TIMEOUT)
    assert ack == {"kind": "ack", "run": run.pk, "command": "cancel", "status": "cancelled"}
    finished = await owner.receive_json_from(timeout=TIMEOUT)
    assert finished["kind"] == "finished" and finished["status"] == "cancelled"
    assert (await watcher.receive_json_from(timeout=TIMEOUT))["status"] == "cancelled"
    await owner.send_json_to({"command": "allow", "pod": "default/x"})
    assert (await owner.receive_json_from(timeout=TIMEOUT))["kind"] == "error"
    await watcher.disconnect()
    await owner.disconnect()


async def test_websockets_from_a_foreign_origin_are_refused(finished_run, user):
    from config.asgi import application

    communicator = WebsocketCommunicator(
        application,
        f"/ws/runs/{run_ref(finished_run.pk)}/",
        headers=[(b"origin", b"http://evil.example"), (b"host", b"localhost")],
    )
    assert not (await communicator.connect())[0]


async def test_embedded_mode_runs_the_task_on_the_servers_loop(pending_run, user):
    """No broker: enqueue_run from a request thread runs the task on the event loop's pool."""
    communicator = _communicator(pending_run.pk, user)
    assert (await communicator.connect())[0]
    await sync_to_async(tasks.enqueue_run)(pending_run.pk)
    messages = await _receive_until_finished(communicator)
    seqs = _covered(messages)
    assert seqs == list(range(len(seqs))) and len(seqs) > 10
    assert sum(1 for m in messages if m["kind"] == "cycle") == 3
    assert messages[-1] == {
        "kind": "finished",
        "run": pending_run.pk,
        "seq": len(seqs),
        "status": "succeeded",
        "summary": {"total": 3, "scheduled": 3, "unschedulable": 0},
    }
    assert any(m["kind"] == "progress" for m in messages)
    await tasks.wait_embedded()
    await communicator.disconnect()
    await asyncio.sleep(0)


async def test_a_read_racing_a_commit_stops_at_the_hole(pending_run):
    """Seqs 3 and 4 are not visible yet (committed between the read's two queries): the read
    gives 0..2, never 5 without 3 and 4, or the reader would skip them for good."""
    from playground.runs import selectors

    rows = [RunEvent(run=pending_run, seq=s, type="Pop", payload={"seq": s}) for s in (0, 1, 2, 5)]
    await sync_to_async(RunEvent.objects.bulk_create)(rows)
    got = await sync_to_async(selectors.run_event_messages)(run_id=pending_run.pk, after=-1)
    assert [m["seq"] for m in got] == [0, 1, 2]


async def test_readers_of_one_run_share_each_page_read(finished_run, user, monkeypatch):
    """Five readers connecting at once: each full page is read from the database once."""
    from playground.runs.live import catchup

    catchup.clear()
    monkeypatch.setattr(catchup, "PAGE", 4)
    reads: list[int] = []
    real_read = catchup._read

    def counting_read(run_id, after, upto, read_at):
        page = real_read(run_id, after, upto, read_at)
        reads.append(len(page.envelopes))
        return page

    monkeypatch.setattr(catchup, "_read", counting_read)
    total = len(await sync_to_async(stored_events)(finished_run))
    readers = [_communicator(finished_run.pk, user) for _ in range(5)]
    assert all(ok for ok, _ in await asyncio.gather(*(r.connect() for r in readers)))
    for reader in readers:
        messages = await _receive_until_finished(reader)
        assert _covered(messages) == list(range(total))
        await reader.disconnect()
    envelopes = sum(1 for m in messages if m["kind"] in ("event", "cycle"))
    full = [n for n in reads if n == 4]
    assert envelopes > 8 and len(full) == envelopes // 4  # not five times as many
    assert len(reads) - len(full) <= 5  # the last, short page: at most once per reader
    catchup.clear()


async def test_live_batches_are_relayed_as_encoded_once(pending_run, user, monkeypatch):
    """Three readers, two contiguous live batches: the task's JSON is relayed, not re-encoded."""
    from playground.runs.live.consumers import RunConsumer

    readers = [_communicator(pending_run.pk, user) for _ in range(3)]
    for reader in readers:
        assert (await reader.connect())[0]
    encoded = []
    real_encode = RunConsumer.encode_json.__func__

    def counting_encode(cls, content):
        encoded.append(content)
        return real_encode(cls, content)

    monkeypatch.setattr(RunConsumer, "encode_json", classmethod(counting_encode))
    payloads = [{"type": "Pop", "seq": s, "cycle": 0, "pod": "default/a"} for s in range(4)]
    for batch in (payloads[:2], payloads[2:]):
        await events.abroadcast_many(
            pending_run.pk, [events.event_message(pending_run.pk, p) for p in batch]
        )
    for reader in readers:
        assert [m["seq"] for m in await _envelopes(reader, 4)] == [0, 1, 2, 3]
        await reader.disconnect()
    assert encoded == []


async def test_a_refused_command_is_answered_in_the_language_of_the_visitors_pages(user):
    await sync_to_async(demo_load)()
    cluster = await sync_to_async(Cluster.objects.get)(is_demo=True, name="Three zones")
    profile = await sync_to_async(Profile.objects.get)(is_demo=True, name="Default")

    def start():
        from unittest import mock

        with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
            return runs.run_start(user=user, cluster=cluster, profile=profile)

    run = await sync_to_async(start)()
    answers = {}
    for language in ("zh-CN,zh;q=0.9", "en"):
        communicator = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns),
            f"/ws/runs/{run_ref(run.pk)}/",
            headers=[(b"accept-language", language.encode())],
        )
        communicator.scope["user"] = AnonymousUser()
        assert (await communicator.connect())[0]
        await communicator.send_json_to({"command": "cancel"})
        while (refused := await communicator.receive_json_from(timeout=TIMEOUT))["kind"] != "error":
            pass
        answers[language] = refused["message"]
        await communicator.disconnect()
    assert answers == {
        "zh-CN,zh;q=0.9": "只有该运行的所有者可以这样做",
        "en": "only the run's owner can do that",
    }
