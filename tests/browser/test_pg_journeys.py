"""End-to-end journeys in headless Chromium against a live server."""

from __future__ import annotations

import pytest
import yaml
from builders import left_page, make_deployment, make_node

from playground.models import Cluster, Profile

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 20


def _wait(driver, condition):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        condition
    )


def _by_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def _submit(driver, css):
    """Click a submit button and wait until the browser has left the current page."""
    old_page = _by_css(driver, "html")
    _by_css(driver, css).click()
    _wait(driver, left_page(old_page))


def _fill(driver, name, value):
    field = _by_css(driver, f'[name="{name}"]')
    field.clear()
    field.send_keys(value)
    return field


def _sign_up(page, username="dora"):
    page.open("/signup/")
    _fill(page.driver, "username", username)
    _fill(page.driver, "password1", "a-long-pass-phrase-9")
    _fill(page.driver, "password2", "a-long-pass-phrase-9")
    _submit(page.driver, "#signup")
    _wait(page.driver, lambda d: _by_css(d, "#whoami").text == username)


def test_build_a_cluster_with_forms_and_an_import(page, tmp_path):
    driver = page.driver
    _sign_up(page)
    _submit(driver, "#new-cluster")
    _fill(driver, "name", "browser cluster")
    _submit(driver, "#save")
    _wait(driver, lambda d: _by_css(d, "#cluster-name").text.startswith("browser cluster"))

    # Three nodes like this one; the YAML pane follows the form.
    _submit(driver, "#add-node")
    _fill(driver, "name", "worker")
    _fill(driver, "zone", "zone-a")
    _fill(driver, "taints", "dedicated=batch:NoSchedule")
    _fill(driver, "count", "3")
    _wait(
        driver, lambda d: "dedicated" in _by_css(d, '[name="manifest_yaml"]').get_property("value")
    )
    pane = yaml.safe_load(_by_css(driver, '[name="manifest_yaml"]').get_property("value"))
    assert pane["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-a"
    _submit(driver, "#save")
    _wait(driver, lambda d: len(d.find_elements("css selector", "#nodes tr[data-node]")) == 3)

    # A pod through the form, with a toleration.
    _submit(driver, "#add-pod")
    _fill(driver, "name", "batch-job")
    _fill(driver, "tolerations", "dedicated=batch:NoSchedule")
    _fill(driver, "c0_cpu_request", "2")
    _wait(
        driver, lambda d: "dedicated" in _by_css(d, '[name="manifest_yaml"]').get_property("value")
    )
    _submit(driver, "#save")
    row = '#pods tr[data-pod="default/batch-job"]'
    _wait(driver, lambda d: d.find_elements("css selector", row))

    # Import a file holding a node and a Deployment: the Deployment's pods appear.
    path = tmp_path / "more.yaml"
    path.write_text(
        yaml.safe_dump_all(
            [make_node("imported", zone="zone-b"), make_deployment("web", replicas=2)]
        )
    )
    _submit(driver, "#import")
    _by_css(driver, '[name="file"]').send_keys(str(path))
    _submit(driver, "#do-import")
    _wait(driver, lambda d: d.find_elements("css selector", '#nodes tr[data-node="imported"]'))
    assert "Imported" in _by_css(driver, ".messages").text

    cluster = Cluster.objects.get(name="browser cluster")
    assert cluster.nodes.count() == 4
    assert cluster.pods.count() == 3
    pod = cluster.pods.get(name="batch-job")
    assert pod.manifest["spec"]["tolerations"] == [
        {"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}
    ]


def test_import_error_names_the_line(page):
    driver = page.driver
    _sign_up(page, "erin")
    page.open("/clusters/new/")
    _fill(driver, "name", "broken")
    _fill(
        driver,
        "manifests",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: x\nstatus:\n"
        "  allocatable:\n    cpu: many\n",
    )
    _submit(driver, "#save")
    _wait(driver, lambda d: "line 7" in _by_css(d, '.field-errors[data-for="manifests"]').text)
    assert not Cluster.objects.filter(name="broken").exists()


def test_edit_profile_weights_see_effective_config_and_errors(page):
    driver = page.driver
    _sign_up(page, "frank")
    _submit(driver, "#new-profile")
    _fill(driver, "name", "weights")
    _fill(driver, "p0-score_enabled", "NodeResourcesFit:7")
    effective = _by_css(driver, "#effective")
    _wait(driver, lambda d: "weight: 7" in effective.text)
    assert "kind: NodeResourcesFitArgs" in effective.text  # upstream defaulting filled args

    _fill(driver, "p0-hard_pod_affinity_weight", "500")
    errors = _by_css(driver, '.field-errors[data-for="p0-hard_pod_affinity_weight"]')
    _wait(driver, lambda d: "not in valid range" in errors.text)
    # An invalid profile has no effective configuration (the pane empties once the check returns).
    _wait(driver, lambda d: effective.text == "")
    _submit(driver, "#save")
    _wait(
        driver,
        lambda d: (
            "not in valid range"
            in _by_css(d, '.field-errors[data-for="p0-hard_pod_affinity_weight"]').text
        ),
    )
    assert not Profile.objects.filter(name="weights").exists()

    _fill(driver, "p0-hard_pod_affinity_weight", "5")
    _wait(driver, lambda d: "weight: 7" in _by_css(d, "#effective").text)
    _submit(driver, "#save")
    _wait(driver, lambda d: Profile.objects.filter(name="weights").exists())
    config = Profile.objects.get(name="weights").config
    assert config["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 7}
    ]

    # Editing the YAML pane updates the form fields.
    yaml_pane = _by_css(driver, '[name="config_yaml"]')
    text = yaml_pane.get_property("value")
    assert "weight: 7" in text
    yaml_pane.clear()
    yaml_pane.send_keys(text.replace("weight: 7", "weight: 8"))
    _wait(
        driver,
        lambda d: (
            _by_css(d, '[name="p0-score_enabled"]').get_property("value") == "NodeResourcesFit:8"
        ),
    )
    _wait(driver, lambda d: "weight: 8" in _by_css(d, "#effective").text)
