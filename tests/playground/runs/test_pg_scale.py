"""Runs at scale: cycle records as columns, paged cycle panels, big imports, simulations."""

from __future__ import annotations

import gzip
import json
from io import StringIO

import pytest
import yaml
from builders import make_node, make_pod, record_run
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from playground.clusters import services
from playground.management.commands import bench_run
from playground.models import Cluster, Node, Pod, Profile, Run
from playground.profiles import services as profile_services
from playground.runs.panels import charts, paging
from playground.runs.storage.columns import CycleEncoder, decode_cycle, summary
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.record.cycle_events import (
    fold_cycle,
    split_cycles,
)
from scheduler_core.record.events import event_from_dict

pytestmark = pytest.mark.django_db


def _engine_events(manifests, config=None):
    events = []
    Scheduler(config or {}, manifests, on_event=events.append).run_until_idle()
    return events


def _many(nodes, pods, **pod_kw):
    return [make_node(f"n{i:03d}", cpu=str(2 + i % 3)) for i in range(nodes)] + [
        make_pod(f"p{i}", **pod_kw) for i in range(pods)
    ]


def test_a_cycle_record_decodes_to_exactly_its_events_and_folds_the_same():
    manifests = _many(40, 3) + [
        make_pod("huge", cpu="64"),
        make_pod("picky", nodeSelector={"x": "y"}),
    ]
    events = _engine_events(manifests)
    encoder = CycleEncoder()
    cycles = list(split_cycles(events))
    assert len(cycles) == 5
    for group in cycles:
        data = encoder.encode(group)
        decoded = decode_cycle(data, encoder.run_nodes)
        assert decoded == [e.to_dict() for e in group]
        assert fold_cycle(event_from_dict(d) for d in decoded) == fold_cycle(group)
        assert len(data) < 0.1 * len(json.dumps(decoded))
    rejected = summary(cycles[3])
    assert (rejected["pod"], rejected["result"], rejected["evaluated"]) == (
        "default/huge",
        "Unschedulable",
        40,
    )
    assert "Insufficient cpu" in rejected["message"]


