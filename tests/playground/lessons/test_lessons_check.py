"""The course agrees with the engine: `manage.py lessons --check` and the checker itself."""

from __future__ import annotations

import dataclasses
import io

import pytest
from django.core.management import CommandError, call_command

from playground.lessons import checks, loader
from playground.lessons.services import lesson_runs, lessons_check

pytestmark = pytest.mark.django_db


def test_every_lesson_passes_the_engine_check_in_every_language():
    out = io.StringIO()
    call_command("lessons", "--check", stdout=out)
    *_, counted, last = out.getvalue().strip().splitlines()
    assert last == f"lessons: {len(loader.course())} passed, 0 failed"
    for language in loader.LANGUAGES:  # English and Simplified Chinese, each in full
        assert f"lessons ({language}): {len(loader.course())} passed, 0 failed" in out.getvalue()
    questions = sum(len(lesson.questions) for lesson in loader.course())
    assert counted.startswith(f"checked: {questions} answers against the engine, ")
    assert "run-page links" in counted
    assert len(loader.course()) >= 20


def test_a_wrong_expected_answer_fails_the_check():
    lesson = loader.course()[0]
    wrong = dataclasses.replace(lesson.questions[0], answer="no-such-pod", choices=())
    broken = dataclasses.replace(lesson, questions=(wrong,))
    [(_, failures)] = lessons_check([broken])
    assert [f.question for f in failures] == [wrong.id]
    assert "the engine gives" in failures[0].message


def test_check_command_exits_non_zero_on_failure(tmp_path, monkeypatch):
    lesson_dir = tmp_path / "01-broken"
    src = loader.course()[0].path
    lesson_dir.mkdir()
    for f in src.iterdir():
        (lesson_dir / f.name).write_text(f.read_text())
    text = (lesson_dir / "questions.yaml").read_text().replace("answer: checkout", "answer: report")
    (lesson_dir / "questions.yaml").write_text(text)
    monkeypatch.setattr(
        "playground.management.commands.lessons.load_course",
        lambda: loader.load_course(tmp_path),
    )
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("lessons", "--check", stdout=out)
    assert out.getvalue().strip().splitlines()[-1] == "lessons: 0 passed, 1 failed"


def test_loader_names_file_and_field_of_a_bad_question(tmp_path):
    src = loader.course()[0].path
    lesson_dir = tmp_path / "01-bad"
    lesson_dir.mkdir()
    for f in src.iterdir():
        (lesson_dir / f.name).write_text(f.read_text())
    bad = "- {id: q, step: 1, prompt: p, engine: {kind: guess}}\n"
    (lesson_dir / "questions.yaml").write_text(bad)
    with pytest.raises(loader.LessonError) as err:
        loader.load_lesson(lesson_dir)
    assert str(err.value).startswith("01-bad/questions.yaml[0].engine.kind: must be one of")


@pytest.mark.parametrize(
    ("given", "expected", "kind", "ok"),
    [
        ("Node-2 ", "node-2", "name", True),
        ("default/low-1", "low-1", "name", True),
        ("low-2, low-1", ["low-1", "low-2"], "names", True),
        ("low-1", ["low-1", "low-2"], "names", False),
        ("low-2，low-1", ["low-1", "low-2"], "names", True),
        ("low-2、 low-1", ["low-1", "low-2"], "names", True),
        (" 230", 230, "count", True),
        ("two", 2, "count", True),
        ("Twelve ", 12, "count", True),
        ("twenty-one", 21, "count", True),
        ("ninety nine", 99, "count", True),
        ("a hundred", 100, "count", True),
        ("three", 2, "count", False),
        ("many", 2, "count", False),
        # as Chinese speakers write a count: a measure word, a noun, a numeral, a word for none
        ("2个", 2, "count", True),
        ("0个", 0, "count", True),
        ("231个", 231, "count", True),
        ("87分", 87, "count", True),
        ("八十七分", 87, "count", True),
        ("两个节点", 2, "count", True),
        ("2 个节点", 2, "count", True),
        ("３次", 3, "count", True),
        ("没有", 0, "count", True),
        ("无", 0, "count", True),
        ("2 nodes", 2, "count", True),
        # a number and what it counts, as a learner types it where the engine says 2 (or 3)
        ("2 pods", 2, "count", True),
        ("3 nodes", 3, "count", True),
        ("2 Nodes.", 2, "count", True),
        ("2 feasible nodes", 2, "count", True),
        ("500 evaluated nodes", 500, "count", True),
        ("1 pending pod", 1, "count", True),
        ("2 个可行节点", 2, "count", True),
        ("3 nodes", 2, "count", False),
        ("2 nodes", 3, "count", False),
        ("2 nodes 3", 2, "count", False),
        ("2 cpus", 2, "count", False),
        ("one node", 1, "count", True),
        ("none", 0, "count", True),
        ("87分", 88, "count", False),
        ("没有", 1, "count", False),
        ("个", 1, "count", False),
        ("节点", 0, "count", False),
        ("2个节点个", 2, "count", False),
    ],
)
def test_answers_are_compared_by_type(given, expected, kind, ok):
    assert checks.matches(given, expected, kind) is ok


