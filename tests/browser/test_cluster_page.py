"""The cluster page shows its setup at 1280x800 and 1920x1080, and a run's "Apply placements"
asks first. Screenshots go to tests/artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import record_run
from django.urls import reverse

from playground.demo import demo_load
from playground.models import Cluster, Profile

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def _viewport(driver, width, height):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def _css(driver, css):
    return driver.find_element("css selector", css)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)], ids=["1280", "1920"])
def test_a_visitor_sees_taints_tolerations_and_how_to_run_it(page, width, height):
    """Logged out, the GPU demo shows the pool's taint, the trainer's toleration, each node's
    usage and every pod's phase without a form, and offers a sign-up instead of a Run button."""
    demo_load()
    cluster = Cluster.objects.get(name="GPU pool behind taints", is_demo=True)
    driver = page.driver
    _viewport(driver, width, height)
    try:
        page.open(reverse("playground:cluster", args=[cluster.pk]))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / f"cluster-gpu-demo-{width}x{height}.png"))
        taints = [t.text for t in driver.find_elements("css selector", "#nodes .taint")]
        assert "nvidia.com/gpu=present:NoSchedule" in taints
        assert all(t.is_displayed() for t in driver.find_elements("css selector", "#nodes .taint"))
        tolerations = [
            r.text
            for r in driver.find_elements("css selector", '#pods .rule[data-kind="tolerates"]')
            if r.is_displayed()
        ]
        assert any("nvidia.com/gpu" in t for t in tolerations), tolerations
        assert driver.find_elements("css selector", "#nodes .usage-bar meter")
        phases = [p.text for p in driver.find_elements("css selector", "#pods td.phase")]
        assert phases and all(phases), phases
        assert _css(driver, "#signup-to-run").is_displayed()
        assert not driver.find_elements("css selector", "#run-button")
        # No row wider than the page: the setup reads without a sideways scroll.
        assert driver.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth;"
        )
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_apply_placements_on_a_demo_asks_first_and_says_it_makes_a_copy(page, django_user_model):
    from django.test import Client

    demo_load()
    user = django_user_model.objects.create_user("applier", password="unused-pass-123")
    cluster = Cluster.objects.get(name="Three zones", is_demo=True)
    run, _, _ = record_run(cluster, Profile.objects.get(name="Default"), user=user)
    client = Client()
    client.force_login(user)
    page.open("/static/playground/run.css")
    page.driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
    driver = page.driver
    page.open(reverse("playground:run", args=[run.pk]))
    question = _css(driver, "#apply-form").get_attribute("data-confirm")
    assert "demo cluster" in question and "creates your own copy" in question
    assert "the demo stays as it is" in question
    _css(driver, "#apply-placements").click()
    alert = driver.switch_to.alert
    assert alert.text == question
    alert.dismiss()  # nothing happens
    run.refresh_from_db()
    assert run.applied is None
    assert Cluster.objects.filter(name="Three zones").count() == 1
