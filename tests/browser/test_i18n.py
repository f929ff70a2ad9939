"""The interface in Simplified Chinese, in headless Chromium at 1280x800.

A browser set to Chinese (``--lang=zh-CN`` and ``intl.accept_languages``) gets the pages in
Chinese on its first visit; the header's switch changes the language and the choice stays on the
next pages; the run page and the profile form in Chinese keep every button, heading, label and
header cell's text inside its box. Screenshots go to tests/artifacts/i18n-*-zh-1280x800.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import bulk_store, left_page, make_node, make_pod, record_run
from conftest import chromium
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Profile

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
WAIT = 30

# Elements whose text must fit their box. Inline elements have no box of their own (clientWidth 0)
# and are left out, as are hidden ones and the node and pod names the tables cut with an ellipsis
# on purpose (in English too; the title holds the whole name).
_OVERFLOW_JS = """
return [...document.querySelectorAll(arguments[0])].filter((e) => {
  const style = getComputedStyle(e);
  if (!e.getClientRects().length || style.display === 'inline') return false;
  if (style.textOverflow === 'ellipsis') return false;  // names cut on purpose, whole in the title
  return e.scrollWidth > e.clientWidth + 1;
}).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: `
  + `${e.textContent.trim().slice(0, 60)} (${e.scrollWidth} > ${e.clientWidth})`);
"""
_BOXES = "button, .button, h1, h2, h3, h4, th, label, legend, summary, #timeline td, .stepper span"


@pytest.fixture(scope="module")
def zh_browser():
    """A second Chromium whose user asks for Chinese first, as a browser set to Chinese does."""
    with chromium(size=(1280, 800), lang="zh-CN") as driver:
        yield driver


@pytest.fixture
def zh(zh_browser, live_server):
    """The Chinese browser with a fresh session at 1280x800 (the page's own viewport)."""
    zh_browser.delete_all_cookies()
    zh_browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
    )

    class Page:
        driver = zh_browser
        base = live_server.url

        def open(self, path: str) -> None:
            zh_browser.get(self.base + path)

        def log_in(self, user) -> None:
            from django.test import Client

            client = Client()
            client.force_login(user)
            self.open("/static/playground/run.css")
            zh_browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})

    yield Page()
    zh_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def _wait(driver, condition, timeout=WAIT):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
    return wait.until(condition)


def _css(driver, css):
    return driver.find_element("css selector", css)


def _js(driver, script, *args):
    return driver.execute_script(script, *args)


def _lang(driver):
    return _js(driver, "return document.documentElement.lang;")


def _shot(driver, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / name))


def _no_overflow(driver, where):
    overflowing = _js(driver, _OVERFLOW_JS, _BOXES)
    assert overflowing == [], where
    page = _js(driver, "return [document.documentElement.scrollWidth, window.innerWidth];")
    assert page[0] <= page[1], f"{where}: the page scrolls sideways"


def _switch(driver, label):
    old = _css(driver, "html")
    button = next(
        b
        for b in driver.find_elements("css selector", "#language-switch button")
        if b.text == label
    )
    button.click()
    _wait(driver, left_page(old))


def _listed(driver, names):
    """The scripts' own listed() (static/playground/i18n.js), imported as the page's modules do."""
    return driver.execute_async_script(
        "const [names, done] = arguments;"
        "import('/static/playground/i18n.js').then((m) => done(m.listed(names)));",
        names,
    )


def test_a_first_visit_in_chinese_reads_the_home_page_in_chinese(zh):
    driver = zh.driver
    zh.open("/")
    assert _lang(driver) == "zh-hans"
    assert _css(driver, "#home-start h1").text == "第一次接触 kube-scheduler？"
    assert _css(driver, "#start-course").text == "从第 1 课开始：调度周期"
    assert [h.text for h in driver.find_elements("css selector", "main section > h1")][1:] == [
        "集群",
        "调度器配置",
    ]
    assert _css(driver, "header nav").text.endswith("登录 注册")
    current = _css(driver, "#language-switch [aria-current=true]")
    assert current.text == "简体中文" and current.get_attribute("value") == "zh-hans"
    # The scripts read the same language: the JavaScript catalog loaded under the CSP.
    assert _js(driver, "return gettext('Verdict');") == "结论"
    # Names in a sentence are listed with the enumeration comma.
    assert _listed(driver, ["n1", "n2", "n3"]) == "n1、n2、n3"
    _no_overflow(driver, "home")
    _shot(driver, "i18n-home-zh-1280x800.png")


def test_the_switch_changes_the_language_and_it_stays(zh, page):
    driver = zh.driver
    zh.open("/lessons/")
    assert _lang(driver) == "zh-hans"
    _switch(driver, "English")
    assert _lang(driver) == "en"
    assert driver.current_url.endswith("/lessons/"), "the switch stays on the page"
    assert _css(driver, "#lessons-title").text == "Lessons"
    # The next pages stay in English though the browser asks for Chinese first.
    zh.open("/")
    assert _lang(driver) == "en"
    assert _css(driver, "#start-course").text == "Start with lesson 1: the scheduling cycle"
    assert _listed(driver, ["n1", "n2"]) == "n1, n2"
    zh.open("/accounts/login/")
    assert _css(driver, "main h1").text == "Log in"

    # An English browser's switch to Chinese stays too.
    english = page.driver
    page.open("/")
    assert _lang(english) == "en"
    _switch(english, "简体中文")
    assert _lang(english) == "zh-hans"
    page.open("/lessons/")
    assert _lang(english) == "zh-hans"
    assert _css(english, "#lessons-title").text == "课程列表"
    _switch(english, "English")
    assert _lang(english) == "en"


def _six_nodes(owner):
    nodes = [
        make_node(f"worker-{zone}-general-purpose-{i}", cpu=str(4 + 4 * (i % 2)), memory="16Gi")
        for i, zone in enumerate(("zone-a", "zone-b", "zone-c", "zone-a", "zone-b", "zone-c"))
    ]
    pods = [make_pod(f"web-frontend-{i}", cpu="500m", memory="1Gi") for i in range(4)]
    pods.append(make_pod("analytics-batch-huge", cpu="64", memory="512Gi"))
    cluster = services.cluster_create(owner=owner, name="Six nodes")
    return bulk_store(cluster, [*nodes, *pods])


def test_the_run_page_in_chinese_keeps_its_text_in_its_boxes(zh, django_user_model):
    demo_load()
    user = django_user_model.objects.create_user("lin", password="unused-pass-123")
    run, _, _ = record_run(_six_nodes(user), Profile.objects.get(name="Default"), user=user)
    driver = zh.driver
    zh.log_in(user)
    zh.open(reverse("playground:run", args=[run.pk]))
    assert _lang(driver) == "zh-hans"
    _wait(driver, lambda d: _js(d, "return !!(window.runState && runState.detail);"))
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('usage-pods').data;"))
    _wait(driver, lambda d: _js(d, "return !!document.getElementById('combine').data;"))
    # The page's own words and the scripts' are Chinese; the engine's names stay as upstream's.
    assert _css(driver, "#cycle-title").text.startswith("周期 1：")
    assert _css(driver, "#step-first").text == "第一步"
    status = _css(driver, "#run-status")
    assert status.text == "已成功" and status.get_attribute("data-status") == "succeeded"
    assert _css(driver, "#filter-matrix thead th:last-child").text == "结论"
    assert _css(driver, "#step-position").text.startswith("第 1 / ")
    assert _js(driver, "return document.getElementById('combine').layout.title.text;") == (
        "各节点的加权分数"
    )
    assert "Filter" in _css(driver, "#framework").text
    _js(driver, "window.scrollTo(0, 0);")
    _shot(driver, "i18n-run-zh-1280x800.png")
    _no_overflow(driver, "run page")
    # The last step shows every panel (nothing greyed out), the score table's headers included.
    _js(driver, "document.getElementById('step-last').click();")
    _wait(driver, lambda d: _css(d, "#score-table thead th").text == "节点")
    _no_overflow(driver, "run page, last step")


def test_the_profile_form_in_chinese_keeps_its_text_in_its_boxes(zh, django_user_model):
    user = django_user_model.objects.create_user("mei", password="unused-pass-123")
    driver = zh.driver
    zh.log_in(user)
    zh.open("/profiles/new/")
    assert _lang(driver) == "zh-hans"
    assert _css(driver, "main h1").text == "新建调度器配置"
    assert _css(driver, "#save").text == "保存配置"
    assert _css(driver, "#add-profile").text == "再添加一个调度方案（profile）"
    assert [h.text for h in driver.find_elements("css selector", ".profile-entry h3")] == [
        "插件",
        "插件参数",
    ]
    _no_overflow(driver, "profile form")
    _shot(driver, "i18n-profile-form-zh-1280x800.png")
