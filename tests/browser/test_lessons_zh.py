"""Lesson 1 in Simplified Chinese: a first visit from a browser whose language is zh-CN reads the
lesson, its questions and the explanations in Chinese; photographed at 1280x800."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from test_lessons import ARTIFACTS, _answer, _css, _next_step, _shoot_and_check, _viewport_1280x800

from playground.lessons.languages import in_language
from playground.lessons.loader import lesson_by_slug

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CHROMIUM = "/usr/bin/chromium"  # as tests/browser/conftest.py's shared browser
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def zh_browser():
    """Headless Chromium whose language is Chinese (it sends Accept-Language: zh-CN)."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail("browser tests cannot run in CI: chromium or chromedriver is missing")
        pytest.skip(
            "chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-zh-test-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--lang=zh-CN",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": "zh-CN,zh"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _chinese_fonts() -> str:
    """The fonts that can draw Chinese (without one, Chromium draws boxes)."""
    fc_list = shutil.which("fc-list")
    return (
        subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True).stdout
        if fc_list
        else ""
    )


def test_a_first_visit_in_chinese_reads_lesson_one_in_chinese(zh_browser, live_server):
    assert _chinese_fonts().strip(), "no Chinese font: setup.sh installs fonts-wqy-microhei"
    driver = zh_browser
    driver.delete_all_cookies()
    zh = in_language(lesson_by_slug("scheduling-cycle"), "zh-hans")
    driver.get(live_server.url + "/lessons/scheduling-cycle/")
    assert driver.execute_script("return navigator.language") == "zh-CN"
    assert _css(driver, "#lesson-title").text.endswith("调度周期一览")
    assert _css(driver, "#step-title").text == f"1. {zh.steps[0].title}"
    assert "kube-scheduler 一次只处理一个 Pod" in _css(driver, "#step-body").text
    assert _css(driver, "#q-first-pod .prompt").text == zh.question("first-pod").prompt

    _next_step(driver)
    labels = [
        label.text
        for label in driver.find_elements("css selector", "#q-reject-node-3 .choices label")
    ]
    assert labels == ["NodeResourcesFit", "TaintToleration", "NodeAffinity", "无"]
    _, explanation = _answer(driver, "reject-node-3", "none")
    assert explanation == zh.question("reject-node-3").explanation
    with _viewport_1280x800(driver):
        driver.execute_script("window.scrollTo(0, 0)")
        overlaps = _shoot_and_check(driver, ARTIFACTS / "lesson-01-zh-1280x800.png", 40)
    assert overlaps == []


def test_the_course_page_lists_the_lessons_and_glossary_in_chinese(zh_browser, live_server):
    driver = zh_browser
    driver.delete_all_cookies()
    driver.get(live_server.url + "/lessons/")
    titles = [a.text for a in driver.find_elements("css selector", "#lessons td a")]
    assert titles[:3] == ["调度周期一览", "Filter：资源、资源请求与资源限制", "污点和容忍度"]
    term = _css(driver, "#term-scheduling-queue")
    assert term.find_element("css selector", "dt").text == "调度队列"
    with _viewport_1280x800(driver):
        driver.execute_script("window.scrollTo(0, 0)")
        overlaps = _shoot_and_check(driver, ARTIFACTS / "course-zh-1280x800.png", 40)
    assert overlaps == []
