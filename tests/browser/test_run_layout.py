"""The run and compare pages stay readable at 1280x800 and 1920x1080, with 6 and 500 nodes.

Each test takes screenshots into tests/artifacts/ and checks the layout by bounding boxes: no
chart label overlaps another or its title, names in the filter matrix and the cycle list take one
line, the filter matrix's Verdict column stays in view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import bulk_store, make_node, make_pod, record_run
from django.urls import reverse

from playground import demo
from playground.clusters import services
from playground.demo import demo_load
from playground.models import Profile

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SIZES = ((1280, 800), (1920, 1080))
WAIT = 30

# Every text a plotly chart draws outside its cells: tick labels, titles, legend, annotations.
_LABELS_JS = """
const root = arguments[0];
const picked = root.querySelectorAll(
  '.xtick text, .ytick text, .g-gtitle text, .g-xtitle text, .g-ytitle text, .legendtext, ' +
  '.annotation-text, .cbaxis text');
return [...picked].filter((t) => t.textContent.trim() && t.getBBox().width > 0).map((t) => {
  const r = t.getBoundingClientRect();
  return {text: t.textContent, cls: t.closest('[class]').getAttribute('class'),
          left: r.left, right: r.right, top: r.top, bottom: r.bottom};
});
"""

# How many line boxes each element's text takes (a Range gives one rect per line).
_LINES_JS = """
return [...document.querySelectorAll(arguments[0])].map((e) => {
  const range = document.createRange();
  range.selectNodeContents(e);
  const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
    .map((r) => Math.round(r.top)));
  return {text: e.textContent, lines: tops.size};
});
"""


@pytest.fixture
def site(page, django_user_model):
    """The browser logged in as a fresh user on the live server, demo profiles loaded."""
    from django.test import Client

    demo_load()
    user = django_user_model.objects.create_user("layout", password="unused-pass-123")
    client = Client()
    client.force_login(user)
    page.open("/static/playground/run.css")
    page.driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
    page.user = user
    yield page
    page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


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


def _shot(driver, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / name))


def _overlaps(labels):
    """Pairs of labels whose boxes intersect by more than a pixel each way."""
    out = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if (
                min(a["right"], b["right"]) - max(a["left"], b["left"]) > 1
                and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 1
            ):
                out.append((a["text"], b["text"]))
    return out


def _check_chart(driver, css):
    """No label of the chart overlaps another, and every label lies inside the chart's box."""
    root = driver.find_element("css selector", css)
    labels = _js(driver, _LABELS_JS, root)
    assert labels, f"{css} draws no labels"
    assert _overlaps(labels) == [], css
    box = _js(driver, "return arguments[0].getBoundingClientRect().toJSON();", root)
    outside = [
        lab["text"]
        for lab in labels
        if lab["left"] < box["left"] - 1
        or lab["right"] > box["right"] + 1
        or lab["top"] < box["top"] - 1
        or lab["bottom"] > box["bottom"] + 1
    ]
    assert outside == [], css
    return labels


def _one_line(driver, css):
    rows = _js(driver, _LINES_JS, css)
    assert rows, f"nothing matches {css}"
    wrapped = [r["text"] for r in rows if r["lines"] > 1]
    assert wrapped == [], css


def _cluster(owner, name, manifests):
    cluster = services.cluster_create(owner=owner, name=name)
    return bulk_store(cluster, manifests)


def _six_nodes():
    nodes = [
        make_node(f"worker-{zone}-general-purpose-{i}", cpu=str(4 + 4 * (i % 2)), memory="16Gi")
        for i, zone in enumerate(("zone-a", "zone-b", "zone-c", "zone-a", "zone-b", "zone-c"))
    ]
    pods = [make_pod(f"web-frontend-{i}", cpu="500m", memory="1Gi") for i in range(4)]
    pods.append(make_pod("analytics-batch-huge", cpu="64", memory="512Gi"))
    return [*nodes, *pods]


def _five_hundred_nodes():
    manifests = demo.large_cluster_manifests(nodes=500, pods=3)
    manifests.append(make_pod("analytics-batch-huge", cpu="64", memory="512Gi"))
    return manifests


