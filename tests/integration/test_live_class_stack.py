"""A live class across two daphne processes on the Redis channel layer, with a Celery worker:
the lecturer's step and answers cross processes, a killed process's students catch up, and
``bench_class`` runs end to end. PostgreSQL with ``TEST_DB=postgres`` (SQLite otherwise)."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlsplit

import pytest
from daphne_server import start_daphne
from django.core.management import call_command
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from playground.classes import bench
from playground.classes import services as classes
from playground.lessons.loader import lesson_by_slug
from playground.management.commands.bench_class import lecturer_cookie
from playground.models import ClassAnswer, LiveClass, Run

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TIMEOUT = 20
LESSON = "scoring"


@pytest.fixture
def two_daphnes(stack_urls):
    """Two daphne processes on one Redis channel layer and broker; a list, so that a test may
    replace one it killed (every process in it is stopped at the end)."""
    processes = [_started(stack_urls) for _ in range(2)]
    yield processes
    for process in processes:
        if process.is_alive():
            process.terminate()
        process.join(timeout=10)


def _started(stack_urls: dict[str, str]) -> Any:
    """A daphne process that has served one page (URLs, templates and the database connection
    loaded, so the first websocket handshake does not wait for them on a busy machine)."""
    process = start_daphne(stack_urls["layer"], stack_urls["broker"])
    status, _, _ = bench.http_request(_url(process), "GET", "/join/")
    assert status == 200
    return process


@pytest.fixture
def closing() -> Iterator[ExitStack]:
    """Closes the test's websockets at its end."""
    with ExitStack() as stack:
        yield stack


def _url(process: Any) -> str:
    return f"http://127.0.0.1:{process.port.value}"


