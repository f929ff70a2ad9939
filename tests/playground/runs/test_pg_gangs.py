"""The run page's gangs (gangs.json): each Workload's gang, where its members are (gated at
PreEnqueue, waiting at Permit on a node holding their requests, bound) and the step at which the
gang completed."""

from __future__ import annotations

import pytest
from django.urls import reverse

from playground.lessons.loader import lesson_by_slug
from playground.models import Run
from playground.runs import selectors
from playground.runs.panels import gangs

pytestmark = pytest.mark.django_db

WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1alpha1",
    "kind": "Workload",
    "metadata": {"name": "train", "namespace": "default"},
    "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]},
}


def _pod(name, node=None):
    spec = {
        "workloadRef": {"name": "train", "podGroup": "workers"},
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}],
    }
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _permit(seq, cycle, pod, node, code, **extra):
    return {
        "type": "Permit",
        "seq": seq,
        "cycle": cycle,
        "pod": f"default/{pod}",
        "plugin": "GangScheduling",
        "node": node,
        "code": code,
        **extra,
    }


def test_a_gang_is_read_from_its_workload_and_the_pods_that_name_it():
    plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {}}
    [gang] = gangs.gangs_of([WORKLOAD, _pod("a"), plain, _pod("b", node="n1")])
    assert (gang.workload, gang.group, gang.min_count) == ("default/train", "workers", 2)
    assert gang.members == ("default/a", "default/b")
    assert gang.requests["default/a"] == "cpu 1500m, memory 1Gi"
    assert gang.bound_before == {"default/b": "n1"}
    assert gangs.gangs_of([_pod("a")]) == []  # no Workload: no gang to show


def test_members_move_from_gated_to_waiting_to_bound_and_the_gang_completes():
    found = gangs.gangs_of([WORKLOAD, _pod("a"), _pod("b")])
    events = [
        {"type": "Enqueue", "seq": 0, "pod": "default/a", "details": {"queue": "gated"}},
        {"type": "Enqueue", "seq": 1, "pod": "default/b", "details": {"queue": "active"}},
        {"type": "MoveToActive", "seq": 2, "pod": "default/a", "details": {"from": "gated"}},
        {"type": "CycleStart", "seq": 3, "cycle": 1, "pod": "default/b"},
        _permit(4, 1, "b", "n2", "Wait", timeout=300.0),
    ]
    [gang] = gangs.gang_states(found, events)
    a, b = gang["members"]
    assert a["state"] == "queued" and a["text"] == "in activeQ"
    assert b["state"] == "waiting"
    assert b["text"] == "waits at Permit on n2, holding cpu 1500m, memory 1Gi"
    assert (gang["placed"], gang["completed"]) == (1, None)
    events += [
        {"type": "CycleStart", "seq": 5, "cycle": 2, "pod": "default/a"},
        _permit(6, 2, "b", "n2", "Success", reasons=["allowed"]),
        {**_permit(7, 2, "b", "n2", "Success"), "type": "Bind", "plugin": "DefaultBinder"},
        _permit(8, 2, "a", "n1", "Success"),
    ]
    [gang] = gangs.gang_states(found, events)
    assert [m["state"] for m in gang["members"]] == ["allowed", "bound"]
    assert gang["completed"] == {"cycle": 2, "seq": 6, "pod": "default/a"}


def test_a_member_timed_out_at_permit_says_so():
    found = gangs.gangs_of([WORKLOAD, _pod("a"), _pod("b")])
    reason = "rejected due to timeout after waiting 5m0s at plugin GangScheduling"
    events = [
        {"type": "CycleStart", "seq": 0, "cycle": 1, "pod": "default/a"},
        _permit(1, 1, "a", "n1", "Wait", timeout=300.0),
        _permit(2, 1, "a", "n1", "Unschedulable", reasons=[reason]),
    ]
    [gang] = gangs.gang_states(found, events)
    assert gang["members"][0]["state"] == "timed_out"
    assert gang["members"][0]["text"] == "timed out at Permit on n1: back to the queue"


def test_gangs_json_of_the_gang_lesson_shows_who_waited_where_and_when_it_completed(
    client, django_capture_on_commit_callbacks
):
    lesson = lesson_by_slug("gang-scheduling")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("playground:lesson_run", args=[lesson.slug]), {"profile": "default"}
        )
    assert response.status_code == 302
    run = Run.objects.get()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    body = client.get(reverse("playground:run_gangs", args=[run.pk])).json()
    assert body["terminal"] is True
    train, sweep = body["gangs"]
    assert train["title"] == "train, pod group workers: minCount 3, 3 pods"
    assert {m["pod"]: (m["state"], m.get("node")) for m in train["members"]} == {
        "default/train-0": ("bound", "node-2"),
        "default/train-1": ("bound", "node-4"),
        "default/train-2": ("bound", "node-1"),
    }
    done = train["completed"]
    assert (done["cycle"], done["pod"]) == (4, "default/train-1")
    assert train["completes"] == done
    assert done["link"].startswith("#cycle=4&step=")
    assert train["status"].startswith("Complete in cycle 4: with train-1, minCount members")
    assert [m["state"] for m in sweep["members"]] == ["gated", "gated"]
    assert sweep["completed"] is None
    assert sweep["status"] == (
        "Not complete: 0 of minCount 3 members have a node; 2 gated before the queue."
    )
    # As the page's stepper shows cycle 2's Permit: two members wait, each holding its node.
    wait = next(
        e["seq"]
        for e in selectors.run_events(run=run)
        if e["type"] == "Permit" and e["pod"] == "default/train-0"
    )
    url = reverse("playground:run_gangs", args=[run.pk])
    train, _ = client.get(url, {"upto": wait}).json()["gangs"]
    assert [m["text"] for m in train["members"]] == [
        "waits at Permit on node-2, holding cpu 3, memory 4Gi",
        "in activeQ",
        "waits at Permit on node-1, holding cpu 3, memory 4Gi",
    ]
    assert train["completed"] is None
    assert train["status"] == (
        "Not complete: 2 of minCount 3 members have a node. It completes in cycle 4."
    )
    assert train["completes"] == done  # the link to the moment, whatever the step shown
    # In Chinese too.
    zh, _ = client.get(url, {"upto": wait}, HTTP_ACCEPT_LANGUAGE="zh-hans").json()["gangs"]
    assert zh["title"] == "train，Pod 组 workers：minCount 为 3，共 3 个 Pod"
    assert zh["members"][0]["text"] == "在 node-2 的 Permit 处等待，占着 cpu 3, memory 4Gi"
    assert zh["status"] == "尚未凑齐：minCount 为 3，已有节点的成员有 2 个。它在周期 4 凑齐。"
    page = client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'id="gangs-section"' in page
    # The feature-gates line says what the lesson's gates change in this run.
    assert 'data-gate-note="GangScheduling"' in page
    assert "wait at Permit until minCount are assumed" in page
