"""The course in headless Chromium: a new visitor takes lessons 1 and 10 end to end, and every
lesson page is photographed at 1280x800 with no text overlapping other text."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from playground.lessons.loader import course, lesson_by_slug
from playground.models import Run
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 15
ARTIFACTS = Path(
    os.environ.get("PLAYGROUND_TEST_ARTIFACTS") or Path(__file__).resolve().parents[1] / "artifacts"
)

# Text boxes (one per line of each text node) that overlap another text node's boxes.
OVERLAPS_JS = """
const boxes = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
let n = 0;
while (walker.nextNode()) {
  const node = walker.currentNode;
  if (!node.textContent.trim()) continue;
  const el = node.parentElement;
  const style = getComputedStyle(el);
  if (style.visibility === "hidden" || style.display === "none" || el.closest("[hidden]")) continue;
  const range = document.createRange();
  range.selectNodeContents(node);
  for (const r of range.getClientRects()) {
    if (r.width < 1 || r.height < 1) continue;
    const text = node.textContent.trim().slice(0, 40);
    boxes.push({id: n, text, l: r.left, r: r.right, t: r.top, b: r.bottom});
  }
  n++;
}
const bad = [];
const tol = 1;
for (let i = 0; i < boxes.length; i++) {
  for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.id === b.id) continue;
    const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
    const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
    if (w > tol && h > tol) bad.push([a.text, b.text]);
  }
}
return {count: boxes.length, overlaps: bad.slice(0, 10)};
"""


@contextlib.contextmanager
def _viewport_1280x800(driver):
    """A 1280x800 viewport for the duration (the window itself is larger)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _shoot_and_check(driver, path, min_texts):
    """Save a screenshot to ``path`` and return the overlapping text pairs on the page."""
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    report = driver.execute_script(OVERLAPS_JS)
    assert report["count"] > min_texts
    return report["overlaps"]


def _wait(driver, condition, timeout=WAIT):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(
        driver, timeout, ignored_exceptions=(StaleElementReferenceException,)
    ).until(condition)


def _css(driver, css):
    return driver.find_element("css selector", css)


def _answer(driver, qid, value):
    """Answer one question (a choice or typed text), submit, and return its result text."""
    form = _css(driver, f"#q-{qid}")
    radios = form.find_elements("css selector", "input[type=radio]")
    if radios:
        next(r for r in radios if r.get_attribute("value") == value).click()
    else:
        field = form.find_element("css selector", "input[type=text]")
        field.clear()
        field.send_keys(value)
    form.find_element("css selector", "button[type=submit]:not([formaction])").click()
    result = form.find_element("css selector", ".result")
    _wait(
        driver,
        lambda d: (
            result.is_displayed() and result.find_element("css selector", ".explanation").text
        ),
    )
    return result.find_element("css selector", ".verdict").text, result.find_element(
        "css selector", ".explanation"
    ).text


def _next_step(driver):
    step = int(_css(driver, ".lesson").get_attribute("data-step"))
    _css(driver, "#step-next").click()
    _wait(driver, lambda d: int(_css(d, ".lesson").get_attribute("data-step")) == step + 1)