def test_run_step_points_at_the_run_pages_step_of_that_extension_point():
    lesson = loader.course()[0]
    run = lesson_runs(lesson=lesson)["default"]
    index = checks.run_step(run, loader.RunPointer(cycle=1, point="Combine"))
    from playground.runs.panels import charts

    steps = charts.steps(run.cycles[1])
    assert steps[index]["point"] == "Combine"
    assert all(s["point"] != "Combine" for s in steps[:index])


def test_a_pointer_names_one_plugins_normalize_score_step_between_score_and_combine():
    from playground.runs.panels import charts

    lesson = loader.lesson_by_slug("scoring")
    assert lesson is not None
    run = lesson_runs(lesson=lesson)["default"]
    steps = charts.steps(run.cycles[1])
    index = checks.run_step(run, loader.RunPointer(1, "NormalizeScore", "TaintToleration"))
    assert index is not None
    assert (steps[index]["point"], steps[index]["plugin"]) == ("NormalizeScore", "TaintToleration")
    points = [s["point"] for s in steps]
    assert max(i for i, p in enumerate(points) if p == "Score") < index < points.index("Combine")
    # PodTopologySpread skips this pod at PreScore: it has no NormalizeScore step to point at.
    skipped = loader.RunPointer(1, "NormalizeScore", "PodTopologySpread")
    assert checks.run_step(run, skipped) is None


def test_a_score_question_reads_the_column_it_names():
    lesson = loader.lesson_by_slug("scoring")
    assert lesson is not None
    run = lesson_runs(lesson=lesson)["default"]
    q = lesson.question("taint-normalized")
    assert q is not None and checks.engine_answer(run, q) == 100
    raw = dataclasses.replace(q, params={**q.params, "value": "raw"})
    weighted = dataclasses.replace(q, params={**q.params, "value": "weighted"})
    assert (checks.engine_answer(run, raw), checks.engine_answer(run, weighted)) == (0, 300)


def test_lessons_are_numbered_in_order_and_glossary_points_at_real_lessons():
    from playground.lessons.selectors import glossary

    numbers = [lesson.number for lesson in loader.course()]
    assert numbers == list(range(1, len(numbers) + 1))
    entries = glossary()
    assert entries and all(e["lesson"] is not None for e in entries)


def test_every_lesson_cluster_is_small_enough_to_read_except_the_large_one():
    from playground.inputs import manifests

    for lesson in loader.course():
        nodes = [
            o for o in manifests.parse_documents(lesson.cluster_text).objects if o.kind == "Node"
        ]
        if lesson.slug == "nodes-to-score":
            assert len(nodes) == 500
        else:
            assert 3 <= len(nodes) <= 8, lesson.slug


def test_a_narrative_step_points_at_a_run_page_step_that_must_exist():
    lesson = loader.course()[0]
    assert lesson.steps[2].show == loader.RunPointer(cycle=1, point="Combine")
    assert "<!--" not in lesson.steps[2].body
    wrong = dataclasses.replace(lesson.steps[2], show=loader.RunPointer(cycle=9, point="Combine"))
    broken = dataclasses.replace(lesson, steps=(*lesson.steps[:2], wrong, *lesson.steps[3:]))
    [(_, failures)] = lessons_check([broken])
    assert [(f.question, f.message) for f in failures] == [
        ("step 3", "show: no Combine step in cycle 9")
    ]


