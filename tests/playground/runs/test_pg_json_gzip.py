"""JSON responses are gzipped for a browser that asks; pages (they carry the CSRF token) are not."""

from __future__ import annotations

import gzip
import json

import pytest
from builders import record_run
from django.urls import reverse

from playground.demo import demo_load
from playground.models import Cluster, Profile

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    demo_load()
    cluster, profile = Cluster.objects.get(name="Three zones"), Profile.objects.get(name="Default")
    return record_run(cluster, profile)[0]


def test_a_cycles_json_is_gzipped_when_asked_and_reads_the_same(client, run):
    url = reverse("playground:run_cycle", args=[run.pk, 2])
    plain = client.get(url)
    zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert plain.get("Content-Encoding") is None
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    assert len(zipped.content) < len(plain.content) / 3


def test_a_page_is_never_compressed(client, run):
    page = client.get(reverse("playground:run", args=[run.pk]), HTTP_ACCEPT_ENCODING="gzip, br")
    assert page.status_code == 200 and page.get("Content-Encoding") is None
