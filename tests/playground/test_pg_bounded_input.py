"""Small requests cannot cost much: bounded YAML, replicas, quantities; refusals store nothing."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod
from django.test import Client
from django.urls import reverse

from playground.clusters import services
from playground.inputs import yaml_limits
from playground.inputs.manifests import ManifestProblems
from playground.models import KubeObject, Node, Pod

pytestmark = pytest.mark.django_db

# 476 bytes that expand to 9^9 (387 million) strings: the classic "billion laughs".
ALIAS_BOMB = """apiVersion: v1
kind: Node
metadata:
  name: bomb
  labels:
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def _nested(levels: int, flow: bool) -> str:
    if flow:
        return "[" * levels + "]" * levels
    return "".join("  " * i + "a:\n" for i in range(levels)) + "  " * levels + "b: 1\n"


def _deployment(replicas: int) -> str:
    template = make_pod("x")
    return yaml.safe_dump(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "big", "namespace": "default"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": "big"}},
                "template": {
                    "metadata": {"labels": {"app": "big"}},
                    "spec": template["spec"],
                },
            },
        }
    )


def _stored() -> int:
    return Node.objects.count() + Pod.objects.count() + KubeObject.objects.count()


@pytest.mark.parametrize("flow", [False, True], ids=["block", "flow"])
def test_deeply_nested_yaml_to_the_sync_api_is_a_400_without_settings(flow, settings):
    settings.DEBUG = True  # even then: the error is a handled 400, not a debug page
    client = Client()
    response = client.post(
        reverse("playground:manifest_sync", args=["pod"]),
        {"direction": "to_form", "manifest_yaml": _nested(1000, flow)},
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "nested deeper than 64 levels" in body
    assert "REDIS" not in body and "SECRET" not in body and "CELERY" not in body


def test_deeply_nested_configuration_is_a_form_error(alice_client):
    from test_pg_views import _profile_post

    response = alice_client.post(
        reverse("playground:profile_new"),
        _profile_post(mode="yaml", config_yaml="profiles: " + _nested(1000, True)),
    )
    assert response.status_code == 200
    assert "nested deeper than 64 levels" in response.content.decode()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(ALIAS_BOMB, "more than 100,000 values", id="alias-bomb"),
        pytest.param(_deployment(200_000), "spec.replicas", id="replicas-200000"),
    ],
)
def test_costly_imports_are_refused_before_expanding_and_store_nothing(user, text, message):
    # The message names the budget that stopped the work (values read, replicas asked), so the
    # refusal came before the expansion; no wall-clock assertion (timing belongs to benchmarks).
    cluster = services.cluster_create(owner=user, name="c")
    with pytest.raises(ManifestProblems) as info:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert message in str(info.value)
    assert _stored() == 0


def test_alias_bomb_through_the_import_page_names_the_line(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"manifests": ALIAS_BOMB}
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "line " in page and "aliases included" in page
    assert _stored() == 0


def test_replicas_within_the_cap_still_create_their_pods(user):
    cluster = services.cluster_create(owner=user, name="c")
    services.cluster_import_yaml(cluster=cluster, user=user, text=_deployment(3))
    assert cluster.pods.count() == 3


@pytest.mark.parametrize(
    ("cpu", "field", "message"),
    [
        pytest.param("5" * 5000, "requests.cpu", "at most 64 characters", id="5000-digits"),
        pytest.param("1e1000", "requests.cpu", "quantity too large", id="1e1000"),
        pytest.param("-1", "requests.cpu", "must be greater than or equal to 0", id="negative"),
        pytest.param("9Ei", "requests.cpu", "quantity too large", id="beyond-int64-milli"),
    ],
)
def test_bad_quantities_in_a_pod_are_refused_naming_the_field(user, cpu, field, message):
    cluster = services.cluster_create(owner=user, name="c")
    text = yaml.safe_dump(make_pod("p", cpu="1")).replace("cpu: '1'", f"cpu: '{cpu}'")
    with pytest.raises(ManifestProblems) as info:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert f"spec.containers[0].resources.{field}" in str(info.value)
    assert message in str(info.value)
    assert _stored() == 0


def test_negative_node_capacity_is_refused(user):
    cluster = services.cluster_create(owner=user, name="c")
    node = make_node("n1")
    node["status"]["capacity"] = {"memory": "-1Gi"}
    with pytest.raises(ManifestProblems, match=r"status.capacity.memory.*greater than or equal"):
        services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump(node))
    assert _stored() == 0


# --- the loader itself -------------------------------------------------------------------------


def test_a_few_anchors_and_aliases_are_fine():
    text = "base: &b {cpu: '1'}\nx: *b\ny: *b\nlist: [1, 2, 3]\n"
    assert yaml_limits.load(text) == {
        "base": {"cpu": "1"},
        "x": {"cpu": "1"},
        "y": {"cpu": "1"},
        "list": [1, 2, 3],
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("a: &a [1]\nb: [" + ", ".join(["*a"] * 101) + "]", "more than 100 aliases"),
        pytest.param("&a [*a]", "refers to a node that contains it", id="recursive"),
        pytest.param("[" + "0," * 10_001 + "]", "more than 10000 items", id="long-list"),
        pytest.param(_nested(65, False), "nested deeper than 64 levels", id="depth-65"),
    ],
)
def test_loader_refuses_beyond_its_bounds(text, message):
    with pytest.raises(yaml_limits.YAMLLimitError, match=message):
        yaml_limits.load(text)


def test_loader_error_carries_the_line():
    with pytest.raises(yaml.YAMLError) as info:
        yaml_limits.load("ok: 1\n" + _nested(70, False))
    assert info.value.problem_mark is not None and info.value.problem_mark.line >= 64


