"""HTTPExtender against a real HTTP extender served on 127.0.0.1 (extender_server.py)."""

from __future__ import annotations

import base64
import datetime
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from extender_server import LOCAL_POLICY, ExtenderServer, refused_url

from scheduler_core.config import (
    DEFAULT_EXTENDER_TIMEOUT_SECONDS,
    Extender,
    ExtenderManagedResource,
    KubeSchedulerConfiguration,
)
from scheduler_core.extenders.extender import (
    EXTENDER_SCORE_SCALE,
    ExtenderError,
    HTTPExtender,
    bind_with_extenders,
    call_extenders_for_preemption,
    extender_priorities,
    extenders_from_config,
    find_nodes_that_pass_extenders,
    ignored_extended_resources,
)
from scheduler_core.framework.status import Code
from scheduler_core.framework.types import NodeInfo, Snapshot
from scheduler_core.objects.api import (
    ClusterObjects,
    Node,
    Pod,
)

GPU = "example.com/gpu"


def _node(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def _pod(
    name: str = "p",
    *,
    uid: str | None = None,
    node: str = "",
    requests: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    init_requests: dict[str, str] | None = None,
) -> Pod:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i", "resources": resources}]}
    if init_requests:
        spec["initContainers"] = [
            {"name": "init", "image": "i", "resources": {"requests": init_requests}}
        ]
    if node:
        spec["nodeName"] = node
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": uid or f"uid-{name}"}
    return Pod({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def _infos(*names: str, **labels_by_node: dict[str, str]) -> list[NodeInfo]:
    return [NodeInfo(Node(_node(n, **labels_by_node.get(n, {})))) for n in names]


@pytest.fixture
def server() -> Iterator[ExtenderServer]:
    with ExtenderServer() as srv:
        yield srv


def _ext(srv: ExtenderServer | str, **kw: Any) -> HTTPExtender:
    url = srv if isinstance(srv, str) else srv.url
    return HTTPExtender(Extender(url_prefix=url, **kw), policy=LOCAL_POLICY)


# --- capabilities and interest ------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        pytest.param({}, (False, False, False, False, False), id="no-verbs-nothing"),
        pytest.param({"filter_verb": "f"}, (True, False, False, False, False), id="filter"),
        pytest.param(
            {"prioritize_verb": "p", "weight": 1}, (False, True, False, False, False), id="prio"
        ),
        pytest.param({"bind_verb": "b"}, (False, False, True, False, False), id="binder"),
        pytest.param({"preempt_verb": "x"}, (False, False, False, True, False), id="preempt"),
        pytest.param({"ignorable": True}, (False, False, False, False, True), id="ignorable"),
    ],
)
def test_capabilities_follow_configured_verbs(kw: dict[str, Any], want: tuple[bool, ...]) -> None:
    e = _ext("http://127.0.0.1:1/x", **kw)
    got = (e.is_filter(), e.is_prioritizer(), e.is_binder(), e.supports_preemption())
    assert (*got, e.is_ignorable()) == want
    assert e.name == "http://127.0.0.1:1/x"


@pytest.mark.parametrize(
    ("managed", "pod", "want"),
    [
        pytest.param((), _pod(), True, id="no-managed-resources-all-pods"),
        pytest.param((GPU,), _pod(requests={GPU: "1"}), True, id="container-requests-managed"),
        pytest.param((GPU,), _pod(limits={GPU: "1"}), True, id="container-limits-managed"),
        pytest.param((GPU,), _pod(init_requests={GPU: "1"}), True, id="init-container-managed"),
        pytest.param((GPU,), _pod(requests={"cpu": "1"}), False, id="other-resources-only"),
        pytest.param((GPU,), _pod(requests={GPU: "0"}), True, id="zero-quantity-still-named"),
        pytest.param(("example.com/fpga", GPU), _pod(limits={GPU: "2"}), True, id="one-of-several"),
    ],
)
def test_is_interested_managed_resources(managed: tuple[str, ...], pod: Pod, want: bool) -> None:
    cfg = Extender(
        url_prefix="http://x", managed_resources=tuple(ExtenderManagedResource(m) for m in managed)
    )
    assert HTTPExtender(cfg).is_interested(pod) is want


def test_is_ignored_resource_only_for_ignored_by_scheduler() -> None:
    cfg = Extender(
        url_prefix="http://x",
        managed_resources=(
            ExtenderManagedResource(GPU, ignored_by_scheduler=True),
            ExtenderManagedResource("example.com/fpga"),
        ),
    )
    e = HTTPExtender(cfg)
    assert e.is_ignored_resource(GPU)
    assert not e.is_ignored_resource("example.com/fpga")
    assert not e.is_ignored_resource("cpu")


def test_timeout_defaults_to_five_seconds() -> None:
    assert _ext("http://x").timeout == DEFAULT_EXTENDER_TIMEOUT_SECONDS == 5.0
    assert _ext("http://x", http_timeout_seconds=0.25).timeout == 0.25


# --- filter ---------------------------------------------------------------------------------


def test_filter_sends_full_nodes_and_returns_new_node_infos(server: ExtenderServer) -> None:
    server.behaviour.passes = lambda name: name != "n2"
    pod = _pod()
    nodes = _infos("n1", "n2", "n3")
    feasible, failed, unresolvable = _ext(server, filter_verb="filter").filter(pod, nodes)
    assert [ni.node.name for ni in feasible] == ["n1", "n3"]
    # Upstream builds fresh NodeInfos from the returned Node objects.
    assert all(ni is not orig for ni, orig in zip(feasible, (nodes[0], nodes[2]), strict=True))
    assert failed == {"n2": "rejected by test extender"}
    assert unresolvable == {}
    (req,) = server.requests
    assert req.path == "/scheduler/filter"
    assert req.body["Pod"] == pod.raw
    assert req.body["NodeNames"] is None
    assert req.body["Nodes"]["items"] == [ni.node.raw for ni in nodes]


def test_filter_node_cache_capable_sends_names_and_keeps_node_infos(
    server: ExtenderServer,
) -> None:
    server.behaviour.required_label = ("accel", "yes")
    server.behaviour.node_labels = {"n2": {"accel": "yes"}, "n3": {"accel": "yes"}}
    nodes = _infos("n1", "n2", "n3")
    ext = _ext(server, filter_verb="filter", node_cache_capable=True)
    feasible, failed, _ = ext.filter(_pod(), nodes)
    assert feasible == [nodes[1], nodes[2]]  # the very same NodeInfo objects
    assert failed == {"n1": "rejected by test extender"}
    body = server.requests[0].body
    assert body["NodeNames"] == ["n1", "n2", "n3"]
    assert body["Nodes"] is None


def test_filter_by_label_on_full_nodes(server: ExtenderServer) -> None:
    server.behaviour.required_label = ("accel", "yes")
    nodes = _infos("a", "b", b={"accel": "yes"})
    feasible, failed, _ = _ext(server, filter_verb="filter").filter(_pod(), nodes)
    assert [ni.node.name for ni in feasible] == ["b"]
    assert feasible[0].node.labels["accel"] == "yes"
    assert list(failed) == ["a"]


def test_filter_reports_unresolvable_nodes(server: ExtenderServer) -> None:
    server.behaviour.unresolvable = lambda name: name == "n1"
    server.behaviour.fail_message = "no such zone"
    feasible, failed, unresolvable = _ext(server, filter_verb="filter").filter(
        _pod(), _infos("n1", "n2")
    )
    assert [ni.node.name for ni in feasible] == ["n2"]
    assert failed == {}
    assert unresolvable == {"n1": "no such zone"}


def test_filter_error_reply_raises(server: ExtenderServer) -> None:
    server.behaviour.filter_error = "extender exploded"
    with pytest.raises(ExtenderError, match="^extender exploded$"):
        _ext(server, filter_verb="filter").filter(_pod(), _infos("n1"))


def test_filter_without_verb_passes_everything_without_a_call(server: ExtenderServer) -> None:
    nodes = _infos("n1", "n2")
    assert _ext(server).filter(_pod(), nodes) == (nodes, {}, {})
    assert server.requests == []


def test_filter_cache_capable_unknown_node_is_an_error(server: ExtenderServer) -> None:
    server.behaviour.override = lambda verb, body: {"NodeNames": ["n1", "ghost"]}
    ext = _ext(server, filter_verb="filter", node_cache_capable=True)
    with pytest.raises(ExtenderError) as info:
        ext.filter(_pod(), _infos("n1"))
    assert str(info.value) == (
        f'extender "{server.url}" claims a filtered node "ghost" which is not found in the '
        "input node list"
    )


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        pytest.param(
            {"nodenames": ["n2"], "failednodes": {"n1": "x"}},
            (["n2"], {"n1": "x"}),
            id="keys-match-case-insensitively",
        ),
        pytest.param({}, ([], {}), id="empty-reply-no-nodes"),
        pytest.param({"NodeNames": None, "Nodes": None}, ([], {}), id="null-lists-no-nodes"),
        pytest.param(
            {"NodeNames": None, "Nodes": {"items": [_node("n1")]}},
            (["n1"], {}),
            id="cache-capable-falls-back-to-nodes",
        ),
        pytest.param(
            {"NodeNames": ["n1"], "Unknown": 1, "FailedNodes": None},
            (["n1"], {}),
            id="unknown-keys-ignored",
        ),
    ],
)
def test_filter_reply_decoding(
    server: ExtenderServer, reply: dict[str, Any], want: tuple[list[str], dict[str, str]]
) -> None:
    server.behaviour.override = lambda verb, body: reply
    ext = _ext(server, filter_verb="filter", node_cache_capable=True)
    feasible, failed, _ = ext.filter(_pod(), _infos("n1", "n2"))
    assert ([ni.node.name for ni in feasible], failed) == want


