"""The gang lesson's run in headless Chromium: the run page's Gangs panel lists each gang's
members and where each one ended, and its link opens the step at which the gang completed."""

from __future__ import annotations

import pytest
from test_lessons import _css, _wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRAME_STEP = (
    "const f = document.getElementById('run-frame');"
    "const l = f && f.contentDocument && f.contentDocument.getElementById('step-label');"
    "return l && f.contentWindow.runState && f.contentWindow.runState.detail"
    " ? [f.contentWindow.location.hash, l.dataset.point, l.dataset.plugin || ''] : null;"
)


def test_the_gangs_panel_shows_who_waited_and_opens_the_step_the_gang_completed(page):
    driver = page.driver
    page.open("/lessons/gang-scheduling/?step=3")
    _css(driver, "#q-second-node .open-step").click()
    _wait(driver, lambda d: d.find_elements("css selector", "#run-frame"), timeout=30)
    frame = _css(driver, "#run-frame")
    driver.switch_to.frame(frame)
    try:
        _wait(driver, lambda d: _css(d, "#run-status").get_attribute("data-status") == "succeeded")
        _wait(driver, lambda d: not _css(d, "#gangs-section").get_attribute("hidden"))
        # The frame opened at cycle 2 (train-0 filtered): train-2 is held at Permit on node-1.
        _wait(driver, lambda d: _rows(d)["default/train-0"][0] == "scheduling")
        rows = _rows(driver)
        assert rows["default/train-2"] == (
            "waiting",
            "train-2 waits at Permit on node-1, holding cpu 3, memory 4Gi",
        )
        assert rows["default/sweep-0"][0] == "gated"
        assert "gated at PreEnqueue (GangScheduling)" in rows["default/sweep-0"][1]
        assert _css(driver, "#gangs-when").text.startswith("at cycle 2, step ")
        status = _css(driver, ".gang[data-workload='default/train'] .gang-status").text
        assert status.startswith("Not complete: 1 of minCount 3 members have a node")
        notes = _css(driver, "#run-gate-notes").text
        assert "GangScheduling on: the pods of a Workload's gang" in notes
        _css(driver, ".gang[data-workload='default/train'] .gang-completed-step").click()
    finally:
        driver.switch_to.default_content()

    def at_completion(d):
        got = d.execute_script(FRAME_STEP)
        return (
            got is not None
            and got[0].startswith("#cycle=4&")
            and got[1:]
            == [
                "Permit",
                "GangScheduling",
            ]
        )

    _wait(driver, at_completion, timeout=30)
    driver.switch_to.frame(_css(driver, "#run-frame"))
    try:
        # At the step the gang completed: the held members bound, train-1 let through.
        _wait(driver, lambda d: _rows(d)["default/train-1"][0] == "allowed")
        rows = _rows(driver)
        assert rows["default/train-2"] == ("bound", "train-2 bound to node-1")
        assert rows["default/train-0"] == ("bound", "train-0 bound to node-2")
        status = _css(driver, ".gang[data-workload='default/train'] .gang-status").text
        assert status.startswith("Complete in cycle 4: with train-1")
    finally:
        driver.switch_to.default_content()


def _rows(driver):
    """Each member's (state, row text) as the Gangs panel shows it."""
    return {
        r.get_attribute("data-pod"): (r.get_attribute("data-state"), r.text)
        for r in driver.find_elements("css selector", "#gangs tr[data-pod]")
    }
