"""Run pages in headless Chromium against daphne (websockets and background runs included)."""

from __future__ import annotations

from functools import partial

import pytest

from playground import services
from playground.models import Cluster, Run, RunEvent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 15


def _server_setup() -> None:
    """In the forked server: a fresh asgiref executor and channel layer (STACK.md pitfall 1)."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from channels.layers import channel_layers
    from channels.testing.live import set_database_connection

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    channel_layers.backends.clear()
    set_database_connection()


@pytest.fixture(scope="module")
def daphne_url(django_db_setup, django_db_blocker):
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    with django_db_blocker.unblock():
        process = DaphneProcess(
            "127.0.0.1",
            partial(make_application, static_wrapper=ASGIStaticFilesHandler),
            setup=_server_setup,
        )
        process.start()
        if not process.ready.wait(10):
            process.terminate()
            pytest.fail("daphne did not start")
        try:
            yield f"http://127.0.0.1:{process.port.value}"
        finally:
            process.terminate()
            process.join(5)


@pytest.fixture
def site(browser, daphne_url, django_user_model):
    """The browser logged in as a fresh user on the daphne server, demo data loaded."""
    from django.test import Client

    services.demo_load()
    user = django_user_model.objects.create_user("runner", password="unused-pass-123")
    client = Client()
    client.force_login(user)
    browser.delete_all_cookies()
    browser.get(daphne_url + "/static/playground/run.css")
    browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})

    class Site:
        driver = browser
        base = daphne_url

        def open(self, path: str) -> None:
            browser.get(self.base + path)

    return Site()


def _wait(driver, condition, timeout=WAIT):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def _css(driver, css):
    return driver.find_element("css selector", css)


def _start(site, cluster_name, profile_name, compare_with=None):
    from selenium.webdriver.support.ui import Select

    cluster = Cluster.objects.get(name=cluster_name)
    site.open(f"/clusters/{cluster.pk}/")
    Select(_css(site.driver, "#run-profile")).select_by_visible_text(profile_name)
    if compare_with:
        Select(_css(site.driver, "#run-profile-b")).select_by_visible_text(compare_with)
    old = _css(site.driver, "html")
    _css(site.driver, "#run-button").click()
    _wait(site.driver, lambda d: old != _css(d, "html") and "/clusters/" not in d.current_url)


def _step(driver):
    return int(_css(driver, "#step-position").get_attribute("data-step"))


def _score_events(run, cycle):
    return [
        e.payload
        for e in RunEvent.objects.filter(run=run, type="Score").order_by("seq")
        if e.payload["cycle"] == cycle
    ]


def test_run_a_demo_cluster_read_the_heatmap_and_step_through(site):
    from selenium.webdriver.common.keys import Keys

    driver = site.driver
    _start(site, "Three zones", "Default")
    run = Run.objects.get()
    assert driver.current_url.startswith(f"{site.base}/runs/{run.pk}/")
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _wait(driver, lambda d: len(d.find_elements("css selector", "#timeline tr[data-cycle]")) == 6)

    # The first cycle is selected; its heatmap holds exactly the run's Score events.
    _wait(driver, lambda d: d.execute_script("return !!document.getElementById('heatmap').data"))
    for mode in ("weighted", "raw"):
        if mode != "weighted":
            _css(driver, f"[name=score-mode][value={mode}]").click()
        heat = driver.execute_script(
            "const t = document.getElementById('heatmap').data[0]; return [t.x, t.y, t.z];"
        )
        x, y, z = heat
        for j, ev in enumerate(_score_events(run, 1)):
            assert x[j].startswith(ev["plugin"])
            assert {n: z[i][j] for i, n in enumerate(y)} == dict(
                zip(ev["nodes"], ev[mode], strict=True)
            )
    assert _css(driver, "#winner").text.startswith("node-1 tied with")

    # Step through: one plugin, one extension point, and back.
    assert _step(driver) == 0
    assert _css(driver, "#step-label").text == "CycleStart"
    body = _css(driver, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    _wait(driver, lambda d: _step(d) == 1)
    assert _css(driver, "#step-label").get_attribute("data-point") == "PreFilter"
    assert "PreFilter plugins" in _css(driver, "#step-help").text
    body.send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)
    _wait(driver, lambda d: _css(d, "#step-label").get_attribute("data-point") == "Filter")
    filter_step = _step(driver)
    assert "passed all 6 nodes" in _css(driver, "#step-why").text
    plugin = _css(driver, "#step-label").get_attribute("data-plugin")
    marked = driver.find_elements("css selector", "#filter-matrix .current-plugin")
    assert marked and {m.get_attribute("data-plugin") for m in marked} == {plugin}
    body.send_keys(Keys.ARROW_LEFT)
    _wait(driver, lambda d: _step(d) == filter_step - 1)
    assert _css(driver, "#step-label").get_attribute("data-point") == "PreFilter"

    # The permalink opens the same step.
    link = _css(driver, "#permalink").get_attribute("href")
    assert link.endswith(f"#cycle=1&step={filter_step - 1}")
    site.open("/static/playground/run.css")
    driver.get(link)
    _wait(driver, lambda d: d.find_elements("css selector", "#step-position[data-step]"))
    _wait(driver, lambda d: _step(d) == filter_step - 1)


def test_allow_a_pod_waiting_at_permit(site):
    driver = site.driver
    _start(site, "Approval gate", "Approval gate")
    run = Run.objects.get()
    _wait(driver, lambda d: _css(d, "#connection").text == "live")
    row = '#waiting tr[data-pod="default/gang-0"]'
    _wait(driver, lambda d: d.find_elements("css selector", row))
    assert "ApprovalGate" in _css(driver, row).text
    assert "120 s" in _css(driver, row).text
    _css(driver, f"{row} button.allow").click()
    _wait(driver, lambda d: not d.find_elements("css selector", row))

    def gang0_bound(d):
        cells = [
            r.find_elements("css selector", "td")
            for r in d.find_elements("css selector", "#timeline tr[data-cycle]")
        ]
        return any(c[1].text == "default/gang-0" and c[4].text == "Bound" for c in cells)

    _wait(driver, gang0_bound)
    assert RunEvent.objects.filter(run=run, type="Bind", payload__pod="default/gang-0").exists()
    _css(driver, "#cancel-run").click()
    _wait(driver, lambda d: _css(d, "#run-status").text == "cancelled")


def test_compare_two_profiles(site):
    driver = site.driver
    _start(site, "Three zones", "Default", compare_with="Bin-packing")
    a, b = Run.objects.order_by("id")
    assert f"/compare/{a.pk}/{b.pk}/" in driver.current_url
    _wait(driver, lambda d: not d.find_elements("css selector", "#compare-waiting"))
    rows = driver.find_elements("css selector", "#placements tr[data-pod]")
    assert len(rows) == 6
    placed_a = {
        r.get_attribute("data-pod"): r.find_element("css selector", ".placement-a").text
        for r in rows
    }
    assert placed_a == {k: v for k, v in Run.objects.get(pk=a.pk).placements.items()}
    assert _css(driver, "#profile-b").text == "Bin-packing"
    _wait(driver, lambda d: d.execute_script("return !!document.getElementById('heat-0-b').data"))