def test_a_link_to_a_queue_event_fails_the_check_as_the_run_page_has_no_such_step():
    """Issue 34 item 4: lesson 12 linked 'cycle 1, Backoff'; the check counted queue events as
    steps of the cycle, the run page does not (its queue panel shows them), so the link opened
    the cycle's last step. The check now counts the page's own steps."""
    lesson = next(le for le in loader.course() if le.slug == "scheduling-queue")
    n, step = next((i, s) for i, s in enumerate(lesson.steps) if s.show is not None)
    wrong = dataclasses.replace(step, show=loader.RunPointer(cycle=1, point="Backoff"))
    steps = list(lesson.steps)
    steps[n] = wrong
    requeue = lesson.question("requeue")
    early = dataclasses.replace(requeue, show=loader.RunPointer(cycle=1, point="CycleStart"))
    broken = dataclasses.replace(
        lesson,
        steps=tuple(steps),
        questions=tuple(early if q.id == "requeue" else q for q in lesson.questions),
    )
    [(_, failures)] = lessons_check([broken])
    assert [(f.question, f.message) for f in failures] == [
        (f"step {n + 1}", "show: no Backoff step in cycle 1"),
        ("requeue", "show: cycle 1, but the queue shows the move in cycle 3"),
    ]
    # the index a link carries opens the step it names, on the run page's own steps
    run = lesson_runs(lesson=lesson)["default"]
    for q in lesson.questions:
        if q.show is not None:
            index = checks.run_step(run, q.show)
            page = checks.charts.steps(run.page_cycles[q.show.cycle])
            assert page[index]["point"] == q.show.point, q.id


def test_glossary_sections_are_ids_of_the_run_page():
    from pathlib import Path

    from playground.lessons.selectors import glossary

    templates = Path(__file__).resolve().parents[3] / "templates" / "playground"
    page = "".join(
        p.read_text() for p in [templates / "run_detail.html", *templates.glob("runs/_*.html")]
    )
    for e in glossary():
        assert e["section"], e["term"]
        assert f'id="{e["section"]}"' in page, e["term"]


# -- lessons ask before they tell ----------------------------------------------------------------


def _with_step_text(lesson, step, extra):
    """The lesson with ``extra`` appended to the body of narrative step ``step``."""
    steps = list(lesson.steps)
    body = f"{steps[step - 1].body}\n\n{extra}"
    steps[step - 1] = dataclasses.replace(steps[step - 1], body=body)
    return dataclasses.replace(lesson, steps=tuple(steps))


def _told(lesson):
    [(_, failures)] = lessons_check([lesson])
    return [(f.question, f.message) for f in failures]


def test_a_total_stated_in_the_narrative_before_its_question_fails_the_check():
    lesson = loader.lesson_by_slug("scoring")
    sentence = "In the end node-3 totals 463, and node-1 wins."
    said = f'told before asked: step 3 says "{sentence}"'
    assert _told(_with_step_text(lesson, 3, sentence)) == [("total-node-3", said), ("winner", said)]
    # The same sentence after the questions' step tells nothing before they ask.
    assert _told(_with_step_text(lesson, 4, sentence)) == []
    # A question or a call to predict asks; it does not tell.
    assert _told(_with_step_text(lesson, 3, "Does node-3 total 463, and does node-1 win?")) == []
    assert _told(_with_step_text(lesson, 3, "Predict whether node-3 totals 463.")) == []


def test_a_count_told_in_words_fails_but_names_and_quantities_with_that_number_do_not():
    lesson = loader.lesson_by_slug("scheduling-cycle")  # "feasible" expects 2, in step 2
    assert _told(_with_step_text(lesson, 2, "node-2 and the 2 CPUs of node-1 pass.")) == []
    assert _told(_with_step_text(lesson, 2, "Only two nodes pass Filter.")) == [
        ("feasible", 'told before asked: step 2 says "Only two nodes pass Filter."')
    ]


def test_victims_and_a_rejecting_plugin_told_before_they_are_asked_fail_the_check():
    preemption = loader.lesson_by_slug("preemption")
    failures = _told(_with_step_text(preemption, 2, "On node-1 preemption evicts low-1 and low-2."))
    assert [q for q, _ in failures] == ["victims"]
    taints = loader.lesson_by_slug("taints")
    failures = _told(_with_step_text(taints, 2, "TaintToleration rejects node-2 for web."))
    assert [q for q, _ in failures] == ["reject-node-2"]
    # Naming the plugin that a lesson teaches is not telling which node it rejects.
    assert _told(_with_step_text(taints, 2, "TaintToleration is the plugin in charge.")) == []


