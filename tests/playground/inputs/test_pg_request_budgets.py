"""What one request may cost: documents, values and items are counted while the input is read,
and the refusal names the bound; the older-configuration import reads through the same loader."""

from __future__ import annotations

import gzip

import pytest
import yaml
from builders import make_node
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from playground.clusters import services
from playground.inputs import yaml_limits
from playground.inputs.manifests import ManifestProblems, parse_documents
from playground.models import CustomPlugin, KubeObject, Node, Pod, Profile

pytestmark = pytest.mark.django_db

V1 = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _stored() -> int:
    return Node.objects.count() + Pod.objects.count() + KubeObject.objects.count()


def _upload(alice_client, user, text: str):
    cluster = services.cluster_create(owner=user, name="c")
    upload = SimpleUploadedFile("big.yaml.gz", gzip.compress(text.encode(), compresslevel=6))
    return alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"file": upload}
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # 63 MB unzipped (under the 64 MB cap), about 90 KB gzipped: 9 million empty documents
        pytest.param("---\n{}\n" * 9_000_000, "more than 50,000 documents", id="9M-documents"),
        pytest.param("---\n{}\n" * 2_000_000, "more than 50,000 documents", id="2M-documents"),
        # one list of 31 million items, flow (as JSON) and block
        pytest.param("[" + "0," * 31_000_000 + "0]", "more than 10000 items", id="31M-flow"),
        pytest.param("- 0\n" * 15_000_000, "more than 10000 items", id="15M-block"),
    ],
)
def test_gzip_uploads_that_unzip_to_millions_of_values_are_refused_naming_the_bound(
    alice_client, user, text, message
):
    response = _upload(alice_client, user, text)
    assert response.status_code == 200
    page = response.content.decode()
    assert "too big to import: " + message in page
    assert len(page) < 100_000  # one problem shown, not one per document
    assert _stored() == 0


def test_the_values_bound_of_a_web_import_is_a_setting_and_the_command_line_has_none(
    user, settings
):
    settings.PLAYGROUND_IMPORT_MAX_VALUES = 500
    text = yaml.safe_dump_all([make_node(f"n{i}") for i in range(40)])
    cluster = services.cluster_create(owner=user, name="c")
    with pytest.raises(ManifestProblems, match="too big to import: more than 500 values"):
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert _stored() == 0
    services.cluster_import_yaml(cluster=cluster, user=user, text=text, limit=None)
    assert Node.objects.filter(cluster=cluster).count() == 40


def test_json_the_yaml_reader_cannot_follow_is_bounded_by_its_separators(settings):
    settings.PLAYGROUND_IMPORT_MAX_VALUES = 1_000
    # a tab stops the YAML event reader at once; the commas still count
    text = '[\t{"kind": "Node"}' + ', {"kind": "Node"}' * 600 + "]"
    with pytest.raises(ManifestProblems, match="more than 1,000 values"):
        parse_documents(text)


def test_an_input_with_many_bad_documents_reports_the_first_hundred():
    with pytest.raises(ManifestProblems) as info:
        parse_documents("---\n[]\n" * 500)
    problems = info.value.problems
    assert len(problems) == 101
    assert str(problems[-1]) == "… and 400 more problems"


def test_large_inputs_go_to_the_fast_reader_with_the_same_objects():
    text = yaml.safe_dump_all([make_node(f"n{i}") for i in range(2_000)])
    assert yaml_limits.scan(text, yaml_limits.import_budget()).values > 50_000
    names = [obj.name for obj in parse_documents(text).objects]
    assert names == [f"n{i}" for i in range(2_000)]


# --- the loader ---------------------------------------------------------------------------------


def test_scan_counts_documents_and_values_and_stops_at_the_first_bound():
    tally = yaml_limits.scan("a: [1, 2]\n---\nb\n")
    assert (tally.documents, tally.values, tally.complete) == (2, 6, True)
    assert yaml_limits.scan("a: [1\n").complete is False
    budget = yaml_limits.Budget(documents=3, values=100)
    with pytest.raises(yaml_limits.YAMLLimitError, match="more than 3 documents") as info:
        yaml_limits.scan("x\n---\nx\n---\nx\n---\nx\n", budget)
    assert info.value.problem_mark.line == 5  # the fourth document's marker, 0-based
    # more "---" lines than the budget: refused before any parsing, so without a line
    with pytest.raises(yaml_limits.YAMLLimitError, match="more than 3 documents") as info:
        yaml_limits.scan("---\nx\n" * 4, budget)
    assert info.value.problem_mark is None
    with pytest.raises(yaml_limits.YAMLLimitError, match="more than 100 values"):
        yaml_limits.scan("[" + "1, " * 200 + "]", budget)


