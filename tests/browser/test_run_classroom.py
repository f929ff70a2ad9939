"""The run page on a 1280x800 projector: every step's cell in view and on top, a slim bar.

For every step of every cycle of lessons 2, 5 and 7's runs, on the run page and in the lesson's
framed run, the step's cell (`.current-cell`) and the verdict or total that decides it
(`.current-decider`) lie inside the viewport and nothing pinned covers them: the element at
their centre is the cell or inside it. Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WAIT = 30
MAX_BAR = 80

# Every step of the shown cycle, pressed through with j: what is off-screen or covered.
_WALK_JS = """
const done = arguments[arguments.length - 1];
const state = window.runState;
const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
const NO_SECTION = new Set(["CycleStart", "CycleEnd"]);
(async () => {
  const bad = [];
  let bar = 0, checked = 0;
  const steps = state.detail.steps.length;
  for (let i = 0; i < steps; i++) {
    if (i > 0) document.dispatchEvent(new KeyboardEvent("keydown", {key: "j", bubbles: true}));
    await frames();
    await frames();
    const s = state.detail.steps[state.step];
    const where = `cycle ${state.detail.cycle} step ${state.step} ${s.label}`;
    const stepper = document.getElementById("stepper");
    if (stepper.classList.contains("stuck")) bar = Math.max(bar, stepper.offsetHeight);
    const cell = document.querySelector("#cycle-detail .current-cell");
    if (!cell) {
      if (!NO_SECTION.has(s.point)) bad.push(`${where}: no current cell`);
      continue;
    }
    checked++;
    if (!RunReveal.onTop(cell)) {
      const r = cell.getBoundingClientRect();
      bad.push(`${where}: cell ${cell.tagName} at ${Math.round(r.top)}..${Math.round(r.bottom)} ` +
        `of ${innerHeight}, bar ${stepper.getBoundingClientRect().bottom}`);
    }
    const decider = document.querySelector("#cycle-detail .current-decider");
    if (decider && !RunReveal.onTop(decider)) bad.push(`${where}: decider off-screen or covered`);
  }
  done({bad, bar, checked});
})();
"""


def _viewport(driver, width, height):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def _wait(driver, condition, timeout=WAIT):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(
        driver, timeout, ignored_exceptions=(StaleElementReferenceException,)
    ).until(condition)


def _js(driver, script, *args):
    return driver.execute_script(script, *args)


def _start_lesson_run(page, slug):
    """Start the lesson's run from its page; the framed run's address."""
    driver = page.driver
    page.open(f"/lessons/{slug}/")
    driver.find_element("css selector", "#start-run-default").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"))
    return driver.find_element("css selector", "#run-frame").get_attribute("src")


def _walk_every_cycle(driver, name):
    """Step through every cycle of the run shown; the problems, the bar's height, cells seen."""
    _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
    _wait(driver, lambda d: _js(d, "return runState.terminal && !runState.polling;"))
    cycles = _js(driver, "return [...runState.cycles.keys()];")
    assert cycles
    driver.set_script_timeout(120)
    bad, bar, checked = [], 0, 0
    for cycle in cycles:
        _js(driver, f"location.hash = 'cycle={cycle}&step=0';")
        _wait(
            driver,
            lambda d, c=cycle: _js(
                d, "return runState.detail && runState.detail.cycle === arguments[0];", c
            ),
        )
        out = driver.execute_async_script(_WALK_JS)
        bad += out["bad"]
        bar = max(bar, out["bar"])
        checked += out["checked"]
        if cycle == cycles[0]:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(ARTIFACTS / f"{name}-last-step.png"))
    return bad, bar, checked


@pytest.mark.parametrize("slug", ["resources", "inter-pod-affinity", "scoring"])
def test_every_steps_cell_is_in_view_and_uncovered_at_1280x800(page, slug):
    driver = page.driver
    _viewport(driver, 1280, 800)
    try:
        src = _start_lesson_run(page, slug)
        # In the lesson's frame: the framed page is the cycle's panels at the frame's width.
        driver.switch_to.frame(driver.find_element("css selector", "#run-frame"))
        try:
            assert "embedded" in _js(driver, "return document.body.className;")
            bad, bar, checked = _walk_every_cycle(driver, f"classroom-{slug}-framed")
        finally:
            driver.switch_to.default_content()
        assert bad == [] and checked > 5, bad[:10]
        assert 0 < bar <= MAX_BAR

        # The run page itself at 1280x800.
        driver.get(src)
        bad, bar, checked = _walk_every_cycle(driver, f"classroom-{slug}-run")
        assert bad == [] and checked > 5, bad[:10]
        assert 0 < bar <= MAX_BAR, bar
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# Header cells whose text is cut (wider than their box) in the score table and filter matrix.
_CUT_JS = """
return [...document.querySelectorAll(
  '#score-table thead th.plugin-group, #filter-matrix thead th, #normalize tbody td:first-child')]
  .filter((th) => th.offsetParent && th.scrollWidth > th.clientWidth + 1)
  .map((th) => th.textContent);
"""