def test_records_compressed_in_two_threads_at_once_all_decode():
    """Two runs execute at once in one process (a compare, embedded), and compressing releases
    the GIL: with one compressor shared by the threads, records came out broken (or the process
    crashed); each thread has its own."""
    import os
    import threading

    import zstandard

    from playground.runs.storage import columns

    payloads = [os.urandom(100_000) + bytes(1_000_000) + os.urandom(50_000) for _ in range(3)]
    broken: list[str] = []

    def compress(k: int) -> None:
        for i in range(20):
            data = payloads[(k + i) % len(payloads)]
            try:
                ok = zstandard.ZstdDecompressor().decompress(columns._compress(data)) == data
            except zstandard.ZstdError as err:
                broken.append(str(err))
                continue
            if not ok:
                broken.append("different bytes")

    threads = [threading.Thread(target=compress, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert broken == []


def test_a_changed_node_order_is_stored_in_the_record():
    events = _engine_events(_many(5, 1))
    group = next(split_cycles(events))
    data = CycleEncoder(["other"]).encode(group)
    assert decode_cycle(data, ["other"]) == [e.to_dict() for e in group]


@pytest.fixture
def wide_run(user):
    cluster = services.cluster_create(owner=user, name="wide")
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all(_many(130, 1, cpu="1"))
    )
    profile = profile_services.profile_create(
        owner=user, name="all", config={"percentageOfNodesToScore": 100}
    )
    run, _, events = record_run(cluster, profile)
    return run, events


def test_cycle_json_pages_sorts_and_searches_on_the_server(alice_client, wide_run):
    run, events = wide_run
    url = reverse("playground:run_cycle", args=[run.pk, 1])
    body = alice_client.get(url, {"fpage": 2, "top": 5}).json()
    f = body["filter"]
    assert (f["total_rows"], f["page"], f["pages"]) == (130, 2, 3)
    assert [r["node"] for r in f["rows"]] == [f"n{i:03d}" for i in range(100, 130)]
    assert f["feasible_count"] == 130
    s = body["scores"]
    assert s["count"] == 130 and len(s["nodes"]) == 5 and s["rest"]["count"] == 125
    table = charts.score_table(events)
    assert s["nodes"] == table["nodes"][:5]
    assert s["table"]["nodes"] == table["nodes"][:50]
    found = alice_client.get(url, {"fq": "n12", "sq": "n12", "ssort": "node", "sdir": "asc"}).json()
    assert [r["node"] for r in found["filter"]["rows"]] == [f"n12{i}" for i in range(10)]
    assert found["scores"]["table"]["nodes"] == [f"n12{i}" for i in range(10)]
    assert len(json.dumps(body)) < 120_000


def test_the_filter_matrix_opens_on_the_page_of_the_evaluated_window():
    # 500 nodes, Filter evaluated 231 of them from position 230: the window covers pages 2 to 4
    # of 100 rows (counted from 0), most of it on page 3.
    evaluated = set(range(230, 461))
    rows = [
        {"node": f"n{i:03d}", "verdict": "Success" if i in evaluated else None, "cells": []}
        for i in range(500)
    ]
    matrix = {"plugins": [], "rows": rows, "feasible": [], "evaluated": 231, "message": None}
    opened = paging.filter_page(matrix, paging.PageParams.from_query({"size": "100"}))
    assert opened["page"] == 3 and opened["rows"][0]["node"] == "n300"
    # a page the reader asks for is the page shown, even one of "not evaluated" rows
    asked = paging.filter_page(matrix, paging.PageParams.from_query({"size": "100", "fpage": "0"}))
    assert asked["page"] == 0
    # nothing evaluated (PreFilter stopped the cycle): the first page
    none = {**matrix, "rows": [{**r, "verdict": None} for r in rows]}
    assert paging.filter_page(none, paging.PageParams.from_query({"size": "100"}))["page"] == 0


def test_page_params_fall_back_to_defaults():
    params = paging.PageParams.from_query(
        {"mode": "bad", "top": "9999", "fsort": "x", "fpage": "-3"}
    )
    assert (params.mode, params.top_n, params.filter_sort, params.filter_page) == (
        "weighted",
        paging.MAX_TOP_N,
        "snapshot",
        0,
    )


def test_cluster_page_lists_its_runs_newest_first_and_resets_pods(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all([make_node("n1"), make_pod("a")])
    )
    profile = profile_services.profile_create(owner=user, name="p", config={})
    older = Run.objects.create(cluster=cluster, profile=profile, started_by=user)
    newer = Run.objects.create(cluster=cluster, profile=profile, started_by=user)
    html = alice_client.get(reverse("playground:cluster", args=[cluster.pk])).content.decode()
    assert html.index(f'data-run="{newer.pk}"') < html.index(f'data-run="{older.pk}"')
    assert 'id="reset-pods"' in html
    pod = Pod.objects.get(cluster=cluster)
    pod.manifest["spec"]["nodeName"] = "n1"
    pod.sync_from_manifest()
    pod.save()
    response = alice_client.post(reverse("playground:cluster_reset_pods", args=[cluster.pk]))
    assert response.status_code == 302
    pod.refresh_from_db()
    assert pod.node_name == "" and "nodeName" not in pod.manifest["spec"]


def test_apply_placements_from_the_run_page(alice_client, user, django_capture_on_commit_callbacks):
    cluster = services.cluster_create(owner=user, name="c")
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all([make_node("n1"), make_pod("a")])
    )
    profile = profile_services.profile_create(owner=user, name="p", config={})
    with django_capture_on_commit_callbacks(execute=True):
        alice_client.post(reverse("playground:run_new", args=[cluster.pk]), {"profile": profile.pk})
    run = Run.objects.get()
    assert Pod.objects.get(cluster=cluster).node_name == ""  # the run changed nothing
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'id="apply-placements"' in page
    alice_client.post(reverse("playground:run_apply", args=[run.pk]))
    assert Pod.objects.get(cluster=cluster).node_name == "n1"
    run.refresh_from_db()
    assert run.applied is not None
    page = alice_client.get(reverse("playground:run", args=[run.pk])).content.decode()
    assert 'id="apply-placements"' not in page


def test_gzip_upload_may_pass_the_cap_once_unzipped(alice_client, user, settings):
    text = yaml.safe_dump_all(_many(30, 0))
    settings.PLAYGROUND_IMPORT_MAX_BYTES = len(text) // 2
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("nodes.yaml.gz", gzip.compress(text.encode()))
    alice_client.post(reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload})
    assert cluster.nodes.count() == 30


def test_oversized_upload_names_the_cap_and_the_command(alice_client, user, settings):
    settings.PLAYGROUND_IMPORT_MAX_BYTES = 200
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("big.yaml", yaml.safe_dump(make_node("a")).encode() * 5)
    page = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload}
    ).content.decode()
    assert "limited to 200 bytes" in page
    assert "python manage.py import_cluster FILE --name NAME" in page


def test_import_cluster_command_reads_gzip_and_stores_all_or_nothing(tmp_path, user):
    good = {"apiVersion": "v1", "kind": "List", "items": _many(20, 5)}
    path = tmp_path / "cluster.json.gz"
    path.write_bytes(gzip.compress(json.dumps(good).encode()))
    out = StringIO()
    call_command("import_cluster", str(path), "--name", "big", "--user", user.username, stdout=out)
    cluster = Cluster.objects.get(name="big", owner=user)
    assert (cluster.nodes.count(), cluster.pods.count()) == (20, 5)
    assert "20 Node, 5 Pod" in out.getvalue()

    bad = {"apiVersion": "v1", "kind": "List", "items": [*_many(3, 0), make_node("n000")]}
    path.write_bytes(json.dumps(bad).encode())
    with pytest.raises(CommandError, match="already exists|given twice"):
        call_command("import_cluster", str(path), "--name", "bad", "--user", user.username)
    assert not Cluster.objects.filter(name="bad").exists()
    assert Node.objects.count() == 20