def test_a_mapping_and_a_sequence_hold_the_same_number_of_items():
    budget = yaml_limits.Budget(items=3)
    yaml_limits.scan("{a: 1, b: 2, c: 3}\n", budget)
    yaml_limits.scan("[1, 2, 3]\n", budget)
    for text in ("{a: 1, b: 2, c: 3, d: 4}\n", "[1, 2, 3, 4]\n"):
        with pytest.raises(yaml_limits.YAMLLimitError, match="more than 3 items"):
            yaml_limits.scan(text, budget)


def test_load_all_reads_big_texts_with_libyaml_and_the_same_result():
    text = yaml.safe_dump_all([{"n": i, "v": list(range(5))} for i in range(5_000)])
    budget = yaml_limits.Budget(documents=5_000)
    assert yaml_limits.scan(text, budget).values > yaml_limits.PURE_PYTHON_VALUES
    assert yaml_limits.load_all(text, budget) == list(yaml.safe_load_all(text))


def test_aliases_may_not_expand_a_document_past_the_budget():
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: [*a, *a, *a, *a, *a]\n"
    assert len(yaml_limits.load(text)["b"]) == 5
    with pytest.raises(yaml_limits.YAMLLimitError, match="more than 50 values"):
        yaml_limits.load(text, yaml_limits.Budget(values=50))


# --- the older-configuration import ---------------------------------------------------------


def _import(alice_client, source: str, **extra: str):
    url = reverse("playground:profile_import")
    return alice_client.post(url, {"source": source, "action": "save", "name": "x", **extra})


# 600 bytes that expand to 8^8 (16 million) strings in the plugin arguments
ALIAS_CONFIG = (
    V1
    + "profiles:\n- schedulerName: bomb\n  pluginConfig:\n  - name: NodeResourcesFit\n"
    + "    args:\n      a: &a [lol, lol, lol, lol, lol, lol, lol, lol]\n"
    + "".join(
        f"      {c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefg", "bcdefgh", strict=True)
    )
)


def _nested(levels: int) -> str:
    return V1 + "profiles:\n- schedulerName: deep\n  pluginConfig: " + "[" * levels + "]" * levels


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(ALIAS_CONFIG, "more than 50,000 values (aliases included)", id="alias-bomb"),
        pytest.param(_nested(900), "nested deeper than 64 levels", id="nested-900"),
        pytest.param(_nested(10_000), "nested deeper than 64 levels", id="nested-10000"),
        pytest.param("---\n{}\n" * 200, "more than 100 documents", id="200-documents"),
    ],
)
def test_costly_older_configurations_are_refused_and_store_nothing(alice_client, source, message):
    response = _import(alice_client, source)
    assert response.status_code == 200
    problems = response.context["preview"].problems
    assert len(problems) == 1 and message in problems[0]
    assert "too big to import: " in problems[0]
    # counted while parsing: the line where the bound was passed (documents are counted first,
    # by their "---" lines, before parsing)
    assert problems[0].startswith("line ") == ("documents" not in message)
    assert not Profile.objects.exists()


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("metadata: {name: P}\nspec: 5", "spec: Invalid value: must be a mapping"),
        ("metadata: x\nspec: {points: {filter: 'true'}}", "metadata.name: Required value"),
        ("metadata: {name: [1]}\nspec: {points: {filter: 'true'}}", "metadata.name"),
        ("metadata: {name: P}\nspec: {points: [1]}", "spec.points: Invalid value"),
        ("metadata: {name: P}\nspec: {points: {filter: [1]}}", "spec.points.filter"),
        ("metadata: {name: P}\nspec: {points: {filter: 'true'}, normalize: {}}", "spec.normalize"),
    ],
)
def test_invalid_custom_plugin_documents_are_problems_not_errors(alice_client, document, message):
    source = V1 + "---\nkind: CustomPlugin\n" + document + "\n"
    response = _import(alice_client, source)
    assert response.status_code == 200
    problems = response.context["preview"].problems
    assert any(f"document 2: CustomPlugin {message}" in p for p in problems), problems
    assert not Profile.objects.exists() and not CustomPlugin.objects.exists()


def test_an_import_may_create_a_bounded_number_of_placeholders(alice_client):
    enabled = "".join(f"        - name: Made{i}\n" for i in range(60))
    source = V1 + "profiles:\n- schedulerName: s\n  plugins:\n    filter:\n      enabled:\n"
    response = _import(alice_client, source + enabled)
    problems = response.context["preview"].problems
    assert len(problems) == 1 and "60 plugins are not in-tree; at most 50" in problems[0]
    assert not CustomPlugin.objects.exists() and not Profile.objects.exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("kind: Policy\napiVersion: v1\npredicates: 5\n", "predicates: must be a list"),
        (V1 + "profiles: 5\n", "profiles"),
    ],
)
def test_a_configuration_the_converter_refuses_is_a_problem_on_the_page(
    alice_client, source, message
):
    response = _import(alice_client, source)
    assert response.status_code == 200
    assert any(message in p for p in response.context["preview"].problems)
    assert not Profile.objects.exists()
