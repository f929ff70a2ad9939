"""The step-through in headless Chromium: it follows the step, the diagram, the keys, the queue."""

from __future__ import annotations

import pytest
from builders import record_run
from test_runs import _css, _step, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.models import Cluster, Profile, Run
from playground.runs import selectors
from playground.runs.panels import charts
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _record(cluster_name: str) -> Run:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username="runner")
    cluster = Cluster.objects.get(name=cluster_name)
    run, _, _ = record_run(cluster, Profile.objects.get(name="Default"), user=user)
    return run


def _steps(run: Run, cycle: int) -> list[dict]:
    return charts.steps(selectors.run_cycle_events(run=run, cycle=cycle))


def _viewport(driver, width: int, height: int) -> None:
    """Size the window so that the page itself gets ``width`` × ``height`` pixels."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])


def _open(site, run: Run, cycle: int = 1, step: int = 0, size=(1280, 800)) -> None:  # noqa: F811
    _viewport(site.driver, *size)
    site.open("/static/playground/run.css")  # a hash change alone would not reload the page
    site.open(f"/runs/{run_ref(run.pk)}/#cycle={cycle}&step={step}")
    _wait(site.driver, lambda d: _css(d, "#step-position").get_attribute("data-step") == str(step))


def _point(driver) -> str:
    return _css(driver, "#step-label").get_attribute("data-point")


def _press(driver, *keys) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    if keys[0] == Keys.SHIFT:  # Shift held down for the keys after it
        ActionChains(driver).key_down(Keys.SHIFT).send_keys(*keys[1:]).key_up(Keys.SHIFT).perform()
    else:
        ActionChains(driver).send_keys(*keys).perform()


def _in_view(driver, css: str) -> bool:
    """The element lies wholly in the viewport, below the sticky stepper."""
    return driver.execute_script(
        """const r = document.querySelector(arguments[0]).getBoundingClientRect();
        const top = document.getElementById('stepper').getBoundingClientRect().bottom;
        return r.height > 0 && r.top >= top - 1 && r.bottom <= window.innerHeight + 1;""",
        css,
    )


def test_stepping_to_the_combine_step_brings_it_into_view(site):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    run = _record("Three zones")
    steps = _steps(run, 1)
    combine = next(s["index"] for s in steps if s["point"] == "Combine")
    _open(site, run)
    driver = site.driver
    assert not _in_view(driver, 'section[data-point="Combine"]')
    while _step(driver) < combine:
        before = _step(driver)
        _press(driver, Keys.SHIFT, Keys.ARROW_RIGHT)
        _wait(driver, lambda d, b=before: _step(d) > b)
    assert _step(driver) == combine
    assert _point(driver) == "Combine"
    _wait(driver, lambda d: _in_view(d, 'section[data-point="Combine"]'))
    assert "current" in _css(driver, 'section[data-point="Combine"]').get_attribute("class")

    # Back to the first step: PreFilter's section comes back into view.
    _press(driver, Keys.HOME)
    _press(driver, "J")
    _wait(driver, lambda d: _point(d) == "PreFilter")
    _wait(driver, lambda d: _in_view(d, 'section[data-point="PreFilter"]'))
    assert not _in_view(driver, 'section[data-point="Combine"]')


def test_the_pinned_bar_is_slim_and_explains_on_demand(site):  # noqa: F811
    """Scrolled down at 1280x800, the step bar is pinned without the explanation (it opens with
    "explain" or x and stays open); back at the top it is whole again."""
    run = _record("Three zones")
    _open(site, run)
    driver = site.driver

    def bar(d):
        return d.execute_script(
            """const b = document.getElementById('stepper');
            return [b.classList.contains('stuck'), b.offsetHeight];"""
        )

    stuck, tall = bar(driver)
    assert not stuck and _css(driver, "#step-help").is_displayed()
    assert not _css(driver, "#step-explain").is_displayed()
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    _wait(driver, lambda d: bar(d)[0])
    slim = bar(driver)[1]
    assert slim < 0.8 * tall, (slim, tall)
    assert not _css(driver, "#step-help").is_displayed()
    assert _css(driver, "#step-why").is_displayed()
    _press(driver, "x")
    _wait(driver, lambda d: _css(d, "#step-help").is_displayed())
    assert _css(driver, "#step-explain").get_attribute("aria-expanded") == "true"
    _press(driver, "j")  # the explanation stays open for the next step
    _wait(driver, lambda d: _step(d) == 1)
    assert _css(driver, "#step-help").is_displayed()
    _css(driver, "#step-explain").click()
    _wait(driver, lambda d: not _css(d, "#step-help").is_displayed())
    driver.execute_script("window.scrollTo(0, 0)")
    _wait(driver, lambda d: not bar(d)[0])
    assert _css(driver, "#step-help").is_displayed()


def test_a_binding_step_chosen_from_the_top_shows_its_box_in_the_pinned_diagram(site):  # noqa: F811
    """The binding cycle's boxes lie past the right edge of the pinned bar's one-line diagram.
    Chosen while the bar is whole at the top (a link, the cycle list), the step is drawn before
    the page scrolls to its section and the bar pins: its box must still come into view."""
    run = _record("Three zones")
    steps = _steps(run, 1)
    bind = next(s["index"] for s in steps if s["point"] in ("Bind", "PostBind"))
    _open(site, run)
    driver = site.driver
    assert "stuck" not in _css(driver, "#stepper").get_attribute("class")
    driver.execute_script(f"location.hash = 'cycle=1&step={bind}'")
    _wait(driver, lambda d: "stuck" in _css(d, "#stepper").get_attribute("class"))

    def lit_inside(d):
        return d.execute_script(
            """const a = document.querySelector('#framework .fw-current').getBoundingClientRect();
            const b = document.getElementById('framework').getBoundingClientRect();
            return a.width > 0 && a.left >= b.left - 1 && a.right <= b.right + 1;"""
        )

    _wait(driver, lit_inside)


def test_a_hidden_cycle_detail_does_not_pin_the_bar(site):  # noqa: F811
    """Until a cycle's detail is shown (its data still on the way, as on a loaded CI machine),
    the bar's sentinel is hidden and its box sits at the top: that is not a page scrolled past
    the bar, so the bar stays whole."""
    run = _record("Three zones")
    _open(site, run)
    driver = site.driver
    driver.execute_script("document.getElementById('cycle-detail').hidden = true")
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 100)));"
    )
    assert "stuck" not in _css(driver, "#stepper").get_attribute("class")
    driver.execute_script("document.getElementById('cycle-detail').hidden = false")
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    _wait(driver, lambda d: "stuck" in _css(d, "#stepper").get_attribute("class"))


def test_a_link_to_a_late_step_opens_with_the_bar_pinned(site):  # noqa: F811
    """A permalink to a binding step: the detail is shown and the page scrolled past the bar in
    one go, which changes no intersection the observer saw while the detail was hidden; the bar
    must pin all the same."""
    run = _record("Three zones")
    bind = next(s["index"] for s in _steps(run, 1) if s["point"] in ("Bind", "PostBind"))
    _open(site, run, step=bind)
    driver = site.driver
    _wait(driver, lambda d: d.execute_script("return window.scrollY") > 0)
    _wait(driver, lambda d: "stuck" in _css(d, "#stepper").get_attribute("class"))


def test_the_diagram_lights_the_current_point_and_jumps_to_a_point(site):  # noqa: F811
    run = _record("Three zones")
    steps = _steps(run, 1)
    _open(site, run)
    driver = site.driver
    assert _css(driver, "#framework .fw-current").get_attribute("data-dpoint") == "QueueSort"
    for box, point in (("Score", "Score"), ("Filter", "Filter"), ("Select", "Combine")):
        _css(driver, f'#framework [data-dpoint="{box}"]').click()
        first = next(s["index"] for s in steps if s["point"] == point)
        _wait(driver, lambda d, f=first: _step(d) == f)
        lit = driver.find_elements("css selector", "#framework .fw-current")
        assert [b.get_attribute("data-dpoint") for b in lit] == [box]
    # Nothing was preempted and no Permit plugin ran: those boxes are greyed and do nothing.
    postfilter = _css(driver, '#framework [data-dpoint="PostFilter"]')
    assert not any(s["point"] == "PostFilter" for s in steps)
    assert postfilter.get_attribute("disabled") is not None
    # The binding cycle's group lights up with its step.
    bind = next(s["index"] for s in steps if s["point"] == "Bind")
    _css(driver, '#framework [data-dpoint="Bind"]').click()
    _wait(driver, lambda d: _step(d) == bind)
    assert "fw-active" in _css(driver, '[data-fwgroup="binding"]').get_attribute("class")
    assert "fw-active" not in _css(driver, '[data-fwgroup="scheduling"]').get_attribute("class")


def test_arrow_keys_still_step_after_a_score_mode_radio_was_clicked(site):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    run = _record("Three zones")
    _open(site, run, step=2)
    driver = site.driver
    radio = _css(driver, "[name=score-mode][value=raw]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
    radio.click()
    _wait(driver, lambda d: d.execute_script("return window.runState.mode") == "raw")
    assert driver.switch_to.active_element == radio
    _press(driver, Keys.ARROW_RIGHT)
    _wait(driver, lambda d: _step(d) == 3)
    _press(driver, Keys.ARROW_LEFT)
    _wait(driver, lambda d: _step(d) == 2)
    assert radio.is_selected()  # the arrows stepped; they did not move the radio
    assert driver.execute_script("return window.runState.mode") == "raw"

    # Typing in a search field still types.
    search = _css(driver, "#filter-search")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", search)
    search.click()
    search.send_keys("jk")
    assert search.get_attribute("value") == "jk"
    assert _step(driver) == 2


def _first_of_point(steps, i):
    while i > 0 and steps[i - 1]["point"] == steps[i]["point"]:
        i -= 1
    return i


def test_the_keyboard_help_lists_the_keys_and_each_does_what_it_says(site):  # noqa: F811
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.keys import Keys

    run = _record("Three zones")
    steps = _steps(run, 2)
    mid = next(s["index"] for s in steps if s["point"] == "Filter") + 1  # mid-way through Filter
    point_end = mid
    while steps[point_end]["point"] == steps[mid]["point"]:
        point_end += 1
    prev_first = _first_of_point(steps, _first_of_point(steps, mid) - 1)
    # key as the help lists it -> (what to send, expected (cycle, step) after it, from (2, mid)).
    expected = {
        "ArrowRight": ((Keys.ARROW_RIGHT,), (2, mid + 1)),
        "j": (("j",), (2, mid + 1)),
        "ArrowLeft": ((Keys.ARROW_LEFT,), (2, mid - 1)),
        "k": (("k",), (2, mid - 1)),
        "Shift+ArrowRight": ((Keys.SHIFT, Keys.ARROW_RIGHT), (2, point_end)),
        "J": (("J",), (2, point_end)),
        "Shift+ArrowLeft": ((Keys.SHIFT, Keys.ARROW_LEFT), (2, _first_of_point(steps, mid))),
        "K": (("K",), (2, _first_of_point(steps, mid))),
        "Home": ((Keys.HOME,), (2, 0)),
        "End": ((Keys.END,), (2, len(steps) - 1)),
        "n": (("n",), (3, 0)),
        "p": (("p",), (1, 0)),
    }
    assert prev_first < _first_of_point(steps, mid)
    _open(site, run, cycle=2, step=mid)
    driver = site.driver
    _press(driver, "?")
    _wait(driver, lambda d: d.execute_script("return document.getElementById('key-help').open"))
    rows = driver.find_elements("css selector", "#key-help-table tr[data-keys]")
    listed = [k for r in rows for k in r.get_attribute("data-keys").split(" ")]
    assert sorted(listed) == sorted([*expected, "f", "x", "?"])
    assert all(r.text.strip() for r in rows)
    _press(driver, Keys.ESCAPE)
    _wait(driver, lambda d: not d.execute_script("return document.getElementById('key-help').open"))

    def where(d):
        return (d.execute_script("return window.runState.selected"), _step(d))

    for key, (send, after) in expected.items():
        _open(site, run, cycle=2, step=mid)
        _press(driver, *send)
        try:
            _wait(driver, lambda d, a=after: where(d) == a, timeout=5)
        except TimeoutException:
            pytest.fail(f"{key}: at {where(driver)}, expected {after}")

    # f: presenter mode, large type and the current section alone; it outlives a reload.
    _open(site, run, cycle=2, step=mid)
    _press(driver, "f")
    _wait(driver, lambda d: "presenter" in _css(d, "body").get_attribute("class"))
    assert not _css(driver, ".timeline-pane").is_displayed()
    shown = [
        s.get_attribute("data-point")
        for s in driver.find_elements("css selector", "#cycle-detail section.point")
        if s.is_displayed()
    ]
    assert shown == ["Filter"]
    # The cycle's first step has no section of its own: the queue stands in, without the list.
    _press(driver, Keys.HOME)
    _wait(driver, lambda d: _css(d, "#queue").is_displayed())
    assert _css(driver, "#queue-moves").is_displayed()
    assert not _css(driver, "#timeline").is_displayed()
    assert not [
        s
        for s in driver.find_elements("css selector", "#cycle-detail section.point")
        if s.is_displayed()
    ]
    _open(site, run, cycle=2, step=mid)
    assert "presenter" in _css(driver, "body").get_attribute("class")
    _press(driver, "f")
    _wait(driver, lambda d: "presenter" not in _css(d, "body").get_attribute("class"))
    assert _css(driver, ".timeline-pane").is_displayed()


def _queue(driver, name):
    # Read in one script: the page may redraw the panel between two WebDriver calls.
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((li) => li.dataset.pod);",
        f'#queue [data-queue="{name}"] li[data-pod]',
    )


def _read(driver, css):
    """The element's text and class and data-type, read at once (the panel may be redrawn)."""
    return driver.execute_script(
        """const e = document.querySelector(arguments[0]);
        return e && {text: e.innerText, cls: e.className, type: e.dataset.type || ''};""",
        css,
    )


