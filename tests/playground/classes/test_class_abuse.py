"""Issue 39 on joining and running a live class: fake students filling a class (MEDIUM 6), code
guessing and what the answers tell (LOW), look-alike nicknames and CSV formula prefixes (LOW), a
cap on open classes per lecturer (LOW)."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.cache import cache
from django.test import Client

from playground.classes import selectors, services
from playground.classes.models import ClassStudent, LiveClass

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counts():
    cache.clear()
    yield
    cache.clear()


def _join(client, code, nickname, address="203.0.113.5"):
    return client.post(
        "/join/",
        {"code": code, "nickname": nickname},
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        REMOTE_ADDR=address,
    )


def test_a_room_behind_one_address_joins_whole(client, lesson_class):
    """250 students through one NAT address (a school's network): every one joins."""
    statuses = {_join(client, lesson_class.code, f"s{i}").status_code for i in range(250)}
    assert statuses == {201}
    assert ClassStudent.objects.filter(live_class=lesson_class).count() == 250


def test_fake_students_from_one_address_stop_at_the_address_limit(
    client, lesson_class, user, lesson7, settings
):
    settings.JOINS_PER_ADDRESS = limit = 12
    other = services.class_open(lecturer=user, lesson=lesson7)  # across classes too
    statuses = [_join(client, lesson_class.code, f"fake{i}").status_code for i in range(8)]
    statuses += [_join(client, other.code, f"fake{i}").status_code for i in range(limit - 8 + 5)]
    assert statuses == [201] * limit + [429] * 5
    assert ClassStudent.objects.count() == limit
    # a real student elsewhere still gets in
    assert _join(client, lesson_class.code, "Ann", address="198.51.100.9").status_code == 201


def test_joins_per_class_are_limited_across_addresses(client, lesson_class, settings):
    settings.JOINS_PER_CLASS = 3
    statuses = [
        _join(client, lesson_class.code, f"s{i}", address=f"10.0.0.{i}").status_code
        for i in range(5)
    ]
    assert statuses == [201] * 3 + [429] * 2


def test_guessing_codes_is_throttled_and_says_the_same_for_ended_and_unknown(
    client, lesson_class, user, lesson7, settings
):
    settings.JOIN_GUESSES_PER_ADDRESS = 4
    ended = services.class_open(lecturer=user, lesson=lesson7)
    services.class_end(live_class=ended, user=user)
    unknown = "ZZZZZZ" if lesson_class.code != "ZZZZZZ" else "YYYYYY"
    said_ended = _join(client, ended.code, "Ann")
    said_unknown = _join(client, unknown, "Ann")
    assert said_ended.status_code == said_unknown.status_code == 400
    assert said_ended.json() == said_unknown.json()
    # without a token the student page of an ended, unknown or open class is the join form
    for code in (ended.code, unknown, lesson_class.code):
        page = Client().get(f"/classes/{code}/")
        assert page.status_code == 302 and page["Location"] == f"/join/?code={code}"
    _join(client, unknown, "Ann")
    _join(client, unknown, "Ann")
    # four guesses spent: even the right code is refused from this address for a while
    refused = _join(client, lesson_class.code, "Ann")
    assert refused.status_code == 429 and refused["Retry-After"]
    form = {"code": lesson_class.code, "nickname": "Ann"}
    html = client.post("/join/", form, REMOTE_ADDR="203.0.113.5")
    assert html.status_code == 429 and "Too many joins" in html.content.decode()
    assert _join(client, lesson_class.code, "Ann", address="198.51.100.9").status_code == 201


def test_the_lecturers_cap_keeps_the_class_for_the_real_students(lesson_class, user):
    services.student_cap_set(live_class=lesson_class, user=user, cap=2)
    services.student_join(code=lesson_class.code, nickname="Ann")
    services.student_join(code=lesson_class.code, nickname="Bob")
    with pytest.raises(services.JoinRefused) as refused:
        services.student_join(code=lesson_class.code, nickname="Cy")
    assert refused.value.errors == {"code": ["This class is full."]}
    for bad in (-1, "3", 2.5, True, services.STUDENTS_MAX + 1):
        with pytest.raises(services.ClassError):
            services.student_cap_set(live_class=lesson_class, user=user, cap=bad)
    services.student_cap_set(live_class=lesson_class, user=user, cap=None)
    assert services.student_join(code=lesson_class.code, nickname="Cy").nickname == "Cy"


def test_the_lecturer_sees_and_removes_a_student(lesson_class, user, other_user):
    ann = services.student_join(code=lesson_class.code, nickname="Ann")
    fake = services.student_join(code=lesson_class.code, nickname="fake")
    state = selectors.state(lesson_class, role="lecturer")
    assert state["students"] == [
        {"id": ann.pk, "nickname": "Ann"},
        {"id": fake.pk, "nickname": "fake"},
    ]
    assert "students" not in selectors.state(lesson_class, role="student", student_id=ann.pk)
    with pytest.raises(services.NotLecturer):
        services.student_remove(live_class=lesson_class, user=other_user, student_id=fake.pk)
    assert services.student_remove(live_class=lesson_class, user=user, student_id=fake.pk)
    assert not services.student_remove(live_class=lesson_class, user=user, student_id=fake.pk)
    assert not services.student_remove(live_class=lesson_class, user=user, student_id=2**70)
    assert selectors.student_by_token(lesson_class, fake.token) is None
    assert [s["nickname"] for s in selectors.students(lesson_class.pk)] == ["Ann"]


@pytest.mark.parametrize(
    "look_alike",
    [
        "\u0410nn",  # Cyrillic capital A
        "\uff21\uff4e\uff4e",  # full-width
        "An\u200bn",  # a zero-width space inside
        "A\u0301nn",  # an accent
        "ANN",
        "\u202eAnn",  # a right-to-left override before it
    ],
)
def test_a_nickname_that_reads_like_a_classmates_is_taken(lesson_class, look_alike):
    services.student_join(code=lesson_class.code, nickname="Ann")
    with pytest.raises(services.JoinRefused) as refused:
        services.student_join(code=lesson_class.code, nickname=look_alike)
    assert "taken" in refused.value.errors["nickname"][0]


def test_nicknames_lose_format_characters_and_keep_other_scripts(lesson_class):
    shown = services.student_join(code=lesson_class.code, nickname="\u202eevil\u200d")
    assert shown.nickname == "evil"
    assert services.student_join(code=lesson_class.code, nickname="小明").nickname == "小明"
    assert services.student_join(code=lesson_class.code, nickname="Bo").nickname_key == "bo"


def test_results_cells_with_spaced_or_full_width_formula_starts_stay_text(
    alice_client, lesson_class, user
):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    names = ["\uff1dHYPERLINK(1)", " =1+1", "\uff0bcmd", "-5", "@SUM(1)", "plain"]
    for name in names:
        s = services.student_join(code=lesson_class.code, nickname=name)
        services.answer_submit(
            class_id=lesson_class.pk, student_id=s.pk, question_id=q.pk, choice="node-1"
        )
    body = alice_client.get(f"/classes/{lesson_class.code}/results.csv").content.decode()
    shown = [row[2] for row in list(csv.reader(io.StringIO(body)))[1:]]
    assert shown == ["'\uff1dHYPERLINK(1)", "'=1+1", "'\uff0bcmd", "-5", "'@SUM(1)", "plain"]


def test_a_lecturer_may_keep_only_so_many_classes_open(alice_client, user, lesson7):
    for _ in range(services.OPEN_CLASSES_MAX):
        assert alice_client.post("/classes/new/", {"lesson": "scoring"}).status_code == 302
    refused = alice_client.post("/classes/new/", {"lesson": "scoring"})
    assert refused.status_code == 409 and b"end one" in refused.content
    assert LiveClass.objects.filter(ended_at__isnull=True).count() == services.OPEN_CLASSES_MAX
    first = LiveClass.objects.order_by("id").first()
    services.class_end(live_class=first, user=user)
    assert alice_client.post("/classes/new/", {"lesson": "scoring"}).status_code == 302
