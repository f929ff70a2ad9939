"""Another user's page stays fast while a costly CEL expression is evaluated in the process.

Issue 39: an expression whose cost the analysis missed ran for seconds to minutes in the web
process, and other users' ``GET /`` waited 47 s (embedded) to 298 s (full stack). With the
analysis fooled on purpose, the page is served while the evaluation runs (in the sandbox's
worker), and the evaluation is stopped at the sandbox's limit (unbounded, it runs for minutes).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from builders import make_node, make_pod

from scheduler_core.custom import plugin, sandbox
from scheduler_core.custom.cel_cost import Analysis
from scheduler_core.custom.plugin import CustomPluginSpec, registry_of
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.plugins import in_tree_registry

pytestmark = pytest.mark.django_db

ZEROS = "[" + ",".join(["0"] * 300) + "]"
COSTLY = f"pod.name != '' && size({ZEROS}.map(x, {ZEROS}.map(y, {ZEROS}))) > 0"


def _config() -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Missed"}]}}}],
    }


def test_home_page_is_served_while_a_missed_shape_is_evaluated(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        plugin,
        "analyse",
        lambda point, source: Analysis(source, plugin.VARIABLES[point], limit=False),
    )
    monkeypatch.setattr(Analysis, "cost", lambda self, values, known=None: 1)
    spec = CustomPluginSpec("Missed", {"filter": COSTLY})
    sched = Scheduler(
        _config(),
        [make_node("n1"), make_pod("p")],
        registry=in_tree_registry().merged(registry_of([spec])),
    )
    assert client.get("/").status_code == 200  # templates and the session table warmed up
    sandbox.evaluate("true", {})
    thread = threading.Thread(target=sched.run_until_idle, kwargs={"max_cycles": 1})
    thread.start()
    time.sleep(0.3)  # the evaluation is under way
    assert thread.is_alive()
    started = time.monotonic()
    response = client.get("/")
    took = time.monotonic() - started
    thread.join(timeout=20)
    assert not thread.is_alive(), "the evaluation was not stopped"
    assert response.status_code == 200
    assert took < 1.0, f"GET / took {took:.2f} s"
    assert "evaluation stopped" in (sched.outcomes["default/p"].message or "")
