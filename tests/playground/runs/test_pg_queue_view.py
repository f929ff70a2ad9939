"""The queue block of cycles/<n>.json: the queues a cycle found, and the moves during it."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod, record_run
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation

from playground import demo
from playground.demo import demo_load
from playground.models import Cluster, Profile, Run, RunSnapshot
from playground.runs.panels import queue_view
from scheduler_core.loop.scheduler import Scheduler


def _engine_events(manifests, config=None):
    events = []
    sched = Scheduler(config, manifests, on_event=lambda e: events.append(e.to_dict()))
    sched.run_until_idle()
    return events


def _demo_manifests(name):
    text = next(t for n, _, t in demo.CLUSTERS if n == name)
    return [m for m in yaml.safe_load_all(text) if m]


def _queue_of(events, cycle, priorities):
    """The view's own windowing, on events held in memory."""
    starts = {e["cycle"]: e["seq"] for e in events if e["type"] == "CycleStart"}
    queue_events = [e for e in events if e["type"] in queue_view.EVENT_TYPES]
    nxt = cycle + 1 if cycle + 1 in starts else None
    start = queue_view._pop_seq(queue_events, cycle, starts[cycle])
    end = queue_view._pop_seq(queue_events, nxt, starts[nxt]) if nxt else None
    return queue_view.cycle_queue(queue_events, start=start, end=end, priorities=priorities)


def _pods(q, place):
    return [r["pod"] for r in q["pods"][place]]


def test_a_pod_that_fails_backs_off_then_is_popped_and_bound():
    events = _engine_events(_demo_manifests("Preemption scenario"))
    priorities = {"default/urgent": 100000}
    first = _queue_of(events, 1, priorities)
    assert _pods(first, "active") == ["default/urgent"]
    assert first["pods"]["active"][0]["priority"] == 100000
    assert first["counts"] == {
        "active": 1,
        "backoff": 0,
        "unschedulable": 0,
        "gated": 0,
        "in_flight": 0,
    }
    kinds = [(m["type"], m["from"], m["to"]) for m in first["moves"] if m["pod"]]
    assert ("Pop", "active", "in_flight") in kinds
    assert kinds[-1] == ("Backoff", "in_flight", "backoff")
    failed = next(m for m in first["moves"] if m["type"] == "Unschedulable")
    assert failed["text"] == "default/urgent's attempt failed: rejected by NodeResourcesFit."
    backoff = first["moves"][-1]
    assert "AssignedPodDelete happened during the attempt" in backoff["text"]
    assert "NodeResourcesFit's queueing hint said Queue" in backoff["text"]
    assert (
        backoff["row"]["until"]
        == next(e for e in events if e["type"] == "Backoff")["details"]["until"]
    )

    second = _queue_of(events, 2, priorities)
    assert _pods(second, "backoff") == ["default/urgent"]
    row = second["pods"]["backoff"][0]
    assert (row["attempts"], row["plugins"]) == (1, ["NodeResourcesFit"])
    pop = second["moves"][0]
    assert (pop["type"], pop["from"], pop["to"], pop["row"]["attempts"]) == (
        "Pop",
        "backoff",
        "in_flight",
        2,
    )
    assert "PopFromBackoffQ" in pop["text"]
    bound = next(m for m in second["moves"] if m["type"] == "Bind")
    assert (bound["from"], bound["to"]) == ("in_flight", None)


def test_activeq_is_in_queuesort_order_and_each_cycle_pops_its_head():
    pods = [
        make_pod("low-a", priority=10),
        make_pod("high", priority=1000),
        make_pod("low-b", priority=10),
        make_pod("mid", priority=500),
    ]
    events = _engine_events([make_node("n1", cpu="8"), *pods])
    priorities = {f"default/{p['metadata']['name']}": p["spec"]["priority"] for p in pods}
    first = _queue_of(events, 1, priorities)
    assert _pods(first, "active") == [
        "default/high",
        "default/mid",
        "default/low-a",
        "default/low-b",
    ]
    for cycle in (1, 2, 3, 4):
        q = _queue_of(events, cycle, priorities)
        pod = next(e["pod"] for e in events if e["type"] == "CycleStart" and e["cycle"] == cycle)
        assert _pods(q, "active")[0] == pod
        assert len(_pods(q, "active")) == 5 - cycle


