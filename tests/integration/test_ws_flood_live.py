"""Issue 39, HIGH 3, measured on a real server: ten anonymous sockets flooding a public demo
run with ``{"command": "cancel"}``, and ten students flooding a live class with
``{"action": "step"}``, reconnecting whenever they are closed. Meanwhile another visitor's
``GET /`` must answer within a second (it took 28.7 s embedded and 30.8 s on daphne + Redis
before), and the lecturer's step must reach the other students within a second (18-29 s before).

Both the embedded server (in-memory channel layer) and the full stack's (Redis layer and broker).
Each timing is printed (``-s``) for the record. Measured on a loaded 2-core machine after the fix:
GET / at most 0.48 s (embedded) and 0.42 s (full stack) under the run flood, 0.23 s under the
class flood; the lecturer's step reached 20 students in at most 0.08 s.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
from websockets.asyncio.client import connect as aconnect
from websockets.sync.client import connect

from playground.classes import bench
from playground.classes import services as classes
from playground.demo import demo_load
from playground.lessons.loader import lesson_by_slug
from playground.management.commands.bench_class import lecturer_cookie
from playground.models import Cluster, Profile
from playground.runs import services as runs
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FLOODERS = 10
FLOOD_SECONDS = 4.0
BUDGET = 1.0  # seconds: another visitor's page, the lecturer's step


@pytest.fixture(params=["embedded_asgi", "live_asgi"])
def server(request) -> str:
    return request.getfixturevalue(request.param)


class Flood:
    """``FLOODERS`` sockets sending ``frame`` as fast as they can, in a thread of their own,
    reconnecting as soon as they are closed or refused (an attacker would)."""

    def __init__(self, url: str, frame: dict[str, Any], queries: list[str]) -> None:
        self.netloc = urlsplit(url).netloc
        self.text = json.dumps(frame)
        self.queries = queries
        self.sent = self.connects = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._all()), daemon=True)

    def __enter__(self) -> Flood:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=30)

    async def _all(self) -> None:
        await asyncio.gather(*(self._one(q) for q in self.queries))

    async def _one(self, path: str) -> None:
        while not self.stop.is_set():
            try:
                self.connects += 1
                async with aconnect(
                    f"ws://{self.netloc}{path}", origin=f"http://{self.netloc}", open_timeout=10
                ) as ws:
                    while not self.stop.is_set():
                        await ws.send(self.text)
                        self.sent += 1
                        if self.sent % 50 == 0:
                            await asyncio.sleep(0)  # let the replies in
            except Exception:  # closed or refused: straight back
                await asyncio.sleep(0)


def _timed_gets(url: str, seconds: float) -> list[float]:
    """``GET /`` one after the other for ``seconds``; each one's time."""
    out: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        status, _, _ = bench.http_request(url, "GET", "/")
        out.append(time.monotonic() - started)
        assert status == 200
        time.sleep(0.1)
    return out


def _report(what: str, times: list[float]) -> None:
    print(
        f"\n{what}: {len(times)} GET / max {max(times):.3f} s, mean {sum(times) / len(times):.3f} s"
    )


def test_an_anonymous_cancel_flood_leaves_other_visitors_pages_fast(server, user):
    demo_load()
    cluster = Cluster.objects.get(is_demo=True, name="Three zones")
    profile = Profile.objects.get(is_demo=True, name="Default")
    with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)  # left pending
    quiet = _timed_gets(server, 1.0)
    path = f"/ws/runs/{run_ref(run.pk)}/"
    with Flood(server, {"command": "cancel"}, [path] * FLOODERS) as flood:
        time.sleep(0.5)
        loud = _timed_gets(server, FLOOD_SECONDS)
    _report("quiet", quiet)
    _report(f"run flood ({flood.sent} frames, {flood.connects} connects)", loud)
    assert flood.sent > 1000  # the flood did flood
    assert max(loud) < BUDGET


def _peer(url: str, code: str, stack: ExitStack, *, token: str = "", cookie: str = "") -> Any:
    netloc = urlsplit(url).netloc
    return stack.enter_context(
        connect(
            f"ws://{netloc}/ws/classes/{code}/" + (f"?token={token}" if token else ""),
            origin=f"http://{netloc}",  # type: ignore[arg-type]
            additional_headers={"Cookie": cookie} if cookie else None,
            open_timeout=20,
        )
    )


def _until(ws: Any, wanted: Callable[[dict[str, Any]], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not wanted(json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))):
        pass


def test_students_flooding_step_frames_leave_the_lecturers_step_and_pages_fast(server, user):
    live_class = classes.class_open(lecturer=user, lesson=lesson_by_slug("scoring"))
    code = live_class.code
    tokens = [classes.student_join(code=code, nickname=f"s{i}").token for i in range(FLOODERS + 20)]
    with ExitStack() as stack:
        lecturer = _peer(server, code, stack, cookie=lecturer_cookie(user.username))
        _until(lecturer, lambda m: m["type"] == "state")
        listeners = [_peer(server, code, stack, token=t) for t in tokens[FLOODERS:]]
        for ws in listeners:
            _until(ws, lambda m: m["type"] == "state")
        queries = [f"/ws/classes/{code}/?token={t}" for t in tokens[:FLOODERS]]
        with Flood(server, {"action": "step", "step": {"lessonStep": 2}}, queries) as flood:
            time.sleep(0.5)
            delays = []
            for n in (2, 3, 4):
                started = time.monotonic()
                lecturer.send(json.dumps({"action": "step", "step": {"lessonStep": n}}))
                for ws in listeners:
                    _until(ws, lambda m, n=n: m["type"] == "step" and m["step"]["lessonStep"] == n)
                delays.append(time.monotonic() - started)
            loud = _timed_gets(server, 2.0)
    print(
        f"\nclass flood ({flood.sent} frames): step to 20 students {[f'{d:.3f}' for d in delays]} s"
    )
    _report("class flood", loud)
    assert flood.sent > 1000
    assert max(delays) < BUDGET and max(loud) < BUDGET
