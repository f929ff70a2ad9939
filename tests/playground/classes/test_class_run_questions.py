"""One-click questions about the run a class shows — which node wins, which plugin rejects a
node, which pods are evicted — in lesson classes (the lesson's own run) and run classes (the
stored run): answers read from the run, offered only where the cycle has one."""

from __future__ import annotations

import re

import pytest

from playground.classes import run_questions, selectors, services
from playground.lessons.loader import lesson_by_slug
from playground.lessons.services import lesson_runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def preemption_class(user):
    lesson = lesson_by_slug("preemption")
    assert lesson is not None
    return services.class_open(lecturer=user, lesson=lesson)


def _engine_cycle(slug, cycle):
    lesson = lesson_by_slug(slug)
    return lesson_runs(lesson=lesson)["default"].cycle(cycle)


def _first_victims_cycle():
    run = lesson_runs(lesson=lesson_by_slug("preemption"))["default"]
    for k, evs in run.cycles.items():
        post = next((e for e in evs if e["type"] == "PostFilter"), {})
        if post.get("victims"):
            return k, sorted(v.removeprefix("default/") for v in post["victims"]), post
    raise AssertionError("the preemption lesson evicts no pod")


def test_a_lesson_class_asks_who_is_evicted_and_checks_typed_names(preemption_class, user):
    cycle, victims, post = _first_victims_cycle()
    q = services.question_ask_about(
        live_class=preemption_class, user=user, kind="victims", cycle=cycle
    )
    assert q.answer_type == "names" and q.choices == []
    assert q.answer == ", ".join(victims) and len(victims) >= 2
    assert f"cycle {cycle}" in q.prompt
    assert post["nominated_node"] in q.explanation and all(v in q.explanation for v in victims)
    assert q.show["point"] == "PostFilter" and isinstance(q.show["runStep"], int)

    ann = services.student_join(code=preemption_class.code, nickname="Ann")
    bob = services.student_join(code=preemption_class.code, nickname="Bob")
    # Any order, any separator a Chinese or English keyboard types.
    services.answer_submit(
        class_id=preemption_class.pk,
        student_id=ann.pk,
        question_id=q.pk,
        choice="、".join(reversed(victims)),
    )
    services.answer_submit(
        class_id=preemption_class.pk, student_id=bob.pk, question_id=q.pk, choice=victims[0]
    )
    assert dict(q.answers.values_list("student__nickname", "correct")) == {
        "Ann": True,
        "Bob": False,
    }
    preemption_class.refresh_from_db()
    services.reveal(live_class=preemption_class, user=user)
    url = selectors.reveal_dict(preemption_class, q)["show"]["url"]
    assert url.startswith("/lessons/preemption/?step=")


def test_a_lesson_class_asks_the_winner_and_the_rejecting_plugin_of_the_lessons_run(
    preemption_class, user
):
    run = lesson_runs(lesson=lesson_by_slug("preemption"))["default"]
    placed = next(
        (k, e["node"])
        for k, evs in run.cycles.items()
        for e in evs
        if e["type"] == "CycleEnd" and e.get("node")
    )
    q = services.question_ask_about(
        live_class=preemption_class, user=user, kind="winner", cycle=placed[0]
    )
    assert q.answer == placed[1] and placed[1] in q.choices

    cycle, _victims, _post = _first_victims_cycle()
    evs = _engine_cycle("preemption", cycle)
    nodes = next(e for e in evs if e["type"] == "CycleStart")["nodes"]
    # The cycle's verdict: the Filter event of no single plugin, a rejector per node.
    verdict = next(e for e in evs if e["type"] == "Filter" and not e.get("plugin"))
    rejected = [(n, p) for n, p in zip(nodes, verdict["rejector"], strict=True) if p]
    q = services.question_ask_about(
        live_class=preemption_class, user=user, kind="rejector", cycle=cycle
    )
    node, plugin = rejected[0]
    assert q.answer == plugin and plugin in q.choices and len(q.choices) > 1
    assert node in q.prompt and plugin in q.explanation
    assert q.show["point"] == "Filter" and q.show["plugin"] == plugin


def test_the_class_steps_cycle_is_asked_about_when_none_is_named(preemption_class, user):
    cycle, victims, _post = _first_victims_cycle()
    services.step_set(
        live_class=preemption_class, user=user, step={"lessonStep": 1, "cycle": cycle}
    )
    q = services.question_ask_about(live_class=preemption_class, user=user, kind="victims")
    assert q.answer == ", ".join(victims)


def test_a_question_the_cycle_has_no_answer_to_is_refused_by_name(finished_run, user):
    live_class = services.class_open(lecturer=user, run=finished_run)
    # Three roomy nodes, two small pods: no node is rejected, nobody is evicted.
    with pytest.raises(services.ClassError, match="No node is rejected in cycle 1"):
        services.question_ask_about(live_class=live_class, user=user, kind="rejector", cycle=1)
    with pytest.raises(services.ClassError, match="Cycle 1 evicts no pod"):
        services.question_ask_about(live_class=live_class, user=user, kind="victims", cycle=1)
    with pytest.raises(services.ClassError, match="Unknown question"):
        services.question_ask_about(live_class=live_class, user=user, kind="evil", cycle=1)
    with pytest.raises(services.ClassError, match="no cycle 99"):
        services.question_ask_about(live_class=live_class, user=user, kind="winner", cycle=99)
    assert live_class.questions.count() == 0


def test_only_the_lecturer_asks(preemption_class, other_user):
    with pytest.raises(services.ClassError):
        services.question_ask_about(
            live_class=preemption_class, user=other_user, kind="winner", cycle=1
        )


def test_the_presenter_is_offered_what_each_step_can_ask(
    preemption_class, finished_run, user, alice_client
):
    cfg = selectors.page_config(preemption_class, role="lecturer")
    cycle, _victims, _post = _first_victims_cycle()
    lesson = lesson_by_slug("preemption")
    steps_on_it = [n for n, s in enumerate(lesson.steps, 1) if s.show and s.show.cycle == cycle]
    assert steps_on_it
    assert all(cfg["lessonAsks"][n] == ["winner", "rejector", "victims"] for n in steps_on_it)
    assert selectors.page_config(preemption_class, role="student").get("lessonAsks") is None

    live_class = services.class_open(lecturer=user, run=finished_run)
    got = alice_client.get(f"/classes/{live_class.code}/cycles/1/steps.json").json()
    assert got["asks"] == ["winner"]
    assert run_questions.run_asks(finished_run.pk, 99) == []


def test_a_chinese_lesson_class_asks_in_chinese(user):
    lesson = lesson_by_slug("preemption")
    zh = services.class_open(lecturer=user, lesson=lesson, language="zh-hans")
    cycle, victims, _post = _first_victims_cycle()
    q = services.question_ask_about(live_class=zh, user=user, kind="victims", cycle=cycle)
    assert re.search(r"[\u4e00-\u9fff]", q.prompt) and re.search(r"[\u4e00-\u9fff]", q.explanation)
    assert "、".join(victims) in q.explanation  # the enumeration comma
    assert q.answer == ", ".join(victims)  # the stored answer stays the compared value