def test_an_earlier_questions_explanation_that_tells_the_next_answer_fails_the_check():
    lesson = loader.lesson_by_slug("scheduling-queue")
    [requeue, pod_3] = [lesson.question("requeue"), lesson.question("pod-3")]
    assert (requeue.step, pod_3.step) == (3, 3)
    telling = dataclasses.replace(requeue, explanation="Cycle 3 then pops analytics at once.")
    told = dataclasses.replace(
        lesson, questions=tuple(telling if q.id == "requeue" else q for q in lesson.questions)
    )
    assert _told(told) == [
        (
            "pod-3",
            "told before asked: question requeue's explanation says \"Cycle 3 then pops "
            'analytics at once."',
        )
    ]


def test_a_question_may_say_why_its_answer_is_given_before_it_asks():
    lesson = loader.lesson_by_slug("scoring")
    told = _with_step_text(lesson, 3, "node-3 totals 463.")
    q = dataclasses.replace(told.question("total-node-3"), told="a worked example on purpose")
    allowed = dataclasses.replace(
        told, questions=tuple(q if x.id == q.id else x for x in told.questions)
    )
    assert _told(allowed) == []
    assert checks.Checked.of(allowed).told_on_purpose == 1


def test_the_check_command_fails_a_lesson_folder_that_tells_before_it_asks(tmp_path, monkeypatch):
    src = loader.lesson_by_slug("scoring").path
    lesson_dir = tmp_path / "01-told"
    lesson_dir.mkdir()
    for f in src.iterdir():
        (lesson_dir / f.name).write_text(f.read_text())
    narrative = (lesson_dir / "narrative.md").read_text()
    (lesson_dir / "narrative.md").write_text(
        narrative.replace(
            "## NormalizeScore", "node-3 would score 26 for its image.\n\n## NormalizeScore"
        )
    )
    monkeypatch.setattr(
        "playground.management.commands.lessons.load_course",
        lambda: loader.load_course(tmp_path),
    )
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("lessons", "--check", stdout=out)
    assert '  image-node-3: told before asked: step 1 says "node-3 would score 26' in out.getvalue()


# -- "show this step" opens the step the question is about --------------------------------------


def _with_show(lesson, qid, **show):
    q = lesson.question(qid)
    moved = dataclasses.replace(q, show=loader.RunPointer(**show) if show else None)
    return dataclasses.replace(
        lesson, questions=tuple(moved if x.id == qid else x for x in lesson.questions)
    )


@pytest.mark.parametrize(
    ("slug", "qid", "show", "message"),
    [
        (
            "topology-spread",
            "default-spread-score",
            {"cycle": 4, "point": "Filter", "plugin": "PodTopologySpread"},
            "show: cycle 4, but the question is about cycle 3",
        ),
        (
            "topology-spread",
            "default-spread-score",
            {"cycle": 3, "point": "Filter"},
            "show: Filter, but the answer is shown at Score or NormalizeScore",
        ),
        (
            "profiles",
            "fit-node-2",
            {"cycle": 2, "point": "Combine"},
            "show: Combine, but the answer is shown at Score or NormalizeScore",
        ),
        (
            "profiles",
            "winner-report",
            {"cycle": 2, "point": "Score", "plugin": "NodeResourcesFit"},
            "show: Score, but the answer is shown at Combine",
        ),
        (
            "taints",
            "reject-node-2",
            {"cycle": 1, "point": "Filter", "plugin": "NodeResourcesFit"},
            "show: NodeResourcesFit, but the question is about TaintToleration's step",
        ),
        (
            "taints",
            "reject-node-2",
            {"cycle": 1, "point": "Filter", "plugin": "TaintToleration", "node": "node-4"},
            "show: node node-4, but the question is about node-2",
        ),
        (
            "preemption",
            "victims",
            {"cycle": 1, "point": "CycleEnd"},
            "show: CycleEnd, but the answer is shown at PostFilter",
        ),
        (
            "scheduling-queue",
            "requeue",
            {"cycle": 3, "point": "Unschedulable"},
            "show: Unschedulable, but the answer is shown at CycleStart",
        ),
        (
            "scheduling-cycle",
            "winner-1",
            {},
            "show: every question names the run-page step that shows its answer",
        ),
    ],
)
def test_a_link_that_does_not_open_the_questions_step_fails_the_check(slug, qid, show, message):
    lesson = loader.lesson_by_slug(slug)
    assert _told(_with_show(lesson, qid, **show)) == [(qid, message)]


