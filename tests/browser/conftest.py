"""Headless Chromium through Selenium; skipped when missing locally, a failure when CI is set."""

from __future__ import annotations

import os
import shutil
import tempfile

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


@pytest.fixture(scope="session")
def browser():
    problem = _missing()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run in CI: {problem}")
        pytest.skip(problem)
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
        "--window-size=1400,1000",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser, live_server):
    """The browser with a fresh session, and a helper to open paths on the live server."""
    browser.delete_all_cookies()

    class Page:
        driver = browser
        base = live_server.url

        def open(self, path: str) -> None:
            browser.get(self.base + path)

    return Page()
