"""Issue 39 on the class websocket: a student's frame flood (HIGH 3), a student's bad question id
failing classmates' batched answers (MEDIUM 5), a NUL in an answer (LOW), and the budget
counted per student rather than per socket (LOW).

Channels' WebsocketCommunicator over the in-memory channel layer; the database is
transactional because the consumer reads it from other threads.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from playground import throttle
from playground.classes import services
from playground.classes.models import ClassAnswer
from playground.routing import websocket_urlpatterns

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5


@pytest.fixture(autouse=True)
def _fresh_budgets():
    throttle._owners.clear()


@pytest.fixture
def room(user, lesson7):
    live_class = services.class_open(lecturer=user, lesson=lesson7)
    students = [services.student_join(code=live_class.code, nickname=f"s{i}") for i in range(12)]
    return live_class, students


async def _connect(code, *, user=None, token=None):
    path = f"/ws/classes/{code}/" + (f"?token={token}" if token else "")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user or AnonymousUser()
    communicator.scope["session"] = {}
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def _receive(communicator, kind):
    while True:
        message = await communicator.receive_json_from(timeout=TIMEOUT)
        if message["type"] == kind:
            return message


async def _until_closed(communicator):
    out = []
    while True:
        message = await communicator.receive_output(timeout=TIMEOUT)
        out.append(message)
        if message["type"] == "websocket.close":
            return out


async def test_students_flooding_step_frames_are_closed_and_the_lecturers_step_arrives(room, user):
    live_class, students = room
    lecturer = await _connect(live_class.code, user=user)
    await _receive(lecturer, "state")
    listeners = [await _connect(live_class.code, token=s.token) for s in students[10:]]
    flooders = [await _connect(live_class.code, token=s.token) for s in students[:10]]
    for c in (*listeners, *flooders):
        await _receive(c, "state")
    for _ in range(300):
        for c in flooders:
            await c.send_json_to({"action": "step", "step": {"lessonStep": 2}})
    limits = throttle.frame_limits()
    for c in flooders:
        out = await _until_closed(c)
        assert out[-1]["code"] == throttle.CLOSE_TOO_MANY
        assert sum(m["type"] == "websocket.send" for m in out) <= limits.answered
    started = time.monotonic()
    await lecturer.send_json_to({"action": "step", "step": {"lessonStep": 3}})
    for c in listeners:
        assert (await _receive(c, "step"))["step"]["lessonStep"] == 3
    assert time.monotonic() - started < 1.0
    # a flooder's new socket is refused for the penalty, its classmates' are not
    again = await _connect(live_class.code, token=students[0].token)
    assert (await again.receive_output(timeout=TIMEOUT))["code"] == throttle.CLOSE_TOO_MANY
    fine = await _connect(live_class.code, token=students[10].token)
    assert (await fine.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    for c in (lecturer, *listeners, fine):
        await c.disconnect()


async def test_a_students_sockets_share_one_budget(room, user, settings):
    settings.WS_OWNER_FRAMES_BURST, settings.WS_OWNER_FRAMES_PER_SECOND = 4, 0.001
    live_class, students = room
    tabs = [await _connect(live_class.code, token=students[0].token) for _ in range(2)]
    other = await _connect(live_class.code, token=students[1].token)
    for c in (*tabs, other):
        await _receive(c, "state")
    replies = []
    for i in range(6):
        await tabs[i % 2].send_json_to({"action": "noise"})
        replies.append((await _receive(tabs[i % 2], "error"))["message"])
    assert ["Too many" in r for r in replies] == [False] * 4 + [True] * 2
    await other.send_json_to({"action": "noise"})  # a classmate's budget is their own
    assert "Too many" not in (await _receive(other, "error"))["message"]
    for c in (*tabs, other):
        await c.disconnect()


@pytest.mark.parametrize("bad_id", [2**64, 2**63, -1, 0, 10**30])
async def test_a_question_id_beyond_64_bits_fails_alone_not_the_batch(
    room, user, monkeypatch, bad_id
):
    live_class, students = room
    q = await sync_to_async(services.question_ask_lesson)(
        live_class=live_class, user=user, qid="winner"
    )
    # hold the first write so that the next answers queue up and share one batch
    real = services.answers_submit
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()

    def held(class_id, answers):
        if len(answers) == 1 and answers[0].student_id == students[0].pk:
            asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(TIMEOUT)
        return real(class_id, answers)

    monkeypatch.setattr(services, "answers_submit", held)
    sockets = [await _connect(live_class.code, token=s.token) for s in students[:4]]
    for c in sockets:
        await _receive(c, "state")
    await sockets[0].send_json_to({"action": "answer", "questionId": q.pk, "choice": "node-1"})
    await asyncio.sleep(0.2)  # the first write has started and waits at the gate
    await sockets[1].send_json_to({"action": "answer", "questionId": q.pk, "choice": "node-2"})
    await sockets[2].send_json_to({"action": "answer", "questionId": bad_id, "choice": "node-2"})
    await sockets[3].send_json_to({"action": "answer", "questionId": q.pk, "choice": "node-3"})
    await asyncio.sleep(0.2)
    gate.set()
    for c, choice in ((sockets[0], "node-1"), (sockets[1], "node-2"), (sockets[3], "node-3")):
        assert (await _receive(c, "answered"))["choice"] == choice
    assert "question" in (await _receive(sockets[2], "error"))["message"]
    stored = await sync_to_async(lambda: sorted(ClassAnswer.objects.values_list("choice")))()
    assert stored == [("node-1",), ("node-2",), ("node-3",)]
    for c in sockets:
        out = await c.receive_output(timeout=0.1) if not await c.receive_nothing(0.1) else None
        assert out is None or out["type"] != "websocket.close"  # every socket stays open
        await c.disconnect()


async def test_a_nul_in_an_answer_is_dropped_not_a_closed_socket(room, user):
    live_class, students = room
    q = await sync_to_async(services.question_ask_quick)(
        live_class=live_class,
        user=user,
        quick={"prompt": "Which?\x00", "choices": ["a\x00b", "c"], "answer": "a\x00b"},
    )
    assert q.choices == ["a b", "c"] and "\x00" not in q.prompt
    student = await _connect(live_class.code, token=students[0].token)
    await _receive(student, "state")
    await student.send_json_to({"action": "answer", "questionId": q.pk, "choice": "a\x00b"})
    assert (await _receive(student, "answered"))["choice"] == "a b"
    stored = await sync_to_async(lambda: list(ClassAnswer.objects.values_list("choice")))()
    assert stored == [("a b",)]
    await student.disconnect()


async def test_services_refuse_ids_out_of_the_columns_range(lesson_class, user):
    def submit():
        q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
        ann = services.student_join(code=lesson_class.code, nickname="Ann")
        answers = [
            services.Answer(ann.pk, 2**64, "node-1"),
            services.Answer(ann.pk, q.pk, "node-1"),
        ]
        return services.answers_submit(lesson_class.pk, answers)

    results = await sync_to_async(submit)()
    assert isinstance(results[0], services.ClassError) and results[1] == "node-1"


async def test_the_lecturer_removes_a_fake_student_and_caps_the_class(room, user):
    live_class, students = room
    lecturer = await _connect(live_class.code, user=user)
    state = await _receive(lecturer, "state")
    assert [s["nickname"] for s in state["students"]] == [f"s{i}" for i in range(12)]
    assert state["cap"] is None
    fake = await _connect(live_class.code, token=students[0].token)
    other = await _connect(live_class.code, token=students[1].token)
    for c in (fake, other):
        await _receive(c, "state")
    await lecturer.send_json_to({"action": "remove", "student": students[0].pk})
    removed = await _receive(lecturer, "removed")
    assert removed["student"] == students[0].pk and removed["joined"] == 11
    assert (await _receive(other, "removed"))["student"] == students[0].pk
    closed = await fake.receive_output(timeout=TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4403}
    again = await _connect(live_class.code, token=students[0].token)  # the token is void
    assert (await again.receive_output(timeout=TIMEOUT))["code"] == 4403
    await lecturer.send_json_to({"action": "cap", "cap": 11})
    assert (await _receive(lecturer, "cap"))["cap"] == 11
    with pytest.raises(services.JoinRefused):
        await sync_to_async(services.student_join)(code=live_class.code, nickname="late")
    # a student may do neither
    await other.send_json_to({"action": "remove", "student": students[2].pk})
    assert (await _receive(other, "error"))["message"]
    await other.send_json_to({"action": "cap", "cap": 0})
    assert (await _receive(other, "error"))["message"]
    await lecturer.send_json_to({"action": "remove", "student": 2**70})
    assert (await _receive(lecturer, "error"))["message"]
    for c in (lecturer, other):
        await c.disconnect()
