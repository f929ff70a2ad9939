"""A live class in Chromium: a lecturer and three student browsers, one class on lesson 7.

The lecturer opens the class from the lesson page; three students join with the code (each in
a browser of their own: a session holds one student per class); the students' screens follow the
lecturer's step, one looks back and returns; a question is asked, answered, the lecturer's chart
counts the answers, and the reveal reaches every student. Both pages fit 1280x800; screenshots go
to tests/artifacts/.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from conftest import chromium
from test_runs import _css, _wait, daphne_url, site  # noqa: F401  (fixtures used below)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WIDTH, HEIGHT = 1280, 800
ANSWERS = {"Ann": "node-1", "Bob": "node-1", "Cy": "node-3"}


@pytest.fixture
def students():
    with contextlib.ExitStack() as stack:
        yield [_student_browser(stack) for _ in ANSWERS]


def _student_browser(stack: contextlib.ExitStack):
    """A student's own Chromium at 1280x800, closed with ``stack``."""
    driver = stack.enter_context(chromium(size=(WIDTH, HEIGHT)))
    _viewport(driver, WIDTH, HEIGHT)
    return driver


def _viewport(driver, width, height):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def _open_lesson_class(site):  # noqa: F811
    """The lecturer (1280x800) opens a class on lesson 7 and is live; the class's code."""
    from playground.classes.models import LiveClass

    _viewport(site.driver, WIDTH, HEIGHT)
    site.open("/lessons/scoring/")
    _css(site.driver, "#start-class button").click()
    _wait(site.driver, lambda d: d.current_url.endswith("/present/"))
    _live(site.driver)
    return LiveClass.objects.get().code


def _live(driver):
    _wait(driver, lambda d: _css(d, "#conn-status").get_attribute("data-state") == "open")


def _start_class_and_join(lecturer, student):
    """The lecturer, on a lesson or run page, starts a class and is live; ``student`` joins it
    from the presenter's join link as Ann and is live."""
    _css(lecturer, "#start-class button").click()
    _wait(lecturer, lambda d: d.current_url.endswith("/present/"))
    _live(lecturer)
    student.get(_css(lecturer, "#join-link").get_attribute("href"))
    _css(student, "#id_nickname").send_keys("Ann")
    _css(student, "#join-button").click()
    _live(student)


def _fits(driver, *selectors):
    """What of the page does not fit the viewport: a horizontal scroll, or an element whose box
    ends below or right of it."""
    return driver.execute_script(
        """
        const bad = [];
        if (document.documentElement.scrollWidth > innerWidth) bad.push("horizontal scroll");
        for (const sel of arguments[0]) {
          const r = document.querySelector(sel).getBoundingClientRect();
          if (r.bottom > innerHeight || r.right > innerWidth || r.width === 0) {
            bad.push(`${sel}: ${Math.round(r.right)}x${Math.round(r.bottom)}`);
          }
        }
        return bad;
        """,
        list(selectors),
    )


