"""manage.py requeue_runs: hand pending runs to the broker again (full stack, at web start)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from playground.runs.services import run_requeue_pending


class Command(BaseCommand):
    help = "Re-enqueue runs still pending (a broker restart may have lost their messages)."

    def handle(self, *args: object, **options: object) -> None:
        if settings.CELERY_TASK_ALWAYS_EAGER:
            raise CommandError("no broker configured: nothing would run the queued runs")

        self.stdout.write(f"re-enqueued {run_requeue_pending()} pending runs")