# --- prioritize ---------------------------------------------------------------------------


def test_prioritize_returns_scores_and_weight(server: ExtenderServer) -> None:
    server.behaviour.priorities = {"n1": 3, "n2": 10}
    ext = _ext(server, prioritize_verb="prioritize", weight=2)
    scores, weight = ext.prioritize(_pod(), _infos("n1", "n2", "n3"))
    assert scores == [("n1", 3), ("n2", 10), ("n3", 0)]
    assert weight == 2
    assert server.requests[0].body["Nodes"]["items"][0]["metadata"]["name"] == "n1"


def test_prioritize_computed_priorities_node_cache_capable(server: ExtenderServer) -> None:
    server.behaviour.priorities = lambda name: len(name)
    ext = _ext(server, prioritize_verb="prioritize", weight=1, node_cache_capable=True)
    assert ext.prioritize(_pod(), _infos("a", "bbb")) == ([("a", 1), ("bbb", 3)], 1)
    assert server.requests[0].body["NodeNames"] == ["a", "bbb"]


def test_prioritize_without_verb_scores_zero_weight_zero(server: ExtenderServer) -> None:
    assert _ext(server, weight=5).prioritize(_pod(), _infos("n1", "n2")) == (
        [("n1", 0), ("n2", 0)],
        0,
    )
    assert server.requests == []


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param([{"Host": "n1", "Score": 1.5}], id="float-score"),
        pytest.param([{"Host": "n1", "Score": "1"}], id="string-score"),
        pytest.param([{"Host": 1, "Score": 1}], id="numeric-host"),
        pytest.param({"Host": "n1"}, id="object-not-list"),
        pytest.param([{"Host": "n1", "Score": 2**63}], id="score-beyond-int64"),
    ],
)
def test_prioritize_reply_of_wrong_type_is_an_error(server: ExtenderServer, reply: Any) -> None:
    server.behaviour.override = lambda verb, body: reply
    with pytest.raises(ExtenderError, match="cannot unmarshal"):
        _ext(server, prioritize_verb="prioritize", weight=1).prioritize(_pod(), _infos("n1"))


