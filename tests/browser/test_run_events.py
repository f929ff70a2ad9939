"""Cluster events during a run, in headless Chromium: a scripted node rescues a pending pod."""

from __future__ import annotations

import pytest
from builders import cluster_with, make_node, make_pod
from test_runs import _css, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.models import Run
from playground.profiles import services as profile_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_NODE = """\
kind: Node
metadata:
  name: n2
status:
  allocatable: {cpu: "16", memory: 32Gi, pods: "110"}
"""


def _cluster(django_user_model):
    user = django_user_model.objects.get(username="runner")
    cluster = cluster_with(
        user, make_node("n1", cpu="2"), make_pod("big", cpu="8"), name="too small"
    )
    profile_services.profile_create(owner=user, name="mine", config={})
    return cluster


def test_a_node_added_after_cycle_1_schedules_the_pod_and_the_page_says_which_hint_moved_it(
    site,  # noqa: F811
    django_user_model,
):
    from selenium.webdriver.support.ui import Select

    driver = site.driver
    cluster = _cluster(django_user_model)
    site.open(f"/clusters/{cluster.pk}/")
    _css(driver, "#run-with-changes").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#script-form"))
    Select(_css(driver, "#script-profile")).select_by_visible_text("mine")
    Select(_css(driver, "[name=step-0-action]")).select_by_value("add_node")
    cycle = _css(driver, "[name=step-0-after_cycle]")
    cycle.clear()
    cycle.send_keys("1")
    _css(driver, "[name=step-0-value]").send_keys(NEW_NODE)
    _css(driver, "#script-run").click()
    _wait(driver, lambda d: "/runs/" in d.current_url)
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")

    run = Run.objects.get()
    assert run.placements == {"default/big": "n2"}
    _wait(driver, lambda d: d.find_elements("css selector", "#cluster-events > li"))
    [change] = driver.find_elements("css selector", "#cluster-events > li")
    assert change.find_element("css selector", "strong").text == "after cycle 1: node n2 added"
    [moved] = change.find_elements("css selector", "li.moved")
    assert moved.text.startswith("pod big: unschedulable → ")
    assert moved.text.endswith(", NodeResourcesFit's hint on NodeAdd said Queue")
    assert _css(driver, "#cluster-script").text == "after cycle 1: node n2 added"

    # In the cycle list, the change sits between the failed cycle 1 and cycle 2 on n2.
    _wait(driver, lambda d: d.find_elements("css selector", "#timeline tr.cluster-change"))
    rows = driver.find_elements("css selector", "#timeline tbody tr")
    texts = [r.text for r in rows]
    assert len(texts) == 3, texts
    assert texts[0].startswith("1 default/big Unschedulable") or "Unschedulable" in texts[0]
    assert texts[1] == "after cycle 1: node n2 added"
    assert texts[2].startswith("2") and "n2" in texts[2]

    # Try a change from the finished run: the comparison of the two runs opens.
    Select(_css(driver, "#try-change-form [name=kind]")).select_by_value("weight")
    Select(_css(driver, "#try-change-form [name=plugin]")).select_by_value("NodeResourcesFit")
    _css(driver, "#try-change-form [name=weight]").send_keys("5")
    _css(driver, "#try-change-run").click()
    _wait(driver, lambda d: "/compare/" in d.current_url)
    assert _css(driver, "#profile-b").text == "mine · NodeResourcesFit weight 5"
    new = Run.objects.exclude(pk=run.pk).get()
    assert new.script == run.script and new.compare_with_id == run.pk
    # The compare page reloads until both runs finish: let it, then leave it.
    _wait(driver, lambda d: not d.find_elements("css selector", "#compare-waiting"))
    site.open("/static/playground/run.css")
