"""The sample HTTP scheduler extender of the extenders lesson, served from inside the process.

It speaks the v1 extender API (``k8s.io/kube-scheduler/extender/v1``) without node caching, so
each call carries whole Node objects:

- ``POST /filter`` rejects every node labelled ``lessons.playground.k8s.io/draining: "true"``;
- ``POST /prioritize`` scores a node ``10 - cost`` from its ``lessons.playground.k8s.io/cost``
  label (0 to 10, missing means 5), so cheap nodes win;
- ``POST /bind`` accepts every binding (an extender that binds would create the Binding itself);
- ``POST /slow-filter`` answers as ``/filter`` but only after ``SLOW_SECONDS``, longer than any
  ``httpTimeout`` a lesson gives it, to show a call that times out.
Any other verb is a 404, which the scheduler treats like an extender that is down.

A lesson's profile names it with ``urlPrefix: http://127.0.0.1:18913/sample-extender``; the
lesson starts it on that port when a run or a check needs it (embedded mode: a daemon thread).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

HOST: Final = "127.0.0.1"
PORT: Final = 18913
PREFIX: Final = f"http://{HOST}:{PORT}/sample-extender"
DRAINING: Final = "lessons.playground.k8s.io/draining"
COST: Final = "lessons.playground.k8s.io/cost"
DEFAULT_COST: Final = 5
MAX_PRIORITY: Final = 10
SLOW_SECONDS: Final = 2.0


def _labels(node: Mapping[str, Any]) -> dict[str, str]:
    return dict((node.get("metadata") or {}).get("labels") or {})


def _name(node: Mapping[str, Any]) -> str:
    return str((node.get("metadata") or {}).get("name") or "")


def _cost(node: Mapping[str, Any]) -> int:
    try:
        cost = int(_labels(node).get(COST, DEFAULT_COST))
    except ValueError:
        cost = DEFAULT_COST
    return min(max(cost, 0), MAX_PRIORITY)


def filter_nodes(args: Mapping[str, Any]) -> dict[str, Any]:
    """ExtenderFilterResult for ExtenderArgs: draining nodes fail, the others pass."""
    items = list(((args.get("Nodes") or {}).get("items")) or [])
    passed = [n for n in items if _labels(n).get(DRAINING) != "true"]
    failed = {_name(n): "node is draining" for n in items if n not in passed}
    return {"Nodes": {"metadata": {}, "items": passed}, "FailedNodes": failed, "Error": ""}


def prioritize(args: Mapping[str, Any]) -> list[dict[str, Any]]:
    """HostPriorityList for ExtenderArgs: cheaper nodes score higher (0 to 10)."""
    items = list(((args.get("Nodes") or {}).get("items")) or [])
    return [{"Host": _name(n), "Score": MAX_PRIORITY - _cost(n)} for n in items]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802  (the http.server spelling)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            args = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self.send_error(400, "body is not JSON")
            return
        verb = self.path.rstrip("/").rsplit("/", 1)[-1]
        if verb in ("filter", "slow-filter"):
            if verb == "slow-filter":
                time.sleep(SLOW_SECONDS)
            reply: Any = filter_nodes(args)
        elif verb == "prioritize":
            reply = prioritize(args)
        elif verb == "bind":
            reply = {"Error": ""}
        else:
            self.send_error(404, f"unknown verb {verb!r}")
            return
        body = json.dumps(reply).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            return  # the scheduler stopped waiting (its httpTimeout passed)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


_server: ThreadingHTTPServer | None = None
_lock = threading.Lock()


def uses_sample(config: Mapping[str, Any]) -> bool:
    """Whether an extender of ``config`` calls the sample's address (whatever its path)."""
    return any(
        str(e.get("urlPrefix") or "").startswith(f"http://{HOST}:{PORT}/")
        for e in config.get("extenders") or []
    )


def ensure_running(config: Mapping[str, Any]) -> None:
    """Start the sample extender in this process if ``config`` calls it and it is not up yet."""
    global _server
    if not uses_sample(config):
        return
    with _lock:
        if _server is not None:
            return
        try:
            server = ThreadingHTTPServer((HOST, PORT), _Handler)
        except OSError:
            return  # another process of this machine serves it already
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name="sample-extender", daemon=True).start()
        _server = server


@contextlib.contextmanager
def serving(config: Mapping[str, Any]) -> Iterator[None]:
    """The sample extender is up for the duration when ``config`` calls it."""
    ensure_running(config)
    yield


def serve_forever() -> None:
    """Serve the sample extender in the foreground.

    ``python -m playground.runs.execution.sample_extender``.

    CI runs its test lanes side by side; one server for their whole length means no lane's
    process ends while another's run is still calling the one it happened to start."""
    server = ThreadingHTTPServer((HOST, PORT), _Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    serve_forever()
