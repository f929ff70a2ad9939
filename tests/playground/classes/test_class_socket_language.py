"""What the server says over a live class's socket is in the class's language, whatever the
language of the visitor's browser: a Chinese class's refusals arrive in Chinese."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from test_class_consumers import _connect, _receive

from playground.classes import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture(params=["zh-hans", "en"])
def taught_in(request, user, lesson7):
    """A class on lesson 7 taught in the parameter's language, with one student."""
    live_class = services.class_open(lecturer=user, lesson=lesson7, language=request.param)
    return live_class, services.student_join(code=live_class.code, nickname="Ann")


SAID = {
    "zh-hans": ("只有讲师可以主持课堂。", "消息须为不超过 8 KB 的 JSON 对象。"),
    "en": ("Only the lecturer drives the class.", "A message is a JSON object of at most 8 KB."),
}


async def test_a_students_refusals_come_in_the_class_language(taught_in):
    live_class, ann = taught_in
    refused, not_json = SAID[live_class.language]
    student = await _connect(live_class.code, token=ann.token)
    await _receive(student, "state")
    await student.send_json_to({"action": "end"})
    assert (await _receive(student, "error"))["message"] == refused
    await student.send_to(text_data="[1, 2]")
    assert (await _receive(student, "error"))["message"] == not_json
    await student.disconnect()


async def test_a_count_with_a_measure_word_is_an_answer_and_a_refusal_is_in_chinese(taught_in):
    """Lesson 7's fit-node-1 asks for a score (87): "八十七分" is stored as 87; a word that is no
    count is refused in the class's language."""
    live_class, ann = taught_in
    q = await sync_to_async(services.question_ask_lesson)(
        live_class=live_class, user=live_class.lecturer, qid="fit-node-1"
    )
    student = await _connect(live_class.code, token=ann.token)
    await _receive(student, "state")
    await student.send_json_to({"action": "answer", "questionId": q.pk, "choice": "八十七分"})
    assert (await _receive(student, "answered"))["choice"] == "87"
    await student.send_json_to({"action": "answer", "questionId": q.pk, "choice": "很多"})
    said = {"zh-hans": "请填写一个数字。", "en": "Write a number."}[live_class.language]
    assert (await _receive(student, "error"))["message"] == said
    await student.disconnect()