def test_prioritize_null_reply_is_empty(server: ExtenderServer) -> None:
    server.behaviour.override = lambda verb, body: None
    assert _ext(server, prioritize_verb="p", weight=1).prioritize(_pod(), _infos("n1")) == ([], 1)


def test_extender_priorities_keep_raw_scores_and_weights_in_order(server: ExtenderServer) -> None:
    server.behaviour.priorities = {"n1": 10, "n2": 4}
    with ExtenderServer(priorities={"n2": 1}) as other:
        exts = [
            _ext(server, prioritize_verb="prioritize", weight=3),
            _ext(other, prioritize_verb="prioritize", weight=1),
            _ext(refused_url(), prioritize_verb="prioritize", weight=9),  # error: no scores
            _ext(
                other,
                prioritize_verb="prioritize",
                weight=7,
                managed_resources=(ExtenderManagedResource(GPU),),
            ),  # not interested
        ]
        got = extender_priorities(exts, _pod(), _infos("n1", "n2"))
    # The failing extender gives nothing and the uninterested one is not asked.
    assert got == [(server.url, 3, {"n1": 10, "n2": 4}), (other.url, 1, {"n1": 0, "n2": 1})]
    # What joins a node's total: raw x weight x (MaxNodeScore / MaxExtenderPriority).
    assert EXTENDER_SCORE_SCALE == 10
    assert [raw["n1"] * w * EXTENDER_SCORE_SCALE for _, w, raw in got] == [300, 0]