class Peer:
    """One websocket client of the class and every message it got."""

    def __init__(
        self, url: str, code: str, closing: ExitStack, *, token: str = "", cookie: str = ""
    ) -> None:
        parts = urlsplit(url)
        query = f"?token={token}" if token else ""
        self.ws: ClientConnection = closing.enter_context(
            connect(
                f"ws://{parts.netloc}/ws/classes/{code}/{query}",
                origin=f"http://{parts.netloc}",  # type: ignore[arg-type]
                additional_headers={"Cookie": cookie} if cookie else None,
                open_timeout=TIMEOUT,
            )
        )
        self.got: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message (already got, or arriving within TIMEOUT) that ``wanted`` accepts."""
        for message in self.got:
            if wanted(message):
                return message
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = json.loads(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            self.got.append(message)
            if wanted(message):
                return message

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.got if m.get("type") == kind]


def _type(kind: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == kind and all(m.get(k) == v for k, v in fields.items())


def _class(user) -> tuple[LiveClass, str]:
    live_class = classes.class_open(lecturer=user, lesson=lesson_by_slug(LESSON))
    return live_class, lecturer_cookie(user.username)


def _students(
    urls: list[str], code: str, names: list[str], closing: ExitStack
) -> list[tuple[str, str, Peer]]:
    """Each name joins over HTTP at its URL and connects its websocket there."""
    out = []
    for url, name in zip(urls, names, strict=True):
        status, body = bench.student_join(url, code, name)
        assert status == 201, body
        peer = Peer(url, code, closing, token=body["token"])
        assert peer.until(_type("state"))["role"] == "student"
        out.append((url, body["token"], peer))
    return out


def test_students_on_both_processes_follow_the_step_and_answers_reach_the_tally_once(
    two_daphnes, celery_worker, user, closing
):
    a, b = (_url(p) for p in two_daphnes)
    live_class, cookie = _class(user)
    lecturer = Peer(a, live_class.code, closing, cookie=cookie)
    assert lecturer.until(_type("state"))["role"] == "lecturer"
    students = _students([a, b, a, b], live_class.code, ["ann", "bob", "cy", "dee"], closing)
    assert lecturer.until(_type("joined", joined=4))

    # Every student presses "start the run" on its own process: one shared run, run by Celery.
    for url, _, _ in students:
        assert bench.lesson_run_start(url, LESSON) == 302
    assert Run.objects.count() == 1

    lecturer.send({"action": "step", "step": {"lessonStep": 3}, "sentAt": 1.5})
    steps = [peer.until(_type("step", sentAt=1.5)) for _, _, peer in students]
    assert {s["stepSeq"] for s in steps} == {1}
    assert {s["step"]["lessonStep"] for s in steps} == {3}

    lecturer.send({"action": "ask", "lessonQuestion": "winner"})
    question = lecturer.until(_type("question"))["question"]
    assert "answer" not in question
    picks = ["node-1", "node-3", "node-1", "node-2"]
    for (_, _, peer), pick in zip(students, picks, strict=True):
        assert peer.until(_type("question"))["question"]["id"] == question["id"]
        peer.send({"action": "answer", "questionId": question["id"], "choice": pick})
        assert peer.until(_type("answered"))["choice"] == pick
    # bob (on b) changes his mind: replaced, not counted twice.
    students[1][2].send({"action": "answer", "questionId": question["id"], "choice": "node-1"})
    students[1][2].until(_type("answered", choice="node-1"))
    final = lecturer.until(lambda m: m.get("type") == "tally" and m["counts"].get("node-1") == 3)
    assert final["counts"] == {"node-1": 3, "node-2": 1} and final["answered"] == 4
    assert ClassAnswer.objects.filter(question_id=question["id"]).count() == 4

    lecturer.send({"action": "reveal"})
    for _, _, peer in students:
        reveal = peer.until(_type("reveal"))
        assert reveal["answer"] == "node-1" and reveal["counts"] == final["counts"]
    deadline = time.monotonic() + 60
    while Run.objects.get().status != Run.Status.SUCCEEDED and time.monotonic() < deadline:
        time.sleep(0.2)
    assert Run.objects.get().status == Run.Status.SUCCEEDED


def test_a_killed_process_s_students_reconnect_and_catch_up_with_no_answer_lost(
    two_daphnes, stack_urls, user, closing
):
    a, b = (_url(p) for p in two_daphnes)
    live_class, cookie = _class(user)
    lecturer = Peer(a, live_class.code, closing, cookie=cookie)
    lecturer.until(_type("state"))
    students = _students(
        [a, a, b, b, b], live_class.code, ["ann", "al", "bo", "bea", "bix"], closing
    )
    lecturer.send({"action": "ask", "lessonQuestion": "winner"})
    qid = lecturer.until(_type("question"))["question"]["id"]
    for (_, _, peer), pick in zip(students[2:4], ["node-2", "node-3"], strict=True):
        peer.until(_type("question"))
        peer.send({"action": "answer", "questionId": qid, "choice": pick})
        peer.until(_type("answered"))

    two_daphnes[1].kill()  # SIGKILL: no close frames, no cleanup
    two_daphnes[1].join(timeout=10)
    for _, _, peer in students[2:]:
        with pytest.raises(ConnectionClosed):
            peer.until(lambda m: False)
    # The class goes on without them: a step and two answers on the process that lives.
    lecturer.send({"action": "step", "step": {"lessonStep": 4}, "sentAt": 2.5})
    for (_, _, peer), pick in zip(students[:2], ["node-1", "node-1"], strict=True):
        peer.until(_type("step", sentAt=2.5))
        peer.until(_type("question"))
        peer.send({"action": "answer", "questionId": qid, "choice": pick})
        peer.until(_type("answered"))

    two_daphnes.append(_started(stack_urls))
    restarted = _url(two_daphnes[-1])
    back = [Peer(restarted, live_class.code, closing, token=token) for _, token, _ in students[2:]]
    states = [peer.until(_type("state")) for peer in back]
    assert {s["stepSeq"] for s in states} == {1}
    assert {s["step"]["lessonStep"] for s in states} == {4}
    assert {s["question"]["id"] for s in states} == {qid}
    assert [s["myAnswer"] for s in states] == ["node-2", "node-3", None]
    assert {s["answered"] for s in states} == {4}
    back[2].send({"action": "answer", "questionId": qid, "choice": "node-2"})
    back[2].until(_type("answered"))
    tally = lecturer.until(_type("tally", answered=5))
    assert tally["counts"] == {"node-1": 2, "node-2": 2, "node-3": 1}
    lecturer.send({"action": "reveal"})
    for peer in [students[0][2], students[1][2], *back]:
        assert peer.until(_type("reveal"))["counts"] == tally["counts"]
    lecturer.send({"action": "end"})
    for peer in [students[0][2], *back]:
        peer.until(_type("ended"))


def test_bench_class_embedded_prints_its_json_line_last():
    out = io.StringIO()
    call_command("bench_class", students=5, stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert any(line.startswith("joined 5 of 5") for line in lines)
    last = json.loads(lines[-1])
    assert set(last) == {
        "students",
        "joined",
        "answered",
        "errors",
        "stepP95Seconds",
        "tallyP95Seconds",
        "revealP95Seconds",
        "runsStarted",
    }
    assert (last["students"], last["joined"], last["answered"], last["errors"]) == (5, 5, 5, 0)
    assert last["runsStarted"] == 1  # five students, one shared run of the lesson
    for key in ("stepP95Seconds", "tallyP95Seconds", "revealP95Seconds"):
        assert isinstance(last[key], float) and last[key] > 0
