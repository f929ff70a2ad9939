"""``manage.py import_cluster FILE --name NAME [--user U]``: a cluster from a file of any size.

FILE holds Kubernetes manifests as YAML or JSON (``kubectl get nodes,pods -o yaml``, a List, or
several documents), plain or gzipped; ``-`` reads standard input. The objects are validated as a
web import validates them and stored in one transaction with bulk inserts, or nothing is stored.
"""

from __future__ import annotations

import gzip
import sys
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.clusters import services
from playground.inputs.manifests import ManifestProblems


def read_text(path: str) -> str:
    """The file's text, unzipped if it is gzip (``-``: standard input)."""
    raw = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()  # noqa: SIM115
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def owner(username: str | None) -> Any:
    """The named user; without a name, the only superuser (there must be exactly one)."""
    users = get_user_model().objects
    if username:
        try:
            return users.get(username=username)
        except users.model.DoesNotExist as err:
            raise CommandError(f"no user {username!r}") from err
    admins = list(users.filter(is_superuser=True)[:2])
    if len(admins) != 1:
        raise CommandError("say whose cluster it is: --user USERNAME")
    return admins[0]


class Command(BaseCommand):
    help = __doc__.splitlines()[0] if __doc__ else ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="YAML or JSON manifests, plain or .gz; - for stdin")
        parser.add_argument("--name", required=True, help="the new cluster's name")
        parser.add_argument("--user", help="the owner's username (default: the superuser)")
        parser.add_argument("--description", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        user = owner(options["user"])
        started = time.perf_counter()
        try:
            text = read_text(options["file"])
        except (OSError, UnicodeDecodeError) as err:
            raise CommandError(f"cannot read {options['file']}: {err}") from err
        try:
            cluster, report = services.cluster_create_from_yaml(
                owner=user,
                name=options["name"],
                description=options["description"],
                text=text,
                limit=None,
            )
        except ManifestProblems as err:
            shown = "\n".join(f"  {p}" for p in err.problems[:50])
            more = len(err.problems) - 50
            extra = f"\n  … and {more} more" if more > 0 else ""
            raise CommandError(
                f"nothing imported; {len(err.problems)} problems:\n{shown}{extra}"
            ) from err
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(report.counts.items()))
        for warning in report.warnings[:20]:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(
            f"cluster {cluster.pk} {cluster.name!r}: {counts or 'empty'} "
            f"in {time.perf_counter() - started:.2f} s"
        )