# --- preemption ---------------------------------------------------------------------------


def _preemption_setup() -> tuple[Snapshot, dict[str, list[Pod]], dict[str, int]]:
    infos = _infos("n1", "n2")
    v = {
        "n1": [_pod("a", node="n1"), _pod("b", node="n1")],
        "n2": [_pod("c", node="n2")],
    }
    for ni in infos:
        for p in v[ni.node.name]:
            ni.add_pod(p)
    infos[0].add_pod(_pod("bystander", node="n1"))
    return Snapshot(infos, ClusterObjects()), v, {"n1": 1, "n2": 0}


def test_preempt_node_cache_capable_sends_meta_victims(server: ExtenderServer) -> None:
    snap, victims, pdb = _preemption_setup()
    ext = _ext(server, preempt_verb="preempt", node_cache_capable=True)
    got_victims, got_pdb = ext.process_preemption(_pod("x"), victims, pdb, snap)
    assert {n: [p.name for p in ps] for n, ps in got_victims.items()} == {
        "n1": ["a", "b"],
        "n2": ["c"],
    }
    assert got_pdb == {"n1": 1, "n2": 0}
    # Victims are resolved to the snapshot's own Pod objects.
    assert got_victims["n1"][0] is victims["n1"][0]
    body = server.requests[0].body
    assert body["NodeNameToVictims"] is None
    assert body["NodeNameToMetaVictims"] == {
        "n1": {"Pods": [{"UID": "uid-a"}, {"UID": "uid-b"}], "NumPDBViolations": 1},
        "n2": {"Pods": [{"UID": "uid-c"}], "NumPDBViolations": 0},
    }


def test_preempt_sends_full_victims_without_node_cache(server: ExtenderServer) -> None:
    snap, victims, pdb = _preemption_setup()
    server.behaviour.preempt_max_victims = 1
    server.behaviour.preempt_drop_nodes = frozenset({"n2"})
    got_victims, got_pdb = _ext(server, preempt_verb="preempt").process_preemption(
        _pod("x"), victims, pdb, snap
    )
    assert {n: [p.name for p in ps] for n, ps in got_victims.items()} == {"n1": ["a"]}
    assert got_pdb == {"n1": 1}
    body = server.requests[0].body
    assert body["NodeNameToMetaVictims"] is None
    assert body["NodeNameToVictims"]["n1"]["Pods"] == [p.raw for p in victims["n1"]]
    assert body["Pod"]["metadata"]["name"] == "x"


def test_preempt_unknown_victim_uid_is_an_error(server: ExtenderServer) -> None:
    snap, victims, pdb = _preemption_setup()
    server.behaviour.preempt_extra_uid = "nope"
    server.behaviour.preempt_drop_nodes = frozenset({"n2"})
    with pytest.raises(ExtenderError) as info:
        _ext(server, preempt_verb="preempt").process_preemption(_pod("x"), victims, pdb, snap)
    assert str(info.value) == (
        f"extender: {server.url} claims to preempt pod (UID: &{{nope}}) on node: n1, "
        "but the pod is not found on that node"
    )


def test_preempt_unknown_node_is_an_error(server: ExtenderServer) -> None:
    snap, victims, pdb = _preemption_setup()
    server.behaviour.override = lambda verb, body: {"NodeNameToMetaVictims": {"zz": {"Pods": []}}}
    with pytest.raises(ExtenderError, match='^nodeinfo not found for node name "zz"$'):
        _ext(server, preempt_verb="preempt").process_preemption(_pod("x"), victims, pdb, snap)


def test_preempt_without_verb_is_an_error() -> None:
    snap, victims, pdb = _preemption_setup()
    with pytest.raises(ExtenderError, match="preempt verb is not defined for extender"):
        _ext("http://127.0.0.1:1").process_preemption(_pod("x"), victims, pdb, snap)


