"""The Content-Security-Policy holds in Chromium: the pages' scripts run and nothing is blocked."""

from __future__ import annotations

import pytest
from test_runs import _css, _start, _wait, daphne_url, site  # noqa: F401  (fixtures used below)

from playground.models import Profile, Run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Installed before any page script: collects every violation the browser reports.
_LISTENER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = e.sourceFile + ":" + e.lineNumber + ":" + e.columnNumber;
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + where);
});
"""


def _violations(driver):
    return driver.execute_script("return window.__csp || ['listener missing'];")


def test_run_page_profile_editor_and_compare_page_break_no_csp_rule(site):  # noqa: F811
    driver = site.driver
    added = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _LISTENER})
    try:
        _check_pages(site)
    finally:
        # Leave the shared browser as found: no listener, no page that reloads itself.
        driver.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]}
        )
        site.open("/static/playground/run.css")
        driver.delete_all_cookies()


def _check_pages(live):
    driver = live.driver

    _start(live, "Three zones", "Default")
    _wait(driver, lambda d: _css(d, "#run-status").text == "succeeded")
    _wait(driver, lambda d: d.execute_script("return !!document.getElementById('heatmap').data"))
    assert _violations(driver) == [], "\n".join(_violations(driver))

    profile = Profile.objects.filter(is_demo=True).first()
    for path in (f"/profiles/{profile.pk}/", "/profiles/new/"):
        live.open(path)
        _wait(driver, lambda d: d.find_elements("css selector", "form [name=name]"))
        assert _violations(driver) == [], path

    _start(live, "Three zones", "Default", compare_with=profile.name)
    _wait(driver, lambda d: d.find_elements("css selector", "#compare-runs"))
    _wait(driver, lambda d: Run.objects.filter(status="succeeded").count() >= 3, timeout=30)
    assert _violations(driver) == []