def _open_run(site, run):
    site.open(reverse("playground:run", args=[run.pk]))
    driver = site.driver
    _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('usage-pods').data;"))


def _select(driver, run, pod):
    cycle = next(c for c in run.cycle_records.order_by("cycle") if c.pod == pod).cycle
    _js(driver, f"location.hash = 'cycle={cycle}&step=0';")
    _wait(
        driver,
        lambda d: (
            _js(d, "return runState.detail && runState.detail.cycle;") == cycle
            and _js(d, "return document.querySelectorAll('#filter-matrix tbody tr').length;") > 0
        ),
    )
    return cycle


def _check_run_page(site, run, name, width, height):
    driver = site.driver
    _viewport(driver, width, height)
    _open_run(site, run)
    scheduled = next(c for c in run.cycle_records.order_by("cycle") if c.result == "Scheduled")
    _select(driver, run, scheduled.pod)
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('combine').data;"))

    # The cycle list and the matrix: one line per name; the Verdict column in view.
    _one_line(driver, "#timeline tbody td")
    assert _js(
        driver, "const t = document.getElementById('timeline'); return t.scrollWidth;"
    ) <= _js(driver, "return document.querySelector('.timeline-pane').clientWidth;")
    _one_line(driver, "#filter-matrix tbody th")
    _one_line(driver, "#filter-matrix tbody td")
    verdict = _js(
        driver,
        "return document.querySelector('#filter-matrix tbody td.verdict')"
        ".getBoundingClientRect().toJSON();",
    )
    box = _js(
        driver, "return document.querySelector('.matrix-scroll').getBoundingClientRect().toJSON();"
    )
    assert 0 <= box["left"] <= verdict["left"] and verdict["right"] <= min(box["right"], width)
    # The node column stays put when the matrix scrolls sideways.
    _js(driver, "document.querySelector('.matrix-scroll').scrollLeft = 10000;")
    node = _js(
        driver,
        "return document.querySelector('#filter-matrix tbody th')"
        ".getBoundingClientRect().toJSON();",
    )
    assert abs(node["left"] - box["left"]) <= 2
    _js(driver, "document.querySelector('.matrix-scroll').scrollLeft = 0;")

    # Skip at PreFilter is named under the matrix.
    detail = _js(driver, "return runState.detail;")
    skipped = [p["plugin"] for p in detail["prefilter"] if p["code"] == "Skip" and not p["merged"]]
    assert skipped
    assert _js(driver, "return document.getElementById('filter-skipped').dataset.plugins;") == (
        " ".join(skipped)
    )

    # Charts: labels apart from each other and inside their box; every heatmap row named.
    _js(driver, "document.getElementById('step-last').click();")
    _js(driver, "document.getElementById('score-section').scrollIntoView();")
    _shot(driver, f"{name}-{width}x{height}-scores.png")
    heat = _check_chart(driver, "#heatmap")
    rows = _js(driver, "return document.getElementById('heatmap').data[0].y;")
    assert sorted(lab["text"] for lab in heat if "ytick" in lab["cls"]) == sorted(rows)
    scale = _js(driver, "return document.getElementById('heatmap').data[0].colorscale;")
    light = [sum(int(c[i : i + 2], 16) for i in (1, 3, 5)) for _, c in scale]
    assert light == sorted(light, reverse=True)  # higher is darker
    _check_chart(driver, "#combine")
    for res in ("cpu", "memory", "pods"):
        labels = _check_chart(driver, f"#usage-{res}")
        shown = _js(driver, f"return document.getElementById('usage-{res}').data[0].y;")
        assert sorted(lab["text"] for lab in labels if "ytick" in lab["cls"]) == sorted(shown)
    _js(driver, "document.getElementById('usage-section').scrollIntoView();")
    _shot(driver, f"{name}-{width}x{height}-usage.png")

    # The unschedulable pod: reasons cut to one line, then shown in full when its row opens.
    _select(driver, run, "default/analytics-batch-huge")
    _js(driver, "window.scrollTo(0, 0);")
    _shot(driver, f"{name}-{width}x{height}.png")
    _one_line(driver, "#filter-matrix tbody td")
    cell = "#filter-matrix tbody tr:first-child td.cell-reject"
    reasons = _js(driver, f"return document.querySelector('{cell}').title;")
    assert "Insufficient cpu" in reasons and "Insufficient memory" in reasons
    _js(driver, "document.querySelector('#filter-matrix tbody tr:first-child th').click();")
    assert _js(driver, "return document.querySelector('#filter-matrix tbody tr').className;") == (
        "expanded"
    )
    _js(driver, "document.getElementById('step-last').click();")  # no panel greyed out
    _js(driver, "document.querySelector('.matrix-scroll').scrollIntoView();")
    _js(driver, "window.scrollBy(0, -document.getElementById('stepper').offsetHeight - 60);")
    _shot(driver, f"{name}-{width}x{height}-matrix.png")
    assert _js(
        driver,
        f"const c = document.querySelector('{cell}'); return c.scrollWidth <= c.clientWidth;",
    )
    _js(driver, "document.querySelector('#filter-matrix tbody tr:first-child th').click();")
    assert "expanded" not in _js(
        driver, "return document.querySelector('#filter-matrix tbody tr').className;"
    )
    # The keyboard does the same: Enter on the focused node name opens the row.
    from selenium.webdriver.common.keys import Keys

    driver.find_element("css selector", "#filter-matrix tbody tr:first-child th").send_keys(
        Keys.ENTER
    )
    assert _js(driver, "return document.querySelector('#filter-matrix tbody tr').className;") == (
        "expanded"
    )


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1280x800", "1920x1080"])
def test_a_six_node_run_reads_at_every_size(site, width, height):
    cluster = _cluster(site.user, "Six nodes", _six_nodes())
    run, _, _ = record_run(cluster, Profile.objects.get(name="Default"), user=site.user)
    _check_run_page(site, run, "run-6-nodes", width, height)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1280x800", "1920x1080"])