def test_a_link_names_its_step_with_upstreams_names():
    assert loader.RunPointer(1, "Combine").label == "cycle 1, select host"
    pointer = loader.RunPointer(2, "Filter", "NodeResourcesFit", "node-3")
    assert pointer.label == "cycle 2, Filter · NodeResourcesFit"


def test_every_question_of_the_course_links_to_its_own_cycle():
    for lesson in loader.course():
        for q in lesson.questions:
            assert q.show is not None, q.id
            # a requeue shows in the queue panel of the cycle after the move
            if "cycle" in q.params and q.kind != "requeue":
                assert q.show.cycle == q.params["cycle"], (lesson.slug, q.id)


def test_the_loader_requires_each_question_to_name_its_step(tmp_path):
    src = loader.course()[0].path
    lesson_dir = tmp_path / "01-bad"
    lesson_dir.mkdir()
    for f in src.iterdir():
        (lesson_dir / f.name).write_text(f.read_text())
    text = (lesson_dir / "questions.yaml").read_text()
    (lesson_dir / "questions.yaml").write_text(
        text.replace("  show: {cycle: 1, point: CycleStart}\n", "", 1)
    )
    with pytest.raises(loader.LessonError) as err:
        loader.load_lesson(lesson_dir)
    assert str(err.value).startswith("01-bad/questions.yaml[0].show: is required")


def test_the_course_names_each_stage_and_the_configuration_one_way():
    """Upstream's names: the weighted sum of scores, then select host (never "combine"); a
    scheduler configuration holds profiles."""
    import re

    from playground.lessons.selectors import glossary

    texts = [e["text"] for e in glossary()] + [e["term"] for e in glossary()]
    for lesson in loader.course():
        texts += [lesson.title, lesson.summary]
        texts += [f"{s.title}\n{s.body}" for s in lesson.steps]
        texts += [f"{q.prompt}\n{q.explanation}" for q in lesson.questions]
    for text in texts:
        assert not re.search(r"\bcombin", text, re.IGNORECASE), text
        assert not re.search(r"\bweighted sum\b(?!\s+of\s+scores)", text), text
    terms = {e["term"]: e["text"] for e in glossary()}
    assert "profiles list" in terms["profile"]
    assert "KubeSchedulerConfiguration" in terms["scheduler configuration"]
    assert {"weighted sum of scores", "select host"} <= set(terms)


# -- answers told by their verdict (issue 34) ----------------------------------------------------

