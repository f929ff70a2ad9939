"""Every kind of run explains itself in Chromium: a run with cluster changes (lesson 12), custom
CEL plugins (Blinking lights), an extender (lesson 13), preemption's victim choice, Permit's
answers in the cycle list and a run whose every cycle errored. Screenshots at 1280x800 go to
tests/artifacts/ (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from test_runs import (  # noqa: F401 (fixtures)
    _click,
    _css,
    _cycle_events,
    _start,
    _wait,
    daphne_url,
    site,
)

from playground.custom_plugins import services as plugin_services
from playground.management import explain_check
from playground.models import Run
from playground.profiles import services as profile_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SHOWN = "#explain-panel .explanation.matches-cell"
EXTENDER = "Extender:http://127.0.0.1:18913/sample-extender"


@pytest.fixture
def small(site):  # noqa: F811
    """The site in a 1280x800 window (a laptop's), put back afterwards."""
    before = site.driver.get_window_size()
    site.driver.set_window_size(1280, 800)
    yield site
    site.driver.set_window_size(before["width"], before["height"])


def _text(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css
    )


def _texts(driver, css):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent);", css
    )


def _run(site, label, django_user_model, cycle=1) -> Run:  # noqa: F811
    """The run explain_check builds for ``label`` (through the services, to its end), shown to
    the browser's user at ``cycle``."""
    spec = next(s for s in explain_check.specs() if s.label == label)
    run = explain_check.build_run(spec, owner="browser")
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    runner = django_user_model.objects.get(username="runner")
    Run.objects.filter(pk=run.pk).update(started_by=runner)
    site.open(reverse("playground:run", args=[run.pk]) + f"#cycle={cycle}")
    _wait(site.driver, lambda d: _css(d, "#run-status").text == "succeeded")
    return run


def _explained(driver, cell):
    """Click ``cell`` and wait for its explanation; fail on the panel's error text."""
    _wait(driver, lambda d: _text(d, cell) is not None)
    _click(driver, cell)
    _wait(
        driver,
        lambda d: (
            _text(d, f"{SHOWN} .explain-value") is not None
            or (_text(d, "#explain-status") or "").startswith("No explanation")
        ),
    )
    status = _text(driver, "#explain-status")
    assert not status.startswith("No explanation"), status
    return _text(driver, f"{SHOWN} .explain-value")


def _shot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / name))


def test_lesson_12_cycle_3_after_a_node_was_added_is_explained(small, django_user_model):
    driver = small.driver
    run = _run(small, "check: lesson 12 / default", django_user_model, cycle=3)
    start = next(e for e in _cycle_events(run, 3) if e["type"] == "CycleStart")
    score = next((e for e in _cycle_events(run, 3) if e["type"] == "Score"), None)
    _wait(driver, lambda d: d.execute_script("return window.RunPage.state.selected") == 3)
    if score is not None:
        node, raw = score["nodes"][0], score["raw"][0]
        cell = (
            f'#score-table tr[data-node="{node}"] td.explain-cell'
            f'[data-plugin="{score["plugin"]}"][data-mode="raw"]'
        )
        assert _explained(driver, cell) == str(raw)
    else:
        node = start["nodes"][-1]
        cell = f'#filter-matrix tr[data-node="{node}"] td.explain-cell'
        assert _explained(driver, cell)
    _shot(driver, "explain-lesson-12-cycle-3.png")


