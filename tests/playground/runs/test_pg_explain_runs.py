"""`manage.py explain_runs --check --fast`: one run of each kind, every cell explained."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from playground.demo import demo_load
from playground.management import explain_check
from playground.management.explain_check import Report, _agree


@pytest.mark.django_db(transaction=True)
def test_one_run_of_each_kind_explains_every_cell():
    out = StringIO()
    try:
        call_command("explain_runs", "--check", "--fast", stdout=out)
    except CommandError:
        pytest.fail(out.getvalue())
    last = out.getvalue().strip().splitlines()[-1]
    assert last.startswith("explain runs: ") and last.endswith(" 0 failed"), out.getvalue()
    runs = int(last.split(" in ")[1].split(" runs")[0])
    assert runs == len(explain_check.FAST)


@pytest.mark.django_db
def test_the_subset_names_runs_the_whole_check_builds():
    demo_load()
    every = explain_check.specs()
    assert set(explain_check.FAST) <= {s.label for s in every}
    assert len(every) >= 40
    kinds = {s.kind for s in every}
    assert kinds == {"demo", "lesson", "scripted"}


def test_a_value_the_explanation_does_not_give_is_a_failure():
    found = [{"plugin": "NodeResourcesFit", "point": "Score", "value": 53}]
    assert _agree(found, [("NodeResourcesFit", 53)]) == ""
    assert "the page shows 54" in _agree(found, [("NodeResourcesFit", 54)])
    assert "no explanation names ImageLocality" in _agree(found, [("ImageLocality", 0)])
    report = Report(runs=2, cells=10, failures=["x"])
    assert report.line() == "explain runs: 10 cells in 2 runs explained, 1 failed"
