"""Course and lesson pages: answers checked against the engine, progress per user or session."""

from __future__ import annotations

import pytest
from django.urls import reverse

from playground.lessons.loader import course, lesson_by_slug
from playground.lessons.models import LessonProgress
from playground.lessons.services import lesson_runs
from playground.models import Run
from playground.runs import selectors as run_selectors

pytestmark = pytest.mark.django_db


def _answer(client, slug, qid, answer):
    url = reverse("playground:lesson_answer", args=[slug, qid])
    return client.post(url, {"answer": answer}).json()


def test_course_page_lists_every_lesson_with_the_diagram_and_glossary(client):
    body = client.get(reverse("playground:course")).content.decode()
    for lesson in course():
        assert reverse("playground:lesson", args=[lesson.slug]) in body
    assert 'id="framework"' in body and 'id="glossary"' in body


def test_course_page_tells_lecturers_how_to_teach_with_the_run_page(client):
    body = client.get(reverse("playground:course")).content.decode()
    start = body.index('id="teaching"')
    teaching = body[start : body.index("</section>", start)]
    for words in (
        "presenter mode",
        "#cycle=K&amp;step=N",
        "schedule only this pod",
        "Try a change",
    ):
        assert words in teaching, words


def test_home_page_starts_newcomers_on_lesson_one(client):
    body = client.get(reverse("playground:home")).content.decode()
    assert reverse("playground:lesson", args=[course()[0].slug]) in body


def test_lesson_page_shows_the_step_and_its_questions(client):
    lesson = course()[0]
    body = client.get(reverse("playground:lesson", args=[lesson.slug]) + "?step=2").content.decode()
    assert "Filter: who <em>can</em> run it?" in body
    for q in lesson.step_questions(2):
        assert f'id="q-{q.id}"' in body


def test_anonymous_answers_are_checked_and_kept_in_the_session(client):
    lesson = course()[0]
    wrong = _answer(client, lesson.slug, "first-pod", "report")
    assert wrong["correct"] is False
    assert wrong["answer"] == "checkout"
    assert "PrioritySort" in wrong["explanation"]
    right = _answer(client, lesson.slug, "first-pod", "checkout")
    assert right["correct"] is True and right["first_try"] is False
    progress = client.session["lesson_progress"][lesson.slug]["first-pod"]
    assert progress == {"solved": True, "first_try": False, "tries": 2}


def test_a_count_is_understood_as_a_chinese_reader_types_it(client):
    """Lesson 7's fit-node-1 is 87; lesson 1 has 2 feasible nodes and 0 pods left pending."""
    slug = course()[0].slug
    assert _answer(client, "scoring", "fit-node-1", "八十七分")["correct"] is True
    assert _answer(client, "scoring", "fit-node-1", "88分")["correct"] is False
    assert _answer(client, slug, "feasible", "两个节点")["correct"] is True
    assert _answer(client, slug, "feasible", "2 nodes")["correct"] is True
    assert _answer(client, slug, "pending-at-end", "没有")["correct"] is True


def test_signed_in_progress_counts_first_tries_and_marks_the_lesson_done(client, django_user_model):
    user = django_user_model.objects.create_user("learner", password="unused-pass-123")
    client.force_login(user)
    lesson = course()[0]
    from playground.lessons.checks import engine_answer, shown
    from playground.lessons.services import lesson_runs

    run = lesson_runs(lesson=lesson)["default"]
    for q in lesson.questions:
        assert _answer(client, lesson.slug, q.id, shown(engine_answer(run, q)))["correct"]
    row = LessonProgress.objects.get(user=user, lesson=lesson.slug)
    assert row.done is True
    assert row.correct_first_try == len(lesson.questions)
    page = client.get(reverse("playground:course")).content.decode()
    assert "done" in page


def test_starting_the_lessons_run_shows_the_questions_step_beside_the_lesson(client):
    from playground.demo import demo_load

    demo_load()
    lesson = course()[0]
    q = lesson.question("winner-1")
    response = client.post(
        reverse("playground:lesson_run", args=[lesson.slug]),
        {"profile": "default", "question": q.id},
    )
    run = Run.objects.latest("id")
    assert run.cluster.name == lesson.cluster_name
    assert response.status_code == 302
    assert response["Location"] == (
        reverse("playground:lesson", args=[lesson.slug]) + f"?step={q.step}&q={q.id}#run-frame-box"
    )
    page = client.get(reverse("playground:lesson", args=[lesson.slug]) + "?step=3").content.decode()
    permalink = reverse("playground:run", args=[run.pk]) + "#cycle=1&amp;step="
    assert f'<iframe name="run-frame" id="run-frame" src="{permalink}' in page
    assert f'class="open-step-page" href="{permalink}' in page