def test_gated_pods_wait_in_the_pool_with_their_gating_plugin():
    gated = make_pod("gated")
    gated["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    events = _engine_events([make_node("n1", cpu="2"), make_pod("small"), gated])
    q = _queue_of(events, 1, {})
    assert q["pods"]["gated"] == [
        {
            **q["pods"]["gated"][0],
            "pod": "default/gated",
            "queue": "gated",
            "plugin": "SchedulingGates",
        }
    ]
    assert q["counts"]["gated"] == 1


def test_each_queue_lists_at_most_the_limit_but_counts_every_pod(monkeypatch):
    monkeypatch.setattr(queue_view, "LISTED", 2)
    events = _engine_events([make_node("n1", cpu="8"), *(make_pod(f"p{i}") for i in range(5))])
    q = _queue_of(events, 1, {})
    assert len(q["pods"]["active"]) == 2
    assert q["counts"]["active"] == 5


@pytest.mark.django_db
def test_the_cycle_json_carries_the_queue_from_the_stored_events(django_user_model):
    user = django_user_model.objects.create_user("q", password="unused-pass-123")
    demo_load()
    cluster = Cluster.objects.get(name="Preemption scenario")
    profile = Profile.objects.get(name="Default")
    run, _, events = record_run(cluster, profile, user=user)
    client = Client()
    client.force_login(user)
    body = client.get(reverse("playground:run_cycle", args=[run.pk, 2])).json()
    assert body["queue"] == _queue_of(events, 2, {"default/urgent": 100000})
    assert body["queue"]["pods"]["backoff"][0]["priority"] == 100000
    assert body["queue"]["order"].startswith("activeQ is ordered by QueueSort (PrioritySort)")
    last = client.get(reverse("playground:run_cycle", args=[run.pk, 1])).json()
    assert [m["type"] for m in last["queue"]["moves"]][-1] == "Backoff"


def test_a_cluster_event_that_requeues_a_pod_is_explained_with_its_hint():
    pod = "default/big"
    events = [
        {"type": "Enqueue", "seq": 0, "pod": pod, "time": 0.0, "details": {"queue": "active"}},
        {"type": "Pop", "seq": 1, "pod": pod, "time": 0.0, "details": {"attempts": 1, "cycle": 1}},
        {"type": "CycleStart", "seq": 2, "cycle": 1, "pod": pod},
        {"type": "CycleEnd", "seq": 3, "cycle": 1, "pod": pod, "result": "Unschedulable"},
        {
            "type": "Unschedulable",
            "seq": 4,
            "pod": pod,
            "time": 0.0,
            "details": {"plugins": ["NodeResourcesFit", "NodeAffinity"], "cycle": 1},
        },
        {
            "type": "Enqueue",
            "seq": 5,
            "pod": pod,
            "time": 0.0,
            "details": {"queue": "unschedulable"},
        },
        {
            "type": "ClusterChange",
            "seq": 6,
            "pod": "",
            "time": 5.0,
            "details": {"node": "n2", "action": "add", "events": ["NodeAdd"]},
        },
        {
            "type": "MoveToActive",
            "seq": 7,
            "pod": pod,
            "time": 5.0,
            "details": {
                "event": "NodeAdd",
                "from": "unschedulable",
                "plugin": "NodeResourcesFit",
                "hints": {"NodeAffinity": "QueueSkip", "NodeResourcesFit": "Queue"},
            },
        },
        {"type": "Pop", "seq": 8, "pod": pod, "time": 5.0, "details": {"attempts": 2, "cycle": 2}},
        {"type": "CycleStart", "seq": 9, "cycle": 2, "pod": pod},
    ]
    q = _queue_of(events, 1, {pod: 7})
    assert [(m["type"], m["from"], m["to"]) for m in q["moves"]] == [
        ("Pop", "active", "in_flight"),
        ("Unschedulable", "in_flight", "in_flight"),
        ("Enqueue", "in_flight", "unschedulable"),
        ("ClusterChange", None, None),
        ("MoveToActive", "unschedulable", "active"),
    ]
    texts = [m["text"] for m in q["moves"]]
    assert texts[2] == (
        "default/big goes to the unschedulable pool: it waits for a cluster event that "
        "NodeResourcesFit, NodeAffinity registered, whose queueing hint says Queue."
    )
    assert texts[3].startswith("Cluster event: node n2 added (NodeAdd)")
    assert texts[4] == (
        "default/big: the unschedulable pool → activeQ on NodeAdd and NodeResourcesFit's "
        "queueing hint said Queue (NodeAffinity said QueueSkip)."
    )
    assert q["moves"][-1]["row"] == {**q["moves"][-1]["row"], "queue": "active", "priority": 7}
    with translation.override("zh-hans"):  # the move reads in Chinese, the queue names stay
        zh = _queue_of(events, 1, {pod: 7})["moves"][4]["text"]
    assert zh.startswith("default/big：从不可调度池移入 activeQ") and zh.endswith("。")
    second = _queue_of(events, 2, {pod: 7})
    assert _pods(second, "active") == [pod] and second["moves"][0]["row"]["attempts"] == 2


@pytest.mark.django_db
def test_a_new_run_that_reuses_a_deleted_runs_id_reads_its_own_priorities(
    django_assert_num_queries,
):
    demo_load()
    cluster = Cluster.objects.get(name="Preemption scenario")
    profile = Profile.objects.get(name="Default")

    def run_with(priority):
        pod = make_pod("p")
        pod["spec"]["priority"] = priority
        return Run.objects.create(cluster=cluster, profile=profile, snapshot=[pod])

    first = run_with(7)
    assert queue_view.run_priorities(first) == {"default/p": 7}
    with django_assert_num_queries(0):  # read once, then kept
        assert queue_view.run_priorities(first) == {"default/p": 7}
    pk = first.pk
    first.delete()
    again = run_with(9)
    if again.pk != pk:  # the database did not reuse the id: make it so
        again.delete()
        again = run_with(9)
        with transaction.atomic():  # the snapshot's row follows its run
            Run.objects.filter(pk=again.pk).update(id=pk)
            RunSnapshot.objects.filter(run_id=again.pk).update(run_id=pk)
        again = Run.objects.get(pk=pk)
    assert queue_view.run_priorities(again) == {"default/p": 9}