def test_new_visitor_takes_lesson_one_from_the_home_page(page):
    driver = page.driver
    page.open("/")
    _css(driver, "#start-course").click()
    _wait(driver, lambda d: "/lessons/scheduling-cycle/" in d.current_url)
    lesson = lesson_by_slug("scheduling-cycle")
    assert _css(driver, "#step-title").text == f"1. {lesson.steps[0].title}"

    # Predict wrongly first: the engine's answer and the explanation appear.
    verdict, explanation = _answer(driver, "first-pod", "report")
    assert verdict == "Not quite: the engine says checkout."
    assert "PrioritySort" in explanation
    verdict, _ = _answer(driver, "first-pod", "checkout")
    assert verdict.startswith("Right: checkout.")

    _next_step(driver)
    assert _answer(driver, "reject-node-3", "NodeResourcesFit")[0].startswith("Right")
    assert _answer(driver, "feasible", "2")[0] == "Right: 2. First try!"
    _next_step(driver)
    assert _answer(driver, "winner-1", "node-2")[0].startswith("Right")

    # Starting the lesson's run shows the question's step in the run page beside the lesson.
    _css(driver, "#q-winner-1 .open-step").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"))
    run = Run.objects.get()
    assert run.cluster.name == lesson.cluster_name
    frame = _css(driver, "#run-frame")
    assert f"/runs/{run_ref(run.pk)}/#cycle=1&step=" in frame.get_attribute("src")
    assert _css(driver, "#q-winner-1 .open-step-page").get_attribute("href") == frame.get_attribute(
        "src"
    )
    driver.switch_to.frame(frame)
    try:
        _wait(driver, lambda d: _css(d, "#step-label").get_attribute("data-point") == "Combine")
    finally:
        driver.switch_to.default_content()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("document.getElementById('run-frame-box').scrollIntoView()")
    driver.save_screenshot(str(ARTIFACTS / "lesson-01-beside-its-run.png"))
    # The run's keys work from the lesson page, with no click into the frame first.
    frame_hash = "return document.getElementById('run-frame').contentWindow.location.hash"
    before = driver.execute_script(frame_hash)
    driver.execute_script("document.activeElement.blur()")
    _css(driver, "body").send_keys("k")  # the previous plugin
    _wait(driver, lambda d: d.execute_script(frame_hash) != before)
    step = int(before.rsplit("step=", 1)[1])
    assert driver.execute_script(frame_hash).endswith(f"step={step - 1}")

    page.open("/lessons/scheduling-cycle/?step=4")
    assert _answer(driver, "pending-at-end", "0")[0].startswith("Right")
    _css(driver, "#next-lesson").click()
    _wait(driver, lambda d: "/lessons/resources/" in d.current_url)

    page.open("/lessons/")
    row = _css(driver, "#lessons tr[data-lesson=scheduling-cycle]")
    assert "done" in row.get_attribute("class")
    assert "5/5 answered, 5 right, 4 on the first try" in row.text


def test_new_visitor_takes_the_preemption_lesson(page):
    driver = page.driver
    page.open("/lessons/")
    _css(driver, "#lessons a[href='/lessons/preemption/']").click()
    _wait(driver, lambda d: "/lessons/preemption/" in d.current_url)
    assert _answer(driver, "reject-node-2", "DefaultPreemption")[0] == (
        "Not quite: the engine says NodeResourcesFit."
    )
    _next_step(driver)
    _next_step(driver)
    verdict, explanation = _answer(driver, "nominated", "node-1")
    assert verdict == "Right: node-1. First try!"
    assert "budget" in explanation
    assert _answer(driver, "victims", "low-2, low-1")[0].startswith("Right: low-1, low-2.")

    # See it in the run: the PostFilter step beside the lesson names the same victims and node.
    _css(driver, "#q-victims .open-step").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"))
    assert int(_css(driver, ".lesson").get_attribute("data-step")) == 3
    driver.switch_to.frame(_css(driver, "#run-frame"))
    try:
        _wait(driver, lambda d: _css(d, "#step-label").get_attribute("data-point") == "PostFilter")
        _wait(driver, lambda d: "node-1" in _css(d, "#nominated").text)
        chosen = _css(driver, "#candidates tr.chosen").text
        assert "low-1" in chosen and "low-2" in chosen
        # The criteria table the narrative reads: the budget keeps two, priority decides.
        _wait(driver, lambda d: d.find_elements("css selector", "#preemption-criteria tr.decided"))
        rows = driver.find_elements("css selector", "#preemption-criteria tbody tr")
        assert [r.get_attribute("data-criterion") for r in rows] == [
            "fewest PodDisruptionBudget violations",
            "lowest priority of the highest-priority victim",
        ]
        assert rows[1].text.endswith("node-1 — decided here")
        priorities = driver.find_elements("css selector", "#candidates tr.chosen .priority")
        assert [p.text for p in priorities] == ["100", "100"]
    finally:
        driver.switch_to.default_content()
    _next_step(driver)
    # v1.35 preempts asynchronously: cycle 2 comes while a victim is still terminating.
    assert _answer(driver, "winner-2", "none")[0].startswith("Right")
    _next_step(driver)
    assert _answer(driver, "winner-3", "node-1")[0].startswith("Right")
    _css(driver, "#next-lesson").click()
    _wait(driver, lambda d: "/lessons/binding-cycle/" in d.current_url)