def test_a_500_node_run_reads_at_every_size(site, width, height):
    cluster = _cluster(site.user, "Five hundred", _five_hundred_nodes())
    run, _, _ = record_run(cluster, Profile.objects.get(name="Default"), user=site.user)
    _check_run_page(site, run, "run-500-nodes", width, height)
    # The combine chart and the usage charts show the top nodes and "the rest", not 500 bars.
    driver = site.driver
    scheduled = run.cycle_records.filter(result="Scheduled").order_by("cycle").first()
    _select(driver, run, scheduled.pod)
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('combine').data;"))
    bars = _js(driver, "return document.getElementById('combine').data[0].y;")
    assert len(bars) == 21 and bars[-1].startswith("the other ")
    usage = _js(driver, "return document.getElementById('usage-cpu').data[0].y;")
    assert len(usage) == 21 and usage[-1] == "the other 480 (mean)"
    # The most used nodes come first: every node a pod went to has its bar among the top 20.
    run.refresh_from_db()
    used = {n for n in run.placements.values() if n}
    for res in ("cpu", "memory", "pods"):
        bars = _js(
            driver,
            f"const d = document.getElementById('usage-{res}').data[1];"
            " return d.y.filter((n, i) => d.x[i] > 0);",
        )
        assert set(bars) == used, res


