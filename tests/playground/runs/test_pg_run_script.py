"""Runs with a script of cluster changes: validation, execution between cycles, the records."""

from __future__ import annotations

import json

import pytest
from builders import cluster_with, make_node, make_pod, stored_events

from playground.profiles import services as profile_services
from playground.runs import services as runs
from playground.runs.execution import script
from playground.runs.panels import changes

pytestmark = pytest.mark.django_db


def _paths(raw, **targets):
    with pytest.raises(script.ScriptError) as err:
        steps = script.parse_script(raw)
        errors = script.check_targets(steps, targets.get("nodes", []), targets.get("pods", []))
        if errors:
            raise script.ScriptError(errors)
    return {path: message for path, message in err.value.errors}


def test_script_errors_name_the_field():
    errors = _paths(
        [
            {"after_cycle": -1, "remove_node": "n1"},
            {
                "after_cycle": 1,
                "add_node": {
                    "metadata": {"name": "n9"},
                    "status": {"allocatable": {"cpu": "lots"}},
                },
            },
            {"after_cycle": 1, "set_labels": {"node": "n1", "labels": {"bad key!": "x"}}},
            {"after_cycle": 1, "reboot_node": "n1"},
            {"after_cycle": 2, "delete_pod": ""},
        ]
    )
    assert set(errors) == {
        "script[0].after_cycle",
        "script[1].add_node.status.allocatable.cpu",
        "script[2].set_labels.labels",
        "script[3].reboot_node",
        "script[4].delete_pod",
    }
    assert "bad key!" in errors["script[2].set_labels.labels"]


def test_script_targets_must_exist_when_the_step_runs():
    errors = _paths(
        [
            {"after_cycle": 1, "remove_node": "n2"},
            {
                "after_cycle": 2,
                "set_taints": {"node": "n3", "taints": [{"key": "k", "effect": "NoSchedule"}]},
            },
            {"after_cycle": 0, "add_node": {"metadata": {"name": "n3"}}},
            {"after_cycle": 3, "delete_pod": "ghost"},
        ],
        nodes=["n1"],
        pods=["default/a"],
    )
    assert errors == {
        "script[0].remove_node": "no node 'n2' in the cluster",
        "script[3].delete_pod": "no pod default/ghost in the cluster",
    }


def test_player_hands_out_steps_after_their_cycle_or_when_idle():
    steps = script.parse_script(
        [{"after_cycle": 3, "remove_node": "b"}, {"after_cycle": 1, "remove_node": "a"}]
    )
    player = script.ScriptPlayer(steps)
    assert player.due(0) == []
    assert [s.value for s in player.due(1)] == ["a"]
    assert player.due(2) == []
    assert [s.value for s in player.due(2, idle=True)] == ["b"]
    assert player.due(9, idle=True) == []


BIG_NODE = {
    "metadata": {"name": "n4"},
    "status": {"allocatable": {"cpu": "16", "memory": "32Gi", "pods": "110"}},
}
SMALL_NODE = {
    "metadata": {"name": "n3"},
    "status": {"allocatable": {"cpu": "1", "memory": "32Gi", "pods": "110"}},
}


