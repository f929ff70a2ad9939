"""Run pages in headless Chromium against daphne (websockets and background runs included)."""

from __future__ import annotations

import pytest
from daphne_server import start_daphne
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster, Run, RunEvent
from playground.runs.refs import run_ref
from playground.runs.storage.packs import expand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 15


@pytest.fixture(scope="module")
def daphne_url(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        try:
            process = start_daphne(timeout=10)
        except RuntimeError as err:
            pytest.fail(str(err))
    try:
        yield f"http://127.0.0.1:{process.port.value}"
    finally:
        process.terminate()
        process.join(5)


@pytest.fixture
def site(browser, daphne_url, django_user_model):
    """The browser logged in as a fresh user on the daphne server, demo data loaded."""
    from django.test import Client

    demo_load()
    user = django_user_model.objects.create_user("runner", password="unused-pass-123")
    client = Client()
    client.force_login(user)
    # Leave the last test's page first (its late answers could set cookies), then clear every
    # site's cookies, as the ``page`` fixture does.
    browser.get("about:blank")
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
    browser.get(daphne_url + "/static/playground/run.css")
    browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})

    class Site:
        driver = browser
        base = daphne_url

        def open(self, path: str) -> None:
            browser.get(self.base + path)

    return Site()


def _wait(driver, condition, timeout=WAIT):
    """Wait for ``condition``; an element the page redrew meanwhile is looked up again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return wait.until(condition)


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


def _cycle_events(run, cycle):
    from playground.runs import selectors

    return selectors.run_cycle_events(run=run, cycle=cycle)


def _score_events(run, cycle):
    return [e for e in _cycle_events(run, cycle) if e["type"] == "Score"]


def test_run_a_demo_cluster_read_the_heatmap_and_step_through(site):
    from selenium.webdriver.common.keys import Keys

    driver = site.driver
    _start(site, "Three zones", "Default")
    run = Run.objects.get()
    assert driver.current_url.startswith(f"{site.base}/runs/{run_ref(run.pk)}/")
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _wait(driver, lambda d: len(d.find_elements("css selector", "#timeline tr[data-cycle]")) == 6)

    # The first cycle is selected; its heatmap holds exactly the run's Score events.
    _wait(driver, lambda d: d.execute_script("return !!document.getElementById('heatmap').data"))
    for mode in ("weighted", "raw"):
        if mode != "weighted":
            _css(driver, f"[name=score-mode][value={mode}]").click()
        heat = driver.execute_script(
            "const t = document.getElementById('heatmap').data[0]; return [t.x, t.y, t.customdata];"
        )
        x, y, z = heat
        for j, ev in enumerate(_score_events(run, 1)):
            assert x[j].startswith(ev["plugin"])
            assert {n: z[i][j] for i, n in enumerate(y)} == dict(
                zip(ev["nodes"], ev[mode], strict=True)
            )
    assert _css(driver, "#winner").text.startswith("6 nodes tied at ")
    # Each node name is kept on one line (the page never breaks "node-a1" at its hyphen), and a
    # tie of six names them all in the sentence, with no folded list.
    spans = driver.execute_script(
        "return [...document.querySelectorAll('#winner .node-name')].map((s) =>"
        " [s.textContent, getComputedStyle(s).whiteSpace]);"
    )
    assert len(spans) == 7 and {ws for _, ws in spans} == {"nowrap"}
    assert not driver.find_elements("css selector", "#winner details")

    # Step through: one plugin, one extension point, and back.
    assert _step(driver) == 0
    assert _css(driver, "#step-label").text == "CycleStart"
    body = _css(driver, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    _wait(driver, lambda d: _step(d) == 1)
    assert _css(driver, "#step-label").get_attribute("data-point") == "PreFilter"
    # The explanation is the step's (shown whole at the top, on demand once the bar is pinned).
    assert "PreFilter plugins" in _css(driver, "#step-help").get_attribute("textContent")
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

    # The timeout counts down live: seconds left of the 120 s, fewer a moment later.
    def left(d):
        text = _css(d, f"{row} .countdown").text
        return int(text.split(": ")[1].split(" s left")[0]) if " s left of 120 s" in text else None

    _wait(driver, left)
    first = left(driver)
    assert 0 < first <= 120
    _wait(driver, lambda d: (left(d) or first) < first, timeout=5)
    _css(driver, f"{row} button.allow").click()
    _wait(driver, lambda d: not d.find_elements("css selector", row))

    def gang0_bound(d):
        cells = [
            r.find_elements("css selector", "td")
            for r in d.find_elements("css selector", "#timeline tr[data-cycle]")
        ]
        return any(
            c[1].get_attribute("title") == "default/gang-0" and c[4].text == "Bound" for c in cells
        )

    _wait(driver, gang0_bound)
    assert any(
        e["type"] == "Bind" and e["pod"] == "default/gang-0"
        for e in expand(run.events.order_by("seq").values_list("payload", flat=True))
    )
    _css(driver, "#cancel-run").click()
    _wait(driver, lambda d: _css(d, "#run-status").text == "cancelled")


def test_compare_two_profiles(site):
    driver = site.driver
    _start(site, "Three zones", "Default", compare_with="Bin-packing")
    a, b = Run.objects.order_by("id")
    assert f"/compare/{run_ref(a.pk)}/{run_ref(b.pk)}/" in driver.current_url
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


def _many_nodes_yaml(count):
    """``count`` nodes of mixed sizes (so Score plugins disagree) and one pod to place."""
    import yaml
    from builders import make_node, make_pod

    nodes = [
        make_node(f"node-{i:03d}", cpu=str(2 ** (1 + i % 4)), memory=f"{2 ** (2 + i % 5)}Gi")
        for i in range(count)
    ]
    return yaml.safe_dump_all([*nodes, make_pod("probe", cpu="1", memory="1Gi")])


def _click(driver, css):
    """Click an element scrolled to mid-screen, clear of the sticky stepper.

    Found and clicked in one script call: the panels are redrawn when the server's page of a
    cycle arrives, so an element found in one call may be gone by the next.
    """
    driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "e.scrollIntoView({block: 'center'}); e.click();",
        css,
    )


def _score_rows(driver):
    # One script call: the table is redrawn when the server's page arrives.
    return driver.execute_script(
        "return [...document.querySelectorAll('#score-table tbody tr')].map((r) => r.dataset.node);"
    )


def test_sort_the_paged_score_table_by_a_plugin(site, django_user_model):
    driver = site.driver
    services.cluster_create_from_yaml(
        owner=django_user_model.objects.get(username="runner"),
        name="Many nodes",
        text=_many_nodes_yaml(120),
    )
    _start(site, "Many nodes", "Default")
    run = Run.objects.get()
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _wait(driver, lambda d: len(_score_rows(d)) == 50)
    combine = next(e for e in _cycle_events(run, 1) if e["type"] == "Combine")
    totals = dict(zip(combine["nodes"], combine["totals"], strict=True))
    # percentageOfNodesToScore stops the search at 100 feasible nodes: two pages of 50.
    assert len(totals) == 100
    assert "page 1 / 2" in _css(driver, "#score-pager").text
    by_total = sorted(totals, key=lambda n: (-totals[n], n))
    assert _score_rows(driver) == by_total[:50]  # the default: by total
    assert _css(driver, '#score-table th[data-sort="total"]').get_attribute("aria-sort") == (
        "descending"
    )

    plugin = "NodeResourcesBalancedAllocation"
    score = next(e for e in _score_events(run, 1) if e["plugin"] == plugin)
    value = dict(zip(score["nodes"], score["weighted"], strict=True))
    rank = {n: i for i, n in enumerate(by_total)}  # ties keep the by-total order
    desc = sorted(value, key=lambda n: (-value[n], rank[n]))
    asc = sorted(value, key=lambda n: (value[n], rank[n]))
    assert desc != by_total

    header = f'#score-table th[data-sort="{plugin}"][data-mode="weighted"] button'
    _click(driver, header)
    _wait(driver, lambda d: _score_rows(d) == desc[:50])
    _click(driver, "#score-pager .page-next")
    _wait(driver, lambda d: _score_rows(d) == desc[50:100])
    _click(driver, header)  # again: ascending, back on the first page
    _wait(driver, lambda d: _score_rows(d) == asc[:50])
    assert "▲" in _css(driver, header).text
    column = f'#score-table th[data-sort="{plugin}"][data-mode="weighted"]'
    assert _css(driver, column).get_attribute("aria-sort") == "ascending"

    # Each plugin has a raw, a normalized and a weighted column; the raw one sorts by raw
    # values, highest first; the Total header restores the default.
    _click(driver, f'#score-table th[data-sort="{plugin}"][data-mode="raw"] button')
    raw = dict(zip(score["nodes"], score["raw"], strict=True))
    _wait(driver, lambda d: _score_rows(d) == sorted(raw, key=lambda n: (-raw[n], rank[n]))[:50])
    _click(driver, '#score-table th[data-sort="total"] button')
    _wait(driver, lambda d: _score_rows(d) == by_total[:50])


def _queue_items(driver, queue):
    return {
        li.get_attribute("data-pod"): li.get_attribute("data-plugins")
        for li in driver.find_elements(
            "css selector", f'#queue [data-queue="{queue}"] li[data-pod]'
        )
    }


def test_queue_panel_shows_the_pods_left_unschedulable(site, django_user_model):
    import yaml
    from builders import make_node, make_pod

    from playground.runs.panels import overview

    gated = make_pod("gated")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    pods = [
        make_pod("small", cpu="1"),
        make_pod("huge", cpu="8"),
        make_pod("picky", nodeSelector={"disk": "ssd"}),
        gated,
    ]
    services.cluster_create_from_yaml(
        owner=django_user_model.objects.get(username="runner"),
        name="Too small",
        text=yaml.safe_dump_all([make_node("n1", cpu="2"), *pods]),
    )
    driver = site.driver
    _start(site, "Too small", "Default")
    run = Run.objects.get()
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _css(driver, "#queue-live").click()  # the latest queue, not the one at the selected step
    expected = {
        "default/huge": "NodeResourcesFit",
        "default/picky": "NodeAffinity",
        "default/gated": "SchedulingGates",
    }
    _wait(driver, lambda d: _queue_items(d, "unschedulable") == expected)
    assert _css(driver, '#queue [data-q="unschedulable"]').text == "(3)"
    assert _css(driver, '#queue [data-q="active"]').text == "(0)"
    assert _queue_items(driver, "active") == _queue_items(driver, "backoff") == {}
    text = _css(driver, '#queue [data-queue="unschedulable"]').text
    assert "default/huge · NodeResourcesFit" in text
    assert "default/gated · gated by SchedulingGates" in text

    # The page draws what overview.queue_state derives from the stored events.
    events = expand(
        RunEvent.objects.filter(run=run).order_by("seq").values_list("payload", flat=True)
    )
    q = overview.queue_state(events)
    assert {r["pod"]: " ".join(r["plugins"]) for r in q["unschedulable"]} | {
        r["pod"]: r["plugin"] for r in q["gated"]
    } == expected
    run.refresh_from_db()  # read before the run finished
    assert run.placements == {
        "default/small": "n1",
        "default/huge": None,
        "default/picky": None,
        "default/gated": None,
    }


def test_the_page_of_a_thousand_cycle_run_opens_at_once_and_searches(site, django_user_model):
    """1,000 cycles on 60 nodes: the page draws the first cycle, pages and searches the list."""
    from builders import bulk_store, make_node, make_pod, record_run

    from playground.models import Profile

    owner = django_user_model.objects.get(username="runner")
    cluster = services.cluster_create(owner=owner, name="thousand")
    objects = [make_node(f"n{i:02d}", cpu="64", pods="200") for i in range(60)]
    objects += [make_pod(f"p{i:04d}", cpu="10m") for i in range(1000)]
    bulk_store(cluster, objects)
    profile = Profile.objects.get(name="Default")
    run, _, _ = record_run(cluster, profile, user=owner)
    assert run.cycle_records.count() == 1000

    driver = site.driver
    site.open(reverse("playground:run", args=[run.pk]))
    # The first cycle is drawn from the page's own first rows, before the catch-up ends.
    _wait(
        driver, lambda d: d.execute_script("return !!(window.runState && runState.firstPanelsAt)")
    )
    assert _css(driver, "#cycle-title").text.startswith("Cycle 1:")
    # Asked for once, by run_urls.js before Plotly loaded; run.js took that answer.
    asked = driver.execute_script(
        "return [runState.tookEarly, performance.getEntriesByType('resource')"
        ".filter((e) => new URL(e.name).pathname.endsWith('/cycles/1.json')).length];"
    )
    assert asked == [True, 1]
    # The scripts after run.js were listening when those panels came: the Skip note is written.
    assert _css(driver, "#filter-skipped").get_attribute("data-plugins")
    _wait(driver, lambda d: _css(d, "#timeline-count").text == "1000 cycles")
    assert len(driver.find_elements("css selector", "#timeline tr[data-cycle]")) <= 100
    # The filter matrix holds one page of 50 of the 60 nodes.
    assert len(driver.find_elements("css selector", "#filter-matrix tbody tr")) == 50
    assert "page 1 / 2" in _css(driver, "#filter-pager").text

    search = _css(driver, "#timeline-search")
    search.send_keys("p0999")
    _wait(driver, lambda d: _css(d, "#timeline-count").text == "1 of 1000 cycles")
    row = _css(driver, "#timeline tr[data-cycle]")
    pod_cell = row.find_elements("css selector", "td")[1]
    # The default namespace is left out of the narrow list; the title names the pod in full.
    assert (pod_cell.text, pod_cell.get_attribute("title")) == ("p0999", "default/p0999")

    _css(driver, "#filter-search").send_keys("n5")
    _wait(
        driver,
        lambda d: (
            d.execute_script(
                "return [...document.querySelectorAll('#filter-matrix tbody tr')]"
                ".map((r) => r.dataset.node);"
            )
            == [f"n5{i}" for i in range(10)]
        ),
    )
