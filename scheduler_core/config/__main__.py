"""Command line: ``python -m scheduler_core.config migrate FILE``.

Prints the v1 KubeSchedulerConfiguration for an older configuration (v1alpha1 to v1beta3) or a
legacy Policy (YAML, or JSON with tabs; of several YAML documents the first, as kube-scheduler
reads it), the list of changes as YAML comments at its top. Exits non-zero, naming each field,
when the file cannot be read as any known version or the result would still be refused by
kube-scheduler v1.35.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scheduler_core.config.migrate import migrate
from scheduler_core.config.types import ConfigError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scheduler_core.config")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("migrate", help="convert an older configuration to v1")
    command.add_argument("file", help="configuration or Policy file (YAML or JSON), - for stdin")
    args = parser.parse_args(argv)
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    except OSError as err:
        print(f"{args.file}: {err.strerror}", file=sys.stderr)
        return 1
    try:
        result = migrate(text)
    except ConfigError as err:
        for problem in err.errors:
            where = f"{problem.path}: " if problem.path else ""
            print(f"{args.file}: {where}{problem.message}", file=sys.stderr)
        return 1
    sys.stdout.write(result.yaml())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