# Sentences the course once had above a question, each telling its answer without the literal
# words: (lesson, step, sentence, the questions it tells).
TOLD_BY_VERDICT = [
    # lesson 3 q6: node-2 open to trainer, before "which plugin rejects node-2 for trainer?"
    (
        "taints",
        4,
        "`trainer` tolerates `dedicated=gpu:NoSchedule`, so node-2 is open to it.",
        ["reject-node-2-trainer"],
    ),
    (
        "taints",
        4,
        "Now three nodes pass Filter for trainer: node-1 (busy, no taint), node-2 (empty, the GPU "
        "taint that trainer tolerates) and node-4 (empty, the soft taint).",
        ["reject-node-2-trainer"],
    ),
    # lesson 6 q6: every zone over maxSkew, before "how many nodes are feasible?" (none)
    (
        "topology-spread",
        4,
        "With only three zones the minimum counts as 0, and every zone would reach a skew of 2.",
        ["quorum-feasible"],
    ),
    # lesson 9 q4: every node filtered, before "how many nodes are evaluated?" (all 500)
    (
        "nodes-to-score",
        4,
        "Then every node is filtered and scored in every cycle: better placements in theory, "
        "slower cycles in practice.",
        ["evaluated-all"],
    ),
    # lesson 12 q1: the cycle's outcome, before "where does analytics go in cycle 1?"
    (
        "scheduling-queue",
        2,
        "Cycle 1 ends Unschedulable, preemption cannot help (no node is big enough even when "
        "emptied), and the pod is parked among the unschedulable pods.",
        ["winner-1"],
    ),
    # lesson 13 q1: a table row marking node-1 draining, before "which component rejects it?"
    (
        "extenders",
        2,
        "| node | draining | cost | extender score (10 − cost) | added to the total (× 2 × 10) |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| node-1 | yes | 1 | — | — |\n"
        "| node-2 | | 8 | 2 | 40 |",
        ["reject-node-1"],
    ),
    # lesson 14 q5: four of five nodes ruled out, before "where does legacy-app land?"
    (
        "history",
        4,
        "`legacy-app` selects `pool: general` and requests 2 CPUs: node-2 is too small, node-3 is "
        "cordoned, node-4 is in the GPU pool and node-5 is tainted.",
        ["winner", "was-podfitsresources", "was-checknodeunschedulable"],
    ),
    # milder: the run's last outcomes, before "how many pods are pending?"
    (
        "scheduling-cycle",
        4,
        "Cycle 2 schedules `report`, and its select host step has a tie: node-2 and node-3 both "
        "total 449.",
        ["pending-at-end"],
    ),
    (
        "resources",
        3,
        "No node has more than 4 allocatable, so Filter rejects every node, the cycle ends "
        "**Unschedulable** and the pod goes back to the queue.",
        ["render-pending"],
    ),
    # milder: the plugin's own description, before "what does Permit answer for trainer?"
    (
        "binding-cycle",
        2,
        "The playground's **ApprovalGate** plugin makes pods annotated "
        '`playground.k8s.io/require-approval: "true"` wait for a person, for at most 30 seconds.',
        ["permit-code"],
    ),
    # milder: a running pod's rule keeping batch off node-4, before "which plugin rejects it?"
    (
        "inter-pod-affinity",
        3,
        "`auditor` on node-4 refuses to share its node with `app=batch` pods, so the scheduler "
        "must check the existing pods' terms against the incoming pod.",
        ["reject-node-4-batch"],
    ),
]


@pytest.mark.parametrize(("slug", "step", "sentence", "told"), TOLD_BY_VERDICT)
def test_a_verdict_told_before_its_question_fails_the_check(slug, step, sentence, told):
    failures = _told(_with_step_text(loader.lesson_by_slug(slug), step, sentence))
    assert sorted(q for q, _ in failures) == sorted(told)
    assert all(m.startswith(f"told before asked: step {step} says") for _, m in failures)


NOT_TOLD_BY_VERDICT = [
    # a rule of the plugin, naming no node
    ("taints", 4, "A toleration only permits: it does not attract the pod to the tainted node."),
    # a verdict turned round by a negation
    ("taints", 4, "node-2 does not pass Filter for trainer."),
    # a verdict of another pod's cycle
    ("taints", 4, "TaintToleration rejects node-2 for web, and it did so before."),
    # every zone named, no verdict
    ("topology-spread", 4, "Each zone already runs one quorum pod."),
    # every node named with a verb of the plugin, not a verdict ("filtering", not "filtered")
    ("nodes-to-score", 4, "Filtering and scoring every node costs time proportional to the size."),
    # a rule, not what happens in the step's cycle
    ("scheduling-queue", 2, "If no node fits, the cycle ends Unschedulable."),
    # the other nodes named, but only one of them said to be out
    (
        "history",
        4,
        "node-2 has 1 CPU, node-3 is in pool general, node-4 is in the GPU pool and node-5 is "
        "tainted.",
    ),
    # the code's verb, but not of the plugin the question asks about
    ("binding-cycle", 2, "A waiting pod stays reserved on its node."),
    # the label an extender reads, not a verdict
    ("extenders", 2, 'node-1 carries `lessons.playground.k8s.io/draining: "true"`.'),
]


@pytest.mark.parametrize(("slug", "step", "sentence"), NOT_TOLD_BY_VERDICT)
def test_a_sentence_that_states_no_verdict_of_the_questions_subject_passes(slug, step, sentence):
    assert _told(_with_step_text(loader.lesson_by_slug(slug), step, sentence)) == []
