"""The DRA demo in headless Chromium: the device each pod got, explanations, the devices listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runs import _click, _css, _start, _wait, daphne_url, site  # noqa: F401 (fixtures)

from playground.dra import demo as demo_dra
from playground.dra import panels as devices
from playground.models import Run
from playground.runs import selectors
from playground.runs.panels import charts
from playground.runs.refs import run_ref

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SHOWN = "#explain-panel .explanation.matches-cell"


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
    assert "default/two-gpus" in claims
    assert '2 × gpu where device.attributes["gpu.example.com"].model == "h100"' in claims


def _text(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
    )


def _shot(driver, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / name))


def test_dra_demo_shows_the_device_each_pod_got_and_the_devices_a_filter_cell_considered(
    site,  # noqa: F811
):
    driver = site.driver
    driver.set_window_size(1400, 1000)
    _start(site, demo_dra.NAME, "Default")
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    run = Run.objects.get()

    # The run's table: pod → claim → device, with the device's model and memory.
    row = '#devices-allocated tr[data-pod="default/{}"]'
    _wait(driver, lambda d: _text(d, row.format("inference")) is not None)
    inference = _text(driver, row.format("inference"))
    assert "inference-gpu" in inference and "gpu.example.com/gpu-2/gpu-0" in inference
    assert _text(driver, row.format("inference") + " td.model") == "l4"
    assert _text(driver, row.format("inference") + " td.memory") == "24Gi"
    assert _text(driver, row.format("flexible") + " td.device") == "gpu.example.com/gpu-3/gpu-0"
    assert _text(driver, row.format("flexible") + " td.model") == "h100"
    assert _text(driver, row.format("trainer") + " td.device") == "no device"
    driver.execute_script("document.getElementById('run-devices').scrollIntoView()")
    _shot(driver, "dra-devices-allocated.png")

    # The inference cycle: the Devices panel names the device, with its attributes.
    cycle = run.cycle_records.get(pod="default/inference").cycle
    site.open("/static/playground/run.css")  # a hash change alone would not reload the page
    site.open(f"/runs/{run_ref(run.pk)}/#cycle={cycle}")
    chosen = "#cycle-devices .devices-chosen"
    # The device's name comes with the cycle, its attributes with the run's devices.json (a
    # request of its own): wait for both.
    whole = "inference-gpu request gpu → gpu.example.com/gpu-2/gpu-0 (model l4, memory 24Gi)"
    _wait(driver, lambda d: whole in (_text(d, chosen) or ""))

    def pre_bind_text(d):
        return d.execute_script(
            "return [...document.querySelectorAll('#binding li[data-point=PreBind]')]"
            ".map((li) => li.innerText).find((t) => t.includes('DynamicResources')) || '';"
        )

    _wait(driver, lambda d: "(model l4, memory 24Gi)" in pre_bind_text(d))
    pre_bind = pre_bind_text(driver)
    assert "DynamicResources on gpu-2: Success" in pre_bind
    assert (
        "writes gpu.example.com/gpu-2/gpu-0 (model l4, memory 24Gi) for inference-gpu" in pre_bind
    )
    gpu1 = _text(driver, '#cycle-devices-nodes tr[data-node="gpu-1"]')
    assert "1 needed, 0 matched" in gpu1 and "request selector #0 is false" in gpu1

    driver.execute_script("document.getElementById('cycle-devices').scrollIntoView()")
    _shot(driver, "dra-cycle-devices.png")

    # A DynamicResources Filter cell lists the devices considered on that node.
    _click(
        driver,
        '#filter-matrix tr[data-node="gpu-1"] td.explain-cell[data-plugin="DynamicResources"]',
    )
    _wait(driver, lambda d: "gpu-1/gpu-0" in (_text(d, f"{SHOWN} .explain-text") or ""))
    assert _text(driver, f"{SHOWN} h4") == "Filter · DynamicResources · gpu-1"
    text = _text(driver, f"{SHOWN} .explain-text")
    assert "gpu-1/gpu-0 (model a100, memory 40Gi), gpu-1/gpu-1 (model a100, memory 40Gi)" in text
    assert 'request selector #0 is false: device.attributes["gpu.example.com"].model == "l4"' in (
        text
    )
    inputs = _text(driver, f"{SHOWN} .explain-inputs")
    assert "a100" in inputs and "classSelectors" in inputs
    _shot(driver, "dra-filter-cell-explained.png")

    # The cluster page lists each device with its model.
    site.open(f"/clusters/{run.cluster_id}/")
    device = '#device-pools tr[data-device="gpu.example.com/gpu-3/gpu-0"]'
    _wait(driver, lambda d: _text(d, device) is not None)
    assert _text(driver, f'{device} [data-attribute="model"]') == "model=h100"
    assert _text(driver, f'{device} [data-capacity="memory"]') == "memory=80Gi"
    assert "device.driver" in _text(driver, '#device-classes tr[data-class="gpu"]')
    driver.execute_script("document.getElementById('dra-devices').scrollIntoView()")
    _shot(driver, "dra-cluster-devices.png")
