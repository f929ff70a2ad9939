"""Headless Chromium through Selenium; skipped when missing locally, a failure when CI is set."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _missing() -> str | None:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed"
    return None


def require_chromium() -> None:
    """Skip (locally) or fail (in CI) when headless Chromium cannot run here."""
    problem = _missing()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run in CI: {problem}")
        pytest.skip(problem)


# Every Chromium running now, and the script errors of those already quit since the last check.
_running: list[Any] = []
_errors_of_quit: list[str] = []


def script_errors(driver: Any) -> list[str]:
    """The uncaught exceptions (and rejected promises) the pages' scripts raised in ``driver``
    since the last call. Failed requests and closed sockets are not script errors."""
    try:
        entries = driver.get_log("browser")
    except Exception:  # the browser is gone
        return []
    return [
        str(e.get("message", ""))
        for e in entries
        if e.get("level") == "SEVERE" and "Uncaught" in str(e.get("message", ""))
    ]


@pytest.fixture(autouse=True)
def no_script_errors() -> Iterator[None]:
    """A browser test fails when a page's script threw: the page may look right at the moment
    the test reads it and still be broken for the next click."""
    for driver in list(_running):
        script_errors(driver)  # what earlier tests left
    _errors_of_quit.clear()
    yield
    errors = [*_errors_of_quit, *(m for d in list(_running) for m in script_errors(d))]
    _errors_of_quit.clear()
    assert not errors, "a page's script threw:\n" + "\n".join(errors)


@contextlib.contextmanager
def chromium(*, size: tuple[int, int] = (1400, 1000), lang: str | None = None) -> Iterator[Any]:
    """A headless Chromium with a profile of its own, quit and removed after; ``lang`` (e.g.
    "zh-CN") makes it a browser set to that language (UI and Accept-Language)."""
    require_chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-test-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={size[0]},{size[1]}",
        f"--user-data-dir={profile}",
        *([f"--lang={lang}"] if lang else []),
    ):
        options.add_argument(arg)
    if lang:
        accept = ",".join(dict.fromkeys([lang, lang.split("-")[0]]))
        options.add_experimental_option("prefs", {"intl.accept_languages": accept})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # for no_script_errors
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    _running.append(driver)
    try:
        yield driver
    finally:
        _running.remove(driver)
        _errors_of_quit.extend(script_errors(driver))
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def browser():
    with chromium() as driver:
        yield driver


@pytest.fixture
def page(browser, live_server):
    """The browser with a fresh session, and a helper to open paths on the live server."""
    # Leave the last test's page first: its pollers and frames could otherwise answer
    # after the cookies are cleared and set a CSRF cookie the next page's forms do not hold.
    browser.get("about:blank")
    # WebDriver's delete_all_cookies only reaches the open page's site: clear them all.
    browser.execute_cdp_cmd("Network.clearBrowserCookies", {})

    class Page:
        driver = browser
        base = live_server.url

        def open(self, path: str) -> None:
            browser.get(self.base + path)

    return Page()
