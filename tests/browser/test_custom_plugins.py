"""Custom plugins and older configurations in headless Chromium: define, use, run, convert."""

from __future__ import annotations

import pytest
from builders import left_page
from test_runs import _css, _start, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.models import CustomPlugin, Profile, Run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEY = "example.com/blinking-lights"
LIGHTS = f'"{KEY}" in node.labels ? int(node.labels["{KEY}"]) : 0'

V1BETA1 = """apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: NodeResourcesLeastAllocated
      enabled:
      - name: NodeResourcesMostAllocated
        weight: 5
"""


def _fill(driver, name, value):
    field = _css(driver, f'[name="{name}"]')
    field.clear()
    field.send_keys(value)
    return field


def _submit(driver, css):
    old = _css(driver, "html")
    _css(driver, css).click()
    _wait(driver, left_page(old))


def test_define_a_plugin_use_it_in_a_profile_run_and_read_its_scores(site):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    driver = site.driver
    site.open("/custom-plugins/new/")
    _fill(driver, "name", "Calm")
    _fill(driver, "point_score", "1 +")
    errors = _css(driver, '.field-errors[data-for="point_score"]')
    _wait(driver, lambda d: "Calm score: at 1:4" in errors.text)  # compiled as typed
    _fill(driver, "point_score", LIGHTS)
    _wait(driver, lambda d: _css(d, "#compile-state").get_attribute("data-state") == "compiles")
    Select(_css(driver, '[name="normalize"]')).select_by_value("reverse")
    _submit(driver, "#save-plugin")
    assert CustomPlugin.objects.get(name="Calm", owner__username="runner").normalize == "reverse"

    site.open("/profiles/new/")
    _fill(driver, "name", "calm nodes")
    _fill(driver, "p0-multiPoint_enabled", "Calm:2")
    _wait(driver, lambda d: "name: Calm" in _css(d, "#effective").text)
    _submit(driver, "#save")
    _wait(driver, lambda d: Profile.objects.filter(name="calm nodes").exists())

    _start(site, "Blinking lights", "calm nodes")
    run = Run.objects.get()
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _wait(driver, lambda d: d.execute_script("return !!document.getElementById('heatmap').data"))
    _css(driver, "[name=score-mode][value=raw]").click()
    x, y, z = driver.execute_script(
        "const t = document.getElementById('heatmap').data[0]; return [t.x, t.y, t.customdata];"
    )
    column = next(j for j, label in enumerate(x) if label.startswith("Calm"))
    shown = {node: z[i][column] for i, node in enumerate(y)}
    assert shown == {"calm": 1, "busy": 4, "dark": 0, "maint": 0}
    from playground.runs import selectors

    score = next(
        e
        for cycle in run.cycle_records.values_list("cycle", flat=True)
        for e in selectors.run_cycle_events(run=run, cycle=cycle)
        if e["type"] == "Score" and e["plugin"] == "Calm"
    )
    assert dict(zip(score["nodes"], score["normalized"], strict=True)) == {
        "calm": 75,
        "busy": 0,
        "dark": 100,
        "maint": 100,
    }
    assert score["weight"] == 2


def test_paste_a_v1beta1_file_into_the_editor_and_get_v1_with_changes(site):  # noqa: F811
    driver = site.driver
    site.open("/profiles/new/")
    _fill(driver, "name", "from v1beta1")
    pane = _css(driver, '[name="config_yaml"]')
    pane.clear()
    pane.send_keys(V1BETA1)
    _wait(driver, lambda d: _css(d, "#migration").is_displayed())
    assert _css(driver, "#migration-source").text == (
        "Converted from kubescheduler.config.k8s.io/v1beta1 to kubescheduler.config.k8s.io/v1"
    )
    changes = _css(driver, "#migration-changes").text
    assert "NodeResourcesMostAllocated (weight 5) became NodeResourcesFit" in changes
    assert "apiVersion: kubescheduler.config.k8s.io/v1\n" in _css(driver, "#migration-yaml").text
    _wait(driver, lambda d: "type: MostAllocated" in _css(d, "#effective").text)
    _submit(driver, "#save")
    config = Profile.objects.get(name="from v1beta1").config
    assert config["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    # v1beta3 raised three default weights; the v1beta1 file meant them at 1, so they stay 1.
    assert config["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 5},
        {"name": "InterPodAffinity", "weight": 1},
        {"name": "NodeAffinity", "weight": 1},
        {"name": "TaintToleration", "weight": 1},
    ]
