"""manage.py explain_runs --check: every kind of run made and explained cell by cell."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import Client

from playground.demo import demo_load
from playground.management import explain_check


class Command(BaseCommand):
    help = (
        "Build a run of every demo cluster under every demo profile, every lesson's run and "
        "scripted runs, then ask the run page's explanation view for every cell of every cycle."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="fail when a cell fails")
        parser.add_argument("--kind", action="append", help="only runs of these kinds")
        parser.add_argument("--match", default="", help="only runs whose label contains this")
        parser.add_argument(
            "--fast", action="store_true", help="one run of each kind (the test suite's subset)"
        )
        parser.add_argument("--verbose-failures", type=int, default=30)

    def handle(self, *args: Any, **options: Any) -> None:

        demo_load()
        report = explain_check.Report()
        client = Client(SERVER_NAME="localhost")
        client.force_login(explain_check._checker())
        for i, spec in enumerate(explain_check.specs(fast=options["fast"])):
            if options["kind"] and spec.kind not in options["kind"]:
                continue
            if options["match"] and options["match"] not in spec.label:
                continue
            try:
                run = explain_check.build_run(spec, owner=f"explain-check:{i}")
            except Exception as err:  # noqa: BLE001  (a run that cannot start is a failure)
                report.runs += 1
                report.failures.append(f"{spec.kind} {spec.label}: could not run: {err}")
                continue
            explain_check.check_run(client, run, report, kind=spec.kind)
            self.stdout.write(
                f"  {spec.label}: run {run.pk} {run.status}, {report.failed} failed so far"
            )
        for line in report.failures[: options["verbose_failures"]]:
            self.stdout.write(f"FAIL {line}")
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.kinds.items()))
        self.stdout.write(f"runs by kind: {kinds}")
        self.stdout.write(report.line())
        if options["check"] and report.failed:
            raise CommandError(f"{report.failed} explanations failed")
