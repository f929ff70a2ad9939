"""Big clusters and runs are shown a page at a time: the cluster page lists 200 nodes, pods and
other objects per page with links to the others; the compare page draws a bounded part."""

from __future__ import annotations

import re

import pytest
from builders import make_node, make_pod
from django.urls import reverse

from playground.clusters import selectors, services
from playground.models import KubeObject, Node, Pod

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"


@pytest.fixture
def big(user):
    cluster = services.cluster_create(owner=user, name="big")
    Node.objects.bulk_create(
        Node(cluster=cluster, name=f"n{i}", manifest=make_node(f"n{i}")) for i in range(450)
    )
    Pod.objects.bulk_create(
        Pod(cluster=cluster, name=f"p{i}", namespace="default", manifest=make_pod(f"p{i}"))
        for i in range(250)
    )
    return cluster


def _rows(page: str, attribute: str) -> list[str]:
    return re.findall(rf'<tr {attribute}="([^"]+)"', page)


def test_the_cluster_page_shows_one_page_of_each_list_with_counts_and_links(alice_client, big):
    url = reverse("playground:cluster", args=[big.pk])
    page = alice_client.get(url).content.decode()
    assert _rows(page, "data-node") == [f"n{i}" for i in range(200)]
    assert _rows(page, "data-pod") == [f"default/p{i}" for i in range(200)]
    assert "<h2>Nodes (450)</h2>" in page and "<h2>Pods (250)</h2>" in page
    assert "1–200 of 450 · page 1 of 3" in page and "1–200 of 250 · page 1 of 2" in page
    assert 'href="?nodes=2#nodes" rel="next"' in page
    assert 'href="?nodes=3#nodes" rel="last"' in page
    assert 'rel="prev"' not in page


def test_each_list_pages_on_its_own_and_the_links_keep_the_others(alice_client, big):
    url = reverse("playground:cluster", args=[big.pk])
    page = alice_client.get(url, {"nodes": 3, "pods": 2}).content.decode()
    assert _rows(page, "data-node") == [f"n{i}" for i in range(400, 450)]
    assert _rows(page, "data-pod") == [f"default/p{i}" for i in range(200, 250)]
    assert "401–450 of 450 · page 3 of 3" in page
    assert 'href="?nodes=2&amp;pods=2#nodes" rel="prev"' in page
    assert 'href="?nodes=3&amp;pods=1#pods" rel="first"' in page


@pytest.mark.parametrize(("value", "first"), [(HUGE, "n400"), ("-5", "n0"), ("x", "n0")])
def test_page_numbers_out_of_range_show_the_nearest_page(alice_client, big, value, first):
    response = alice_client.get(reverse("playground:cluster", args=[big.pk]), {"nodes": value})
    assert response.status_code == 200
    assert _rows(response.content.decode(), "data-node")[0] == first


def test_a_small_cluster_has_no_pager(alice_client, user):
    cluster = services.cluster_create(owner=user, name="small")
    Node.objects.create(cluster=cluster, name="n1", manifest=make_node("n1"))
    page = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert _rows(page, "data-node") == ["n1"] and 'class="pager"' not in page


