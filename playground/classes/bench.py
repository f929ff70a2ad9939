"""The live-class benchmark behind ``manage.py bench_class``: a lecturer and N students as real
HTTP and websocket clients of one or more web processes, all on one asyncio event loop.

The lecturer is a user with a session written straight into the database (its cookie is what a
browser would hold); the class is opened over HTTP (``POST /classes/new/``, as the lesson page's
button does). Each student joins with ``POST /join/`` (JSON), presses the lesson's "start the
run" once (``POST /lessons/<slug>/run/``: visitors share one stored run, so ``runsStarted``
stays at most one) and connects ``ws/classes/<code>/?token=...``; students are spread round-robin
over the given URLs. Then the lecturer steps through every step of the lesson, asks every
question, every student answers (a seeded random choice) and the lecturer reveals; last the class
ends. Latencies are measured in this process on one clock (``time.perf_counter``):

- step: the lecturer's send (its ``sentAt``, echoed by the server) to each student's ``step``;
- tally: a student's send to the first tally the lecturer receives whose ``answered`` count
  includes that answer (an answer's rank among the question's stored answers, by row id, is the
  count from which a tally includes it);
- reveal: the lecturer's send to each student's ``reveal``.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

WAIT: Final = 30.0  # seconds any one expected message may take before it counts as an error
# HTTP requests and websocket handshakes in flight at once (a room joins over a minute, not in
# one instant; daphne drops a handshake its application has not answered within 5 s).
HTTP_AT_ONCE: Final = 16
LECTURER: Final = "bench-lecturer"


@dataclass(slots=True)
class Student:
    index: int
    url: str
    nickname: str
    token: str = ""
    ws: Any = None
    steps: dict[float, float] = field(default_factory=dict)  # sentAt -> arrival
    questions: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> question
    acked: dict[int, float] = field(default_factory=dict)  # question id -> ack arrival
    sent: dict[int, float] = field(default_factory=dict)  # question id -> answer sent
    reveals: dict[int, float] = field(default_factory=dict)  # question id -> arrival
    ended: bool = False
    state: dict[str, Any] | None = None


@dataclass(slots=True)
class Lecturer:
    url: str
    cookie: str
    ws: Any = None
    tallies: list[tuple[int, int, float]] = field(default_factory=list)  # (qid, answered, at)
    questions: dict[int, dict[str, Any]] = field(default_factory=dict)
    steps: dict[float, int] = field(default_factory=dict)  # sentAt -> stepSeq
    state: dict[str, Any] | None = None


@dataclass(slots=True)
class Result:
    students: int
    joined: int = 0
    answered: int = 0
    errors: int = 0
    step_latencies: list[float] = field(default_factory=list)
    tally_latencies: list[float] = field(default_factory=list)
    reveal_latencies: list[float] = field(default_factory=list)
    ack_latencies: list[float] = field(default_factory=list)  # answer sent -> "answered"
    error_messages: list[str] = field(default_factory=list)

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.error_messages) < 20:
            self.error_messages.append(message)


def p95(values: list[float]) -> float | None:
    """The 95th percentile (nearest rank), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


# -- HTTP (blocking, run in threads) ------------------------------------------------------------


def http_request(
    url: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)
    try:
        conn.request(method, path, body=body or None, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def _csrf_form(fields: dict[str, str], cookie: str = "") -> tuple[bytes, dict[str, str]]:
    """A form POST that passes Django's CSRF check: the cookie and the field carry one token."""
    from urllib.parse import urlencode

    token = secrets.token_hex(16)  # 32 characters, as Django's own
    body = urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
    cookies = f"csrftoken={token}" + (f"; {cookie}" if cookie else "")
    return body, {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookies}


def class_open_http(url: str, cookie: str, lesson: str) -> str:
    """Open a class on the lesson as the lecturer's browser does; the class code."""
    body, headers = _csrf_form({"lesson": lesson}, cookie)
    status, got, text = http_request(url, "POST", "/classes/new/", body, headers)
    location = got.get("location", "")
    if status != 302 or "/present/" not in location:
        raise RuntimeError(f"POST /classes/new/ answered {status} {location} {text[:200]!r}")
    return location.rstrip("/").split("/")[-2]


def student_join(url: str, code: str, nickname: str) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"code": code, "nickname": nickname}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    status, _, text = http_request(url, "POST", "/join/", body, headers)
    try:
        return status, json.loads(text)
    except ValueError:
        return status, {"errors": {"__all__": [text[:200].decode(errors="replace")]}}


def lesson_run_start(url: str, lesson: str) -> int:
    """Press the lesson's "start the run" as a visitor without an account; the HTTP status."""
    body, headers = _csrf_form({"profile": "default"})
    status, _, _ = http_request(url, "POST", f"/lessons/{lesson}/run/", body, headers)
    return status


