"""Importing the engine loads no Django, Celery or Channels."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_no_web_framework() -> None:
    code = (
        "import sys, scheduler_core, scheduler_core.conformance, scheduler_core.plugins;"
        "scheduler_core.plugins.in_tree_registry();"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'celery', 'channels')];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