def test_a_custom_plugin_shows_its_expression_the_fields_it_read_and_its_value(
    small, django_user_model
):
    driver = small.driver
    run = _run(small, "check: Blinking lights / Custom plugins", django_user_model)
    score = next(
        e for e in _cycle_events(run, 1) if e["type"] == "Score" and e["plugin"] == "BlinkingLight"
    )
    node = next(n for n, raw in zip(score["nodes"], score["raw"], strict=True) if raw > 0)
    raw = score["raw"][score["nodes"].index(node)]
    row = f'#score-table tr[data-node="{node}"]'
    cell = f'{row} td.explain-cell[data-plugin="BlinkingLight"][data-mode="raw"]'
    assert _explained(driver, cell) == str(raw)
    expression = _text(driver, f"{SHOWN} pre.explain-expression code")
    assert "example.com/blinking-lights" in expression
    # The field it read, as the expression names it, with the node's (string) label value.
    reads = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((r) =>"
        " [r.dataset.key, r.querySelector('td').textContent]);",
        f"{SHOWN} table.explain-reads tbody tr",
    )
    assert ['node.labels["example.com/blinking-lights"]', f'"{raw}"'] in reads
    assert f"= {raw}" in _text(driver, f"{SHOWN} .explain-formula code")
    _shot(driver, "explain-custom-plugin-score.png")

    # Its NormalizeScore: every scored node before and after, this node marked.
    cell = f'{row} td.explain-cell[data-plugin="BlinkingLight"][data-mode="normalized"]'
    normalized = score["normalized"][score["nodes"].index(node)]
    _click(driver, cell)
    _wait(driver, lambda d: _text(d, f"{SHOWN} .explain-normalize") is not None)
    this = f"{SHOWN} .explain-normalize tr.this-node"
    assert _texts(driver, f"{this} td") == [str(raw), str(normalized)]
    assert len(_texts(driver, f"{SHOWN} .explain-normalize tbody tr")) == len(score["nodes"])
    _shot(driver, "explain-custom-plugin-normalize.png")

    # Its filter: the expression and what it gave.
    cell = f'{row} td.explain-cell[data-plugin="MaintenanceFilter"]'
    assert _explained(driver, cell.replace("#score-table", "#filter-matrix")) == "✓ Success"
    assert "example.com/maintenance" in _text(driver, f"{SHOWN} pre.explain-expression")
    assert _text(driver, f"{SHOWN} .explain-cel-value code") == "true"


def test_the_extenders_cell_shows_raw_times_weight_times_ten(small, django_user_model):
    driver = small.driver
    run = _run(small, "check: lesson 13 / default", django_user_model)
    events = _cycle_events(run, 1)
    ext = next(e for e in events if e["type"] == "Score" and e["plugin"] == EXTENDER)
    end = next(e for e in events if e["type"] == "CycleEnd")
    winner = end["node"]
    at = ext["nodes"].index(winner)
    # `manage.py lessons --show 13`: node-3 wins, the extender answered 7, weight 2.
    assert (winner, ext["raw"][at], ext["weighted"][at]) == ("node-3", 7, 140)
    cell = (
        f'#score-table tr[data-node="{winner}"] td.explain-cell'
        f'[data-plugin="{EXTENDER}"][data-mode="weighted"]'
    )
    assert _explained(driver, cell) == "140"
    assert _text(driver, "#extender-sum .extender-sum-line") == "raw 7 × weight 2 × 10 = 140"
    weight = '#explain-panel .explanation[data-point="Weight"] .explain-formula code'
    assert _text(driver, weight) == "7 × 2 × 10 = 140"
    # The reply: every host's priority, the winner's marked.
    priorities = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((r) =>"
        " [r.dataset.node, r.querySelector('td').textContent, r.className]);",
        "#explain-panel .explain-host-priorities tbody tr",
    )
    assert [n for n, _, _ in priorities] == ext["nodes"]
    assert [winner, "7", "this-node"] in priorities
    _shot(driver, "explain-extender-weighted.png")

    # The node the extender's filter failed: its reply names the node and the reason.
    rejected = next(
        n
        for n, code in zip(
            next(e for e in events if e["type"] == "CycleStart")["nodes"],
            next(e for e in events if e["type"] == "Filter" and not e["plugin"])["codes"],
            strict=True,
        )
        if code not in (None, "Success")
    )
    # The extender has no column of its own in the matrix: the row's verdict explains it.
    cell = f'#filter-matrix tr[data-node="{rejected}"] td.verdict'
    assert _explained(driver, cell) == "✗ node is draining"
    assert _text(driver, f"{SHOWN} h4") == f"Filter · Extender · {rejected}"
    failed = _texts(driver, f"{SHOWN} .explain-failed-nodes tbody tr th")
    assert failed == [rejected]
    assert _text(driver, f"{SHOWN} .explain-failed-nodes tbody td")
    _shot(driver, "explain-extender-filter.png")


def test_preemption_says_why_its_victim_set(small, django_user_model):
    driver = small.driver
    run = _run(small, "check: Preemption scenario / Default", django_user_model)
    post = next(e for e in _cycle_events(run, 1) if e["type"] == "PostFilter")
    _wait(driver, lambda d: _text(d, "#victim-selection") is not None)
    steps = driver.execute_script(
        "return [...document.querySelectorAll('#victim-selection li')].map((li) =>"
        " [li.className, li.dataset.pod, li.textContent]);"
    )
    assert steps, "no victim selection steps"
    victims = {pod for cls, pod, _ in steps if cls == "victim"}
    assert victims == set(post["victims"])
    assert all(text for _, _, text in steps)
    # The paragraph above the steps does not say them a second time.
    paragraph = _text(driver, "#preemption-text")
    assert paragraph and not any(text in paragraph for _, _, text in steps)
    driver.execute_script(
        "document.querySelector('#victim-selection').scrollIntoView({block: 'center'})"
    )
    _shot(driver, "explain-preemption-victims.png")


