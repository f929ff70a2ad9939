"""The run page explains its numbers: a score cell's formula, the winner, the preemption."""

from __future__ import annotations

import re

import pytest
from test_runs import (  # noqa: F401 (fixtures)
    _click,
    _css,
    _cycle_events,
    _start,
    _wait,
    daphne_url,
    site,
)

from playground.models import Run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIT_RAW = (
    '#score-table tbody tr:first-child td.explain-cell[data-plugin="NodeResourcesFit"]'
    '[data-mode="{mode}"]'
)


def _text(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css
    )


def _finished_run(site, cluster):  # noqa: F811
    _start(site, cluster, "Default")
    _wait(site.driver, lambda d: _css(d, "#run-status").text == "succeeded")
    return Run.objects.get()


def test_a_score_cell_explains_its_formula_with_the_same_value(site):  # noqa: F811
    driver = site.driver
    run = _finished_run(site, "Three zones")
    _wait(driver, lambda d: _text(d, FIT_RAW.format(mode="raw")) is not None)
    node = driver.execute_script(
        "return document.querySelector('#score-table tbody tr:first-child').dataset.node;"
    )
    fit = next(
        e
        for e in _cycle_events(run, 1)
        if e["type"] == "Score" and e["plugin"] == "NodeResourcesFit"
    )
    at = fit["nodes"].index(node)
    # The table shows the three values side by side, as recorded.
    for mode in ("raw", "normalized", "weighted"):
        assert _text(driver, FIT_RAW.format(mode=mode)) == str(fit[mode][at])

    cell = _text(driver, FIT_RAW.format(mode="raw"))
    _click(driver, FIT_RAW.format(mode="raw"))
    shown = "#explain-panel .explanation.matches-cell"
    _wait(driver, lambda d: _text(d, f"{shown} .explain-value") is not None)
    assert _css(driver, "#explain-panel").is_displayed()
    assert _text(driver, f"{shown} h4") == f"Score · NodeResourcesFit · {node}"
    assert _text(driver, f"{shown} .explain-value") == cell
    formula = _text(driver, f"{shown} .explain-formula code")
    # LeastAllocated per resource with the node's numbers, then the weighted mean: the cell.
    cpu = re.search(r"cpu: \((\d+)m − (\d+)m\) × 100 / \1m = (\d+)", formula)
    assert cpu, formula
    allocatable, requested, score = (int(g) for g in cpu.groups())
    assert (allocatable - requested) * 100 // allocatable == score
    assert formula.endswith(f"= {cell} (integer division)")
    resources = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((td) => td.textContent);",
        f"{shown} .explain-inputs td[data-key=resource]",
    )
    assert "cpu" in resources and "memory" in resources

    # The normalized cell's explanation ends on the normalized value; Esc closes the panel.
    _click(driver, FIT_RAW.format(mode="normalized"))
    _wait(
        driver,
        lambda d: _text(d, f"{shown} h4") == f"NormalizeScore · NodeResourcesFit · {node}",
    )
    assert _text(driver, f"{shown} .explain-value") == str(fit["normalized"][at])
    from selenium.webdriver.common.keys import Keys

    _css(driver, "#explain-panel").send_keys(Keys.ESCAPE)
    _wait(driver, lambda d: not _css(d, "#explain-panel").is_displayed())

    # A filter cell opens with Enter and shows its verdict.
    filter_cell = (
        f'#filter-matrix tr[data-node="{node}"] td.explain-cell[data-plugin="NodeResourcesFit"]'
    )
    driver.execute_script(
        "const e = document.querySelector(arguments[0]); e.scrollIntoView({block: 'center'});"
        "e.focus();",
        filter_cell,
    )
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    _wait(driver, lambda d: _text(d, f"{shown} .explain-value") == "✓ Success")
    assert _text(driver, f"{shown} h4") == f"Filter · NodeResourcesFit · {node}"

    # A node's name explains all its steps; the summary's total is the table's.
    total = _text(driver, f'#score-table tr[data-node="{node}"] td.total')
    _click(driver, f'#score-table tr[data-node="{node}"] button.explain-node')
    _wait(driver, lambda d: _text(d, "#explain-node-summary tfoot td.total") == total)
    points = driver.execute_script(
        "return [...document.querySelectorAll('#explain-body .explanation')]"
        ".map((s) => s.dataset.point);"
    )
    assert {"Filter", "Score", "NormalizeScore", "Weight", "Combine"} <= set(points)