@pytest.mark.parametrize(
    ("ignorable", "want"),
    [
        pytest.param(True, {"n1": ["a", "b"]}, id="ignorable-drops-node-without-victims"),
        pytest.param(False, "expected at least one victim pod on node", id="other-errors"),
    ],
)
def test_call_extenders_for_preemption_empty_victims(
    server: ExtenderServer, ignorable: bool, want: Any
) -> None:
    snap, victims, pdb = _preemption_setup()
    server.behaviour.override = lambda verb, body: {
        "NodeNameToMetaVictims": {
            "n1": {"Pods": [{"UID": "uid-a"}, {"UID": "uid-b"}], "NumPDBViolations": 1},
            "n2": {"Pods": [], "NumPDBViolations": 0},
        }
    }
    exts = [_ext(server, preempt_verb="preempt", ignorable=ignorable)]
    if isinstance(want, str):
        with pytest.raises(ExtenderError, match=f'{want} "n2"'):
            call_extenders_for_preemption(exts, _pod("x"), victims, pdb, snap)
        return
    got, got_pdb = call_extenders_for_preemption(exts, _pod("x"), victims, pdb, snap)
    assert {n: [p.name for p in ps] for n, ps in got.items()} == want
    assert got_pdb == {"n1": 1}


def test_call_extenders_for_preemption_chains_and_skips_ignorable_down(
    server: ExtenderServer,
) -> None:
    snap, victims, pdb = _preemption_setup()
    server.behaviour.preempt_drop_nodes = frozenset({"n1"})
    exts = [
        _ext(refused_url(), preempt_verb="preempt", ignorable=True),
        _ext(server, preempt_verb="preempt", node_cache_capable=True),
        _ext(server, filter_verb="filter"),  # no preempt verb: not asked
    ]
    got, _ = call_extenders_for_preemption(exts, _pod("x"), victims, pdb, snap)
    assert {n: [p.name for p in ps] for n, ps in got.items()} == {"n2": ["c"]}
    assert server.verbs() == ["preempt"]


# --- bind -----------------------------------------------------------------------------------


def test_bind_sends_binding_args(server: ExtenderServer) -> None:
    _ext(server, bind_verb="bind").bind(_pod("web", uid="u-1"), "n7")
    assert server.bindings == [
        {"PodName": "web", "PodNamespace": "default", "PodUID": "u-1", "Node": "n7"}
    ]


def test_bind_error_reply_raises(server: ExtenderServer) -> None:
    server.behaviour.bind_error = "node is full"
    with pytest.raises(ExtenderError, match="^node is full$"):
        _ext(server, bind_verb="bind").bind(_pod(), "n1")
    assert server.bindings == []


def test_bind_without_verb_is_an_error() -> None:
    with pytest.raises(ExtenderError, match="unexpected empty bindVerb in extender"):
        _ext("http://127.0.0.1:1").bind(_pod(), "n1")


def test_bind_with_extenders_first_interested_binder(server: ExtenderServer) -> None:
    gpu_only = _ext(server, bind_verb="bind", managed_resources=(ExtenderManagedResource(GPU),))
    down = _ext(refused_url(), bind_verb="bind", ignorable=True)
    assert bind_with_extenders([gpu_only, down], _pod(), "n1") is False
    assert bind_with_extenders([down, gpu_only], _pod(requests={GPU: "1"}), "n1") is True
    assert [b["Node"] for b in server.bindings] == ["n1"]
    with pytest.raises(ExtenderError):
        bind_with_extenders([_ext(refused_url(), bind_verb="bind")], _pod(), "n1")


# --- failures: down, HTTP errors, timeouts --------------------------------------------------


def test_connection_refused_raises() -> None:
    url = refused_url()
    with pytest.raises(ExtenderError, match=f'^Post "{url}/filter": '):
        _ext(url, filter_verb="filter").filter(_pod(), _infos("n1"))


