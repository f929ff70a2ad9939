"""Live class pages: opening, the presenter page (lecturer only, QR of the join link), joining
(form and JSON), the student page, the CSV and the end."""

from __future__ import annotations

import csv
import io

import pytest

from playground.classes import services
from playground.classes.models import ClassStudent, LiveClass
from playground.runs import services as runs_services

pytestmark = pytest.mark.django_db


def test_open_on_a_lesson_goes_to_the_presenter_page_with_code_link_and_qr(alice_client):
    response = alice_client.post("/classes/new/", {"lesson": "scoring"})
    live_class = LiveClass.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/classes/{live_class.code}/present/"
    page = alice_client.get(response["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert live_class.code in html
    assert f"http://testserver/join/?code={live_class.code}" in html
    assert "<svg" in html and 'class="segno"' in html  # drawn here, nothing fetched
    assert "plotly.min.js" in html


def test_opening_needs_sign_in_and_a_run_the_user_may_see(alice_client, other_user, finished_run):
    from django.test import Client

    response = Client().post("/classes/new/", {"lesson": "scoring"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert LiveClass.objects.count() == 0

    bob = Client()
    bob.force_login(other_user)
    assert bob.post("/classes/new/", {"run": finished_run.pk}).status_code == 404
    assert alice_client.post("/classes/new/", {"lesson": "no-such"}).status_code == 404
    assert alice_client.post("/classes/new/", {}).status_code == 400
    response = alice_client.post("/classes/new/", {"run": finished_run.pk})
    assert response.status_code == 302
    assert LiveClass.objects.get().run == finished_run


def test_only_the_lecturer_presents_exports_and_ends(client, lesson_class, other_user):
    from django.test import Client

    bob = Client()
    bob.force_login(other_user)
    code = lesson_class.code
    for c in (client, bob):
        assert c.get(f"/classes/{code}/present/").status_code == 403
        assert c.get(f"/classes/{code}/results.csv").status_code == 403
        assert c.post(f"/classes/{code}/end/").status_code == 403
    lesson_class.refresh_from_db()
    assert lesson_class.ended_at is None


def test_join_form_prefills_the_code_and_joins_into_the_session(client, lesson_class):
    page = client.get(f"/join/?code={lesson_class.code.lower()}")
    assert f'value="{lesson_class.code}"' in page.content.decode()
    response = client.post("/join/", {"code": lesson_class.code, "nickname": "Ann"})
    assert response.status_code == 302
    assert response["Location"] == f"/classes/{lesson_class.code}/"
    student = ClassStudent.objects.get()
    assert client.session[services.SESSION_STUDENTS] == {lesson_class.code: student.token}
    page = client.get(response["Location"])
    assert page.status_code == 200 and "Ann" in page.content.decode()
    # the join link again (a reload, the QR scanned twice): back to the class, not a second join
    again = client.get(f"/join/?code={lesson_class.code}")
    assert again.status_code == 302 and again["Location"] == f"/classes/{lesson_class.code}/"


def test_join_errors_name_the_field(client, lesson_class):
    client.post("/join/", {"code": lesson_class.code, "nickname": "Ann"})
    other = client.__class__()
    taken = other.post("/join/", {"code": lesson_class.code, "nickname": "ann"})
    assert taken.status_code == 400
    assert taken.context["form"].errors["nickname"]
    unknown = other.post("/join/", {"code": "ZZZZZZ", "nickname": "Bob"})
    assert list(unknown.context["form"].errors) == ["code"]


def test_the_student_page_without_a_token_goes_to_the_join_form(client, lesson_class):
    response = client.get(f"/classes/{lesson_class.code}/")
    assert response.status_code == 302
    assert response["Location"] == f"/join/?code={lesson_class.code}"


def test_join_as_json_returns_the_token_and_keeps_nothing_in_the_session(client, lesson_class):
    response = client.post(
        "/join/",
        {"code": lesson_class.code, "nickname": "Ann"},
        content_type="application/json",
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 201
    body = response.json()
    student = ClassStudent.objects.get()
    assert body == {"code": lesson_class.code, "token": student.token, "student": student.pk}
    assert services.SESSION_STUDENTS not in client.session
    again = client.post(
        "/join/",
        {"code": lesson_class.code, "nickname": "ANN"},
        content_type="application/json",
        HTTP_ACCEPT="application/json",
    )
    assert again.status_code == 400 and list(again.json()["errors"]) == ["nickname"]


def test_the_join_form_is_csrf_checked(lesson_class):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    refused = strict.post("/join/", {"code": lesson_class.code, "nickname": "Ann"})
    assert refused.status_code == 403
    assert ClassStudent.objects.count() == 0


def test_results_csv_and_end(alice_client, lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann = services.student_join(code=lesson_class.code, nickname="Ann")
    services.answer_submit(
        class_id=lesson_class.pk, student_id=ann.pk, question_id=q.pk, choice="node-2"
    )
    response = alice_client.get(f"/classes/{lesson_class.code}/results.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:6] == ["question", "prompt", "nickname", "answer", "correct", "answered_at"]
    assert rows[0][6] == "right_answer"
    assert rows[1][:5] == ["1", q.prompt, "Ann", "node-2", "false"]
    assert rows[1][6] == "node-1"
    assert alice_client.post(f"/classes/{lesson_class.code}/end/").status_code == 302
    lesson_class.refresh_from_db()
    assert lesson_class.ended_at is not None
    page = alice_client.get(f"/classes/{lesson_class.code}/present/")
    assert 'id="class-ended"' in page.content.decode()


def test_cycle_steps_of_a_run_class(alice_client, finished_run, user):
    live_class = services.class_open(lecturer=user, run=finished_run)
    steps = alice_client.get(f"/classes/{live_class.code}/cycles/1/steps.json").json()["steps"]
    points = [s["point"] for s in steps]
    assert "Filter" in points and "Combine" in points
    assert [s["index"] for s in steps] == list(range(len(steps)))
    combine = next(s for s in steps if s["point"] == "Combine")
    assert combine["help"] and combine["why"]  # what select host does, and what it chose


def test_the_lesson_page_offers_a_live_class_to_signed_in_users(client, alice_client):
    from django.test import Client

    assert 'id="start-class"' not in Client().get("/lessons/scoring/").content.decode()
    page = alice_client.get("/lessons/scoring/").content.decode()
    assert 'id="start-class"' in page and 'value="scoring"' in page


def _ann_answers_the_winner(live_class, user):
    """Ann joins and answers lesson 7's "which node wins?" with node-1 (right)."""
    ann = services.student_join(code=live_class.code, nickname="Ann")
    q = services.question_ask_lesson(live_class=live_class, user=user, qid="winner")
    services.answer_submit(
        class_id=live_class.pk, student_id=ann.pk, question_id=q.pk, choice="node-1"
    )


def test_my_classes_lists_the_lecturers_open_and_ended_classes(
    alice_client, lesson_class, user, other_user, lesson7
):
    from django.test import Client

    _ann_answers_the_winner(lesson_class, user)
    ended = services.class_open(lecturer=user, lesson=lesson7)
    services.class_end(live_class=ended, user=user)
    theirs = services.class_open(lecturer=other_user, lesson=lesson7)

    html = alice_client.get("/classes/").content.decode()
    assert lesson_class.code in html and ended.code in html and theirs.code not in html
    assert html.index(ended.code) < html.index(lesson_class.code)  # newest first
    row = html[html.index(f'data-code="{lesson_class.code}"') :].split("</tr>")[0]
    flat = row.replace("\n    ", "")
    assert '>1</td><td data-label="Questions">1</td>' in flat and "Open" in row
    assert "Ended" in html[html.index(f'data-code="{ended.code}"') :].split("</tr>")[0]
    assert f"/classes/{ended.code}/results.csv?id={ended.pk}" in html
    present = alice_client.get(f"/classes/{lesson_class.code}/present/").content.decode()
    assert 'id="my-classes-link" href="/classes/"' in present.replace(
        'href="/classes/" id="my-classes-link"', 'id="my-classes-link" href="/classes/"'
    )
    response = Client().get("/classes/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_ended_class_stays_reachable_after_its_code_is_reused(
    alice_client, lesson_class, user, other_user, lesson7
):
    _ann_answers_the_winner(lesson_class, user)
    services.class_end(live_class=lesson_class, user=user)
    reused = services.class_open(lecturer=other_user, lesson=lesson7)
    LiveClass.objects.filter(pk=reused.pk).update(code=lesson_class.code)

    code = lesson_class.code
    assert alice_client.get(f"/classes/{code}/results.csv").status_code == 403  # bob's now
    body = alice_client.get(f"/classes/{code}/results.csv?id={lesson_class.pk}")
    assert body.status_code == 200
    rows = list(csv.reader(io.StringIO(body.content.decode())))
    assert rows[1][2:5] == ["Ann", "node-1", "true"]
    page = alice_client.get(f"/classes/{code}/present/?id={lesson_class.pk}")
    assert page.status_code == 200 and 'id="class-ended"' in page.content.decode()
    assert f"results.csv?id={lesson_class.pk}" in page.content.decode()
    assert alice_client.get(f"/classes/{code}/results.csv?id={reused.pk}").status_code == 403
    assert alice_client.get(f"/classes/{code}/results.csv?id=x").status_code == 404


def test_an_ended_class_shows_its_final_numbers(alice_client, lesson_class, user):
    _ann_answers_the_winner(lesson_class, user)
    bob = services.student_join(code=lesson_class.code, nickname="Bob")
    q = lesson_class.questions.get()
    services.answer_submit(
        class_id=lesson_class.pk, student_id=bob.pk, question_id=q.pk, choice="node-3"
    )
    services.student_join(code=lesson_class.code, nickname="Cy")  # joined, never answered
    url = f"/classes/{lesson_class.code}/present/"
    assert 'id="final-numbers"' not in alice_client.get(url).content.decode()  # still open
    services.class_end(live_class=lesson_class, user=user)
    html = alice_client.get(url).content.decode()
    assert '<strong id="final-joined">3</strong>' in html
    row = html[html.index('data-question="1"') :].split("</tr>")[0]
    assert '>node-1</td><td data-label="Answered">2</td><td data-label="Right">1 (50 %)</td>' in row
    # nothing left to drive: no step buttons, no ask, no reveal, no socket script
    for live in (
        'id="step-next"',
        'id="ask-lesson"',
        'id="reveal"',
        "present.js",
        'id="conn-status"',
    ):
        assert live not in html, live
    assert 'id="results-csv"' in html


def test_a_class_on_the_lecturers_own_run_lets_its_students_watch_it_while_it_lasts(
    finished_run, user, client, django_user_model
):
    """The run is private (the lecturer's cluster and profile): a student of the open class
    sees its page, cycles, steps and explanations; nobody else does, and the student no longer
    does once the class ends. Only that run: the lecturer's other runs stay private."""
    from django.test import Client
    from django.urls import reverse

    run = finished_run
    live_class = services.class_open(lecturer=user, run=run)
    urls = [
        reverse("playground:run", args=[run.pk]),
        reverse("playground:run_cycles", args=[run.pk]),
        reverse("playground:run_cycle", args=[run.pk, 1]),
        reverse("playground:run_events", args=[run.pk]),
        reverse("playground:run_explain", args=[run.pk, 1]) + "?node=n1",
    ]
    stranger = Client()
    for url in urls:
        assert client.get(url).status_code == 404, url  # before joining
    assert client.post("/join/", {"code": live_class.code, "nickname": "Ann"}).status_code == 302
    for url in urls:
        assert client.get(url).status_code == 200, url
        assert stranger.get(url).status_code == 404, url
    other = runs_services.run_start(user=user, cluster=run.cluster, profile=run.profile)
    assert client.get(reverse("playground:run", args=[other.pk])).status_code == 404
    services.class_end(live_class=live_class, user=user)
    for url in urls:
        assert client.get(url).status_code == 404, url


def test_the_run_stream_admits_a_student_of_the_open_class_only(finished_run, user):
    from django.contrib.auth.models import AnonymousUser

    from playground.runs.live.consumers import _access

    live_class = services.class_open(lecturer=user, run=finished_run)
    joined = services.student_join(code=live_class.code, nickname="Ann")
    session = {services.SESSION_STUDENTS: {live_class.code: joined.token}}
    anonymous = AnonymousUser()
    assert _access(anonymous, finished_run.pk, None, {}) is None
    assert _access(anonymous, finished_run.pk, None, session) is False  # watch, not command
    services.class_end(live_class=live_class, user=user)
    assert _access(anonymous, finished_run.pk, None, session) is None