def _padded(text: str) -> str:
    """``text`` behind a comment long enough to take the big-input parser."""
    from playground.inputs.manifests import LINE_NUMBERS_UP_TO

    return "#" + "x" * LINE_NUMBERS_UP_TO + "\n" + text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
            + "".join(
                f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
            "aliases",
        ),
        ("x: " + "[" * 200 + "]" * 200 + "\n", "nested deeper than 64"),
    ],
)
def test_big_inputs_keep_the_same_bounds(text, message):
    from playground.inputs.manifests import parse_documents

    with pytest.raises(ManifestProblems, match=message):
        parse_documents(_padded(text))


def test_big_json_nested_too_deeply_is_a_problem_not_a_crash():
    from playground.inputs.manifests import LINE_NUMBERS_UP_TO, parse_documents

    text = "[" * 100_000 + "]" * 100_000
    text += " " * (LINE_NUMBERS_UP_TO - len(text) + 1)
    with pytest.raises(ManifestProblems, match="nested"):
        parse_documents(text)


# --- gzip value bombs (security issue 39, HIGH 4) ----------------------------------------------


def _rows(rows: int, width: int = 9_999) -> str:
    """``x: [[0, ... ×width] ×rows]``: kilobytes gzipped, millions of values unzipped."""
    return "x: [" + ",".join(["[" + ",".join(["0"] * width) + "]"] * rows) + "]\n"


def test_a_gzip_value_bomb_stops_at_the_object_bound_without_building_it(alice_client, user):
    """8,797 bytes of gzip held 3,989,600 values in one document, under the 4,000,000 of an
    upload: all were composed (1.8 GB) before the import was refused. Counted while read, the
    document stops at one object's bound, having held about that many values."""
    import gzip
    import tracemalloc

    from django.core.files.uploadedfile import SimpleUploadedFile

    text = _rows(399)
    assert len(gzip.compress(text.encode())) < 9_000
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("bomb.yaml.gz", gzip.compress(text.encode()))
    tracemalloc.start()
    try:
        response = alice_client.post(
            reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload}
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    page = response.content.decode()
    assert response.status_code == 200
    assert "too big to import: more than 100,000 values in one object" in page
    assert _stored() == 0
    # the text itself (8 MB), its copy for the parser and 100,000 values; composed, 1.8 GB
    assert peak < 120 * 2**20, f"{peak / 2**20:.0f} MB"


def test_each_item_of_a_list_is_an_object_of_its_own():
    """One object may hold 100,000 values: a List (a whole cluster in one document) holds that
    many per item, while the same values in one item are refused."""
    from playground.inputs.manifests import parse_documents

    big = "[" + ",".join(["0"] * 9_000) + "]"
    item = "- {kind: Widget, metadata: {name: w}, data: [" + ",".join([big] * 7) + "]}\n"
    text = "apiVersion: v1\nkind: List\nitems:\n" + item * 3
    warnings = parse_documents(text).warnings
    assert [w.message for w in warnings] == [
        "kind 'Widget' is not modelled by the playground; skipped"
    ] * 3
    one = item.replace("data: [", "data: [" + ",".join([big] * 7) + ",")
    with pytest.raises(ManifestProblems, match="more than 100,000 values in one object"):
        parse_documents("apiVersion: v1\nkind: List\nitems:\n" + one)


def test_the_editor_reads_a_configuration_of_at_most_50000_values(alice_client):
    """The live preview reads, converts and writes back the YAML pane on each pause in typing:
    at the general bound of 200,000 values one preview cost 4 s of CPU. The editor reads what
    the import page does (a real configuration has a few thousand values)."""
    from test_pg_views import _profile_post

    head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    args = "{x: [" + ",".join(["[" + ",".join(["0"] * 9_999) + "]"] * 6) + "]}"
    text = head + f"profiles: [{{schedulerName: a, pluginConfig: [{{name: X, args: {args}}}]}}]"
    for url in ("playground:profile_effective", "playground:profile_new"):
        response = alice_client.post(reverse(url), _profile_post(mode="yaml", config_yaml=text))
        assert response.status_code == 200
        assert "more than 50,000 values" in response.content.decode()


def test_big_json_has_the_same_bound_for_one_object():
    """JSON is read by orjson (ten times libyaml's speed), then each object's values counted."""
    import json

    from playground.inputs.manifests import LINE_NUMBERS_UP_TO, parse_documents

    item = {"kind": "Widget", "metadata": {"name": "w"}, "data": [[0] * 9_000] * 7}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [item] * 10})
    assert len(text) > LINE_NUMBERS_UP_TO  # the big-input reader
    assert len(parse_documents(text).warnings) == 10
    one = json.dumps({**item, "data": [[0] * 9_000] * 12})
    with pytest.raises(ManifestProblems, match="more than 100,000 values in one object"):
        parse_documents(one + " " * LINE_NUMBERS_UP_TO)


def test_big_inputs_are_read_one_at_a_time(monkeypatch):
    """Three gzip bombs read side by side kept another user's GET / waiting 1.5 s under daphne
    (one thread each, the GIL shared); one at a time it stayed under 0.5 s. While one is read,
    the next waits its turn, and past the wait is refused with a word to try again."""
    from playground.inputs import manifests

    big = "#" + "x" * manifests.LINE_NUMBERS_UP_TO + "\napiVersion: v1\nkind: Namespace\n"
    monkeypatch.setattr(manifests, "BIG_INPUT_WAIT_SECONDS", 0.0)
    with manifests._ONE_BIG_INPUT:
        with pytest.raises(ManifestProblems, match="reading other big inputs; try again"):
            manifests.parse_documents(big)
        small = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"
        assert manifests.parse_documents(small).objects  # small inputs do not wait
    assert manifests.parse_documents(big).objects[0].kind == "Namespace"