def test_the_queue_panel_follows_the_steps_of_a_pod_that_fails_then_is_bound(site):  # noqa: F811
    from selenium.webdriver.common.keys import Keys

    run = _record("Preemption scenario")
    assert list(run.cycle_records.values_list("pod", "result")) == [
        ("default/urgent", "Unschedulable"),
        ("default/urgent", "Scheduled"),
    ]
    _open(site, run)
    driver = site.driver
    # Cycle 1, first step: the pod has just been popped from activeQ.
    _wait(driver, lambda d: "attempt 1" in _css(d, "#queue-flight").text)
    # A finished run's stream is read in pages after the first panels: each page redraws the queue.
    _wait(driver, lambda d: d.execute_script("return !window.runState.polling"))
    now = _read(driver, "#queue-moves li.move-now")
    assert now["type"] == "Pop" and "popped from activeQ" in now["text"]
    assert _queue(driver, "active") == _queue(driver, "backoff") == []
    assert "PrioritySort" in _read(driver, "#queue-order")["text"]

    # Its last step: the attempt failed and the pod backs off.
    _press(driver, Keys.END)
    _wait(driver, lambda d: _queue(d, "backoff") == ["default/urgent"])
    item = _read(driver, '#queue [data-queue="backoff"] li[data-pod="default/urgent"]')
    assert "queue-moved" in item["cls"]
    assert "priority 100000" in item["text"] and "1 attempt" in item["text"]
    assert "backoff ends t=" in item["text"]
    moved = _read(driver, '#queue-moves li[data-type="Backoff"]')
    assert "move-now" in moved["cls"]
    assert "NodeResourcesFit's queueing hint said Queue" in moved["text"]
    assert _read(driver, '#queue [data-q="backoff"]')["text"] == "(1)"

    # Cycle 2: popped from backoffQ, then bound: the queue is empty at the end.
    _press(driver, "n")
    _wait(driver, lambda d: d.execute_script("return window.runState.detail.cycle") == 2)
    _wait(driver, lambda d: "attempt 2" in _css(d, "#queue-flight").text)
    assert "PopFromBackoffQ" in _read(driver, '#queue-moves li[data-type="Pop"]')["text"]
    assert _queue(driver, "backoff") == []
    _press(driver, Keys.END)
    _wait(
        driver,
        lambda d: (
            "move-done" in _css(d, '#queue-moves li[data-type="Bind"]').get_attribute("class")
        ),
    )
    assert _read(driver, "#queue-flight")["text"] == ""
    # Back one cycle, the pod is in backoffQ again: the panel is the queue at the step.
    _press(driver, "p")
    _wait(driver, lambda d: d.execute_script("return window.runState.detail.cycle") == 1)
    _press(driver, Keys.END)
    _wait(driver, lambda d: _queue(d, "backoff") == ["default/urgent"])
    # The latest queue, from the stream, is one click away.
    _css(driver, "#queue-live").click()
    _wait(driver, lambda d: _queue(d, "backoff") == [] and "latest" in _css(d, "#queue-when").text)