# -- websockets ----------------------------------------------------------------------------------


def _ws_url(url: str, code: str, token: str = "") -> str:
    parts = urlsplit(url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    query = f"?token={token}" if token else ""
    return f"{scheme}://{parts.netloc}/ws/classes/{code}/{query}"


async def _connect(url: str, code: str, *, token: str = "", cookie: str = "") -> Any:
    from websockets.asyncio.client import connect

    parts = urlsplit(url)
    return await connect(
        _ws_url(url, code, token),
        origin=f"{parts.scheme}://{parts.netloc}",  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie} if cookie else None,
        open_timeout=WAIT,
        max_size=2**22,
        ping_interval=None,
    )


async def _read_student(student: Student, result: Result) -> None:
    try:
        async for raw in student.ws:
            now = time.perf_counter()
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                student.state = msg
            elif kind == "step" and isinstance(msg.get("sentAt"), float):
                student.steps.setdefault(msg["sentAt"], now)
            elif kind == "question":
                student.questions[msg["question"]["id"]] = msg["question"]
            elif kind == "answered":
                student.acked.setdefault(msg["questionId"], now)
            elif kind == "reveal":
                student.reveals.setdefault(msg["questionId"], now)
            elif kind == "ended":
                student.ended = True
            elif kind == "error":
                result.error(f"student {student.index}: {msg.get('message')}")
    except Exception as err:  # a dropped connection is an error of the bench's outcome
        if not student.ended:
            result.error(f"student {student.index} connection: {err!r}")


async def _read_lecturer(lecturer: Lecturer, result: Result) -> None:
    try:
        async for raw in lecturer.ws:
            now = time.perf_counter()
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "state":
                lecturer.state = msg
            elif kind == "tally":
                lecturer.tallies.append((msg["questionId"], int(msg["answered"]), now))
            elif kind == "question":
                lecturer.questions[msg["question"]["id"]] = msg["question"]
            elif kind == "step" and isinstance(msg.get("sentAt"), float):
                lecturer.steps[msg["sentAt"]] = msg["stepSeq"]
            elif kind == "error":
                result.error(f"lecturer: {msg.get('message')}")
    except Exception as err:
        result.error(f"lecturer connection: {err!r}")


