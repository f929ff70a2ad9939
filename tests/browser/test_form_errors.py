"""A profile form with three problems shows all three after one save, in Chromium at 1280x800."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import left_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 20
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def _wait(driver, condition):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, ignored_exceptions=(StaleElementReferenceException,)).until(
        condition
    )


def _css(driver, css):
    return driver.find_element("css selector", css)


def _fill(driver, name, value):
    field = _css(driver, f'[name="{name}"]')
    field.clear()
    field.send_keys(value)


def test_three_errors_after_one_save_with_a_summary_on_top(page, django_user_model):
    driver = page.driver
    driver.set_window_size(1280, 800)
    user = django_user_model.objects.create_user("erin", password="a-long-pass-phrase-9")
    page.open("/accounts/login/")
    _fill(driver, "username", user.username)
    _fill(driver, "password", "a-long-pass-phrase-9")
    old = _css(driver, "html")
    _css(driver, '#login-form [type="submit"]').click()
    _wait(driver, left_page(old))

    page.open("/profiles/new/")
    _fill(driver, "name", "three problems")
    _fill(driver, "p0-percentage_of_nodes_to_score", "150")
    _fill(driver, "p0-score_enabled", "NodeAffinity:-3\nNoSuchPlugin")
    old = _css(driver, "html")
    _css(driver, "#save").click()
    _wait(driver, left_page(old))

    summary = _wait(driver, lambda d: d.find_elements("css selector", "#error-summary li"))
    texts = [li.text for li in summary]
    assert len(texts) == 3, texts
    assert any("not in valid range [0-100]" in t for t in texts)
    assert any('plugin "NoSuchPlugin" does not exist' in t for t in texts)
    assert any("weight -3 of NodeAffinity" in t for t in texts)
    box = _css(driver, "#error-summary").rect
    assert box["y"] < 800, "the summary is above the fold"
    # Each error also stands under its own field.
    score_errors = _css(driver, '[data-for="p0-score_enabled"]').text
    assert "NoSuchPlugin" in score_errors and "weight -3" in score_errors
    assert "[0-100]" in _css(driver, '[data-for="p0-percentage_of_nodes_to_score"]').text
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / "profile-form-summary-1280x800.png"))
    # A summary link takes the reader to the field.
    summary[0].find_element("tag name", "a").click()
    assert driver.execute_script("return location.hash").startswith("#id_p0-")
    driver.save_screenshot(str(ARTIFACTS / "profile-form-three-errors-1280x800.png"))
