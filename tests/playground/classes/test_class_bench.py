"""The pieces of bench_class that are not timing: percentiles, the JSON line, answer ranks, and
the lecturer's session."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from playground.classes import bench
from playground.classes import services as classes
from playground.management.commands import bench_class
from playground.models import ClassAnswer

pytestmark = pytest.mark.django_db


def test_p95_is_the_nearest_rank():
    assert bench.p95([]) is None
    assert bench.p95([0.5]) == 0.5
    assert bench.p95([float(i) for i in range(1, 101)]) == 95.0
    assert bench.p95([float(i) for i in range(20, 0, -1)]) == 19.0


def test_the_json_line_has_the_issues_fields():
    result = bench.Result(students=3, joined=3, answered=2, errors=1)
    result.step_latencies = [0.1, 0.2, 0.123456]
    line = bench.summary(result, runs_started=1)
    assert line == {
        "students": 3,
        "joined": 3,
        "answered": 2,
        "errors": 1,
        "stepP95Seconds": 0.2,
        "tallyP95Seconds": None,
        "revealP95Seconds": None,
        "runsStarted": 1,
    }


def test_answer_ranks_follow_the_order_answers_were_stored(user, lesson_class):
    students = [classes.student_join(code=lesson_class.code, nickname=n) for n in "abc"]
    question = classes.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    for student in (students[2], students[0], students[1], students[2]):
        classes.answer_submit(
            class_id=lesson_class.pk,
            student_id=student.pk,
            question_id=question.pk,
            choice="node-1",
        )
    assert ClassAnswer.objects.filter(question=question).count() == 3
    assert bench_class.answer_ranks(question.pk) == {
        students[2].pk: 1,
        students[0].pk: 2,
        students[1].pk: 3,
    }


def test_the_lecturers_cookie_is_a_signed_in_session():
    cookie = bench_class.lecturer_cookie("lecturer-x")
    name, key = cookie.split("=", 1)
    assert name == settings.SESSION_COOKIE_NAME
    client = Client()
    client.cookies[name] = key
    assert client.get("/").wsgi_request.user.username == "lecturer-x"
    assert bench_class.lecturer_cookie("lecturer-x") != cookie  # a new session each time


def test_the_embedded_server_gets_this_processes_database():
    env = bench_class.database_env()
    if env["DB_ENGINE"] == "sqlite":
        assert env["SQLITE_PATH"] == str(settings.DATABASES["default"]["NAME"])
    else:
        assert env["PGDATABASE"] == settings.DATABASES["default"]["NAME"]


def test_the_help_explains_every_flag_and_json_field():
    from playground.management.commands.bench_class import Command

    parser = Command().create_parser("manage.py", "bench_class")
    text = parser.format_help()
    for field in ("stepP95Seconds", "tallyP95Seconds", "revealP95Seconds", "runsStarted"):
        assert field in text
    for action in parser._actions:
        if action.dest in ("students", "url", "lesson", "seed"):
            assert action.help, action.dest
