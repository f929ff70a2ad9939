"""``manage.py bench_class --students N [--url URL ...] [--lesson SLUG]``: a live class at scale.

A lecturer and N students, as real HTTP and websocket clients on one event loop
(``playground.classes.bench``), go through a whole lesson: every step, every question answered
by every student, every reveal, then the end. Students are spread round-robin over the ``--url``
web processes; without ``--url`` the command starts its own server (``manage.py serve`` in a
subprocess on a free loopback port, on the configured database) and stops it afterwards.

The lecturer (user ``bench-lecturer``) gets a session written straight into the database, so
this command must use the same database as the web processes. Progress lines come first; the
last line printed is one JSON object:

    {"students", "joined", "answered", "errors", "stepP95Seconds", "tallyP95Seconds",
     "revealP95Seconds", "runsStarted"}

``answered`` counts the students who answered every question; ``runsStarted`` the runs stored
while the bench ran (each student presses the lesson's "start the run" once: visitors share one
run of a lesson, so it is 0 or 1).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from importlib import import_module
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections
from django.db.models import Max

from playground.classes import bench
from playground.lessons.loader import Lesson, course, lesson_by_slug
from playground.models import ClassAnswer, Run

DEFAULT_LESSON_NUMBER = 7
SERVER_START_SECONDS = 180.0  # a first start migrates the database


def lecturer_cookie(username: str = bench.LECTURER) -> str:
    """A signed-in session of the bench's lecturer, as the Cookie header a browser would send."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


def answer_ranks(question_id: int) -> dict[int, int]:
    """Student id -> the rank of their answer among the question's stored answers (1 = first)."""
    rows = ClassAnswer.objects.filter(question_id=question_id).order_by("id")
    return {sid: i for i, sid in enumerate(rows.values_list("student_id", flat=True), start=1)}


def database_env() -> dict[str, str]:
    """The environment that points a subprocess's settings at this process's database."""
    db = connections["default"].settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return {"DB_ENGINE": "sqlite", "SQLITE_PATH": str(db["NAME"])}
    return {
        "DB_ENGINE": "postgres",
        "PGHOST": str(db.get("HOST") or "127.0.0.1"),
        "PGPORT": str(db.get("PORT") or "5432"),
        "PGDATABASE": str(db["NAME"]),
        "PGUSER": str(db.get("USER") or "postgres"),
        "PGPASSWORD": str(db.get("PASSWORD") or ""),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmbeddedServer:
    """``manage.py serve`` in a subprocess on a free loopback port (embedded mode: the in-memory
    channel layer and runs in the server's own threads, unless the environment says otherwise)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115  closed by stop()
            prefix="bench_class_server_", suffix=".log", delete=False
        )
        manage = Path(settings.BASE_DIR) / "manage.py"
        cmd = [sys.executable, str(manage), "serve", "--no-demo", "--port", str(self.port)]
        env = {**os.environ, **database_env()}
        connections.close_all()  # SQLite: the server writes the file while this process waits
        self.process = subprocess.Popen(
            cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT, cwd=settings.BASE_DIR
        )

    def wait_ready(self, timeout: float = SERVER_START_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CommandError(f"the server exited ({self.process.returncode}): {self.tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise CommandError(f"the server did not listen within {timeout:.0f} s: {self.tail()}")

    def tail(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


def default_lesson() -> Lesson:
    return next(lesson for lesson in course() if lesson.number == DEFAULT_LESSON_NUMBER)


class Command(BaseCommand):
    help = (
        "A live class on a lesson with N simulated students over real HTTP and websockets: "
        "every step, every question answered, every reveal. Progress lines first; the last "
        "line is JSON: students, joined, answered (students who answered every question), "
        "errors, stepP95Seconds (lecturer's step to every student), tallyP95Seconds (an "
        "answer sent to the lecturer's tally counting it), revealP95Seconds, runsStarted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--students", type=int, default=50, help="simulated students (default 50)"
        )
        parser.add_argument(
            "--url",
            action="append",
            default=[],
            help="a web process (http://host:port) on this database, repeatable: students are "
            "spread over them; default: start one (manage.py serve on a free loopback port)",
        )
        parser.add_argument("--lesson", default="", help="a lesson's slug (default: lesson 7)")
        parser.add_argument(
            "--seed", type=int, default=7, help="seed of the students' random answers (default 7)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        students = int(options["students"])
        if students < 1:
            raise CommandError("--students must be at least 1")
        lesson = lesson_by_slug(options["lesson"]) if options["lesson"] else default_lesson()
        if lesson is None:
            raise CommandError(f"no lesson {options['lesson']!r}")
        urls = tuple(u.rstrip("/") for u in options["url"])
        server = None
        if not urls:
            server = EmbeddedServer()
            self.stdout.write(f"starting the server on {server.url} (log {server.log.name})")
            server.wait_ready()
            urls = (server.url,)
        try:
            before = Run.objects.aggregate(m=Max("id"))["m"] or 0
            plan = bench.Plan(
                lesson=lesson.slug,
                steps=len(lesson.steps),
                questions=tuple(q.id for q in lesson.questions),
                urls=urls,
                students=students,
                seed=int(options["seed"]),
            )
            cookie = lecturer_cookie()
            connections.close_all()  # the bench's threads open their own
            result = asyncio.run(
                bench.bench(plan, cookie=cookie, answer_ranks=_closing(answer_ranks), log=self._log)
            )
            runs_started = Run.objects.filter(pk__gt=before).count()
        finally:
            if server is not None:
                server.stop()
        self.stdout.write(json.dumps(bench.summary(result, runs_started)))

    def _log(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()


def _closing(read: Any) -> Any:
    """``read`` from a worker thread, its database connection closed afterwards."""

    def call(*args: Any) -> Any:
        try:
            return read(*args)
        finally:
            connections.close_all()

    return call
