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