def test_compare_shows_the_config_diff_the_moved_pods_and_one_node_order(site):
    nodes = [make_node(f"worker-general-purpose-{i}", cpu="4", memory="16Gi") for i in range(6)]
    pods = [make_pod(f"web-frontend-{i}", cpu="500m", memory="1Gi") for i in range(4)]
    cluster = _cluster(site.user, "Compare", [*nodes, *pods])
    run_a, _, _ = record_run(cluster, Profile.objects.get(name="Default"), user=site.user)
    run_b, _, _ = record_run(cluster, Profile.objects.get(name="Bin-packing"), user=site.user)
    driver = site.driver
    _viewport(driver, 1280, 800)
    site.open(reverse("playground:compare", args=[run_a.pk, run_b.pk]))
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('pods-per-node').data;"))
    _shot(driver, "compare-1280x800.png")

    diff = {
        r.get_attribute("data-field"): (
            r.find_element("css selector", ".diff-a").text,
            r.find_element("css selector", ".diff-b").text,
        )
        for r in driver.find_elements("css selector", "#config-diff tr[data-field]")
    }
    assert diff["pluginConfig.NodeResourcesFit.scoringStrategy.type"] == (
        "LeastAllocated",
        "MostAllocated",
    )
    assert diff["plugins.score.enabled.NodeResourcesFit"] == ("—", "weight 5")

    moved = {
        r.get_attribute("data-pod"): (
            r.find_element("css selector", ".placement-a").text,
            r.find_element("css selector", ".placement-b").text,
        )
        for r in driver.find_elements("css selector", "#moved tr[data-pod]")
    }
    run_a.refresh_from_db()
    run_b.refresh_from_db()
    expected = {
        pod: (node, run_b.placements[pod])
        for pod, node in run_a.placements.items()
        if node != run_b.placements[pod]
    }
    assert expected and moved == expected
    used_a, used_b = len(set(run_a.placements.values())), len(set(run_b.placements.values()))
    said = driver.find_element("css selector", "#compare-summary").text
    # What changed, then what it did: the moved pods and the nodes each run used.
    assert said.startswith("B (Bin-packing) is A (Default) with these differences: ")
    assert "NodeResourcesFit's Score weight set to 5" in said
    assert "NodeResourcesFit's scoringStrategy.type LeastAllocated → MostAllocated" in said
    assert f"Under B, {len(expected)} pods went somewhere else (" in said
    assert said.endswith(f"; A used {used_a} nodes, B {used_b} node{'' if used_b == 1 else 's'}.")

    # Nodes: the cluster's order, every name on one line and on the chart.
    order = [
        r.get_attribute("data-node")
        for r in driver.find_elements("css selector", "#compare-nodes tr[data-node]")
    ]
    used = set(run_a.placements.values()) | set(run_b.placements.values())
    assert order == [n["metadata"]["name"] for n in nodes if n["metadata"]["name"] in used]
    _one_line(driver, "#compare-nodes tbody th")
    _one_line(driver, "#moved td")
    labels = _check_chart(driver, "#pods-per-node")
    assert sorted(lab["text"] for lab in labels if "ytick" in lab["cls"]) == sorted(order)

    # Each pod's two heatmaps: the same rows and the same plugin columns, in the same order.
    pairs = _js(
        driver,
        "return [...document.querySelectorAll('details.compare-pod[open] .plot')]"
        ".filter((p) => p.data).map((p) => [p.id, p.data[0].y, p.data[0].x]);",
    )
    by_id = {pid: (y, [x.split(" (")[0] for x in xs]) for pid, y, xs in pairs}
    checked = 0
    for pid, (y, x) in by_id.items():
        if pid.endswith("-a") and pid[:-1] + "b" in by_id:
            assert (y, x) == by_id[pid[:-1] + "b"]
            checked += 1
    assert checked >= 1
    first = next(pid for pid in by_id if pid.endswith("-a"))
    driver.execute_script(f"document.getElementById('{first}').scrollIntoView();")
    _check_chart(driver, f"#{first}")
    _shot(driver, "compare-1280x800-scores.png")


def test_the_run_form_starts_on_the_default_profile_and_pages_have_an_icon(site):
    cluster = _cluster(site.user, "Form", [make_node("n1"), make_pod("p")])
    site.open(reverse("playground:cluster", args=[cluster.pk]))
    driver = site.driver
    first = driver.find_element("css selector", "#run-profile option").text
    assert first != "Default"  # the list is alphabetical: the default is chosen, not first
    assert (
        _js(
            driver,
            "const s = document.getElementById('run-profile');"
            " return s.options[s.selectedIndex].text;",
        )
        == "Default"
    )
    icon = driver.find_element("css selector", "link[rel=icon]").get_attribute("href")
    assert icon.endswith(".svg")
    status = _js(driver, "return fetch(arguments[0]).then((r) => r.status);", icon)
    assert status == 200