def test_combine_names_the_plugins_that_decided(site):  # noqa: F811
    driver = site.driver
    run = _finished_run(site, "Three zones")
    combines = [
        (cycle, e)
        for cycle in range(1, 7)
        for e in _cycle_events(run, cycle)
        if e["type"] == "Combine" and e.get("scored", True)
    ]
    cycle, combine = next((c, e) for c, e in combines if len(e["top"]) == 1)
    totals = dict(zip(combine["nodes"], combine["totals"], strict=True))
    winner = combine["selected"]
    runner = sorted((n for n in totals if n != winner), key=lambda n: (-totals[n], n))[0]
    diffs = {}
    for ev in _cycle_events(run, cycle):
        if ev["type"] == "Score":
            w = dict(zip(ev["nodes"], ev["weighted"], strict=True))
            if w[winner] != w[runner]:
                diffs[ev["plugin"]] = w[winner] - w[runner]
    assert diffs
    driver.get(driver.current_url.split("#")[0] + f"#cycle={cycle}")
    expected = f"{winner} won by {totals[winner] - totals[runner]} over {runner}"
    _wait(driver, lambda d: _css(d, "#winner").text.startswith(expected))
    text = _css(driver, "#winner").text
    biggest = max(diffs, key=lambda p: (abs(diffs[p]), [-ord(c) for c in p]))
    sign = "+" if diffs[biggest] > 0 else "−"
    assert text.split(": ", 1)[1].startswith(f"{biggest} {sign}{abs(diffs[biggest])}")
    for plugin in diffs:
        assert plugin in text

    # A tie says how many nodes tied and the engine's tie rule.
    tie_cycle, tie = next(((c, e) for c, e in combines if len(e["top"]) > 1), (None, None))
    if tie_cycle is not None:
        driver.get(driver.current_url.split("#")[0] + f"#cycle={tie_cycle}")
        _wait(driver, lambda d: "tied at" in _css(d, "#winner").text)
        assert _css(driver, "#winner").text.startswith(
            f"{len(tie['top'])} nodes tied at {totals_of(tie)[tie['selected']]}: "
            f"{', '.join(tie['top'])}; picked {tie['selected']}"
        )


def totals_of(combine):
    return dict(zip(combine["nodes"], combine["totals"], strict=True))


def test_preemption_shows_the_victims_and_the_candidate_ordering(site):  # noqa: F811
    from scheduler_core.framework.preemption import CANDIDATE_CRITERIA

    driver = site.driver
    run = _finished_run(site, "Preemption scenario")
    post = next(e for e in _cycle_events(run, 1) if e["type"] == "PostFilter")
    chosen = post["nominated_node"]
    assert chosen and len(post["candidates"]) == 2
    _wait(driver, lambda d: _text(d, "#preemption-criteria") is not None)

    victims = driver.execute_script(
        "return [...document.querySelectorAll('#candidates[data-detailed] li[data-pod]')].map("
        "(li) => [li.closest('tr').dataset.node, li.dataset.pod,"
        " li.querySelector('.priority').textContent]);"
    )
    recorded = sorted((c["node"], v) for c in post["candidates"] for v in c["victims"])
    assert sorted((n, p) for n, p, _ in victims) == recorded
    # The batch pods run under PriorityClass "low".
    assert {prio for _, _, prio in victims} == {"100"}

    criteria = driver.execute_script(
        "return [...document.querySelectorAll('#preemption-criteria tbody tr')].map((r) =>"
        " [r.dataset.criterion, r.classList.contains('decided')]);"
    )
    names = [c for c, _ in criteria]
    assert names[: len(CANDIDATE_CRITERIA)] == [name for name, _ in CANDIDATE_CRITERIA]
    # The two candidates tie on every criterion: the first by name is taken, and said so.
    assert criteria[-1] == ["first", True]
    assert f"{chosen} — decided here" in _text(driver, "#preemption-criteria tbody tr:last-child")
    assert "(chosen)" in _text(driver, f'#candidates tr[data-node="{chosen}"] th')
    assert len(driver.find_elements("css selector", "#candidates")) == 1
    # The other candidate's reprieve walk is there too, folded (issue 32 item 7).
    other = next(c["node"] for c in post["candidates"] if c["node"] != chosen)
    walk = f'details.victim-walk[data-node="{other}"]'
    assert _text(driver, f"{walk} summary").startswith(f"On {other}: ")
    driver.execute_script("document.querySelector(arguments[0]).open = true;", walk)
    steps = driver.find_elements("css selector", f"{walk} ol.victim-steps li")
    assert steps and steps[0].get_attribute("class") == "removed"
    assert sum(s.get_attribute("class") == "victim" for s in steps) == len(
        next(c for c in post["candidates"] if c["node"] == other)["victims"]
    )

    # The eviction sits in the cycle list, after the cycle that caused it.
    row = '#timeline tr.eviction[data-evicted-by="1"]'
    _wait(driver, lambda d: _text(d, row) is not None)
    assert f"{post['victims'][0]} from {chosen}" in _text(driver, row)
    following = driver.execute_script(
        "return document.querySelector(arguments[0]).previousElementSibling.dataset.cycle;", row
    )
    assert following == "1"