def test_new_visitor_checks_a_score_of_the_scoring_lesson_in_its_explanation(page):
    driver = page.driver
    page.open("/lessons/scoring/?step=2")
    assert _answer(driver, "taint-normalized", "0")[0] == "Not quite: the engine says 100."

    # The question's step opens beside the narrative: TaintToleration's NormalizeScore.
    _css(driver, "#q-taint-normalized .open-step").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"))
    assert int(_css(driver, ".lesson").get_attribute("data-step")) == 2
    assert _css(driver, "#step-title").text.endswith("NormalizeScore")
    driver.switch_to.frame(_css(driver, "#run-frame"))
    try:
        label = _css(driver, "#step-label")
        _wait(driver, lambda d: label.get_attribute("data-point") == "NormalizeScore")
        assert "TaintToleration" in label.text
        rule = _css(driver, "#normalize tr[data-plugin=TaintToleration]")
        assert rule.get_attribute("data-kind") == "reverse" and "0..0" in rule.text

        # Click node-3's raw ImageLocality score: the panel explains that very number.
        cell = _css(
            driver,
            "#score-table tr[data-node=node-3] td[data-plugin=ImageLocality][data-mode=raw]",
        )
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
        value = cell.text
        assert value.isdigit()
        cell.click()
        shown = "#explain-panel .explanation.matches-cell"
        _wait(driver, lambda d: d.find_elements("css selector", f"{shown} .explain-value"))
        step = _css(driver, shown)
        assert (step.get_attribute("data-point"), step.get_attribute("data-plugin")) == (
            "Score",
            "ImageLocality",
        )
        formula = step.find_element("css selector", ".explain-formula code").text
        assert "clamp" in formula and formula.rsplit("=", 1)[1].strip() == value
        assert step.find_element("css selector", ".explain-value").text == value
        with _viewport_1280x800(driver):
            driver.save_screenshot(str(ARTIFACTS / "lesson-07-explained-score.png"))
    finally:
        driver.switch_to.default_content()


@pytest.mark.parametrize("lesson", course(), ids=lambda lesson: f"{lesson.number:02d}")
def test_lesson_page_screenshot_has_no_overlapping_text(page, lesson):
    driver = page.driver
    with _viewport_1280x800(driver):
        # The step with the most questions is shown answered, the busiest layout; every other
        # step is checked (and kept) as a new visitor sees it.
        busiest = max(range(1, len(lesson.steps) + 1), key=lambda s: len(lesson.step_questions(s)))
        for step in range(1, len(lesson.steps) + 1):
            page.open(f"/lessons/{lesson.slug}/?step={step}")
            if step == busiest:
                first = lesson.step_questions(step)[0]
                _answer(driver, first.id, first.choices[0] if first.choices else "1")
                driver.execute_script("document.getElementById('cluster-glance').open = true")
            name = f"lesson-{lesson.number:02d}-{lesson.slug}"
            path = ARTIFACTS / (f"{name}.png" if step == busiest else f"{name}-step-{step}.png")
            assert _shoot_and_check(driver, path, min_texts=20) == [], step


def test_overlap_check_catches_text_drawn_over_text(page):
    """The bounding-box check reports a caption placed on top of the course's heading."""
    driver = page.driver
    page.open("/lessons/")
    assert driver.execute_script(OVERLAPS_JS)["overlaps"] == []
    driver.execute_script(
        "const h = document.querySelector('h1'); const r = h.getBoundingClientRect();"
        "const s = document.createElement('span'); s.textContent = 'covering caption';"
        "s.style.cssText = `position:absolute;left:${r.left + 5}px;"
        "top:${r.top + window.scrollY}px`;"
        "document.body.appendChild(s);"
    )
    overlaps = driver.execute_script(OVERLAPS_JS)["overlaps"]
    assert any("covering caption" in pair for pair in overlaps)


@pytest.mark.parametrize("path", ["/lessons/", "/"], ids=["course", "home"])
def test_course_and_home_pages_have_no_overlapping_text(page, path):
    driver = page.driver
    with _viewport_1280x800(driver):
        page.open(path)
        name = "course" if path == "/lessons/" else "home"
        assert _shoot_and_check(driver, ARTIFACTS / f"{name}.png", min_texts=10) == []