def test_large_inputs_are_parsed_fast_and_still_checked(user, monkeypatch):
    from playground.inputs import manifests

    monkeypatch.setattr(manifests, "LINE_NUMBERS_UP_TO", 10)
    cluster = services.cluster_create(owner=user, name="c")
    node = make_node("x")
    node["status"]["allocatable"]["memory"] = "12 Gi"
    with pytest.raises(manifests.ManifestProblems, match="memory"):
        services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump(node))
    services.cluster_import_yaml(cluster=cluster, user=user, text=json.dumps(make_node("y")))
    assert list(cluster.nodes.values_list("name", flat=True)) == ["y"]
    assert Profile.objects.count() == 0


def test_a_record_of_the_first_format_still_decodes():
    """Version 1 wrote every event's seq, cycle, pod and time, compressed with zlib; versions 2
    and 3 leave them out, and records are now zstd frames."""
    import zlib

    import zstandard

    group = next(split_cycles(_engine_events(_many(5, 1))))
    encoder = CycleEncoder()
    raw = zstandard.ZstdDecompressor().decompress(encoder.encode(group))
    size = int.from_bytes(raw[:4], "big")
    header = json.loads(raw[4 : 4 + size])
    assert header["v"] == 3 and "seq" not in header["events"][1]
    header["v"] = 1
    header["events"] = [
        {"type": e["type"], "seq": ev.seq, "cycle": ev.cycle, "pod": ev.pod, "time": ev.time, **e}
        for e, ev in zip(header["events"], group, strict=True)
    ]
    head = json.dumps(header).encode()
    old = zlib.compress(len(head).to_bytes(4, "big") + head + raw[4 + size :])
    assert decode_cycle(old, encoder.run_nodes) == [e.to_dict() for e in group]


@pytest.mark.django_db(transaction=True)
def test_bench_run_prints_its_figures_and_leaves_nothing_behind(tmp_path):
    case = tmp_path / "case.json"
    case.write_text(
        json.dumps(
            {
                "name": "tiny",
                "nodes": [make_node(f"n{i}", cpu="2") for i in range(3)],
                "queue": [make_pod(f"p{i}", cpu="1") for i in range(4)]
                + [make_pod("big", cpu="8")],
            }
        )
    )
    out = StringIO()
    call_command("bench_run", str(case), "--percentage", "100", stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["case"], result["nodes"], result["pods"], result["cycles"]) == ("tiny", 3, 5, 5)
    assert result["evaluatedNodeCycles"] == 15  # every node of every cycle at 100 %
    # The seconds are rounded to milliseconds, the ratios computed before rounding (to 0.01):
    # each ratio lies within what the rounded seconds allow (a tiny case takes a few ms).
    for ratio, run, engine in (
        ("ratio", "runSeconds", "engineSeconds"),
        ("cpuRatio", "runCpuSeconds", "engineCpuSeconds"),
    ):
        low = (result[run] - 0.0005) / (result[engine] + 0.0005)
        high = (result[run] + 0.0005) / max(result[engine] - 0.0005, 1e-9)
        assert low - 0.005 <= result[ratio] <= high + 0.005, (ratio, result)
    assert result["storedBytes"] > 0 and result["bytesPerNodeCycle"] > 0
    assert not Cluster.objects.exists() and not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_bench_run_grows_a_case_to_more_nodes_with_fewer_pods(tmp_path):
    nodes = [make_node(f"n{i}", cpu="2") for i in range(3)]
    grown = bench_run.scaled_nodes(nodes, 7)
    names = ["n0", "n1", "n2", "n0-c1", "n1-c1", "n2-c1", "n0-c2"]
    assert [n["metadata"]["name"] for n in grown] == names
    assert grown[4]["metadata"]["labels"]["kubernetes.io/hostname"] == "n1-c1"
    assert nodes[1]["metadata"]["name"] == "n1" and bench_run.scaled_nodes(nodes, 2) == nodes[:2]
    case = tmp_path / "case.json"
    queue = [make_pod(f"p{i}", cpu="1") for i in range(4)]
    case.write_text(json.dumps({"name": "tiny", "nodes": nodes, "queue": queue}))
    out = StringIO()
    argv = ["--nodes", "5", "--queue", "2", "--percentage", "100"]
    call_command("bench_run", str(case), *argv, stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["nodes"], result["pods"], result["evaluatedNodeCycles"]) == (5, 2, 10)
