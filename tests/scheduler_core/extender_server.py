"""A real HTTP scheduler extender for tests, served from a background thread on 127.0.0.1.

It speaks the v1 extender API (``<prefix>/<verb>`` JSON POSTs, Go field names) with behaviour
chosen per test: which nodes pass the filter (a name predicate and/or a required label), which are
unresolvable, fixed or computed priorities, a preempt verb that passes victims through or trims
them, a bind verb that records bindings, and failure modes (an HTTP status, an error reply, a
hang) to exercise ignorable extenders and timeouts. Every request is recorded.

    with ExtenderServer(passes=lambda name: name != "n2") as srv:
        ext = HTTPExtender(Extender(url_prefix=srv.url, filter_verb="filter"), policy=LOCAL_POLICY)

The server listens on loopback, which the default extender policy refuses: tests allow-list it
explicitly with ``LOCAL_POLICY``.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scheduler_core.extenders.policy import ExtenderPolicy

Reply = Any  # a JSON value

# Lets extenders reach this server (and name TLS files, as an operator's configuration may).
LOCAL_POLICY = ExtenderPolicy(allowed_hosts=("127.0.0.1",), allow_tls_files=True)


@dataclass
class Recorded:
    """One request the server received: its verb (last path segment), path and JSON body."""

    verb: str
    path: str
    body: Any


@dataclass
class Behaviour:
    """What the extender answers. Every field can be changed between requests."""

    # filter: a node passes when passes(name) and it carries required_label (key, value).
    passes: Callable[[str], bool] = lambda _name: True
    required_label: tuple[str, str] | None = None
    # Node labels for nodeCacheCapable requests, which carry only names.
    node_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    unresolvable: Callable[[str], bool] = lambda _name: False
    fail_message: str = "rejected by test extender"
    filter_error: str = ""
    # prioritize: a fixed table (nodes absent score 0) or a function of the node name.
    priorities: Mapping[str, int] | Callable[[str], int] = field(default_factory=dict)
    # preempt: drop these nodes, keep at most this many victims per node (None: all).
    preempt_drop_nodes: frozenset[str] = frozenset()
    preempt_max_victims: int | None = None
    preempt_extra_uid: str = ""  # add a victim UID the scheduler does not know
    # bind
    bind_error: str = ""
    # failures, for any verb in the set (empty set: every verb)
    status: int = 200
    hang_seconds: float = 0.0
    failing_verbs: frozenset[str] = frozenset()
    # answer every request with a redirect to this URL (when set)
    redirect_to: str = ""
    # full control: verb, request body -> reply (used instead of the above when set)
    override: Callable[[str, Any], Reply] | None = None


class ExtenderServer:
    """Use as ``with ExtenderServer(...) as srv`` (or start()/stop()); ``srv.url`` is the prefix."""

    def __init__(
        self,
        prefix: str = "/scheduler",
        *,
        ssl_context: ssl.SSLContext | None = None,
        **behaviour: Any,
    ) -> None:
        self.behaviour = Behaviour(**behaviour)
        self.requests: list[Recorded] = []
        self.bindings: list[dict[str, Any]] = []
        self._prefix = prefix.rstrip("/")
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        if ssl_context is not None:
            self._httpd.socket = ssl_context.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.port: int = self._httpd.server_address[1]
        scheme = "https" if ssl_context is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}{self._prefix}"

    def start(self) -> ExtenderServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ExtenderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def verbs(self) -> list[str]:
        with self._lock:
            return [r.verb for r in self.requests]

    # --- request handling ---------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if server.behaviour.redirect_to:
                    with server._lock:
                        server.requests.append(Recorded("redirect", self.path, None))
                    self.send_response(307)
                    self.send_header("Location", server.behaviour.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.loads(raw) if raw else None
                status, reply = server._respond(self.path, self.headers, body)
                if status < 0:  # the client gave up waiting; nothing to answer
                    return
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

        return Handler

    def _respond(self, path: str, headers: Any, body: Any) -> tuple[int, Reply]:
        verb = path.rstrip("/").rsplit("/", 1)[-1]
        with self._lock:
            self.requests.append(Recorded(verb, path, body))
        b = self.behaviour
        failing = not b.failing_verbs or verb in b.failing_verbs
        if failing and b.hang_seconds > 0:
            self._stopping.wait(b.hang_seconds)
            return -1, None
        if not path.startswith(self._prefix + "/"):
            return 404, {"error": "not found"}
        if headers.get("Content-Type") != "application/json":
            return 415, {"error": "want application/json"}
        if failing and b.status != 200:
            return b.status, {"error": "test extender failure"}
        if b.override is not None:
            return 200, b.override(verb, body)
        handler = {
            "filter": self._filter,
            "prioritize": self._prioritize,
            "preempt": self._preempt,
            "bind": self._bind,
        }.get(verb)
        if handler is None:
            return 404, {"error": f"unknown verb {verb}"}
        return 200, handler(body)

    def _candidates(self, args: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any] | None]]:
        """(name, node manifest or None) for each node of an ExtenderArgs, in order."""
        if args.get("NodeNames") is not None:
            return [(n, None) for n in args["NodeNames"]]
        items = (args.get("Nodes") or {}).get("items") or []
        return [(item["metadata"]["name"], item) for item in items]

    def _labels(self, name: str, node: Mapping[str, Any] | None) -> Mapping[str, str]:
        if node is not None:
            labels: Mapping[str, str] = node.get("metadata", {}).get("labels") or {}
            return labels
        return self.behaviour.node_labels.get(name, {})

    def _filter(self, args: Mapping[str, Any]) -> Reply:
        b = self.behaviour
        if b.filter_error:
            return {"Error": b.filter_error}
        by_names = args.get("NodeNames") is not None
        kept: list[tuple[str, Mapping[str, Any] | None]] = []
        failed: dict[str, str] = {}
        unresolvable: dict[str, str] = {}
        for name, node in self._candidates(args):
            label_ok = b.required_label is None or (
                self._labels(name, node).get(b.required_label[0]) == b.required_label[1]
            )
            if b.unresolvable(name):
                unresolvable[name] = b.fail_message
            elif b.passes(name) and label_ok:
                kept.append((name, node))
            else:
                failed[name] = b.fail_message
        reply: dict[str, Any] = {
            "FailedNodes": failed,
            "FailedAndUnresolvableNodes": unresolvable,
            "Error": "",
        }
        if by_names:
            reply["NodeNames"] = [name for name, _ in kept]
            reply["Nodes"] = None
        else:
            reply["Nodes"] = {"metadata": {}, "items": [node for _, node in kept]}
            reply["NodeNames"] = None
        return reply

    def _prioritize(self, args: Mapping[str, Any]) -> Reply:
        pr = self.behaviour.priorities
        out = []
        for name, _ in self._candidates(args):
            score = pr(name) if callable(pr) else pr.get(name, 0)
            out.append({"Host": name, "Score": score})
        return out

    def _preempt(self, args: Mapping[str, Any]) -> Reply:
        b = self.behaviour
        result: dict[str, Any] = {}
        if args.get("NodeNameToMetaVictims") is not None:
            source = {
                node: ([p["UID"] for p in v["Pods"] or []], v["NumPDBViolations"])
                for node, v in args["NodeNameToMetaVictims"].items()
            }
        else:
            source = {
                node: ([p["metadata"]["uid"] for p in v["Pods"] or []], v["NumPDBViolations"])
                for node, v in (args.get("NodeNameToVictims") or {}).items()
            }
        for node, (uids, pdb) in source.items():
            if node in b.preempt_drop_nodes:
                continue
            if b.preempt_max_victims is not None:
                uids = uids[: b.preempt_max_victims]
            if b.preempt_extra_uid:
                uids = [*uids, b.preempt_extra_uid]
            result[node] = {"Pods": [{"UID": u} for u in uids], "NumPDBViolations": pdb}
        return {"NodeNameToMetaVictims": result}

    def _bind(self, args: Mapping[str, Any]) -> Reply:
        if self.behaviour.bind_error:
            return {"Error": self.behaviour.bind_error}
        with self._lock:
            self.bindings.append(dict(args))
        return {"Error": ""}


def refused_url(prefix: str = "/scheduler") -> str:
    """A URL on 127.0.0.1 where nothing listens (the port was just released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}{prefix}"