@pytest.mark.parametrize(
    ("ignorable", "raises"),
    [
        pytest.param(True, False, id="ignorable-down-is-skipped"),
        pytest.param(False, True, id="non-ignorable-down-fails-the-cycle"),
    ],
)
def test_find_nodes_with_extender_down(
    server: ExtenderServer, ignorable: bool, raises: bool
) -> None:
    server.behaviour.passes = lambda name: name == "n2"
    exts = [
        _ext(refused_url(), filter_verb="filter", ignorable=ignorable),
        _ext(server, filter_verb="filter", node_cache_capable=True),
    ]
    nodes = _infos("n1", "n2")
    if raises:
        with pytest.raises(ExtenderError, match="Post"):
            find_nodes_that_pass_extenders(exts, _pod(), nodes)
        assert server.requests == []
        return
    feasible, statuses = find_nodes_that_pass_extenders(exts, _pod(), nodes)
    assert feasible == [nodes[1]]
    assert {n: (s.code, s.reasons) for n, s in statuses.items()} == {
        "n1": (Code.UNSCHEDULABLE, ("rejected by test extender",))
    }


def test_find_nodes_chains_extenders_and_prefers_unresolvable(server: ExtenderServer) -> None:
    with ExtenderServer(
        override=lambda verb, body: {
            "NodeNames": [],
            "FailedNodes": {"n3": "soft"},
            "FailedAndUnresolvableNodes": {"n3": "hard"},
        }
    ) as second:
        server.behaviour.passes = lambda name: name != "n1"
        exts = [
            _ext(server, filter_verb="filter", node_cache_capable=True),
            _ext(server, filter_verb="filter", managed_resources=(ExtenderManagedResource(GPU),)),
            _ext(second, filter_verb="filter", node_cache_capable=True),
            _ext(server, filter_verb="filter"),  # not reached: no nodes left
        ]
        feasible, statuses = find_nodes_that_pass_extenders(exts, _pod(), _infos("n1", "n3"))
        assert second.requests[0].body["NodeNames"] == ["n3"]
    assert feasible == []
    assert {n: (s.code, s.message()) for n, s in statuses.items()} == {
        "n1": (Code.UNSCHEDULABLE, "rejected by test extender"),
        "n3": (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "hard"),
    }
    assert server.verbs() == ["filter"]


@pytest.mark.parametrize("status", [500, 404, 204])
def test_non_200_status_is_an_error(server: ExtenderServer, status: int) -> None:
    server.behaviour.status = status
    with pytest.raises(ExtenderError) as info:
        _ext(server, filter_verb="filter").filter(_pod(), _infos("n1"))
    assert str(info.value) == (
        f"failed filter with extender at URL {server.url}/filter, code {status}"
    )


def test_unknown_verb_path_is_404(server: ExtenderServer) -> None:
    with pytest.raises(ExtenderError, match="code 404"):
        _ext(server, filter_verb="nope").filter(_pod(), _infos("n1"))


def test_trailing_slash_of_prefix_is_trimmed(server: ExtenderServer) -> None:
    _ext(server.url + "//", filter_verb="filter").filter(_pod(), _infos("n1"))
    assert server.requests[0].path == "/scheduler/filter"


def test_timeout_is_honoured(server: ExtenderServer) -> None:
    server.behaviour.hang_seconds = 3.0
    ext = _ext(server, filter_verb="filter", http_timeout_seconds=0.2)
    start = time.monotonic()
    with pytest.raises(ExtenderError, match="Client.Timeout exceeded"):
        ext.filter(_pod(), _infos("n1"))
    assert time.monotonic() - start < 2.0


def test_failing_verbs_only_affect_those_verbs(server: ExtenderServer) -> None:
    server.behaviour.status = 500
    server.behaviour.failing_verbs = frozenset({"prioritize"})
    ext = _ext(server, filter_verb="filter", prioritize_verb="prioritize", weight=1)
    assert len(ext.filter(_pod(), _infos("n1"))[0]) == 1
    with pytest.raises(ExtenderError, match="code 500"):
        ext.prioritize(_pod(), _infos("n1"))


@pytest.mark.parametrize(
    ("body", "match"),
    [
        pytest.param(b"", "^EOF$", id="empty-body"),
        pytest.param(b"{not json", "decoding extender reply", id="bad-json"),
        pytest.param(b'"text"', "cannot unmarshal string", id="wrong-top-level-type"),
    ],
)
def test_undecodable_replies(server: ExtenderServer, body: bytes, match: str) -> None:
    server.behaviour.override = lambda verb, req: body
    with pytest.raises(ExtenderError, match=match):
        _ext(server, filter_verb="filter").filter(_pod(), _infos("n1"))


