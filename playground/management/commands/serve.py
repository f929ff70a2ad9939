"""manage.py serve: migrate, load the demo content and run daphne (embedded mode, one process)."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.runs.services import run_recover_stale, run_requeue_pending

LOOPBACK_NAMES = ("localhost", "ip6-localhost")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine only (127.0.0.0/8, ::1, localhost)."""
    host = host.strip().strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


HANDSHAKE_TIMEOUT = 30  # seconds; daphne drops a handshake not accepted by then (5 s default)


class Command(BaseCommand):
    help = "Migrate, load demo data and serve the playground with daphne (HTTP + websockets)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="skip load_demo")
        parser.add_argument(
            "--debug",
            action="store_true",
            help="Django's debug pages (local use only: they show settings; loopback hosts only)",
        )

    def handle(self, *args: object, **options: object) -> None:
        import daphne.server  # noqa: F401  (installs Twisted's asyncio reactor first)
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        host, port = str(options["host"]), int(options["port"])  # type: ignore[call-overload]
        debug = bool(options["debug"]) or settings.DEBUG
        if debug and not is_loopback(host):
            # However DEBUG was switched on (--debug, DJANGO_DEBUG, a settings module): its
            # error pages show settings and source code.
            raise CommandError(
                "--debug (or DJANGO_DEBUG) is for local use: serve on 127.0.0.1 or localhost, "
                f"not {host}"
            )
        settings.DEBUG = debug
        call_command("migrate", interactive=False, verbosity=1)
        if not options["no_demo"]:
            call_command("load_demo")

        if settings.CELERY_TASK_ALWAYS_EAGER:
            # Embedded: this process is the only worker, so runs an earlier one left
            # unfinished can never finish. Mark them failed.
            run_recover_stale()
        else:
            # A broker and workers: queued runs are theirs to run, never failed by a restart.
            run_requeue_pending()
        self.stdout.write(f"Serving on http://{host}:{port}/ (Ctrl-C to stop)")
        from config.asgi import application

        Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            # a burst of websocket handshakes (a class joining at once) waits, not dropped at 5 s
            websocket_connect_timeout=HANDSHAKE_TIMEOUT,
            websocket_handshake_timeout=HANDSHAKE_TIMEOUT,
        ).run()
