"""manage.py serve: migrate, load the demo content and run daphne (embedded mode, one process)."""

from __future__ import annotations

import ipaddress
import socket

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


def network_address() -> str | None:
    """This machine's address on its default route (no packet is sent); None when it has none.

    Connecting a UDP socket only picks the outgoing interface. 192.0.2.1 is a documentation
    address (TEST-NET-1), so no real host is ever named.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if is_loopback(address) or address == "0.0.0.0" else address


def room_public_url(host: str, port: int, configured: str) -> str:
    """The join link's origin in room mode: PLAYGROUND_PUBLIC_URL, the --host, or detected."""
    if configured:
        return configured
    if host not in WILDCARDS and not is_loopback(host):
        address = host
    else:
        detected = network_address()
        if detected is None:
            raise CommandError(
                "--room: this machine has no network address that students' devices could "
                "reach. Connect it to the room's network, or name the address with --host or "
                "PLAYGROUND_PUBLIC_URL (e.g. http://192.168.1.20:8000)."
            )
        address = detected
    shown = f"[{address}]" if ":" in address else address
    return f"http://{shown}:{port}"


WILDCARDS = ("0.0.0.0", "::", "")


def collect_static() -> None:
    """Hashed, gzip- and Brotli-compressed static files under var/static, named by the pages.

    Students' devices then download plotly.js compressed, and once: hashed files are served
    as immutable. Runs before anything has used the static storage; a restart only compresses
    what changed.
    """
    from config.static import COLLECTED_STORAGE

    settings.STATIC_ROOT = settings.VAR_DIR / "static"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": COLLECTED_STORAGE}}
    call_command("collectstatic", interactive=False, verbosity=0)


HANDSHAKE_TIMEOUT = 30  # seconds; daphne drops a handshake not accepted by then (5 s default)


class Command(BaseCommand):
    help = "Migrate, load demo data and serve the playground with daphne (HTTP + websockets)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host",
            default=None,
            help="address to listen on (default 127.0.0.1; with --room every interface, 0.0.0.0)",
        )
        parser.add_argument(
            "--room",
            action="store_true",
            help="a live class in a room: listen on the network, and give students a join link "
            "and QR code with this machine's network address (or PLAYGROUND_PUBLIC_URL)",
        )
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

        room = bool(options["room"])
        host = str(options["host"] or ("0.0.0.0" if room else "127.0.0.1"))
        port = int(options["port"])  # type: ignore[call-overload]
        debug = bool(options["debug"]) or settings.DEBUG
        if debug and not is_loopback(host):
            # However DEBUG was switched on (--debug, DJANGO_DEBUG, a settings module): its
            # error pages show settings and source code.
            raise CommandError(
                "--debug (or DJANGO_DEBUG) is for local use: serve on 127.0.0.1 or localhost, "
                f"not {host}"
            )
        settings.DEBUG = debug
        if room:
            from config.settings import allow_public_url

            settings.PLAYGROUND_PUBLIC_URL = allow_public_url(
                room_public_url(host, port, settings.PLAYGROUND_PUBLIC_URL),
                settings.ALLOWED_HOSTS,
                settings.CSRF_TRUSTED_ORIGINS,
            )
        collect_static()
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
        if room:
            self.stdout.write(
                f"Live classes: students join at {settings.PLAYGROUND_PUBLIC_URL}/join/"
            )
        from config.asgi import application

        Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            # a burst of websocket handshakes (a class joining at once) waits, not dropped at 5 s
            websocket_connect_timeout=HANDSHAKE_TIMEOUT,
            websocket_handshake_timeout=HANDSHAKE_TIMEOUT,
        ).run()