def test_other_objects_are_paged_too(big):
    KubeObject.objects.bulk_create(
        KubeObject(
            cluster=big,
            kind="Namespace",
            api_version="v1",
            name=f"ns{i}",
            manifest={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns{i}"}},
        )
        for i in range(201)
    )
    last = selectors.object_page(big, 2)
    assert (last.count, last.pages, last.start, last.end) == (201, 2, 201, 201)
    assert [o.name for o in last.rows] == ["ns200"]


# --- the compare page ---------------------------------------------------------------------------


@pytest.fixture
def what_if(user):
    """Two recorded runs of 12 pods on 3 nodes: LeastAllocated spreads, MostAllocated packs."""
    from builders import record_run

    from playground.profiles import services as profile_services

    cluster = services.cluster_create(owner=user, name="w")
    Node.objects.bulk_create(
        Node(cluster=cluster, name=f"n{i}", manifest=make_node(f"n{i}")) for i in range(3)
    )
    Pod.objects.bulk_create(
        Pod(cluster=cluster, name=f"p{i:02}", namespace="default", manifest=make_pod(f"p{i:02}"))
        for i in range(12)
    )
    most = {"scoringStrategy": {"type": "MostAllocated"}}
    configs = [
        {},
        {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": most}]}]},
    ]
    runs = []
    for name, config in zip("ab", configs, strict=True):
        profile = profile_services.profile_create(owner=user, name=name, config=config)
        runs.append(record_run(cluster, profile, user=user)[0])
    return runs


def _detail_pods(page: str) -> list[str]:
    return re.findall(r'<details class="compare-pod" data-pod="([^"]+)"', page)


def _all_pods(page: str) -> list[str]:
    table = page[page.index('id="placements"') : page.index('id="detail"')]
    return re.findall(r'<tr data-pod="([^"]+)"', table)


def test_the_compare_page_draws_score_tables_for_one_page_of_pods(
    alice_client, what_if, monkeypatch
):
    from playground.runs import selectors as run_selectors
    from playground.runs.panels import compare

    monkeypatch.setattr(compare, "DETAIL_PAGE", 5)
    decoded = []
    real = run_selectors.run_cycle_events
    monkeypatch.setattr(
        run_selectors,
        "run_cycle_events",
        lambda *, run, cycle: decoded.append(cycle) or real(run=run, cycle=cycle),
    )
    url = reverse("playground:compare", args=[what_if[0].pk, what_if[1].pk])
    page = alice_client.get(url).content.decode()
    assert len(_all_pods(page)) == 12  # every pod's placements are listed
    first = _detail_pods(page)
    assert len(first) == 5 and len(decoded) == 10  # A's and B's cycle of each shown pod
    assert "1–5 of 12 · page 1 of 3" in page
    assert 'href="?detail=2#detail" rel="next"' in page
    assert 'id="heat-0-a"' in page and 'id="heat-5-a"' not in page
    decoded.clear()
    last = alice_client.get(url, {"detail": HUGE}).content.decode()
    assert "11–12 of 12 · page 3 of 3" in last and len(decoded) == 4
    assert 'id="heat-10-a"' in last and 'id="heat-0-a"' not in last
    assert set(first).isdisjoint(_detail_pods(last))


def test_detail_page_numbers_are_clamped():
    from playground.runs.panels.compare import DETAIL_PAGE, detail_page

    assert detail_page(0, 5) == {"number": 1, "pages": 1, "count": 0, "start": 0, "end": 0}
    assert detail_page(DETAIL_PAGE + 1, -3)["end"] == DETAIL_PAGE
    assert detail_page(DETAIL_PAGE + 1, 10**20)["start"] == DETAIL_PAGE + 1


def test_compare_reads_only_the_nodes_that_hold_a_pod_and_counts_the_others(
    alice_client, user, monkeypatch
):
    from builders import record_run

    import scheduler_core.objects.api
    from playground.profiles import services as profile_services

    cluster = services.cluster_create(owner=user, name="wide")
    Node.objects.bulk_create(
        Node(cluster=cluster, name=f"n{i:02}", manifest=make_node(f"n{i:02}")) for i in range(30)
    )
    Pod.objects.bulk_create(
        Pod(cluster=cluster, name=f"p{i}", namespace="default", manifest=make_pod(f"p{i}"))
        for i in range(2)
    )
    profile = profile_services.profile_create(owner=user, name="a", config={})
    run_a, run_b = (record_run(cluster, profile, user=user)[0] for _ in range(2))
    read = []
    real = scheduler_core.objects.api.Node
    monkeypatch.setattr(scheduler_core.objects.api, "Node", lambda m: read.append(m) or real(m))
    response = alice_client.get(reverse("playground:compare", args=[run_a.pk, run_b.pk]))
    used = {node for node in run_a.placements.values() if node}
    nodes = response.context["nodes"]
    assert {r["node"] for r in nodes["rows"]} == used
    assert nodes["idle"] == 30 - len(used)
    assert len(read) == 2 * len(used)  # each run's busy nodes, not the 30


def test_the_compare_page_of_runs_not_started_yet_has_no_pods(alice_client, user):
    from playground.models import Run
    from playground.profiles import services as profile_services

    cluster = services.cluster_create(owner=user, name="new")
    profile = profile_services.profile_create(owner=user, name="a", config={})
    runs = [
        Run.objects.create(cluster=cluster, profile=profile, status="pending", started_by=user)
        for _ in range(2)
    ]
    response = alice_client.get(reverse("playground:compare", args=[r.pk for r in runs]))
    assert response.status_code == 200
    assert response.context["detail"] == [] and response.context["detail_page"]["count"] == 0