def test_permit_rejections_read_as_such_in_the_cycle_list(small, django_user_model):
    driver = small.driver
    run = _run(small, "check: Approval gate / Approval gate", django_user_model)
    rejected = [
        e
        for e in _all_events(run)
        if e["type"] == "Permit" and e.get("code") not in ("Success", "Wait")
    ]
    assert rejected, "the check's answerer rejects every second pod"
    pod = rejected[0]["pod"].split("/", 1)[1]
    _wait(driver, lambda d: any("Rejected at Permit" in t for t in _texts(d, "#timeline td")))
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#timeline tbody tr[data-cycle]')].map((r) =>"
        " [...r.cells].map((c) => c.textContent).concat([r.cells[2].title]));"
    )
    row = next(r for r in rows if r[1] == pod and "Rejected" in r[4])
    # In short in the narrow column, in full on hover.
    assert row[2] == "Rejected at Permit"
    assert row[5] == f"Rejected at Permit ({rejected[0]['plugin']}): rejected by a user"
    assert not any(r[2] == "Scheduled" and r[4] == "Rejected" for r in rows)
    _shot(driver, "cycle-list-permit-rejected.png")


def _all_events(run):
    from playground.runs import selectors

    return selectors.run_events(run=run)


def test_a_node_filter_never_reached_says_why(small, django_user_model):
    driver = small.driver
    runner = django_user_model.objects.get(username="runner")
    plugin_services.custom_plugin_save(
        owner=runner,
        definition={"name": "MyFilter", "points": {"filter": 'node.labels["nope"] == "x"'}},
    )
    config = {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"filter": {"enabled": [{"name": "MyFilter"}]}},
            }
        ]
    }
    profile_services.profile_create(owner=runner, name="always errors", config=config)
    _start(small, "Blinking lights", "always errors")
    _wait(driver, lambda d: _css(d, "#run-status").text == "failed")
    run = Run.objects.get(profile__name="always errors")
    start = next(e for e in _cycle_events(run, 1) if e["type"] == "CycleStart")
    driver.get(driver.current_url.split("#")[0] + "#cycle=1")
    _wait(driver, lambda d: (_text(d, "#cycle-sampling") or "").startswith("Filter evaluated"))
    sampling = _text(driver, "#cycle-sampling")
    # The sentence agrees with the rows: as many evaluated as the rows that are not "not
    # evaluated", and the Error named.
    verdicts = _texts(driver, "#filter-matrix tbody tr td.verdict")
    unreached = [v for v in verdicts if v == "not evaluated"]
    assert unreached and len(verdicts) == len(start["nodes"])
    done = len(verdicts) - len(unreached)
    said = "none" if done == 0 else f"only {done}"
    assert sampling.startswith(
        f"Filter evaluated {said} of {len(verdicts)} nodes: the cycle ended in an Error"
    ), sampling
    node = driver.execute_script(
        "return [...document.querySelectorAll('#filter-matrix tbody tr')].find((r) =>"
        " r.querySelector('td.verdict').textContent === 'not evaluated').dataset.node;"
    )
    verdict = f'#filter-matrix tr[data-node="{node}"] td.verdict'
    assert _explained(driver, verdict) == "not evaluated"
    why = _text(driver, f"{SHOWN} .explain-why")
    assert why.startswith("Why not evaluated: The cycle ended with an Error before Filter")
    assert "MyFilter" in why
    _shot(driver, "explain-not-evaluated.png")

    # From the keyboard too: Escape closes the panel and gives the verdict the focus back,
    # Enter on it explains it again.
    from selenium.webdriver.common.keys import Keys

    _css(driver, "#explain-panel").send_keys(Keys.ESCAPE)
    _wait(driver, lambda d: not _css(d, "#explain-panel").is_displayed())
    assert driver.switch_to.active_element.get_attribute("class") == "verdict"
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    _wait(driver, lambda d: _text(d, f"{SHOWN} .explain-why") == why)