def _frame_step(driver):
    """(cycle, point, label) of the step the framed run page shows (read in one script: the
    timeline is redrawn while the run's stream catches up)."""
    driver.switch_to.frame(_css(driver, "#run-frame"))
    try:
        return tuple(
            driver.execute_script(
                "const row = document.querySelector('#timeline tr.selected');"
                "const label = document.getElementById('step-label');"
                "return [row ? Number(row.dataset.cycle) : null,"
                " label ? label.dataset.point || null : null, label ? label.textContent : ''];"
            )
        )
    finally:
        driver.switch_to.default_content()


def test_each_questions_link_opens_its_own_step_beside_the_lesson(page):
    """Lesson 6 step 4: the second question's button starts the run at its own step (cycle 3,
    PodTopologySpread's Score), and then each question's link opens its own step."""
    driver = page.driver
    page.open("/lessons/topology-spread/?step=4")
    _css(driver, "#q-default-spread-score .open-step").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"))
    _wait(driver, lambda d: _frame_step(d)[:2] == (3, "Score"))
    assert "PodTopologySpread" in _frame_step(driver)[2]
    for qid, want in [("quorum-feasible", (4, "Filter")), ("default-spread-score", (3, "Score"))]:
        _css(driver, f"#q-{qid} .open-step").click()
        _wait(driver, lambda d, want=want: _frame_step(d)[:2] == want)
        assert "PodTopologySpread" in _frame_step(driver)[2]


def test_progress_in_the_header_counts_each_answer_without_a_reload(page):
    driver = page.driver
    page.open("/lessons/scheduling-cycle/?step=2")
    total = len(lesson_by_slug("scheduling-cycle").questions)
    progress = _css(driver, "#lesson-progress")
    assert progress.text == f"· 0 of {total} answered, 0 right"
    assert _answer(driver, "reject-node-3", "TaintToleration")[0].startswith("Not quite")
    _wait(driver, lambda d: progress.text == f"· 1 of {total} answered, 0 right")
    assert _answer(driver, "feasible", "two")[0] == "Right: 2. First try!"
    _wait(driver, lambda d: progress.text == f"· 2 of {total} answered, 1 right")
    title = _css(driver, "#step-title").get_attribute("innerHTML")
    assert title == "2. Filter: who <em>can</em> run it?"


def test_a_learner_walks_every_lesson_pressing_every_show_this_step_link(page):
    """Issue 34: all the lessons anonymously, in one sitting: every question's "show this step"
    link is pressed, none is refused, and each brings the run into view at its named step."""
    from playground.demo import demo_load

    demo_load()  # the shipped custom plugins lesson 20 uses
    driver = page.driver
    _viewport_1280x800(driver)
    frame_step = (
        "const f = document.getElementById('run-frame');"
        "const l = f && f.contentDocument && f.contentDocument.getElementById('step-label');"
        "return l && f.contentWindow.runState && f.contentWindow.runState.detail"
        " ? [f.contentWindow.location.hash, l.dataset.point, l.dataset.plugin || ''] : null;"
    )
    in_view = (
        "const r = document.getElementById('run-frame-box').getBoundingClientRect();"
        "return r.top < innerHeight && r.bottom > 0;"
    )
    pressed = 0
    for lesson in course():
        for q in lesson.questions:
            if q.show is None:
                continue
            page.open(f"/lessons/{lesson.slug}/?step={q.step}")
            assert not driver.find_elements("css selector", ".messages .error"), lesson.slug
            _css(driver, f"#q-{q.id} .open-step").click()
            want = (q.show.point, q.show.plugin or "")

            def shown(d, want=want):
                got = d.execute_script(frame_step)
                return got is not None and (got[1], got[2] if want[1] else "") == want

            try:
                # A visitor's own run (lesson 11) starts on the in-process worker: on a loaded
                # machine its first steps may take longer than the shared runs'.
                _wait(driver, shown, timeout=60)
            except Exception as err:
                got = driver.execute_script(frame_step)
                errors = [e.text for e in driver.find_elements("css selector", ".messages li")]
                raise AssertionError(
                    f"{lesson.slug} {q.id}: wanted {want}, got {got} {errors}"
                ) from err
            assert f"cycle={q.show.cycle}&" in driver.execute_script(frame_step)[0], q.id
            _wait(driver, lambda d: d.execute_script(in_view))
            pressed += 1
    assert pressed >= 60
