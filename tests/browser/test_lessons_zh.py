"""Lesson 1 in Simplified Chinese: a first visit from a browser whose language is zh-CN reads the
lesson, its questions and the explanations in Chinese; photographed at 1280x800."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import chromium
from test_lessons import ARTIFACTS, _answer, _css, _next_step, _shoot_and_check, _viewport_1280x800

from playground.lessons.languages import in_language
from playground.lessons.loader import lesson_by_slug

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def zh_browser():
    """Headless Chromium whose language is Chinese (it sends Accept-Language: zh-CN)."""
    with chromium(lang="zh-CN") as driver:
        yield driver


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