def test_unknown_lesson_or_question_is_404(client):
    assert client.get(reverse("playground:lesson", args=["no-such"])).status_code == 404
    url = reverse("playground:lesson_answer", args=[course()[0].slug, "nope"])
    assert client.post(url, {"answer": "x"}).status_code == 404


def test_session_progress_moves_to_the_account_on_sign_in(client, django_user_model):
    lesson = course()[0]
    assert _answer(client, lesson.slug, "first-pod", "checkout")["correct"]
    assert _answer(client, lesson.slug, "feasible", "3")["correct"] is False
    user = django_user_model.objects.create_user("late", password="unused-pass-123")
    client.force_login(user)
    client.get(reverse("playground:course"))
    row = LessonProgress.objects.get(user=user, lesson=lesson.slug)
    assert row.answers["first-pod"] == {"solved": True, "first_try": True, "tries": 1}
    assert row.answers["feasible"]["solved"] is False
    assert row.correct_first_try == 1 and row.done is False
    assert "lesson_progress" not in client.session


def test_extenders_lesson_run_calls_the_sample_extender_served_in_process(
    client, django_capture_on_commit_callbacks
):
    lesson = lesson_by_slug("extenders")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("playground:lesson_run", args=[lesson.slug]), {"profile": "default"})
    run = Run.objects.get()
    run.refresh_from_db()
    assert run.status == "succeeded", run.error_message
    (cycle,) = run.cycle_records.values_list("cycle", flat=True)
    events = run_selectors.run_cycle_events(run=run, cycle=cycle)
    verdict = next(e for e in events if e["type"] == "Filter" and not e.get("plugin"))
    assert "Extender" in verdict["rejector"]
    assert run.cluster.pods.get(name="checkout").node_name == ""  # demo clusters stay as they are
    end = next(e for e in events if e["type"] == "CycleEnd")
    assert end["node"] == "node-3"


def test_a_solved_question_shows_its_explanation_when_the_step_is_opened_again(client):
    lesson = course()[0]
    q = lesson.question("first-pod")
    _answer(client, lesson.slug, q.id, "report")
    _answer(client, lesson.slug, q.id, "checkout")
    page = client.get(reverse("playground:lesson", args=[lesson.slug])).content.decode()
    assert "Answered after 2 tries." in page
    assert "PrioritySort: higher priority first" in page


def test_the_framed_run_follows_the_narrative_steps_pointer(client):
    from playground.demo import demo_load
    from playground.lessons.checks import run_step

    demo_load()
    lesson = course()[0]
    client.post(reverse("playground:lesson_run", args=[lesson.slug]), {"profile": "default"})
    run = Run.objects.latest("id")
    run_of_lesson = lesson_runs(lesson=lesson)["default"]
    for n, step in enumerate(lesson.steps, start=1):
        page = client.get(reverse("playground:lesson", args=[lesson.slug]), {"step": n})
        index = run_step(run_of_lesson, step.show)
        src = reverse("playground:run", args=[run.pk]) + f"#cycle=1&amp;step={index}"
        assert f'id="run-frame" src="{src}"' in page.content.decode()


def test_lesson_page_shows_the_cluster_at_a_glance(client):
    body = client.get(reverse("playground:lesson", args=["preemption"])).content.decode()
    assert "The cluster: 3 nodes, 7 pods" in body
    assert (
        "<td>urgent</td><td>pending</td><td>cpu 3, memory 1Gi</td><td>100000</td><td></td>" in body
    )
    rules = client.get(reverse("playground:lesson", args=["inter-pod-affinity"])).content.decode()
    assert "<td>web-1</td><td>pending</td>" in rules
    assert "pod affinity, pod anti-affinity</td>" in rules
    big = client.get(reverse("playground:lesson", args=["nodes-to-score"])).content.decode()
    assert "… and 488 more like them" in big


