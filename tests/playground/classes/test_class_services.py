"""Live class services and selectors: opening, joining, the step, answers exactly once, reveal,
idle end, lecturer-only actions and the results."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from playground.classes import selectors, services
from playground.classes.models import ClassAnswer, ClassStudent, LiveClass

pytestmark = pytest.mark.django_db


def _join(code, nickname):
    return services.student_join(code=code, nickname=nickname)


def test_open_gives_a_six_character_code_of_the_alphabet(lesson_class, user):
    assert len(lesson_class.code) == 6
    assert set(lesson_class.code) <= set(services.CODE_ALPHABET)
    assert lesson_class.lecturer == user
    # the first step is the lesson's first, with the run step its narrative points at
    assert lesson_class.step["lessonStep"] == 1


def test_an_anonymous_user_cannot_open_a_class(lesson7):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.NotLecturer):
        services.class_open(lecturer=AnonymousUser(), lesson=lesson7)


def test_join_rules(lesson_class):
    ann = _join(lesson_class.code.lower(), "  Ann  ")  # the code is read case-insensitively
    assert ann.nickname == "Ann" and len(ann.token) >= 32
    with pytest.raises(services.JoinRefused) as taken:
        _join(lesson_class.code, "ANN")
    assert list(taken.value.errors) == ["nickname"]
    assert "taken" in taken.value.errors["nickname"][0]
    with pytest.raises(services.JoinRefused) as empty:
        _join(lesson_class.code, "   ")
    assert list(empty.value.errors) == ["nickname"]
    with pytest.raises(services.JoinRefused) as long:
        _join(lesson_class.code, "x" * 41)
    assert "40" in long.value.errors["nickname"][0]
    with pytest.raises(services.JoinRefused) as unknown:
        _join("ZZZZZZ", "Bob")
    assert list(unknown.value.errors) == ["code"]
    assert ClassStudent.objects.filter(live_class=lesson_class).count() == 1


def test_an_ended_class_cannot_be_joined(lesson_class, user):
    services.class_end(live_class=lesson_class, user=user)
    with pytest.raises(services.JoinRefused) as ended:
        _join(lesson_class.code, "Ann")
    # the same words as for a code never opened: a guessed code's state stays unknown
    assert ended.value.errors["code"] == ["No open class has this code."]


def test_an_idle_class_ends_on_the_next_access(lesson_class):
    LiveClass.objects.filter(pk=lesson_class.pk).update(
        last_activity_at=timezone.now() - services.IDLE - timedelta(minutes=1)
    )
    found = selectors.class_by_code(lesson_class.code)
    assert found is not None and found.ended_at is not None
    with pytest.raises(services.JoinRefused):
        _join(lesson_class.code, "Ann")


def test_a_class_active_within_the_idle_time_stays_open(lesson_class):
    LiveClass.objects.filter(pk=lesson_class.pk).update(
        last_activity_at=timezone.now() - services.IDLE + timedelta(minutes=5)
    )
    assert services.classes_end_idle() == 0
    assert selectors.class_by_code(lesson_class.code).ended_at is None


def test_only_the_lecturer_drives(lesson_class, other_user):
    for act in (
        lambda: services.step_set(live_class=lesson_class, user=other_user, step={"lessonStep": 2}),
        lambda: services.question_ask_lesson(
            live_class=lesson_class, user=other_user, qid="winner"
        ),
        lambda: services.reveal(live_class=lesson_class, user=other_user),
        lambda: services.class_end(live_class=lesson_class, user=other_user),
        lambda: services.step_set(live_class=lesson_class, user=None, step={"lessonStep": 2}),
    ):
        with pytest.raises(services.NotLecturer):
            act()
    lesson_class.refresh_from_db()
    assert lesson_class.step_seq == 0 and lesson_class.question is None
    assert lesson_class.ended_at is None


def test_step_is_cleaned_numbered_and_points_at_the_lesson_steps_run_step(
    lesson_class, user, lesson7
):
    step, seq = services.step_set(
        live_class=lesson_class, user=user, step={"lessonStep": 3, "evil": "x", "point": 7}
    )
    assert seq == 1
    assert set(step) == set(services.STEP_KEYS)
    assert step["lessonStep"] == 3
    pointer = lesson7.steps[2].show
    if pointer is not None:
        assert (step["cycle"], step["point"]) == (pointer.cycle, pointer.point)
    _step, seq = services.step_set(live_class=lesson_class, user=user, step={"lessonStep": 99})
    assert seq == 2 and _step["lessonStep"] == len(lesson7.steps)  # kept within the lesson
    lesson_class.refresh_from_db()
    assert lesson_class.step_seq == 2


def test_answer_is_counted_once_and_replaced_until_reveal(lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    assert q.number == 1 and q.choices == ["node-1", "node-2", "node-3"] and q.answer == "node-1"
    ann, bob = _join(lesson_class.code, "Ann"), _join(lesson_class.code, "Bob")
    args = {"class_id": lesson_class.pk, "question_id": q.pk}
    services.answer_submit(student_id=ann.pk, choice="node-3", **args)
    services.answer_submit(student_id=ann.pk, choice="node-1", **args)  # changes her mind
    services.answer_submit(student_id=bob.pk, choice="node-3", **args)
    assert ClassAnswer.objects.filter(question=q).count() == 2
    assert selectors.counts(q.pk) == {"node-1": 1, "node-3": 1}
    assert ClassAnswer.objects.get(question=q, student=ann).correct is True
    assert ClassAnswer.objects.get(question=q, student=bob).correct is False
    with pytest.raises(services.ClassError):
        services.answer_submit(student_id=bob.pk, choice="node-9", **args)  # not a choice
    lesson_class.refresh_from_db()
    services.reveal(live_class=lesson_class, user=user)
    with pytest.raises(services.ClassError) as late:
        services.answer_submit(student_id=bob.pk, choice="node-1", **args)
    assert "revealed" in late.value.message
    assert ClassAnswer.objects.get(question=q, student=bob).choice == "node-3"


@pytest.mark.django_db(transaction=True)  # the foreign key is checked when the write commits
def test_an_answer_the_database_refuses_fails_alone_not_its_batch(lesson_class, user):
    from playground.classes.consumers import _answers

    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann, bob = (_join(lesson_class.code, name) for name in ("Ann", "Bob"))
    gone = ClassStudent.objects.create(
        live_class=lesson_class, nickname="Gone", nickname_key="gone", token="t-gone"
    )
    gone_id = gone.pk
    gone.delete()  # left between sending the answer and its write
    results = _answers(
        lesson_class.pk,
        [
            services.Answer(ann.pk, q.pk, "node-3"),
            services.Answer(gone_id, q.pk, "node-1"),
            services.Answer(bob.pk, q.pk, "node-2"),
        ],
        False,
    )
    assert results[0] == "node-3" and results[2] == "node-2"
    assert isinstance(results[1], services.ClassError)
    assert selectors.counts(q.pk) == {"node-3": 1, "node-2": 1}


def test_a_batch_of_answers_is_stored_as_if_they_came_one_after_the_other(lesson_class, user):
    old = services.question_ask_lesson(live_class=lesson_class, user=user, qid="fit-node-1")
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann, bob, cy = (_join(lesson_class.code, name) for name in ("Ann", "Bob", "Cy"))
    results = services.answers_submit(
        lesson_class.pk,
        [
            services.Answer(ann.pk, q.pk, "node-3"),
            services.Answer(bob.pk, q.pk, "node-9"),  # not a choice
            services.Answer(ann.pk, q.pk, "node-1"),  # changes her mind in the same batch
            services.Answer(cy.pk, old.pk, "87"),  # no longer the open question
            services.Answer(cy.pk, True, "node-1"),  # not an id
            services.Answer(bob.pk, q.pk, "node-2"),
        ],
    )
    assert results[0] == "node-3" and results[2] == "node-1" and results[5] == "node-2"
    assert [type(r) for r in results] == [
        str,
        services.ClassError,
        str,
        services.ClassError,
        services.ClassError,
        str,
    ]
    assert "not open" in results[3].message and "No such" in results[4].message
    assert selectors.counts(q.pk) == {"node-1": 1, "node-2": 1}
    assert ClassAnswer.objects.get(question=q, student=ann).correct is True
    assert not ClassAnswer.objects.filter(question=old).exists()
    assert (
        services.answers_submit(lesson_class.pk, [services.Answer(bob.pk, q.pk, "x")])[0].message
        == "That is not one of the choices."
    )


def test_a_worded_answer_is_normalised_and_compared_as_the_lesson_does(lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="fit-node-1")
    assert q.choices == [] and q.answer == "87"
    ann, bob = _join(lesson_class.code, "Ann"), _join(lesson_class.code, "Bob")
    args = {"class_id": lesson_class.pk, "question_id": q.pk}
    assert services.answer_submit(student_id=ann.pk, choice=" 87 ", **args) == "87"
    assert services.answer_submit(student_id=bob.pk, choice="88", **args) == "88"
    with pytest.raises(services.ClassError):
        services.answer_submit(student_id=bob.pk, choice="many", **args)
    assert selectors.counts(q.pk) == {"87": 1, "88": 1}
    assert ClassAnswer.objects.get(question=q, student=ann).correct is True


def test_only_the_open_question_takes_answers(lesson_class, user):
    first = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    second = services.question_ask_lesson(live_class=lesson_class, user=user, qid="fit-node-1")
    assert second.number == 2
    ann = _join(lesson_class.code, "Ann")
    with pytest.raises(services.ClassError):
        services.answer_submit(
            class_id=lesson_class.pk, student_id=ann.pk, question_id=first.pk, choice="node-1"
        )


def test_quick_question_needs_choices_and_an_answer_among_them(lesson_class, user):
    ask = lambda quick: services.question_ask_quick(  # noqa: E731
        live_class=lesson_class, user=user, quick=quick
    )
    with pytest.raises(services.ClassError) as few:
        ask({"prompt": "Which?", "choices": ["a"], "answer": "a"})
    assert few.value.field == "choices"
    with pytest.raises(services.ClassError) as outside:
        ask({"prompt": "Which?", "choices": ["a", "b"], "answer": "c"})
    assert outside.value.field == "answer"
    q = ask({"prompt": "Which?", "choices": ["a", "b", "a"], "answer": "b", "explanation": "B."})
    assert q.choices == ["a", "b"] and q.answer == "b"


def test_reveal_carries_the_answer_explanation_counts_and_the_step_link(lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann = _join(lesson_class.code, "Ann")
    services.answer_submit(
        class_id=lesson_class.pk, student_id=ann.pk, question_id=q.pk, choice="node-1"
    )
    lesson_class.refresh_from_db()
    services.reveal(live_class=lesson_class, user=user)
    q.refresh_from_db()
    shown = selectors.reveal_dict(lesson_class, q)
    assert shown["answer"] == "node-1" and "487" in shown["explanation"]
    assert shown["counts"] == {"node-1": 1}
    assert shown["show"]["url"] == "/lessons/scoring/?step=3&q=winner"
    assert shown["show"]["cycle"] == 1 and shown["show"]["point"] == "Combine"


def test_state_hides_the_answer_until_reveal_and_tells_a_student_their_answer(lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann = _join(lesson_class.code, "Ann")
    services.answer_submit(
        class_id=lesson_class.pk, student_id=ann.pk, question_id=q.pk, choice="node-2"
    )
    lesson_class.refresh_from_db()
    student = selectors.state(lesson_class, role="student", student_id=ann.pk)
    assert student["question"] == {
        "id": q.pk,
        "number": 1,
        "prompt": q.prompt,
        "choices": ["node-1", "node-2", "node-3"],
        "labels": {},  # an English class: every value reads as itself
    }
    assert student["myAnswer"] == "node-2" and student["revealed"] is None
    assert "tally" not in student and student["joined"] == 1 and student["answered"] == 1
    lecturer = selectors.state(lesson_class, role="lecturer")
    assert lecturer["tally"] == {"node-2": 1} and "myAnswer" not in lecturer
    services.reveal(live_class=lesson_class, user=user)
    assert selectors.state(lesson_class, role="student", student_id=ann.pk)["revealed"]["answer"]


def test_results_csv_rows_name_every_student_for_every_question(lesson_class, user):
    q1 = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    ann, bob = _join(lesson_class.code, "Ann"), _join(lesson_class.code, "Bob")
    services.answer_submit(
        class_id=lesson_class.pk, student_id=ann.pk, question_id=q1.pk, choice="node-1"
    )
    services.answer_submit(
        class_id=lesson_class.pk, student_id=bob.pk, question_id=q1.pk, choice="node-3"
    )
    q2 = services.question_ask_lesson(live_class=lesson_class, user=user, qid="fit-node-1")
    services.answer_submit(
        class_id=lesson_class.pk, student_id=bob.pk, question_id=q2.pk, choice="87"
    )
    rows = list(selectors.results_rows(lesson_class))
    assert rows[0] == [
        "question",
        "prompt",
        "nickname",
        "answer",
        "correct",
        "answered_at",
        "right_answer",
    ]
    got = [(r[0], r[2], r[3], r[4], r[6]) for r in rows[1:]]
    assert got == [
        ("1", "Ann", "node-1", "true", q1.answer),
        ("1", "Bob", "node-3", "false", q1.answer),
        ("2", "Ann", "", "false", q2.answer),
        ("2", "Bob", "87", "true", q2.answer),
    ]
    assert (q1.answer, q2.answer) == ("node-1", "87")
    assert rows[1][1] == q1.prompt and rows[1][5] and rows[3][5] == ""


def test_winner_question_on_a_run_reads_the_stored_cycle(finished_run, user):
    from playground.models import RunCycle

    live_class = services.class_open(lecturer=user, run=finished_run)
    q = services.question_ask_winner(live_class=live_class, user=user, cycle=1)
    winner = RunCycle.objects.get(run=finished_run, cycle=1).node
    assert winner in ("n1", "n2", "n3")
    assert q.answer == winner and q.choices == ["n1", "n2", "n3"]
    assert q.show["cycle"] == 1 and q.show["point"] == "Combine"
    assert isinstance(q.show["runStep"], int)
    assert "cycle 1" in q.prompt and winner in q.explanation
    with pytest.raises(services.ClassError):
        services.question_ask_winner(live_class=live_class, user=user, cycle=99)
    live_class.refresh_from_db()
    services.reveal(live_class=live_class, user=user)
    q.refresh_from_db()
    url = selectors.reveal_dict(live_class, q)["show"]["url"]
    assert url.startswith("/runs/") and f"#cycle=1&step={q.show['runStep']}" in url


def test_a_full_class_refuses_more_students(lesson_class, monkeypatch):
    monkeypatch.setattr(services, "STUDENTS_MAX", 2)
    _join(lesson_class.code, "Ann")
    _join(lesson_class.code, "Bob")
    with pytest.raises(services.JoinRefused) as full:
        _join(lesson_class.code, "Cy")
    assert "full" in full.value.errors["code"][0]


def test_results_cells_that_look_like_formulas_stay_text(lesson_class, user):
    q = services.question_ask_lesson(live_class=lesson_class, user=user, qid="winner")
    evil = _join(lesson_class.code, '=HYPERLINK("http://x")')
    services.answer_submit(
        class_id=lesson_class.pk, student_id=evil.pk, question_id=q.pk, choice="node-1"
    )
    row = list(selectors.results_rows(lesson_class))[1]
    assert row[2] == '\'=HYPERLINK("http://x")' and row[3] == "node-1"