def test_run_applies_the_script_between_cycles_and_records_which_hint_moved_the_pod(
    user, django_capture_on_commit_callbacks
):
    cluster = cluster_with(user, make_node("n1", cpu="2"), make_pod("big", cpu="8"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    steps = script.parse_script(
        [{"after_cycle": 1, "add_node": SMALL_NODE}, {"after_cycle": 1, "add_node": BIG_NODE}]
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile, script=steps)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error_message
    assert run.script == [s.to_dict() for s in steps]
    assert run.placements == {"default/big": "n4"}

    events = stored_events(run)
    added = [e for e in events if e["type"] == "ClusterChange"]
    assert [e["details"]["node"] for e in added] == ["n3", "n4"]
    assert all(e["cycle"] == 1 for e in added)
    # The second attempt at the pod comes after the change, in cycle 2.
    starts = [e for e in events if e["type"] == "CycleStart"]
    assert [e["seq"] > added[-1]["seq"] for e in starts] == [False, True]

    grouped = changes.run_changes(run=run)
    assert [(c["after_cycle"], c["text"]) for c in grouped] == [
        (1, "node n3 added"),
        (1, "node n4 added"),
    ]
    assert grouped[0]["moved"] == []
    assert grouped[0]["kept"] == [
        {
            "pod": "default/big",
            "from": "unschedulable",
            "to": "unschedulable",
            "event": "NodeAdd",
            "plugin": "NodeResourcesFit",
            "hint": "QueueSkip",
            "hints": {"NodeResourcesFit": "QueueSkip"},
        }
    ]
    [move] = grouped[1]["moved"]
    assert (move["pod"], move["from"], move["plugin"], move["hint"], move["event"]) == (
        "default/big",
        "unschedulable",
        "NodeResourcesFit",
        "Queue",
        "NodeAdd",
    )
    assert move["to"] in ("activeQ", "backoffQ")


def test_run_with_a_step_on_an_unknown_node_is_refused_and_nothing_stored(user):
    cluster = cluster_with(user, make_node("n1"), make_pod("a"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    steps = script.parse_script([{"after_cycle": 1, "remove_node": "n7"}])
    with pytest.raises(script.ScriptError) as err:
        runs.run_start(user=user, cluster=cluster, profile=profile, script=steps)
    assert err.value.errors == [("script[0].remove_node", "no node 'n7' in the cluster")]
    assert not cluster.runs.exists()


def test_pod_changes_are_recorded_and_a_deleted_pod_frees_its_node(
    user, django_capture_on_commit_callbacks
):
    cluster = cluster_with(
        user,
        make_node("n1", cpu="2"),
        make_pod("old", cpu="2", node_name="n1"),
        make_pod("new", cpu="2"),
    )
    profile = profile_services.profile_create(owner=user, name="default", config={})
    steps = script.parse_script(
        [
            {"after_cycle": 1, "delete_pod": "old"},
            {
                "after_cycle": 2,
                "add_pod": {"metadata": {"name": "late"}, "spec": {"containers": [{"name": "c"}]}},
            },
        ]
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile, script=steps)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error_message
    assert run.placements == {"default/new": "n1", "default/late": "n1"}
    assert run.summary["preempted"] == []
    grouped = changes.run_changes(run=run)
    assert [c["text"] for c in grouped] == ["pod default/old deleted", "pod default/late added"]
    assert grouped[0]["events"] == ["AssignedPodDelete"]
    assert [m["pod"] for m in grouped[0]["moved"]] == ["default/new"]


def _rows(*rows):
    data = {
        "step-TOTAL_FORMS": str(len(rows)),
        "step-INITIAL_FORMS": "0",
        "step-MIN_NUM_FORMS": "0",
        "step-MAX_NUM_FORMS": "20",
    }
    for i, row in enumerate(rows):
        data.update({f"step-{i}-{k}": v for k, v in row.items()})
    return data


def test_run_with_changes_form_puts_each_error_on_its_field(alice_client, user):
    cluster = cluster_with(user, make_node("n1"), make_pod("a"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    url = f"/clusters/{cluster.pk}/run-with-changes/"
    response = alice_client.post(
        url,
        {
            "profile": profile.pk,
            **_rows(
                {
                    "action": "set_taints",
                    "after_cycle": "1",
                    "target": "n1",
                    "value": "k=v:Sometimes",
                },
                {"action": "remove_node", "after_cycle": "", "target": "n1"},
                {"action": "add_node", "after_cycle": "0", "value": "kind: Node\nmetadata: {}\n"},
            ),
        },
    )
    assert response.status_code == 400
    forms = response.context["formset"].forms
    assert forms[0].errors["value"][0].startswith("line 1: effect 'Sometimes' is not one of")
    assert forms[1].errors["after_cycle"][0].startswith("say after which cycle")
    assert str(forms[2].errors["value"][0]) == "metadata.name: is required"
    assert not cluster.runs.exists()

    # A valid row naming a node the cluster lacks: the error is on the target.
    response = alice_client.post(
        url,
        {
            "profile": profile.pk,
            **_rows({"action": "remove_node", "after_cycle": "1", "target": "n9"}),
        },
    )
    assert response.status_code == 400
    assert response.context["formset"].forms[0].errors["target"] == ["no node 'n9' in the cluster"]
    assert not cluster.runs.exists()


def test_run_with_changes_form_starts_a_run_with_the_script(
    alice_client, user, django_capture_on_commit_callbacks
):
    cluster = cluster_with(user, make_node("n1"), make_pod("a"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            f"/clusters/{cluster.pk}/run-with-changes/",
            {
                "profile": profile.pk,
                **_rows(
                    {
                        "action": "set_labels",
                        "after_cycle": "1",
                        "target": "n1",
                        "value": "disk=ssd\nzone=a",
                    },
                    {"action": ""},
                ),
            },
        )
    run = cluster.runs.get()
    assert response.status_code == 302 and "/runs/" in response["Location"]
    assert run.script == [
        {"after_cycle": 1, "set_labels": {"node": "n1", "labels": {"disk": "ssd", "zone": "a"}}}
    ]
    page = alice_client.get(response["Location"])
    assert b'id="section-cluster-events"' in page.content
    assert b"after cycle 1: node n1 labels set to disk=ssd, zone=a" in page.content


def test_a_change_command_is_made_between_cycles_and_refused_when_malformed(
    user, django_capture_on_commit_callbacks
):
    from playground.models import RunCommand

    cluster = cluster_with(user, make_node("n1", cpu="2"), make_pod("big", cpu="8"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    run = runs.run_start(user=user, cluster=cluster, profile=profile)  # queued, not executed
    with pytest.raises(runs.RunCommandRefused, match=r"step\[0\].add_node.metadata.name"):
        runs.run_command(
            run_id=run.pk, command={"command": "change", "step": '{"add_node": {"metadata": {}}}'}
        )
    with pytest.raises(runs.RunCommandRefused, match="step: not JSON"):
        runs.run_command(run_id=run.pk, command={"command": "change", "step": "{"})
    ack = runs.run_command(
        run_id=run.pk,
        command={"command": "change", "step": json.dumps({"add_node": BIG_NODE})},
    )
    assert ack == {"kind": "ack", "run": run.pk, "command": "change"}
    runs.run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error_message
    assert run.placements == {"default/big": "n4"}
    assert RunCommand.objects.get(run=run).result == "applied"
    assert [c["text"] for c in changes.run_changes(run=run)] == ["node n4 added"]
    assert changes.run_has_changes(run=run)  # the page keeps its Cluster events section
    with pytest.raises(runs.RunCommandRefused, match="has finished"):
        runs.run_change(run_id=run.pk, step={"remove_node": "n1"})


def test_change_now_form_on_a_running_run_page_queues_the_command(alice_client, user):
    from django.urls import reverse

    from playground.models import RunCommand

    cluster = cluster_with(user, make_node("n1"), make_pod("a"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    run = runs.run_start(user=user, cluster=cluster, profile=profile)  # queued, not executed
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'id="change-now-form"' in page
    url = reverse("playground:run_change", args=[run.pk])
    response = alice_client.post(
        url, {"now-action": "set_labels", "now-after_cycle": "0", "now-value": "a=b"}, follow=True
    )
    assert "target: name the node or pod" in response.content.decode()
    assert not RunCommand.objects.exists()
    alice_client.post(
        url,
        {
            "now-action": "set_labels",
            "now-after_cycle": "0",
            "now-target": "n1",
            "now-value": "a=b",
        },
    )
    command = RunCommand.objects.get(run=run)
    assert json.loads(command.message) == {
        "after_cycle": 0,
        "set_labels": {"node": "n1", "labels": {"a": "b"}},
    }


def test_usage_charts_count_the_nodes_a_script_adds(
    alice_client, user, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    cluster = cluster_with(user, make_node("n1", cpu="2"), make_pod("big", cpu="8"))
    profile = profile_services.profile_create(owner=user, name="default", config={})
    steps = script.parse_script([{"after_cycle": 1, "add_node": BIG_NODE}])
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile, script=steps)
    usage = alice_client.get(reverse("playground:run_usage", args=[run.pk])).json()["usage"]
    rows = {r["node"]: r["cpu"] for r in usage["rows"]}
    assert rows["n4"]["after_pct"] == 50.0 and rows["n1"]["after"] == 0
