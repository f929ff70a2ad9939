"""The sample extender of the extender lessons: its verbs over HTTP, as the scheduler calls them."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest

from playground.runs.execution import sample_extender as extender

NODES = {
    "Nodes": {
        "items": [
            {"metadata": {"name": "a", "labels": {extender.DRAINING: "true"}}},
            {"metadata": {"name": "b", "labels": {extender.COST: "3"}}},
        ]
    }
}


@pytest.fixture
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), extender._Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/sample-extender"
    server.shutdown()
    server.server_close()


def _post(url: str, body: object, timeout: float = 5.0) -> object:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as reply:
        return json.loads(reply.read())


def test_filter_drops_draining_nodes_and_prioritize_prefers_cheap_ones(base):
    reply = _post(f"{base}/filter", NODES)
    assert [n["metadata"]["name"] for n in reply["Nodes"]["items"]] == ["b"]
    assert reply["FailedNodes"] == {"a": "node is draining"}
    assert _post(f"{base}/prioritize", NODES) == [
        {"Host": "a", "Score": 5},
        {"Host": "b", "Score": 7},
    ]


def test_bind_accepts_the_binding(base):
    args = {"PodName": "p", "PodNamespace": "default", "PodUID": "u", "Node": "b"}
    assert _post(f"{base}/bind", args) == {"Error": ""}


def test_slow_filter_answers_as_filter_but_only_after_the_delay(base, monkeypatch):
    monkeypatch.setattr(extender, "SLOW_SECONDS", 0.6)
    with pytest.raises(TimeoutError):
        _post(f"{base}/slow-filter", NODES, timeout=0.1)
    monkeypatch.setattr(extender, "SLOW_SECONDS", 0.0)
    assert _post(f"{base}/slow-filter", NODES) == _post(f"{base}/filter", NODES)


def test_an_unknown_verb_is_a_404(base):
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(f"{base}/filter-v0", NODES)
    assert err.value.code == 404