def test_a_lecturer_and_three_students_follow_predict_and_see_the_reveal(site, students):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    from playground.classes.models import ClassAnswer

    lecturer = site.driver
    try:
        code = _open_lesson_class(site)
        join_link = _css(lecturer, "#join-link").get_attribute("href")
        assert join_link == f"{site.base}/join/?code={code}"
        assert lecturer.find_elements("css selector", "#join-qr svg")

        # three students join from the link (the QR's target), each with a nickname
        for driver, nickname in zip(students, ANSWERS, strict=True):
            driver.get(join_link)
            assert _css(driver, "#id_code").get_attribute("value") == code
            _css(driver, "#id_nickname").send_keys(nickname)
            _css(driver, "#join-button").click()
            _wait(driver, lambda d: d.current_url == f"{site.base}/classes/{code}/")
            _live(driver)
        _wait(lecturer, lambda d: _css(d, "#joined-count").get_attribute("data-n") == "3")

        # the students follow the lecturer to step 3
        root = "#live-class"
        for _ in range(2):
            _css(lecturer, "#step-next").click()
        _wait(lecturer, lambda d: _css(d, root).get_attribute("data-step-seq") == "2")
        step3 = _css(lecturer, "#step-text h3").text
        for driver in students:
            _wait(driver, lambda d: _css(d, root).get_attribute("data-lesson-step") == "3")
            assert _css(driver, "#step-text h3").text == step3
        # one looks back, then returns to the class
        ann = students[0]
        _css(ann, "#look-prev").click()
        assert _css(ann, root).get_attribute("data-lesson-step") == "2"
        assert _css(ann, "#back-to-class").is_displayed()
        _css(ann, "#back-to-class").click()
        assert _css(ann, root).get_attribute("data-lesson-step") == "3"
        assert not _css(ann, "#back-to-class").is_displayed()

        # the lecturer asks lesson 7's "which node wins?"; the students answer
        Select(_css(lecturer, "#lesson-question")).select_by_value("winner")
        _css(lecturer, "#ask-lesson").click()
        for driver, choice in zip(students, ANSWERS.values(), strict=True):
            _wait(driver, lambda d: d.find_elements("css selector", ".choice"))
            _css(driver, f'.choice[data-choice="{choice}"]').click()
            _wait(driver, lambda d, c=choice: c in _css(d, "#my-answer").text)
        _wait(lecturer, lambda d: _css(d, "#answered-count").get_attribute("data-n") == "3")
        # the room's answers stay hidden until the lecturer shows them or reveals
        assert not _css(lecturer, "#tally-chart").is_displayed()
        _css(lecturer, "#show-tally").click()
        bars = _wait(
            lecturer,
            lambda d: d.execute_script(
                "const t = document.getElementById('tally-chart').data;"
                "return t && t[0].y.reduce((a, b) => a + b, 0) === 3 ? [t[0].x, t[0].y] : null;"
            ),
        )
        assert dict(zip(*bars, strict=True)) == {"node-1": 2, "node-2": 0, "node-3": 1}
        assert _fits(lecturer, "#tally-chart", "#reveal", "#join-qr", "#step-next") == []
        ARTIFACTS.mkdir(exist_ok=True)
        lecturer.save_screenshot(str(ARTIFACTS / "live-class-presenter-1280x800.png"))

        # the reveal: every student sees the answer, the explanation and the run step's link
        reveal = _css(lecturer, "#reveal")
        assert reveal.is_enabled() and reveal.text == "Reveal the answer"
        reveal.click()
        _wait(lecturer, lambda d: not _css(d, "#reveal").is_enabled())
        assert reveal.text == "Answer revealed ✓"
        assert reveal.value_of_css_property("cursor") == "default"
        _css(lecturer, "#show-tally").click()  # hiding it again: a revealed tally stays shown
        assert _css(lecturer, "#tally-chart").is_displayed()
        for driver, choice in zip(students, ANSWERS.values(), strict=True):
            _wait(driver, lambda d: _css(d, "#reveal-box").is_displayed())
            assert "node-1" in _css(driver, "#reveal-answer").text
            assert "487" in _css(driver, "#reveal-explanation").text
            verdict = _css(driver, "#my-verdict")
            assert verdict.get_attribute("class") == ("right" if choice == "node-1" else "wrong")
            link = _css(driver, "#reveal-link").get_attribute("href")
            assert link == f"{site.base}/lessons/scoring/?step=3&q=winner"
            assert not _css(driver, ".choice").is_enabled()  # answers are closed
        assert _fits(students[2], "#reveal-box", "#choices") == []
        students[2].save_screenshot(str(ARTIFACTS / "live-class-student-1280x800.png"))
        stored = sorted(ClassAnswer.objects.values_list("student__nickname", "choice", "correct"))
        assert stored == [("Ann", "node-1", True), ("Bob", "node-1", True), ("Cy", "node-3", False)]

        # the lecturer ends the class: the students are told
        lecturer.execute_script(
            "document.getElementById('end-form').removeAttribute('data-confirm')"
        )
        _css(lecturer, "#end-class").click()
        for driver in students:
            _wait(driver, lambda d: _css(d, "#class-ended").is_displayed())
    finally:
        lecturer.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_class_on_a_run_steps_through_extension_points_and_asks_the_winner(site, students):  # noqa: F811
    from django.contrib.auth import get_user_model

    from playground.models import Cluster, Profile, Run
    from playground.runs import services as runs

    lecturer = site.driver
    owner = get_user_model().objects.get(username="runner")
    cluster = Cluster.objects.get(name="Three zones", is_demo=True)
    profile = Profile.objects.filter(is_demo=True, name="Default").first()
    run = runs.run_start(user=owner, cluster=cluster, profile=profile)
    run.refresh_from_db()
    if run.status != Run.Status.SUCCEEDED:
        runs.run_execute(run_id=run.pk)
    _viewport(lecturer, WIDTH, HEIGHT)
    try:
        _run_class(site, students[0], run)
    finally:
        lecturer.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _run_class(lecture_site, student, run):
    from playground.models import RunCycle
    from playground.runs.refs import run_ref

    lecturer = lecture_site.driver
    lecture_site.open(f"/runs/{run_ref(run.pk)}/")
    _start_class_and_join(lecturer, student)

    # the lecturer moves to the next extension point: the student's run step follows
    _wait(lecturer, lambda d: len(d.find_elements("css selector", "#point-select option")) > 2)
    _css(lecturer, "#step-next").click()
    _wait(student, lambda d: _css(d, "#live-class").get_attribute("data-step-seq") == "1")
    link = _css(student, "#run-step-link").get_attribute("href")
    assert link.endswith("#cycle=1&step=1") and "/runs/" in link
    assert _css(student, "#run-step").text.startswith("cycle 1, ")
    assert _css(lecturer, "#point-select").get_attribute("value") == "1"
    _wait(lecturer, lambda d: d.find_elements("css selector", "#step-text .step-help"))

    # "which node wins this cycle?": the answer comes from the stored run
    _css(lecturer, "#ask-winner").click()
    winner = RunCycle.objects.get(run=run, cycle=1).node
    _wait(student, lambda d: d.find_elements("css selector", f'.choice[data-choice="{winner}"]'))
    _css(student, f'.choice[data-choice="{winner}"]').click()
    _wait(lecturer, lambda d: _css(d, "#answered-count").get_attribute("data-n") == "1")
    _css(lecturer, "#reveal").click()
    _wait(lecturer, lambda d: _css(d, "#reveal-box").is_displayed())
    assert _fits(lecturer, "#tally-chart", "#reveal-box", "#point-select", "#join-qr") == []
    ARTIFACTS.mkdir(exist_ok=True)
    lecturer.save_screenshot(str(ARTIFACTS / "live-class-run-presenter-1280x800.png"))
    _wait(student, lambda d: _css(d, "#reveal-box").is_displayed())
    assert _css(student, "#my-verdict").get_attribute("class") == "right"
    assert "#cycle=1&step=" in _css(student, "#reveal-link").get_attribute("href")


