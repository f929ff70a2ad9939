"""Shared fixtures. Django fixtures only touch the database when a test asks for it.

``TEST_DB=postgres`` runs the Django tests on a throwaway PostgreSQL cluster started here
(initdb + pg_ctl as the ``postgres`` user on a random loopback port; see docs/STACK.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if found:
        return str(found[-1])
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"TEST_DB=postgres but {name} is not installed (apt-get install postgresql)")
    return path


@pytest.fixture(scope="session")
def _postgres_server():
    root = Path(tempfile.mkdtemp(prefix="pg-test-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    port = _free_port()
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_postgres:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    subprocess.run(
        [
            *as_postgres,
            _pg_bin("initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
    )
    options = (
        f"-h 127.0.0.1 -p {port} -k {sock} -c fsync=off -c synchronous_commit=off "
        "-c full_page_writes=off"
    )
    subprocess.run(
        [
            *as_postgres,
            _pg_bin("pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "log"),
            "-w",
            "-o",
            options,
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield port
    finally:
        subprocess.run(
            [*as_postgres, _pg_bin("pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


if os.environ.get("TEST_DB") == "postgres":

    @pytest.fixture(scope="session")
    def django_db_modify_db_settings(_postgres_server):
        from django.conf import settings
        from django.db import connections

        db = settings.DATABASES["default"]
        # Mutated in place: Django has already filled in the TEST keys it needs.
        db.update(
            {
                "ENGINE": "django.db.backends.postgresql",
                "HOST": "127.0.0.1",
                "PORT": str(_postgres_server),
                "NAME": "playground",
                "USER": "postgres",
                "PASSWORD": "",
                "OPTIONS": {},
            }
        )
        db["TEST"]["NAME"] = "test_playground"
        del connections["default"]


# Modules whose tests read stored data through the same queries as others and assert what a page
# or a chart shows: the PostgreSQL pass (.ci/run) leaves them to the SQLite pass. Everything else
# — and every new module — also runs on PostgreSQL: transactions, locks, constraints, JSON.
PRESENTATION_ONLY = frozenset(
    {
        "test_pg_charts.py",
        "test_pg_compare.py",
        "test_pg_cluster_setup.py",
        "test_pg_explain_runs.py",
        "test_pg_explain_views.py",
        "test_pg_form_errors.py",
        "test_pg_queue_view.py",
        "test_pg_sampling_sentence.py",
        "test_pg_score_page.py",
        "test_pg_step_order.py",
        "test_pg_rebuilt.py",
        "test_pg_packs.py",
        "test_pg_simulate_parity.py",
        "test_pg_extender_policy.py",
        "test_translations.py",
        "test_classroom.py",
        "test_lessons_check.py",
    }
)


def pytest_configure(config):
    """Under pytest-xdist (``-n``), the controller serves the lessons' sample extender
    (127.0.0.1:18913) for the whole session, as .ci/run does for its lanes: a worker's run starts
    it in-process only when nobody holds the port, and a worker that ran out of tests exits
    while another's run may still be calling the server it started."""
    if not getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        return
    root = Path(__file__).resolve().parent.parent
    # If the port is taken, whoever holds it serves the same stateless sample: this one exits.
    config._sample_extender = subprocess.Popen(
        [sys.executable, "-m", "playground.runs.execution.sample_extender"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):  # up before the workers' first run (or someone else serves it)
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", 18913), 0.1):
            break
        if config._sample_extender.poll() is not None:
            break
        time.sleep(0.1)


def pytest_unconfigure(config):
    server = getattr(config, "_sample_extender", None)
    if server is not None:
        server.terminate()
        server.wait(timeout=10)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TEST_DB") != "postgres" or os.environ.get("PG_ALL_TESTS"):
        return
    kept = [item for item in items if item.path.name not in PRESENTATION_ONLY]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept


@pytest.fixture(scope="session", autouse=True)
def _compiled_translations():
    """Compile each translation catalog whose .mo is missing or older than its .po."""
    root = Path(__file__).resolve().parent.parent
    compiled = False
    for po in (*root.glob("locale/*/LC_MESSAGES/*.po"), *root.glob("*/locale/*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        # Written aside then renamed: test runs in the same tree may compile at the same time.
        part = mo.with_name(f"{mo.name}.{os.getpid()}")
        subprocess.run(["msgfmt", "--check-format", "-o", str(part), str(po)], check=True)
        part.replace(mo)
        compiled = True
    if compiled and "django.utils.translation.trans_real" in sys.modules:
        from django.utils.translation import trans_real

        trans_real._translations = {}  # catalogs read before this point are read again
        trans_real._default = None


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A request's language (LocaleMiddleware activates it in the thread) ends with its test."""
    yield
    if "django.utils.translation.trans_real" in sys.modules:
        from django.utils import translation

        translation.deactivate()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def alice_client(client, user):
    client.force_login(user)
    return client
