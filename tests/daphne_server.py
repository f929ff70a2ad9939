"""daphne in a forked process, for the browser and integration tests that need a real server."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any


def start_daphne(
    layer_url: str | None = None, broker_url: str | None = None, *, timeout: float = 15
) -> Any:
    """A started ``DaphneProcess`` (its port in ``.port.value``): the embedded settings, or the
    Redis channel layer and Celery broker when their URLs are given (``_child_setup``).

    The fork must not inherit an open SQLite connection: SQLite's locks belong to the process,
    and a child that uses or closes its copy of the parent's connection corrupts the
    write-ahead log they share ("database disk image is malformed" in the next test). So the
    parent's connections are closed first; each side opens its own when it next needs one.
    """
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from django.db import connections

    process = DaphneProcess(
        "127.0.0.1",
        partial(make_application, static_wrapper=ASGIStaticFilesHandler),
        setup=partial(_child_setup, layer_url, broker_url),
    )
    connections.close_all()
    process.start()
    if not process.ready.wait(timeout=timeout):
        process.terminate()
        raise RuntimeError("daphne did not start")
    if not process.errors.empty():
        error, trace = process.errors.get()
        raise RuntimeError(f"daphne failed: {error}\n{trace}")
    return process


def _child_setup(layer_url: str | None, broker_url: str | None) -> None:
    """In daphne's forked child: fresh executors, the test database, Redis when given."""
    from asgiref.sync import SyncToAsync
    from channels.layers import channel_layers
    from channels.testing.live import set_database_connection
    from django.conf import settings

    # docs/STACK.md pitfall 1: the fork copied the executor but not its thread.
    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    if layer_url:
        from config.settings import redis_channel_layer

        settings.CHANNEL_LAYERS = {"default": redis_channel_layer(layer_url, capacity=1000)}
    channel_layers.backends.clear()
    set_database_connection()
    if broker_url:
        from config.celery import app

        app.conf.broker_url = broker_url
        app.conf.task_always_eager = False
        # docs/STACK.md pitfall 3: producers and backends cached from the eager configuration.
        app._pool = None
        app.amqp._producer_pool = None
        app._backend_cache = None
        app._local = threading.local()