def test_a_lesson_class_asks_with_one_click_who_is_evicted(site):  # noqa: F811
    """In a lesson class the presenter offers the questions the step's cycle answers: on the
    preemption lesson's step that evicts, "which pods are evicted?" is one click; a student
    types the names in any order and is right."""
    from playground.classes.models import ClassQuestion
    from playground.classes.run_questions import lesson_asks
    from playground.lessons.loader import lesson_by_slug

    lesson = lesson_by_slug("preemption")
    asks = lesson_asks(lesson)
    evicting = min(n for n, kinds in asks.items() if "victims" in kinds)
    quiet = min(n for n, kinds in asks.items() if "victims" not in kinds)
    lecturer = site.driver
    _viewport(lecturer, WIDTH, HEIGHT)
    stack = contextlib.ExitStack()
    student = _student_browser(stack)

    def go_to(n):
        while True:
            at = int(_css(lecturer, "#step-heading").text.split()[1])
            if at == n:
                return
            _css(lecturer, "#step-next" if at < n else "#step-prev").click()
            _wait(lecturer, lambda d, a=at: int(_css(d, "#step-heading").text.split()[1]) != a)

    try:
        site.open("/lessons/preemption/")
        _start_class_and_join(lecturer, student)
        go_to(quiet)  # a step whose cycle evicts nobody: only the winner is offered
        _wait(lecturer, lambda d: not _css(d, "#ask-victims").is_displayed())
        assert _css(lecturer, "#ask-winner").is_displayed()
        go_to(evicting)
        _wait(lecturer, lambda d: _css(d, "#ask-victims").is_displayed())
        _css(lecturer, "#ask-victims").click()
        _wait(lecturer, lambda d: ClassQuestion.objects.exists())
        answer = ClassQuestion.objects.get().answer.split(", ")
        _wait(student, lambda d: _css(d, "#free-answer").is_displayed())
        _css(student, "#free-answer-input").send_keys(", ".join(reversed(answer)))
        _css(student, "#free-answer button").click()
        _wait(lecturer, lambda d: _css(d, "#answered-count").get_attribute("data-n") == "1")
        _css(lecturer, "#reveal").click()
        _wait(student, lambda d: _css(d, "#reveal-box").is_displayed())
        assert _css(student, "#my-verdict").get_attribute("class") == "right"
    finally:
        stack.close()