def test_trailing_data_after_reply_is_ignored(server: ExtenderServer) -> None:
    server.behaviour.override = lambda verb, req: b'{"Error": ""} trailing'
    assert _ext(server, filter_verb="filter").filter(_pod(), _infos("n1"))[0] == []


def test_yaml_timestamps_in_manifests_are_sent_as_rfc3339(server: ExtenderServer) -> None:
    raw: dict[str, Any] = {
        "metadata": {
            "name": "p",
            "creationTimestamp": datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.UTC),
        },
        "spec": {"containers": []},
    }
    _ext(server, filter_verb="filter").filter(Pod(raw), _infos("n1"))
    assert server.requests[0].body["Pod"]["metadata"]["creationTimestamp"] == (
        "2024-05-01T12:00:00Z"
    )


def test_proxy_from_environment_is_bypassed_for_loopback(
    server: ExtenderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("http_proxy", refused_url(""))
    monkeypatch.setenv("HTTP_PROXY", refused_url(""))
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    assert len(_ext(server, filter_verb="filter").filter(_pod(), _infos("n1"))[0]) == 1


# --- configuration ----------------------------------------------------------------------------


def test_extenders_from_config_puts_ignorable_last() -> None:
    cfg = KubeSchedulerConfiguration(
        extenders=(
            Extender(url_prefix="http://a", ignorable=True),
            Extender(
                url_prefix="http://b",
                managed_resources=(ExtenderManagedResource(GPU, ignored_by_scheduler=True),),
            ),
            Extender(
                url_prefix="http://c",
                managed_resources=(
                    ExtenderManagedResource("example.com/fpga"),
                    ExtenderManagedResource("example.com/tpu", ignored_by_scheduler=True),
                ),
            ),
        )
    )
    assert [e.name for e in extenders_from_config(cfg)] == ["http://b", "http://c", "http://a"]
    assert ignored_extended_resources(cfg) == (GPU, "example.com/tpu")
    assert extenders_from_config(KubeSchedulerConfiguration()) == []


def test_insecure_with_ca_is_rejected() -> None:
    cfg = Extender(url_prefix="https://x", tls_config={"insecure": True, "caData": "YWJj"})
    with pytest.raises(ExtenderError, match="insecure flag is not allowed"):
        HTTPExtender(cfg)


def test_bad_base64_in_tls_config_is_rejected() -> None:
    with pytest.raises(ExtenderError, match="tlsConfig.caData"):
        HTTPExtender(Extender(url_prefix="https://x", tls_config={"caData": "%%%"}))


# --- HTTPS ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=extender.test", "-addext", "subjectAltName=DNS:extender.test",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def https_server(tls_files: tuple[Path, Path]) -> Iterator[ExtenderServer]:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*tls_files)
    with ExtenderServer(ssl_context=ctx) as srv:
        yield srv


@pytest.mark.parametrize(
    "tls",
    [
        pytest.param(None, id="enable-https-without-ca-skips-verification"),
        pytest.param("ca-file", id="ca-file-with-server-name"),
        pytest.param("ca-data", id="ca-data-base64-with-server-name"),
    ],
)
def test_https_extender(
    https_server: ExtenderServer, tls_files: tuple[Path, Path], tls: str | None
) -> None:
    cert = tls_files[0]
    tls_config: dict[str, Any] | None = None
    if tls == "ca-file":
        tls_config = {"caFile": str(cert), "serverName": "extender.test"}
    elif tls == "ca-data":
        tls_config = {
            "caData": base64.b64encode(cert.read_bytes()).decode(),
            "serverName": "extender.test",
        }
    ext = _ext(https_server, filter_verb="filter", enable_https=True, tls_config=tls_config)
    assert [ni.node.name for ni in ext.filter(_pod(), _infos("n1"))[0]] == ["n1"]


def test_https_verification_fails_for_wrong_name(
    https_server: ExtenderServer, tls_files: tuple[Path, Path]
) -> None:
    ext = _ext(https_server, filter_verb="filter", tls_config={"caFile": str(tls_files[0])})
    with pytest.raises(ExtenderError, match="CERTIFICATE_VERIFY_FAILED|certificate"):
        ext.filter(_pod(), _infos("n1"))