def test_presenter_mode_scales_the_charts_and_fits_score_with_its_total(page):
    """At 1280x800 in presenter mode every Score step shows its cell and the node's Total, the
    charts' text is large, no plugin name is cut, and the mode stays with this run page only."""
    driver = page.driver
    _viewport(driver, 1280, 800)
    try:
        src = _start_lesson_run(page, "scoring")
        driver.get(src)
        _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
        _wait(driver, lambda d: _js(d, "return runState.terminal && !runState.polling;"))
        assert _js(driver, "return document.body.classList.contains('presenter');") is False
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(driver).send_keys("f").perform()
        _wait(driver, lambda d: _js(d, "return document.body.classList.contains('presenter');"))
        bad, bar, checked = _walk_every_cycle(driver, "classroom-scoring-presenter")
        assert bad == [] and checked > 5, bad[:10]
        assert 0 < bar <= MAX_BAR, bar
        # The Score step: the heatmap's text at the large size, and nothing cut.
        score = _js(
            driver,
            "return runState.detail.steps.findIndex((s) => s.point === 'Score');",
        )
        _js(driver, f"location.hash = 'cycle=' + runState.detail.cycle + '&step={score}';")
        _wait(driver, lambda d: _js(d, "return runState.step;") == score)
        _wait(driver, lambda d: _js(d, "return !!document.getElementById('heatmap').data;"))
        size = _js(driver, "return document.getElementById('heatmap').layout.font.size;")
        assert size >= 18
        assert _js(driver, _CUT_JS) == []
        total = driver.find_element("css selector", "#score-table thead th.total")
        assert _js(driver, "return RunReveal.onTop(arguments[0]);", total)
        driver.save_screenshot(str(ARTIFACTS / "classroom-scoring-presenter-score-1280x800.png"))
        # The combine step: the chart's legend sits below the bars, whole (not cut).
        combine = _js(
            driver, "return runState.detail.steps.findIndex((s) => s.point === 'Combine');"
        )
        _js(driver, f"location.hash = 'cycle=' + runState.detail.cycle + '&step={combine}';")
        _wait(driver, lambda d: _js(d, "return runState.step;") == combine)
        _wait(driver, lambda d: _js(d, "return !!document.querySelector('#combine .legend');"))
        box = _js(
            driver,
            "const c = document.getElementById('combine').getBoundingClientRect();"
            "const l = document.querySelector('#combine .legend').getBoundingClientRect();"
            "const p = document.querySelector('#combine .cartesianlayer').getBoundingClientRect();"
            "return [l.top >= p.bottom, l.bottom <= c.bottom + 1, l.right <= c.right + 1];",
        )
        assert box == [True, True, True], box
        driver.save_screenshot(str(ARTIFACTS / "classroom-scoring-presenter-combine-1280x800.png"))
        # The same run framed by its lesson does not inherit it; this run page, reloaded, does.
        page.open("/lessons/scoring/")
        driver.switch_to.frame(driver.find_element("css selector", "#run-frame"))
        try:
            _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
            assert "presenter" not in _js(driver, "return document.body.className;")
        finally:
            driver.switch_to.default_content()
        driver.get(src)
        _wait(driver, lambda d: _js(d, "return document.body.classList.contains('presenter');"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)], ids=["1280", "1920"])
def test_screenshots_of_a_lesson_and_its_run_page(page, width, height):
    driver = page.driver
    _viewport(driver, width, height)
    try:
        src = _start_lesson_run(page, "inter-pod-affinity")
        driver.execute_script("document.getElementById('run-frame-box').scrollIntoView()")
        driver.save_screenshot(str(ARTIFACTS / f"classroom-lesson-05-{width}x{height}.png"))
        driver.get(src)
        _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
        # The Filter step of the plugin that rejects a node: its column in view, uncovered.
        found = _js(
            driver,
            """const d = runState.detail;
            const i = d.steps.findIndex((s) => s.point === 'Filter' && s.plugin &&
              document.querySelector(`#filter-matrix td.first-reject[data-plugin="${s.plugin}"]`));
            return i;""",
        )
        if found >= 0:
            _js(driver, f"location.hash = 'cycle=' + runState.detail.cycle + '&step={found}';")
            _wait(driver, lambda d: _js(d, "return runState.step;") == found)
            cell = driver.find_element("css selector", "#cycle-detail .current-cell")
            _wait(driver, lambda d: _js(d, "return RunReveal.onTop(arguments[0]);", cell))
        driver.save_screenshot(str(ARTIFACTS / f"classroom-run-05-filter-{width}x{height}.png"))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_cycles_first_step_says_what_the_snapshot_took_in(page):
    """Before cycle 2 the cache took in the first pod (assumed, then confirmed) and the node the
    run's script added; cycle 2's first step says so and names the nodes copied in."""
    import yaml
    from builders import make_node, make_pod
    from django.contrib.auth import get_user_model

    from playground.clusters import services as cluster_services
    from playground.models import RunCycle
    from playground.profiles import services as profile_services
    from playground.runs import services as runs
    from playground.runs.execution.script import parse_script
    from playground.runs.refs import run_ref

    owner = get_user_model().objects.create_user("snap", password="unused-pass-123")
    cluster = cluster_services.cluster_create(owner=owner, name="snap")
    objects = [make_node("n1", cpu="2"), make_pod("a", cpu="2"), make_pod("b", cpu="2")]
    cluster_services.cluster_import_yaml(
        cluster=cluster, user=owner, text=yaml.safe_dump_all(objects)
    )
    profile = profile_services.profile_create(owner=owner, name="default", config={})
    script = parse_script([{"after_cycle": 1, "add_node": make_node("n2", cpu="2")}])
    run = runs.run_start(user=owner, cluster=cluster, profile=profile, script=script)
    runs.run_execute(run_id=run.pk)
    driver = page.driver
    from django.test import Client  # the run is private: the browser signs in as its owner

    client = Client()
    client.force_login(owner)
    page.open("/static/playground/run.css")
    driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
    page.open(f"/runs/{run_ref(run.pk)}/#cycle=2&step=0")
    _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
    _wait(driver, lambda d: _js(d, "return runState.detail.cycle === 2 && runState.step === 0;"))
    text = driver.find_element("css selector", "#step-why").text
    first = RunCycle.objects.get(run=run, cycle=1)
    pod = first.pod.removeprefix("default/")
    assert f"{pod} assumed on n1, {pod} confirmed on n1, n2 added" in text
    assert "copies in n1, n2" in text