async def _until(done: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


# -- the class -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """What the bench does: the class's lesson, its steps and questions, the clients' URLs."""

    lesson: str
    steps: int
    questions: tuple[str, ...]
    urls: tuple[str, ...]
    students: int
    seed: int = 7


async def bench(
    plan: Plan,
    *,
    cookie: str,
    answer_ranks: Callable[[int], dict[int, int]],
    log: Callable[[str], None] = print,
) -> Result:
    """Drive one class through ``plan``; ``answer_ranks(question id)`` reads student id ->
    rank of the student's answer among the question's stored answers (1 = first stored)."""
    result = Result(students=plan.students)
    rng = random.Random(plan.seed)
    lecturer = Lecturer(url=plan.urls[0], cookie=cookie)
    code = await asyncio.to_thread(class_open_http, lecturer.url, cookie, plan.lesson)
    log(f"class {code} open on lesson {plan.lesson} ({plan.steps} steps)")
    lecturer.ws = await _connect(lecturer.url, code, cookie=cookie)
    readers = [asyncio.create_task(_read_lecturer(lecturer, result))]
    run = f"{secrets.token_hex(2)}"
    students = [
        Student(index=i, url=plan.urls[i % len(plan.urls)], nickname=f"s{i:04d}-{run}")
        for i in range(plan.students)
    ]
    limit = asyncio.Semaphore(HTTP_AT_ONCE)
    ids: dict[int, Student] = {}

    async def join(student: Student) -> None:
        async with limit:
            status, body = await asyncio.to_thread(
                student_join, student.url, code, student.nickname
            )
        if status != 201:
            result.error(f"join {student.index}: {status} {body}")
            return
        student.token = body["token"]
        ids[int(body["student"])] = student
        async with limit:
            started = await asyncio.to_thread(lesson_run_start, student.url, plan.lesson)
        if started != 302:
            result.error(f"student {student.index} start the run: HTTP {started}")
        try:
            async with limit:  # a handshake the server does not answer in 5 s is dropped
                student.ws = await _connect(student.url, code, token=student.token)
        except Exception as err:
            result.error(f"student {student.index} connect: {err!r}")
            return
        readers.append(asyncio.create_task(_read_student(student, result)))

    await asyncio.gather(*(join(s) for s in students))
    online = [s for s in students if s.ws is not None]
    result.joined = len(ids)
    if not await _until(lambda: all(s.state is not None for s in online)):
        result.error("not every student got the class's state")
    log(f"joined {result.joined} of {plan.students}, {len(online)} connected")

    for n in range(1, plan.steps + 1):
        sent = time.perf_counter()
        await lecturer.ws.send(
            json.dumps({"action": "step", "step": {"lessonStep": n}, "sentAt": sent})
        )
        if not await _until(lambda sent=sent: all(sent in s.steps for s in online)):
            result.error(f"step {n}: not every student got it")
        result.step_latencies += [s.steps[sent] - sent for s in online if sent in s.steps]
    log(f"stepped through {plan.steps} steps: p95 {_ms(p95(result.step_latencies))}")

    answered_all = {s.index for s in online}
    for qid in plan.questions:
        acks_before, tallies_before = len(result.ack_latencies), len(result.tally_latencies)
        acked = await _question(qid, lecturer, online, ids, rng, result, answer_ranks)
        answered_all &= acked
        # this question's own latencies, not the running totals the summary reports
        acks, tallies = result.ack_latencies[acks_before:], result.tally_latencies[tallies_before:]
        log(
            f"question {qid}: {len(acked)} answers, acknowledged p95 "
            f"{_ms(p95(acks))}, tally p95 {_ms(p95(tallies))}"
        )
    result.answered = len(answered_all) if plan.questions else 0

    await lecturer.ws.send(json.dumps({"action": "end"}))
    if not await _until(lambda: all(s.ended for s in online)):
        result.error("not every student was told the class ended")
    for ws in [lecturer.ws, *(s.ws for s in online)]:
        await ws.close()
    await asyncio.wait(readers, timeout=WAIT)
    for message in result.error_messages:
        log(f"error: {message}")
    return result


async def _question(
    qid: str,
    lecturer: Lecturer,
    online: list[Student],
    ids: dict[int, Student],
    rng: random.Random,
    result: Result,
    answer_ranks: Callable[[int], dict[int, int]],
) -> set[int]:
    """Ask one lesson question, have every student answer, reveal; the students acknowledged."""
    await lecturer.ws.send(json.dumps({"action": "ask", "lessonQuestion": qid}))
    if not await _until(lambda: bool(lecturer.questions)):
        result.error(f"question {qid}: the lecturer did not get it")
        return set()
    question_id = max(lecturer.questions)
    question = lecturer.questions.pop(question_id)
    if not await _until(lambda: all(question_id in s.questions for s in online)):
        result.error(f"question {qid}: not every student got it")
    choices = question.get("choices") or []
    for s in online:
        choice = rng.choice(choices) if choices else str(rng.randint(0, 100))
        s.sent[question_id] = time.perf_counter()
        await s.ws.send(
            json.dumps({"action": "answer", "questionId": question_id, "choice": choice})
        )
    if not await _until(lambda: all(question_id in s.acked for s in online)):
        result.error(f"question {qid}: not every answer was acknowledged")
    acked = {s.index for s in online if question_id in s.acked}
    result.ack_latencies += [
        s.acked[question_id] - s.sent[question_id] for s in online if question_id in s.acked
    ]
    if not await _until(lambda: _tallied(lecturer, question_id) >= len(acked)):
        result.error(f"question {qid}: the lecturer's tally stopped short of {len(acked)}")
    ranks = await asyncio.to_thread(answer_ranks, question_id)
    by_student = {ids[sid].index: rank for sid, rank in ranks.items() if sid in ids}
    for s in online:
        rank = by_student.get(s.index)
        seen = _first_tally(lecturer, question_id, rank) if rank else None
        if seen is None:
            result.error(f"question {qid}: no tally counted student {s.index}")
        else:
            result.tally_latencies.append(seen - s.sent[question_id])
    sent = time.perf_counter()
    await lecturer.ws.send(json.dumps({"action": "reveal"}))
    if not await _until(lambda: all(question_id in s.reveals for s in online)):
        result.error(f"question {qid}: not every student got the reveal")
    result.reveal_latencies += [
        s.reveals[question_id] - sent for s in online if question_id in s.reveals
    ]
    return acked


def _tallied(lecturer: Lecturer, question_id: int) -> int:
    return max((n for q, n, _ in lecturer.tallies if q == question_id), default=0)


def _first_tally(lecturer: Lecturer, question_id: int, rank: int) -> float | None:
    return next((at for q, n, at in lecturer.tallies if q == question_id and n >= rank), None)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f} ms"


def summary(result: Result, runs_started: int) -> dict[str, Any]:
    """The JSON line the command prints last."""

    def seconds(values: list[float]) -> float | None:
        value = p95(values)
        return None if value is None else round(value, 4)

    return {
        "students": result.students,
        "joined": result.joined,
        "answered": result.answered,
        "errors": result.errors,
        "stepP95Seconds": seconds(result.step_latencies),
        "tallyP95Seconds": seconds(result.tally_latencies),
        "revealP95Seconds": seconds(result.reveal_latencies),
        "runsStarted": runs_started,
    }
