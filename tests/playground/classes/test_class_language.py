"""A live class is taught in one language: the lecturer's when they open it. The lesson's steps,
the questions' prompts, choice labels and explanations come in it (pages and websocket); the
choice values stay the source's (what is answered, compared, tallied and exported), and the
pages' own words follow each visitor's language.

Lesson 2 (``resources``): question ``reject-node-4``'s answer is ``none``, read 无 in Chinese.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from playground.classes import selectors, services
from playground.classes.models import ClassQuestion, LiveClass
from playground.lessons.languages import in_language
from playground.lessons.loader import lesson_by_slug

QID = "reject-node-4"


@pytest.fixture
def resources():
    lesson = lesson_by_slug("resources")
    assert lesson is not None
    return lesson


def _zh_question(lesson):
    return in_language(lesson, "zh-hans").question(QID)


def _config(html: str) -> dict:
    found = re.search(r'<script id="class-config" type="application/json">(.*?)</script>', html)
    assert found is not None
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_the_class_takes_the_lecturers_language_or_the_one_posted(alice_client):
    alice_client.post("/classes/new/", {"lesson": "resources"}, HTTP_ACCEPT_LANGUAGE="zh-CN")
    alice_client.post("/classes/new/", {"lesson": "resources"}, HTTP_ACCEPT_LANGUAGE="en")
    alice_client.post(
        "/classes/new/", {"lesson": "resources", "language": "zh-hans"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert alice_client.post("/classes/new/", {"lesson": "x", "language": "fr"}).status_code == 400
    got = list(LiveClass.objects.order_by("id").values_list("language", flat=True))
    assert got == ["zh-hans", "en", "zh-hans"]
    page = alice_client.get(
        f"/classes/{LiveClass.objects.order_by('id').first().code}/present/",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert 'data-language="zh-hans"' in page and "简体中文" in page


@pytest.mark.django_db
def test_a_chinese_question_stores_chinese_words_and_english_values(user, resources):
    zh = services.class_open(lecturer=user, lesson=resources, language="zh-hans")
    en = services.class_open(lecturer=user, lesson=resources, language="en")
    source, chinese = resources.question(QID), _zh_question(resources)
    assert chinese.prompt != source.prompt and chinese.labels == {"none": "无"}

    q = services.question_ask_lesson(live_class=zh, user=user, qid=QID)
    assert (q.prompt, q.explanation) == (chinese.prompt, chinese.explanation)
    assert q.choices == list(source.choices) and q.answer == "none"
    assert q.labels == {"none": "无"}
    sent = selectors.question_dict(q)
    assert sent["prompt"] == chinese.prompt and sent["labels"] == {"none": "无"}
    assert "answer" not in sent

    student = services.student_join(code=zh.code, nickname="Ann")
    stored = services.answer_submit(
        class_id=zh.pk, student_id=student.pk, question_id=q.pk, choice="none"
    )
    with pytest.raises(services.ClassError):  # the label is not a value
        services.answer_submit(class_id=zh.pk, student_id=student.pk, question_id=q.pk, choice="无")
    assert stored == "none" and selectors.counts(q.pk) == {"none": 1}
    revealed = selectors.reveal_dict(zh, services.reveal(live_class=zh, user=user))
    assert revealed["answer"] == "none" and revealed["answerLabel"] == "无"
    assert revealed["explanation"] == chinese.explanation

    english = services.question_ask_lesson(live_class=en, user=user, qid=QID)
    assert (english.prompt, english.explanation) == (source.prompt, source.explanation)
    assert english.labels == {}
    assert selectors.reveal_dict(en, english)["answerLabel"] == "none"

    lecturer = Client()
    lecturer.force_login(user)
    exported = lecturer.get(f"/classes/{zh.code}/results.csv").content.decode("utf-8")
    rows = list(csv.reader(io.StringIO(exported)))
    assert rows[1][1] == chinese.prompt and rows[1][2:5] == ["Ann", "none", "true"]


@pytest.mark.django_db
def test_pages_show_the_class_language_text_and_the_visitors_interface(user, resources):
    zh = services.class_open(lecturer=user, lesson=resources, language="zh-hans")
    chinese = in_language(resources, "zh-hans")
    student = services.student_join(code=zh.code, nickname="Ann")
    visitor = Client()
    session = visitor.session
    session[services.SESSION_STUDENTS] = {zh.code: student.token}
    session.save()
    html = visitor.get(f"/classes/{zh.code}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    config = _config(html)
    assert config["steps"][0]["title"] == chinese.steps[0].title != resources.steps[0].title
    assert chinese.title in html
    assert "No question yet: watch the step." in html  # the visitor's own words: English

    lecturer = Client()
    lecturer.force_login(user)
    html = lecturer.get(f"/classes/{zh.code}/present/", HTTP_ACCEPT_LANGUAGE="en").content
    prompts = {q["id"]: q["prompt"] for q in _config(html.decode())["questions"]}
    assert prompts[QID] == chinese.question(QID).prompt
    assert "Reveal the answer" in html.decode()


@pytest.mark.django_db
def test_an_english_class_reads_as_before(user, resources):
    en = services.class_open(lecturer=user, lesson=resources)
    assert en.language == "en"
    config = selectors.page_config(en, role="lecturer")
    assert config["steps"][0]["title"] == resources.steps[0].title
    prompts = {q["id"]: q["prompt"] for q in config["questions"]}
    assert prompts[QID] == resources.question(QID).prompt


@pytest.mark.django_db
def test_the_presenters_run_steps_follow_the_presenters_language(alice_client, user, finished_run):
    live_class = services.class_open(lecturer=user, run=finished_run, language="zh-hans")
    url = f"/classes/{live_class.code}/cycles/1/steps.json"
    english = alice_client.get(url, HTTP_ACCEPT_LANGUAGE="en").json()["steps"]
    chinese = alice_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").json()["steps"]
    assert [s["point"] for s in english] == [s["point"] for s in chinese]
    helped = [(e, c) for e, c in zip(english, chinese, strict=True) if e["help"]]
    assert helped and all(e["help"] != c["help"] for e, c in helped)
    assert all(re.search(r"[\u4e00-\u9fff]", c["help"]) for _e, c in helped)


@pytest.mark.django_db
def test_a_chinese_run_class_asks_the_winner_in_chinese(user, finished_run):
    zh = services.class_open(lecturer=user, run=finished_run, language="zh-hans")
    en = services.class_open(lecturer=user, run=finished_run, language="en")
    asked_zh = services.question_ask_winner(live_class=zh, user=user, cycle=1)
    asked_en = services.question_ask_winner(live_class=en, user=user, cycle=1)
    assert asked_en.prompt.startswith("Which node wins cycle 1")
    assert asked_zh.prompt != asked_en.prompt and re.search(r"[\u4e00-\u9fff]", asked_zh.prompt)
    assert asked_zh.explanation != asked_en.explanation
    assert asked_zh.choices == asked_en.choices and asked_zh.answer == asked_en.answer


# -- the websocket ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_student_of_a_chinese_class_gets_chinese_text_and_answers_values(user, resources):
    from test_class_consumers import _connect, _receive

    zh = await sync_to_async(services.class_open)(
        lecturer=user, lesson=resources, language="zh-hans"
    )
    ann = await sync_to_async(services.student_join)(code=zh.code, nickname="Ann")
    chinese = _zh_question(resources)
    lecturer = await _connect(zh.code, user=user)
    await _receive(lecturer, "state")
    await lecturer.send_json_to({"action": "ask", "lessonQuestion": QID})
    asked = (await _receive(lecturer, "question"))["question"]
    assert asked["prompt"] == chinese.prompt and asked["labels"] == {"none": "无"}

    student = await _connect(zh.code, token=ann.token)  # a reconnect: the state has it all
    state = await _receive(student, "state")
    assert state["question"]["prompt"] == chinese.prompt
    assert state["question"]["choices"] == list(resources.question(QID).choices)
    assert state["question"]["labels"] == {"none": "无"}
    await student.send_json_to({"action": "answer", "questionId": asked["id"], "choice": "none"})
    assert (await _receive(student, "answered"))["choice"] == "none"
    assert (await _receive(lecturer, "tally"))["counts"] == {"none": 1}
    await lecturer.send_json_to({"action": "reveal"})
    revealed = await _receive(student, "reveal")
    assert (revealed["answer"], revealed["answerLabel"]) == ("none", "无")
    assert revealed["explanation"] == chinese.explanation
    stored = await sync_to_async(ClassQuestion.objects.get)(pk=asked["id"])
    assert stored.prompt == chinese.prompt
    await student.disconnect()
    await lecturer.disconnect()