def test_a_class_opened_in_chinese_teaches_in_chinese_and_tallies_the_values(site):  # noqa: F811
    """The lecturer reads the site in Chinese: the class is taught in Chinese. An English
    student sees the Chinese step and question (无 for "none") in an English page; the answer
    sent, stored and tallied is the value "none"."""
    from selenium.webdriver.support.ui import Select

    from playground.classes.models import ClassAnswer, LiveClass
    from playground.lessons.languages import in_language
    from playground.lessons.loader import lesson_by_slug

    chinese = in_language(lesson_by_slug("resources"), "zh-hans")
    lecturer = site.driver
    lecturer.add_cookie({"name": "django_language", "value": "zh-hans"})
    stack = contextlib.ExitStack()
    student = _student_browser(stack)
    try:
        site.open("/lessons/resources/")
        _css(lecturer, "#start-class button").click()
        _wait(lecturer, lambda d: d.current_url.endswith("/present/"))
        code = LiveClass.objects.get().code
        assert LiveClass.objects.get().language == "zh-hans"
        _live(lecturer)
        assert _css(lecturer, "#reveal").text == "揭晓答案"  # the lecturer's own words

        student.get(f"{site.base}/join/?code={code}")
        _css(student, "#id_nickname").send_keys("Ann")
        _css(student, "#join-button").click()
        _wait(student, lambda d: d.current_url == f"{site.base}/classes/{code}/")
        _live(student)
        _css(lecturer, "#step-next").click()
        _wait(student, lambda d: _css(d, "#live-class").get_attribute("data-lesson-step") == "2")
        assert _css(student, "#step-text h3").text == chinese.steps[1].title

        Select(_css(lecturer, "#lesson-question")).select_by_value("reject-node-4")
        _css(lecturer, "#ask-lesson").click()
        _wait(student, lambda d: d.find_elements("css selector", ".choice"))
        question = chinese.question("reject-node-4")
        assert _css(student, "#question-prompt").text == f"1. {question.prompt}"
        none = _css(student, '.choice[data-choice="none"]')
        assert none.text == "无"
        none.click()
        _wait(student, lambda d: "无" in _css(d, "#my-answer").text)
        assert _css(student, "#my-answer").text.startswith("Your answer")  # English page
        _css(lecturer, "#show-tally").click()
        bars = _wait(
            lecturer,
            lambda d: d.execute_script(
                "const t = document.getElementById('tally-chart').data;"
                "return t && t[0].y.reduce((a, b) => a + b, 0) === 1 ? [t[0].x, t[0].y] : null;"
            ),
        )
        assert dict(zip(*bars, strict=True))["无"] == 1
        counts = _css(lecturer, "#tally-chart").get_attribute("data-counts")
        assert '"none":1' in counts
        _css(lecturer, "#reveal").click()
        _wait(student, lambda d: _css(d, "#reveal-box").is_displayed())
        assert _css(student, "#reveal-answer").text == "Answer: 无"
        assert _css(student, "#my-verdict").get_attribute("class") == "right"
        assert _css(student, "#reveal-explanation").text == question.explanation
        assert list(ClassAnswer.objects.values_list("choice", "correct")) == [("none", True)]
    finally:
        lecturer.delete_cookie("django_language")
        stack.close()


