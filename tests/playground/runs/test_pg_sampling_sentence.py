"""The run page says how many nodes Filter evaluated in a cycle, and why."""

from __future__ import annotations

import pytest
from builders import make_node, make_pod

from playground.runs.panels import charts
from playground.runs.panels.sampling import sampling_sentence
from scheduler_core.loop.scheduler import Scheduler


def _cycle_details(config, nodes: int, pods: int) -> list[dict]:
    objects = [make_node(f"node-{i:03d}", cpu="8") for i in range(nodes)]
    objects += [make_pod(f"web-{i}", cpu="100m") for i in range(pods)]
    events: list[dict] = []
    Scheduler(config, objects, on_event=lambda e: events.append(e.to_dict())).run_until_idle()
    return [charts.cycle_detail(events, c) for c in range(1, pods + 1)]


def test_adaptive_percentage_on_500_nodes_is_explained_with_its_numbers():
    first, second = _cycle_details(None, 500, 2)
    assert first["sampling"] == (
        "Filter evaluated 231 of 500 nodes, looking for 230 feasible: percentageOfNodesToScore "
        "is 0 (unset: the adaptive default), so 50 − 500/125 = 46 %, and 500 × 46 % = 230. "
        "The walk started at position 0 (node-000), where the previous cycle stopped "
        "(positions count from 0); the next cycle starts at position 230 (node-230). "
        "Upstream walks the nodes on 16 parallel workers and stops them once it has enough, so "
        "which nodes it keeps, and how many it examines, can differ from this playground's "
        "walk in order."
    )
    assert "The walk started at position 230 (node-230)" in second["sampling"]


def test_positions_name_their_node_when_the_walk_went_over_the_snapshot_list():
    info = {
        "rule": "percentage",
        "evaluated": 231,
        "candidates": 500,
        "cluster_nodes": 500,
        "to_find": 230,
        "percentage": 46,
        "adaptive": True,
        "start_index": 0,
        "next_start_index": 230,
        "configured": 0,
        "source": "global",
        "minimum": False,
    }
    nodes = [f"node-{i:03d}" for i in range(1, 501)]  # lesson 9 names nodes from 1
    sentence = sampling_sentence(info, nodes)
    assert (
        "started at position 0 (node-001), where the previous cycle stopped (positions count "
        "from 0); the next cycle starts at position 230 (node-231)."
    ) in sentence
    # A walk over every node says nothing of upstream's parallel workers: nothing can differ.
    whole = {**info, "evaluated": 500, "to_find": 500}
    assert "parallel" in sentence and "parallel" not in sampling_sentence(whole, nodes)
    # Over the nodes PreFilter kept, a position is not the snapshot's: no name, an ordinal.
    kept = {**info, "candidates": 400, "evaluated": 200, "to_find": 184}
    assert "position 230 (the 231st node)" in sampling_sentence(kept, nodes)


def test_a_walk_an_error_stopped_does_not_say_every_node_was_evaluated():
    small = {
        "rule": "fewer-than-100",
        "evaluated": 0,
        "candidates": 4,
        "cluster_nodes": 4,
        "to_find": 4,
        "percentage": 100,
        "start_index": 0,
        "next_start_index": 0,
    }
    sentence = sampling_sentence(small)
    assert sentence.startswith("Filter evaluated none of 4 nodes: the cycle ended in an Error")
    assert "all 4" not in sentence
    assert sampling_sentence({**small, "evaluated": 2}).startswith(
        "Filter evaluated only 2 of 4 nodes"
    )
    big = {
        "rule": "percentage",
        "evaluated": 10,
        "candidates": 500,
        "cluster_nodes": 500,
        "to_find": 230,
        "percentage": 46,
        "adaptive": True,
        "start_index": 0,
        "next_start_index": 10,
        "configured": 0,
        "source": "global",
        "minimum": False,
    }
    assert sampling_sentence(big).startswith("Filter evaluated only 10 of 500 nodes")
    # Enough feasible nodes found is the ordinary stop, not an Error.
    assert "Error" not in sampling_sentence({**big, "evaluated": 231, "next_start_index": 230})


def test_a_profile_percentage_below_the_floor_is_raised_to_100_nodes():
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "percentageOfNodesToScore": 10}],
    }
    (detail,) = _cycle_details(config, 300, 1)
    assert "percentageOfNodesToScore is 10 % (the profile's value)" in detail["sampling"]
    assert "300 × 10 % = 30, raised to the minimum of 100" in detail["sampling"]
    assert detail["sampling"].startswith("Filter evaluated 101 of 300 nodes, looking for 100")


def test_small_clusters_evaluate_every_node_and_no_walk_says_nothing():
    (detail,) = _cycle_details(None, 40, 1)
    assert detail["sampling"] == "Filter evaluated all 40 nodes: below 100 nodes, every node is."
    assert sampling_sentence(None) is None
    assert sampling_sentence({"rule": ""}) is None


@pytest.mark.django_db
def test_a_stored_runs_cycle_json_carries_the_sentence(client, django_user_model):
    from builders import bulk_store, record_run
    from django.urls import reverse

    from playground.clusters import services
    from playground.profiles import services as profile_services

    owner = django_user_model.objects.create_user("sampler", password="pw-sampler-1")
    cluster = services.cluster_create(owner=owner, name="wide")
    bulk_store(cluster, [make_node(f"n{i:03d}") for i in range(150)] + [make_pod("web")])
    profile = profile_services.profile_create(owner=owner, name="default", config={})
    run, _, _ = record_run(cluster, profile, user=owner)
    client.force_login(owner)
    detail = client.get(reverse("playground:run_cycle", args=[run.pk, 1])).json()
    assert detail["sampling"].startswith("Filter evaluated 101 of 150 nodes, looking for 100")
    assert "150 × 49 % = 73, raised to the minimum of 100" in detail["sampling"]


def test_the_filter_matrix_counts_only_kept_nodes_and_marks_the_dropped_one():
    events: list[dict] = []
    objects = [make_node(f"node-{i:03d}", cpu="8") for i in range(500)] + [make_pod("web")]
    Scheduler(None, objects, on_event=lambda e: events.append(e.to_dict())).run_until_idle()
    matrix = charts.filter_matrix(charts.cycle_events(events, 1))
    assert (len(matrix["feasible"]), matrix["evaluated"]) == (230, 231)
    dropped = [r["node"] for r in matrix["rows"] if r["dropped"]]
    assert dropped == ["node-230"] and "node-230" not in matrix["feasible"]
