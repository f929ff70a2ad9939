"""Chromium benchmark of a run page (not a test): time to the first cycle's panels, JS heap.

    .venv/bin/python scripts/bench_run_page.py RUN_ID [--port 8765] [--repeat 3]

Serves the playground with daphne (``manage.py serve --no-demo``, same database and settings),
logs headless Chromium in as the run's owner, opens the run page (its signed ref) and waits
until run.js has drawn the first cycle's panels (``runState.firstPanelsAt``, milliseconds
after navigation start, taken on the animation frame after the panels were filled). Prints one
JSON line per load and the median last: ``{"run", "nodes", "cycles", "firstPanelsSeconds",
"jsHeapMB", "domNodes"}``. Make a big run first, e.g.
``manage.py bench_run ../shared/bench/basic-5000n-1000p.json --percentage 0 --keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _session_cookie(run_id: int) -> tuple[str, int, int, str]:
    """A session of the run's owner, the run's node and cycle counts, and its page's path."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.urls import reverse

    from playground.models import Run

    run = Run.objects.select_related("cluster").get(pk=run_id)
    user = run.started_by or run.cluster.owner
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    path = reverse("playground:run", args=[run.pk])  # a signed ref, not the bare id
    return session.session_key, len(run.node_names or []), run.cycle_records.count(), path


def _wait_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"the server did not listen on {port}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=int)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    key, nodes, cycles, path = _session_cookie(args.run)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--no-demo", "--port", str(args.port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    profile = tempfile.mkdtemp(prefix="chromium-bench-")
    driver = None
    try:
        _wait_port(args.port)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--enable-precise-memory-info",
            "--window-size=1400,1000",
            f"--user-data-dir={profile}",
        ):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        base = f"http://127.0.0.1:{args.port}"
        driver.get(base + "/static/playground/run.css")
        driver.add_cookie({"name": "sessionid", "value": key})
        results = []
        for _ in range(args.repeat):
            driver.get(base + path)
            deadline = time.monotonic() + 120
            drawn = None
            while drawn is None and time.monotonic() < deadline:
                drawn = driver.execute_script(
                    "return window.runState ? window.runState.firstPanelsAt : null;"
                )
                time.sleep(0.05)
            if drawn is None:
                raise SystemExit("the first cycle's panels were not drawn within 120 s")
            time.sleep(1)  # let the rest of the catch-up land before reading the heap
            heap, dom = driver.execute_script(
                "return [performance.memory.usedJSHeapSize,"
                " document.getElementsByTagName('*').length];"
            )
            result = {
                "run": args.run,
                "nodes": nodes,
                "cycles": cycles,
                "firstPanelsSeconds": round(drawn / 1000, 3),
                "jsHeapMB": round(heap / 2**20, 1),
                "domNodes": dom,
            }
            print(json.dumps(result))
            results.append(result)
        median = {
            **results[0],
            "firstPanelsSeconds": statistics.median(r["firstPanelsSeconds"] for r in results),
            "jsHeapMB": statistics.median(r["jsHeapMB"] for r in results),
        }
        print(json.dumps(median))
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        server.wait(10)
        shutil.rmtree(profile, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