PHONE = (390, 844)


def _box(driver, selector):
    """(height, width, font px, top) of an element as laid out."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); const r = e.getBoundingClientRect();"
        "return [r.height, r.width, parseFloat(getComputedStyle(e).fontSize), r.top];",
        selector,
    )


def test_on_a_phone_a_new_question_comes_into_view_and_targets_are_tappable(site):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    lecturer = site.driver
    try:
        code = _open_lesson_class(site)
        with chromium(size=PHONE) as phone:
            _viewport(phone, *PHONE)
            phone.get(_css(lecturer, "#join-link").get_attribute("href"))
            for selector in ("#id_code", "#id_nickname"):
                height, _, font, _ = _box(phone, selector)
                assert font >= 16 and height >= 44, (selector, height, font)
            assert _box(phone, "#join-button")[0] >= 44
            _css(phone, "#id_nickname").send_keys("Ann")
            _css(phone, "#join-button").click()
            _wait(phone, lambda d: d.current_url == f"{site.base}/classes/{code}/")
            _live(phone)
            for selector in ("#look-prev", "#look-next"):
                height, width, _, _ = _box(phone, selector)
                assert height >= 44 and width >= 44, (selector, height, width)
            min_height = phone.execute_script(
                "return getComputedStyle(document.getElementById('run-step-link')).minHeight"
            )
            assert min_height == "44px"
            # the student reads the step at the top; the question panel is below the fold
            assert _box(phone, "#question-panel")[3] > PHONE[1]
            assert not _css(phone, "#question-banner").is_displayed()

            Select(_css(lecturer, "#lesson-question")).select_by_value("winner")
            _css(lecturer, "#ask-lesson").click()
            _wait(phone, lambda d: d.find_elements("css selector", ".choice"))
            assert _css(phone, "#question-banner").is_displayed()
            _wait(phone, lambda d: 0 <= _box(d, "#question-panel")[3] < PHONE[1] / 2)
            heights = phone.execute_script(  # one read: the choices are redrawn on each message
                "return [...document.querySelectorAll('.choice')]"
                ".map(e => e.getBoundingClientRect().height);"
            )
            assert heights and min(heights) >= 44, heights
            ARTIFACTS.mkdir(exist_ok=True)
            phone.save_screenshot(str(ARTIFACTS / "live-class-phone-question-390x844.png"))
            _css(phone, '.choice[data-choice="node-1"]').click()
            _wait(phone, lambda d: not _css(d, "#question-banner").is_displayed())
            assert "node-1" in _css(phone, "#my-answer").text
    finally:
        lecturer.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_projector_view_fills_1920x1080_in_large_type(site):  # noqa: F811
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    lecturer = site.driver
    try:
        _open_lesson_class(site)
        _viewport(lecturer, 1920, 1080)
        _css(lecturer, "#step-next").click()
        Select(_css(lecturer, "#lesson-question")).select_by_value("winner")
        _css(lecturer, "#ask-lesson").click()
        _wait(lecturer, lambda d: "1." in _css(d, "#question-prompt").text)
        normal = _box(lecturer, "#step-text")[2]
        _css(lecturer, "body").send_keys("f")
        assert "large" in _css(lecturer, "#live-class").get_attribute("class")
        assert _css(lecturer, "#large-view").get_attribute("aria-pressed") == "true"
        assert _box(lecturer, "#step-text")[2] >= 28 > normal
        assert _box(lecturer, "#question-prompt")[2] >= 32
        assert not _css(lecturer, "#join-panel").is_displayed()
        _css(lecturer, "#reveal").click()
        _wait(lecturer, lambda d: _css(d, "#tally-chart").is_displayed())
        assert _fits(lecturer, "#step-panel", "#question-panel", "#tally-chart", "#reveal") == []
        ARTIFACTS.mkdir(exist_ok=True)
        lecturer.save_screenshot(str(ARTIFACTS / "live-class-projector-1920x1080.png"))
        _css(lecturer, "body").send_keys(Keys.ARROW_RIGHT)  # keys still step
        _css(lecturer, "#large-view").click()
        assert "large" not in _css(lecturer, "#live-class").get_attribute("class")
    finally:
        lecturer.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_class_on_the_lecturers_private_run_shows_students_the_run_the_presenter_steps(
    site,  # noqa: F811
    students,
):
    """Issue 32 item 2: the class shows the run, not a line. The run is the lecturer's own
    (private cluster and profile); the student's page frames it at the class's step, hides it
    while a question waits for its reveal, and follows when the presenter steps through the
    run in the presenter page's own frame."""
    import yaml
    from builders import make_node, make_pod
    from django.contrib.auth import get_user_model

    from playground.classes.models import LiveClass
    from playground.clusters import services as cluster_services
    from playground.profiles import services as profile_services
    from playground.runs import services as runs
    from playground.runs.refs import run_ref

    lecturer, student = site.driver, students[0]
    owner = get_user_model().objects.get(username="runner")
    cluster = cluster_services.cluster_create(owner=owner, name="mine")
    cluster_services.cluster_import_yaml(
        cluster=cluster,
        user=owner,
        text=yaml.safe_dump_all([make_node("n1"), make_node("n2"), make_pod("a"), make_pod("b")]),
    )
    profile = profile_services.profile_create(owner=owner, name="mine", config={})
    run = runs.run_start(user=owner, cluster=cluster, profile=profile)
    runs.run_execute(run_id=run.pk)
    _viewport(lecturer, WIDTH, HEIGHT)
    try:
        site.open(f"/runs/{run_ref(run.pk)}/")
        _start_class_and_join(lecturer, student)

        def framed(driver, script):
            """``script`` run inside the page's run frame (its document, same origin)."""
            return driver.execute_script(
                "const f = document.getElementById('class-run-frame');"
                "const doc = f && f.contentDocument;"
                "if (!doc || !doc.getElementById('timeline')) return null;"
                f"return (function (doc, win) {{ {script} }})(doc, f.contentWindow);"
            )

        # the presenter steps inside the framed run page: the class (and the student) follow
        _wait(lecturer, lambda d: framed(d, "return win.location.hash") == "#cycle=1&step=0")
        framed(lecturer, "doc.getElementById('step-next').click(); return 1;")
        _wait(lecturer, lambda d: _css(d, "#live-class").get_attribute("data-step-seq") == "1")
        _wait(student, lambda d: _css(d, "#live-class").get_attribute("data-step-seq") == "1")
        assert _css(lecturer, "#point-select").get_attribute("value") == "1"
        # the student's frame shows the private run (no 404) at the class's step
        _wait(student, lambda d: framed(d, "return win.location.hash") == "#cycle=1&step=1")
        rows = "return doc.querySelectorAll('#timeline tr[data-cycle]').length"
        # the frame's hash moves before its run data lands: wait for the two cycles' rows
        _wait(student, lambda d: framed(d, rows) == 2)
        assert framed(student, rows) == 2

        # a question hides the run (it shows the winner) until the reveal
        _css(lecturer, "#ask-winner").click()
        _wait(student, lambda d: not _css(d, "#class-run-frame").is_displayed())
        assert _css(student, "#run-frame-hidden").is_displayed()
        _css(lecturer, "#reveal").click()
        _wait(student, lambda d: _css(d, "#class-run-frame").is_displayed())
        assert not _css(student, "#run-frame-hidden").is_displayed()

        # the presenter's class controls move both frames too
        lecturer.execute_script(
            "window.framePosts = 0; addEventListener('message', (e) => {"
            " if (e.data && e.data.type === 'run:step') window.framePosts += 1; });"
        )
        _css(lecturer, "#step-next").click()
        _wait(student, lambda d: framed(d, "return win.location.hash") == "#cycle=1&step=2")
        _wait(lecturer, lambda d: framed(d, "return win.location.hash") == "#cycle=1&step=2")
        # The frame tells the presenter page the step it now shows; that page must not send it
        # back as a new step. Anything it sent went before the cap set here, on the same socket.
        _wait(lecturer, lambda d: d.execute_script("return window.framePosts") >= 1)
        _css(lecturer, "#students-box summary").click()
        _css(lecturer, "#student-cap").send_keys("150")
        _css(lecturer, "#cap-form button").click()
        _wait(lecturer, lambda d: LiveClass.objects.get().student_cap == 150)
        assert LiveClass.objects.get().step_seq == 2  # no echo
        assert _css(lecturer, "#live-class").get_attribute("data-step-seq") == "2"
        ARTIFACTS.mkdir(exist_ok=True)
        student.save_screenshot(str(ARTIFACTS / "live-class-student-run-frame-1280x800.png"))
    finally:
        lecturer.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (390, 844)], ids=["1920", "phone"])
