"""The DRA demo in headless Chromium: a device allocation and a "no device matched" explanation."""

from __future__ import annotations

import pytest
from test_runs import _css, _start, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.dra import demo as demo_dra
from playground.dra import panels as devices
from playground.models import Run
from playground.runs import charts, selectors
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _step_of(run: Run, pod: str, point: str) -> tuple[int, int]:
    """(cycle, step index) of the pod's DynamicResources step at ``point``, as the page numbers."""
    for cycle in run.cycle_records.filter(pod=pod).values_list("cycle", flat=True):
        evs = selectors.run_cycle_events(run=run, cycle=cycle)
        for s in charts.steps(evs):
            if s["point"] == point:
                return cycle, s["index"]
    raise AssertionError(f"no {point} step for {pod}")


def _open_step(site, run: Run, cycle: int, step: int) -> str:  # noqa: F811
    site.open("/static/playground/run.css")  # a hash change alone would not reload the page
    site.open(f"/runs/{run_ref(run.pk)}/#cycle={cycle}&step={step}")
    driver = site.driver
    _wait(driver, lambda d: _css(d, "#step-position").get_attribute("data-step") == str(step))
    return str(_css(driver, "#step-why").text)


def test_dra_demo_shows_allocation_and_why_no_device_matched(site):  # noqa: F811
    _start(site, demo_dra.NAME, "Default")
    run = Run.objects.get()
    _wait(site.driver, lambda d: _css(d, "#run-status").text == "succeeded")
    run.refresh_from_db()
    assert run.placements["default/inference"] == "gpu-2"
    assert run.placements["default/trainer"] is None

    cycle, step = _step_of(run, "default/inference", devices.ALLOCATION)
    why = _open_step(site, run, cycle, step)
    assert why == "Allocated default/inference-gpu: gpu.example.com/gpu-2/gpu-0 for gpu."
    assert _css(site.driver, "#step-label").text == "Device allocation"

    cycle, step = _step_of(run, "default/trainer", devices.MATCHES)
    why = _open_step(site, run, cycle, step)
    assert why.startswith("No node has enough matching devices.")
    assert "gpu-1/gpu-0 (allocated to another claim)" in why
    assert "class gpu-large selector #0 is false" in why
    assert "cannot allocate all claims" in _css(site.driver, "#cycle-result").text


def test_add_a_device_pool_and_a_claim_with_the_forms(page):
    from selenium.webdriver.support.ui import Select
    from test_pg_journeys import _by_css, _fill, _sign_up, _submit
    from test_pg_journeys import _wait as _wait_page

    driver = page.driver
    _sign_up(page, "devi")
    _submit(driver, "#new-cluster")
    _fill(driver, "name", "dra forms")
    _submit(driver, "#save")
    _submit(driver, "#add-node")
    _fill(driver, "name", "gpu-node")
    _submit(driver, "#save")

    _submit(driver, "#add-devices")
    _fill(driver, "model", "h100")
    _fill(driver, "count", "2")
    _submit(driver, "#save")
    _wait_page(driver, lambda d: _by_css(d, "#device-pools").is_displayed())
    assert "dev-0" in _by_css(driver, "#device-pools").text

    _submit(driver, "#add-claim")
    _fill(driver, "name", "two-gpus")
    Select(_by_css(driver, '[name="device_class"]')).select_by_value("gpu")
    _fill(driver, "count", "2")
    _fill(driver, "selector", "device.driver == ")  # a syntax error: refused on its field
    _submit(driver, "#save")
    errors = _by_css(driver, '.field-errors[data-for="selector"]').text
    assert "Syntax error" in errors
    _fill(driver, "selector", 'device.attributes["gpu.example.com"].model == "h100"')
    _submit(driver, "#save")
    claims = _by_css(driver, "#claims").text
    assert "default/two-gpus" in claims and "2 × gpu with selector" in claims