def test_queue_lesson_run_makes_its_scripted_change_and_the_glossary_links_to_it(
    client, django_capture_on_commit_callbacks
):
    from playground.runs.panels.changes import run_changes

    lesson = lesson_by_slug("scheduling-queue")
    assert lesson.script
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("playground:lesson_run", args=[lesson.slug]), {"profile": "default"})
    run = Run.objects.get()
    run.refresh_from_db()
    assert run.status == "succeeded", run.error_message
    assert run.script == [step.to_dict() for step in lesson.script]
    # What the lesson check verifies, the run shows: node-3 added after cycle 2, the parked pod
    # moved by a hint and scheduled there.
    [change] = run_changes(run=run)
    assert (change["after_cycle"], change["text"]) == (2, "node node-3 added")
    assert change["moved"] and all(m["hint"] == "Queue" for m in change["moved"])
    assert "node-3" in run.placements.values()
    checked = lesson_runs(lesson=lesson)["default"].placements
    assert run.placements == {k: checked[k] for k in run.placements}

    body = client.get(reverse("playground:course")).content.decode()
    run_url = reverse("playground:run", args=[run.pk])
    assert f'href="{run_url}?section=section-cluster-events"' in body
    assert f'href="{run_url}?section=queue"' in body
    page = client.get(run_url).content.decode()
    assert 'id="section-cluster-events"' in page and 'id="queue"' in page


def test_the_run_started_from_a_later_question_opens_that_questions_step(client):
    """Lesson 6 step 4: the second question's button opens cycle 3's Score, not the step's own
    cycle 4 Filter, and each question's link names its own step."""
    from playground.demo import demo_load
    from playground.lessons.checks import run_step

    demo_load()
    lesson = lesson_by_slug("topology-spread")
    first, second = lesson.step_questions(4)
    response = client.post(
        reverse("playground:lesson_run", args=[lesson.slug]),
        {"profile": "default", "question": second.id},
    )
    page = client.get(response["Location"].split("#")[0]).content.decode()
    run = Run.objects.latest("id")
    run_of_lesson = lesson_runs(lesson=lesson)["default"]
    url = reverse("playground:run", args=[run.pk])
    for q in (first, second):
        src = f"{url}#cycle={q.show.cycle}&amp;step={run_step(run_of_lesson, q.show)}"
        assert f'id="q-{q.id}"' in page
        assert f'class="open-step-page" href="{src}"' in page
    assert (second.show.cycle, second.show.point) == (3, "Score")
    src = f"{url}#cycle=3&amp;step={run_step(run_of_lesson, second.show)}"
    assert f'id="run-frame" src="{src}"' in page


def test_every_question_of_a_step_gets_a_link_to_its_step(client):
    lesson = lesson_by_slug("scheduling-queue")
    for step in range(1, len(lesson.steps) + 1):
        page = client.get(reverse("playground:lesson", args=[lesson.slug]), {"step": step})
        body = page.content.decode()
        for q in lesson.step_questions(step):
            form = body[body.index(f'id="q-{q.id}"') :]
            form = form[: form.index("</form>")]
            assert f"show this step ({q.show.label})" in form, q.id


def test_the_answers_json_carries_the_progress_counting_wrong_answers_as_answered(client):
    lesson = course()[0]
    total = len(lesson.questions)
    page = client.get(reverse("playground:lesson", args=[lesson.slug])).content.decode()
    assert f"· 0 of {total} answered, 0 right</span>" in page
    wrong = _answer(client, lesson.slug, "first-pod", "report")
    assert wrong["progress"] == {
        "answered": 1,
        "right": 0,
        "total": total,
        "text": f"1 of {total} answered, 0 right",
    }
    right = _answer(client, lesson.slug, "feasible", "two")
    assert right["correct"] is True
    assert right["progress"]["text"] == f"2 of {total} answered, 1 right"
    page = client.get(reverse("playground:lesson", args=[lesson.slug])).content.decode()
    assert f"· 2 of {total} answered, 1 right</span>" in page
    assert "Answered, not right yet (1 try): try again." in page
    course_page = client.get(reverse("playground:course")).content.decode()
    assert f"2/{total} answered, 1 right, 1 on the first try" in course_page


def test_signed_in_progress_json_counts_the_stored_answers(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("p", password="unused-pass-123"))
    lesson = course()[0]
    reply = _answer(client, lesson.slug, "pending-at-end", "Zero")
    assert reply["correct"] is True
    assert reply["progress"]["text"] == f"1 of {len(lesson.questions)} answered, 1 right"


def test_markdown_in_step_headings_is_rendered_not_shown_as_asterisks(client):
    lesson = course()[0]
    assert lesson.steps[1].title == "Filter: who *can* run it?"
    body = client.get(reverse("playground:lesson", args=[lesson.slug]), {"step": 2})
    body = body.content.decode()
    assert '<h2 id="step-title">2. Filter: who <em>can</em> run it?</h2>' in body
    assert "*can*" not in body
    assert 'title="Filter: who can run it?"' in body