def test_the_lecturer_keeps_the_results_at_projector_and_phone_size(site, width, height):  # noqa: F811
    """An ended class: "My classes" lists it with its counts, and its page shows the final
    numbers per question (right answer, answered, % right), readable without a sideways
    scroll of the page at 1920x1080 and on a phone."""
    from django.contrib.auth import get_user_model

    from playground.classes import services
    from playground.lessons.loader import lesson_by_slug

    lecturer = get_user_model().objects.get(username="runner")
    live = services.class_open(lecturer=lecturer, lesson=lesson_by_slug("scoring"))
    question = next(q for q in lesson_by_slug("scoring").questions if len(q.choices) > 1)
    asked = services.question_ask_lesson(live_class=live, user=lecturer, qid=question.id)
    for nickname, right in [("Ann", True), ("Bob", True), ("Cy", False)]:
        student = services.student_join(code=live.code, nickname=nickname)
        choice = asked.answer if right else next(c for c in asked.choices if c != asked.answer)
        services.answer_submit(
            class_id=live.pk, student_id=student.pk, question_id=asked.pk, choice=choice
        )
    live.refresh_from_db()
    services.reveal(live_class=live, user=lecturer)
    services.class_end(live_class=live, user=lecturer)

    driver = site.driver
    _viewport(driver, width, height)
    try:
        site.open("/classes/")
        row = _css(driver, f'#my-classes tr[data-code="{live.code}"]')
        assert "3" in row.text and "Ended" in row.text
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        # No column out of view inside its box either: the buttons of the last one are seen.
        assert _in_view_sideways(driver, row.find_element("link text", "Results (CSV)"))
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / f"live-class-my-classes-{width}x{height}.png"))
        row.find_element("link text", "Results").click()
        _wait(driver, lambda d: d.find_elements("css selector", "#final-numbers"))
        final = _css(driver, '#final-numbers tr[data-question="1"]')
        assert asked.answer in final.text and "2 (67 %)" in final.text
        assert _css(driver, "#final-joined").text == "3"
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        assert _in_view_sideways(driver, final.find_elements("css selector", "td")[-1])
        driver.save_screenshot(str(ARTIFACTS / f"live-class-results-{width}x{height}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _in_view_sideways(driver, element) -> bool:
    return driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.left >= 0 && r.right <= innerWidth;",
        element,
    )
