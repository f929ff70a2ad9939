"""The explanation panel in Chinese: upstream's reason stays English, its meaning beside it."""

from __future__ import annotations

import pytest
from test_run_explain import _finished_run, _text
from test_runs import _click, _wait, daphne_url, site  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The trainer's cycle: the CPU nodes have no GPU (NodeResourcesFit's reason, as kubectl says it).
REASON = "Insufficient nvidia.com/gpu"


def test_a_rejected_node_reads_the_english_reason_and_its_chinese_note(site):  # noqa: F811
    driver = site.driver
    _finished_run(site, "GPU pool behind taints")
    # The language switch's cookie: the page and its explanations come back in Chinese.
    driver.add_cookie({"name": "django_language", "value": "zh-hans"})
    try:
        driver.refresh()
        mark = (
            "const td = [...document.querySelectorAll('#filter-matrix tbody tr td.verdict')]"
            ".find((e) => e.textContent.includes(arguments[0]));"
            "if (td) td.dataset.picked = '1'; return Boolean(td);"
        )
        _wait(driver, lambda d: d.execute_script(mark, "(NodeResourcesFit)"))
        _click(driver, '#filter-matrix tbody tr td.verdict[data-picked="1"]')
        shown = "#explain-panel .explanation.matches-cell"
        _wait(driver, lambda d: _text(d, f"{shown} .explain-reason-note") is not None)
        assert REASON in _text(driver, f"{shown} .explain-value")
        assert _text(driver, f"{shown} .explain-reason-note") == (
            "节点的 cpu、memory、nvidia.com/gpu 可分配量减去其上 Pod 已有的资源请求后，少于该 Pod "
            "的资源请求（计算的是资源请求，而不是实际用量）。"
        )
        assert f"{REASON}：Pod 请求 2，节点空闲 0" in _text(driver, f"{shown} .explain-text")
        driver.save_screenshot("tests/artifacts/zh-explain-reason-note.png")
    finally:
        driver.delete_cookie("django_language")
