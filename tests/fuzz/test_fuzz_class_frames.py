"""Fuzz: the live class websocket gets frames of every kind from the lecturer and a student.

Frames are the lecturer's actions (step, ask a lesson question, a winner or a quick question,
reveal, remove a student, set the cap), a student's answer, and anything else: fields of the
wrong type, huge or negative ids, odd unicode (a NUL), unknown actions, deep nesting, text that
is not JSON, bytes. Ending the class is left out (it closes every socket; the consumer tests
cover it). Every frame gets a message on its sender's socket (a reply, an error or the class's
broadcast), the consumer never raises or closes a socket, a student never changes the class, and
what is stored stays within its rules.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from fuzzing import HUGE_INTS, ODD_TEXT, budget, nested, tally, values
from hypothesis import example, given
from hypothesis import strategies as st

from playground.classes import services
from playground.classes.models import ClassAnswer, ClassQuestion, ClassStudent, LiveClass
from playground.lessons.loader import lesson_by_slug
from playground.routing import websocket_urlpatterns

TIMEOUT = 5

ANY = st.one_of(ODD_TEXT, HUGE_INTS, values(json_safe=True))
IDS = st.one_of(st.just("QID"), st.sampled_from(["QID", "SID"]), HUGE_INTS, st.integers(-5, 5), ANY)
STEPS = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "lessonStep": st.one_of(st.integers(-2, 12), HUGE_INTS, ANY),
            "cycle": st.one_of(st.integers(0, 5), ANY),
            "point": ANY,
            "plugin": ANY,
            "node": ANY,
            "runStep": ANY,
        },
    ),
    ANY,
)
LECTURER_FRAMES = st.one_of(
    st.builds(lambda s: {"action": "step", "step": s, "sentAt": 1.5}, STEPS),
    st.builds(
        lambda q: {"action": "ask", "lessonQuestion": q},
        st.one_of(st.sampled_from(["winner", "no-such"]), ANY),
    ),
    st.builds(lambda c: {"action": "ask", "winnerOf": c}, st.one_of(st.integers(-1, 3), ANY)),
    st.builds(
        lambda p, cs, a: {"action": "ask", "quick": {"prompt": p, "choices": cs, "answer": a}},
        ANY,
        st.one_of(st.lists(ANY, max_size=5), ANY),
        ANY,
    ),
    st.just({"action": "reveal"}),
    st.builds(lambda s: {"action": "remove", "student": s}, IDS),
    st.builds(lambda c: {"action": "cap", "cap": c}, st.one_of(st.integers(-1, 1001), ANY)),
)
STUDENT_FRAMES = st.one_of(
    st.builds(
        lambda q, c: {"action": "answer", "questionId": q, "choice": c},
        IDS,
        st.one_of(st.sampled_from(["node-1", "node-2", "node-1\x00", "a\x00b"]), ANY),
    ),
    LECTURER_FRAMES,
)
RAW = st.one_of(
    st.dictionaries(
        st.sampled_from(["action", "questionId", "choice", "clientId", "x"]), ANY, max_size=4
    ),
    values(json_safe=True),
    st.integers(100, 2000).map(lambda n: nested(n)),
)
FRAMES = st.lists(
    st.tuples(
        st.sampled_from(["lecturer", "student"]),
        st.one_of(LECTURER_FRAMES, STUDENT_FRAMES, STUDENT_FRAMES, RAW),
        st.sampled_from(["json", "json", "json", "bytes", "broken"]),
    ),
    min_size=1,
    max_size=6,
)


def _text(frame, as_what, ids):
    text = json.dumps(frame).replace('"QID"', str(ids["QID"])).replace('"SID"', str(ids["SID"]))
    if as_what == "bytes":
        return {"type": "websocket.receive", "bytes": text.encode()}
    if as_what == "broken":
        text = text[: len(text) // 2]
    return {"type": "websocket.receive", "text": text}


async def _socket(code, *, user=None, token=None):
    path = f"/ws/classes/{code}/" + (f"?token={token}" if token else "")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user or AnonymousUser()
    communicator.scope["session"] = {}
    assert (await communicator.connect(timeout=TIMEOUT))[0]
    assert (await communicator.receive_json_from(timeout=TIMEOUT))["type"] == "state"
    return communicator


async def _exchange(live_class, user, student, frames, ids):
    lecturer = await _socket(live_class.code, user=user)
    pupil = await _socket(live_class.code, token=student.token)
    sockets = {"lecturer": lecturer, "student": pupil}
    for who, frame, as_what in frames:
        await sockets[who].send_input(_text(frame, as_what, ids))
        reply = await sockets[who].receive_output(timeout=TIMEOUT)
        assert reply["type"] == "websocket.send", (who, frame, reply)  # never a close
        got = json.loads(reply["text"])
        tally(f"{who} {got['type']}")
        removal = isinstance(frame, dict) and frame.get("action") == "remove"
        if who == "lecturer" and removal and frame.get("student") == "SID" and as_what == "json":
            return  # the student was removed: their socket closes, as it should
    for communicator in sockets.values():
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@budget(40)
@example(
    frames=[("student", {"action": "answer", "questionId": "QID", "choice": "node-1"}, "json")]
)
@example(frames=[("student", {"action": "answer", "questionId": 2**64, "choice": "a"}, "json")])
@example(frames=[("student", {"action": "answer", "questionId": "QID", "choice": "n\x00"}, "json")])
@example(frames=[("lecturer", {"action": "remove", "student": "SID"}, "json")])
@given(frames=FRAMES)
def test_every_class_frame_gets_an_answer_and_breaks_nothing(user, frames):
    # the database keeps earlier examples' classes: end them (a lecturer keeps 10 open)
    LiveClass.objects.filter(ended_at__isnull=True).update(ended_at=timezone.now())
    live_class = services.class_open(lecturer=user, lesson=lesson_by_slug("scoring"))
    student = services.student_join(code=live_class.code, nickname="Ann")
    question = services.question_ask_lesson(live_class=live_class, user=user, qid="winner")
    ids = {"QID": question.pk, "SID": student.pk}
    asyncio.run(_exchange(live_class, user, student, frames, ids))
    live_class.refresh_from_db()
    assert live_class.ended_at is None
    cap = live_class.student_cap
    assert cap is None or 0 <= cap <= services.STUDENTS_MAX
    for answer in ClassAnswer.objects.filter(question__live_class=live_class):
        q = answer.question
        assert "\x00" not in answer.choice and len(answer.choice) <= services.ANSWER_MAX
        assert not q.choices or answer.choice in q.choices
    for q in ClassQuestion.objects.filter(live_class=live_class):
        assert "\x00" not in q.prompt and all("\x00" not in c for c in q.choices)
    assert ClassStudent.objects.filter(live_class=live_class).count() <= 1
    assert LiveClass.objects.filter(pk=live_class.pk).exists()
