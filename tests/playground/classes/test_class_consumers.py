"""The live class websocket over the in-memory channel layer: who may connect, the first
``state``, the lecturer's step/ask/reveal/end reaching every connection, answers counted once
and tallied for the lecturer, students refused the lecturer's actions.

The database is transactional because the consumer reads it from other threads.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from playground.classes import services
from playground.classes.models import ClassAnswer
from playground.routing import websocket_urlpatterns

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5


async def _connect(code, *, user=None, token=None, session=None):
    path = f"/ws/classes/{code}/" + (f"?token={token}" if token else "")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user or AnonymousUser()
    communicator.scope["session"] = session or {}
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def _closed_with(communicator):
    out = await communicator.receive_output(timeout=TIMEOUT)
    assert out["type"] == "websocket.close"
    return out.get("code")


async def _receive(communicator, kind):
    """The next message of ``kind`` (others skipped)."""
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        if message["type"] == kind:
            return message


@pytest.fixture
def room(user, lesson7):
    """An open class on lesson 7 with two students."""
    live_class = services.class_open(lecturer=user, lesson=lesson7)
    ann = services.student_join(code=live_class.code, nickname="Ann")
    bob = services.student_join(code=live_class.code, nickname="Bob")
    return live_class, ann, bob


async def test_strangers_and_unknown_classes_are_closed(room, other_user):
    live_class, _ann, _bob = room
    stranger = await _connect(live_class.code, user=other_user)
    assert await _closed_with(stranger) == 4403
    forged = await _connect(live_class.code, token="not-a-token")
    assert await _closed_with(forged) == 4403
    unknown = await _connect("ZZZZZZ")
    assert await _closed_with(unknown) == 4403  # as for an open class: a guess learns nothing


async def test_every_connection_starts_with_the_state(room, user):
    live_class, ann, _bob = room
    lecturer = await _connect(live_class.code, user=user)
    state = await lecturer.receive_json_from(timeout=TIMEOUT)
    assert state["type"] == "state" and state["role"] == "lecturer"
    assert state["joined"] == 2 and state["tally"] == {} and state["question"] is None
    assert state["step"]["lessonStep"] == 1 and state["ended"] is False
    # a student by the session's token, as the student page connects
    session = {services.SESSION_STUDENTS: {live_class.code: ann.token}}
    student = await _connect(live_class.code, session=session)
    state = await student.receive_json_from(timeout=TIMEOUT)
    assert state["role"] == "student" and state["myAnswer"] is None and "tally" not in state
    await lecturer.disconnect()
    await student.disconnect()


async def test_a_class_round_step_ask_answer_tally_reveal_end(room, user):
    live_class, ann, bob = room
    lecturer = await _connect(live_class.code, user=user)
    a = await _connect(live_class.code, token=ann.token)
    b = await _connect(live_class.code, token=bob.token)
    for c in (lecturer, a, b):
        await _receive(c, "state")

    await lecturer.send_json_to({"action": "step", "step": {"lessonStep": 3}, "sentAt": 12.5})
    for c in (lecturer, a, b):
        step = await _receive(c, "step")
        assert step["step"]["lessonStep"] == 3 and step["stepSeq"] == 1 and step["sentAt"] == 12.5

    await lecturer.send_json_to({"action": "ask", "lessonQuestion": "winner"})
    for c in (lecturer, a, b):
        question = (await _receive(c, "question"))["question"]
        assert question["choices"] == ["node-1", "node-2", "node-3"] and "answer" not in question
    qid = question["id"]

    await a.send_json_to({"action": "answer", "questionId": qid, "choice": "node-3", "clientId": 7})
    assert await _receive(a, "answered") == {
        "type": "answered",
        "questionId": qid,
        "choice": "node-3",
        "clientId": 7,
    }
    tally = await _receive(lecturer, "tally")
    assert tally["counts"] == {"node-3": 1} and tally["answered"] == 1 and tally["joined"] == 2
    await a.send_json_to({"action": "answer", "questionId": qid, "choice": "node-1"})
    await b.send_json_to({"action": "answer", "questionId": qid, "choice": "node-1"})
    await _receive(a, "answered")
    await _receive(b, "answered")
    tally = await _receive(lecturer, "tally")  # one or two tallies: they are coalesced
    while tally["counts"] != {"node-1": 2}:
        tally = await _receive(lecturer, "tally")
    assert tally["answered"] == 2  # Ann counted once

    # a student cannot drive; a wrong choice is an error; the connection stays
    await b.send_json_to({"action": "reveal"})
    assert (await _receive(b, "error"))["message"]
    await b.send_json_to({"action": "answer", "questionId": qid, "choice": "node-9"})
    assert (await _receive(b, "error"))["message"]

    await lecturer.send_json_to({"action": "reveal"})
    for c in (lecturer, a, b):
        reveal = await _receive(c, "reveal")
        assert reveal["questionId"] == qid and reveal["answer"] == "node-1"
        assert reveal["counts"] == {"node-1": 2} and reveal["explanation"]
        assert reveal["show"]["url"] == "/lessons/scoring/?step=3&q=winner"
    await a.send_json_to({"action": "answer", "questionId": qid, "choice": "node-2"})
    assert "revealed" in (await _receive(a, "error"))["message"]
    rows = await sync_to_async(
        lambda: sorted(ClassAnswer.objects.values_list("student__nickname", "choice", "correct"))
    )()
    assert rows == [("Ann", "node-1", True), ("Bob", "node-1", True)]

    # a reconnect catches up: the step, the question, the answer and the reveal
    again = await _connect(live_class.code, token=ann.token)
    state = await _receive(again, "state")
    assert state["step"]["lessonStep"] == 3 and state["stepSeq"] == 1
    assert state["question"]["id"] == qid and state["myAnswer"] == "node-1"
    assert state["revealed"]["answer"] == "node-1"

    await lecturer.send_json_to({"action": "end"})
    for c in (lecturer, a, b, again):
        await _receive(c, "ended")
        assert await _closed_with(c) == 1000
    late = await _connect(live_class.code, token=ann.token)
    assert await _closed_with(late) == 4404


async def test_joining_tells_the_lecturer(room, user):
    from django.test import AsyncClient

    live_class, _ann, _bob = room
    lecturer = await _connect(live_class.code, user=user)
    await _receive(lecturer, "state")
    response = await AsyncClient().post(
        "/join/",
        {"code": live_class.code, "nickname": "Cy"},
        content_type="application/json",
        headers={"accept": "application/json"},
    )
    assert response.status_code == 201
    assert (await _receive(lecturer, "joined"))["joined"] == 3
    await lecturer.disconnect()


async def test_a_frame_that_is_not_a_json_object_is_an_error(room, user):
    live_class, ann, _bob = room
    student = await _connect(live_class.code, token=ann.token)
    await _receive(student, "state")
    await student.send_to(text_data="[1, 2]")
    assert (await _receive(student, "error"))["message"]
    await student.send_to(text_data="x" * 9000)
    assert (await _receive(student, "error"))["message"]
    await student.disconnect()


async def test_an_idle_class_is_ended_when_someone_connects(room):
    from datetime import timedelta

    from django.utils import timezone

    from playground.classes.models import LiveClass

    live_class, ann, _bob = room
    await sync_to_async(LiveClass.objects.filter(pk=live_class.pk).update)(
        last_activity_at=timezone.now() - services.IDLE - timedelta(seconds=1)
    )
    student = await _connect(live_class.code, token=ann.token)
    assert await _closed_with(student) == 4404
    await sync_to_async(live_class.refresh_from_db)()
    assert live_class.ended_at is not None


async def test_an_idle_class_closes_its_open_sockets(room, user, monkeypatch):
    """Nobody acts in an idle class, so no request tells its sockets: the process holding them
    sweeps, ends the class and closes them, the lecturer's and the students' alike."""
    from datetime import timedelta

    from django.utils import timezone

    from playground.classes import consumers
    from playground.classes.models import LiveClass

    monkeypatch.setattr(consumers, "SWEEP_EVERY", 0.05)
    live_class, ann, _bob = room
    lecturer = await _connect(live_class.code, user=user)
    student = await _connect(live_class.code, token=ann.token)
    await _receive(lecturer, "state")
    await _receive(student, "state")
    await sync_to_async(LiveClass.objects.filter(pk=live_class.pk).update)(
        last_activity_at=timezone.now() - services.IDLE - timedelta(seconds=1)
    )
    for communicator in (lecturer, student):
        assert (await _receive(communicator, "ended"))["type"] == "ended"
        assert await _closed_with(communicator) == 1000
    await sync_to_async(live_class.refresh_from_db)()
    assert live_class.ended_at is not None
    await lecturer.disconnect()
    await student.disconnect()
    import asyncio

    loop = asyncio.get_running_loop()
    assert loop not in consumers._connected and loop not in consumers._sweepers


async def test_a_connection_right_after_the_last_one_left_keeps_its_sweeper():
    """The last connection leaving cancels the sweeper; one arriving in the same instant starts
    another, which the cancelled one, winding up after, must leave in place."""
    import asyncio

    from playground.classes import consumers

    loop = asyncio.get_running_loop()
    consumers._hold(-7, +1)
    first = consumers._sweepers[loop]
    await asyncio.sleep(0)  # it runs: it waits for its first sweep
    consumers._hold(-7, -1)
    consumers._hold(-7, +1)
    second = consumers._sweepers[loop]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert first.cancelled()
    assert consumers._sweepers.get(loop) is second and not second.done()
    consumers._hold(-7, -1)
    await asyncio.sleep(0)
    assert second.cancelled() and loop not in consumers._sweepers


async def test_an_active_class_keeps_its_sockets_through_sweeps(room, user, monkeypatch):
    import asyncio

    from playground.classes import consumers

    monkeypatch.setattr(consumers, "SWEEP_EVERY", 0.05)
    live_class, ann, _bob = room
    student = await _connect(live_class.code, token=ann.token)
    await _receive(student, "state")
    await asyncio.sleep(0.3)  # several sweeps
    assert await student.receive_nothing(timeout=0.1)
    await sync_to_async(live_class.refresh_from_db)()
    assert live_class.ended_at is None
    await student.disconnect()


async def test_a_student_flooding_the_socket_gets_errors(room, user, settings):
    settings.WS_FRAMES_BURST, settings.WS_FRAMES_PER_SECOND = 3, 0.001
    live_class, ann, _bob = room
    q = await sync_to_async(services.question_ask_lesson)(
        live_class=live_class, user=user, qid="winner"
    )
    student = await _connect(live_class.code, token=ann.token)
    await _receive(student, "state")
    for _ in range(3):
        await student.send_json_to({"action": "answer", "questionId": q.pk, "choice": "node-1"})
        await _receive(student, "answered")
    await student.send_json_to({"action": "answer", "questionId": q.pk, "choice": "node-2"})
    assert "Too many" in (await _receive(student, "error"))["message"]
    stored = await sync_to_async(
        lambda: list(ClassAnswer.objects.values_list("choice", flat=True))
    )()
    assert stored == ["node-1"]
    await student.disconnect()


async def test_answers_arriving_during_a_write_go_in_the_next_batch_each_acknowledged(
    room, user, monkeypatch
):
    import asyncio
    import time

    from playground.classes import consumers

    live_class, ann, bob = room
    cy = await sync_to_async(services.student_join)(code=live_class.code, nickname="Cy")
    lecturer = await _connect(live_class.code, user=user)
    a, b, c = [await _connect(live_class.code, token=s.token) for s in (ann, bob, cy)]
    for conn in (lecturer, a, b, c):
        await _receive(conn, "state")
    await lecturer.send_json_to({"action": "ask", "lessonQuestion": "winner"})
    qid = (await _receive(a, "question"))["question"]["id"]

    sizes = []
    write = consumers._answers

    def slow_write(class_id, answers, touch):
        sizes.append(len(answers))
        if len(sizes) == 1:
            time.sleep(0.3)  # the others arrive while this batch is written
        return write(class_id, answers, touch)

    monkeypatch.setattr(consumers, "_answers", slow_write)
    await a.send_json_to({"action": "answer", "questionId": qid, "choice": "node-3"})
    while not sizes:  # the first batch is being written
        await asyncio.sleep(0.01)
    await b.send_json_to({"action": "answer", "questionId": qid, "choice": "node-9"})
    await c.send_json_to({"action": "answer", "questionId": qid, "choice": "node-2"})
    assert (await _receive(a, "answered"))["choice"] == "node-3"
    assert "choices" in (await _receive(b, "error"))["message"]  # refused on its own
    assert (await _receive(c, "answered"))["choice"] == "node-2"
    assert sizes == [1, 2]
    tally = await _receive(lecturer, "tally")
    while tally["answered"] < 2:
        tally = await _receive(lecturer, "tally")
    assert tally["counts"] == {"node-3": 1, "node-2": 1}
    for conn in (lecturer, a, b, c):
        await conn.disconnect()