def test_a_permit_answered_after_a_wait_lights_wait_on_permit(site):  # noqa: F811
    from django.contrib.auth import get_user_model

    from playground import plugins

    def drive(sched):
        sched.run_until_idle(max_cycles=4)  # the simulated clock would time the waits out
        sched.allow_waiting_pod("default/gang-0")
        sched.run_until_idle(max_cycles=1)

    run, _, _ = record_run(
        Cluster.objects.get(name="Approval gate"),
        Profile.objects.get(name="Approval gate"),
        registry=plugins.registry(),
        drive=drive,
        user=get_user_model().objects.get(username="runner"),
    )
    steps = _steps(run, 1)
    wait = next(s["index"] for s in steps if s["point"] == "Permit" and s["code"] == "Wait")
    allowed = next(s["index"] for s in steps if s["point"] == "Permit" and s["code"] == "Success")
    _open(site, run)
    driver = site.driver
    _css(driver, '#framework [data-dpoint="Permit"]').click()
    _wait(driver, lambda d: _step(d) == wait)
    assert "fw-active" in _css(driver, '[data-fwgroup="scheduling"]').get_attribute("class")
    _css(driver, '#framework [data-dpoint="WaitOnPermit"]').click()
    _wait(driver, lambda d: _step(d) == allowed)
    assert _css(driver, "#framework .fw-current").get_attribute("data-dpoint") == "WaitOnPermit"
    assert "fw-active" in _css(driver, '[data-fwgroup="binding"]').get_attribute("class")
