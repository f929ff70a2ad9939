"""Fuzz: manifest parsing refuses bad input with ManifestProblems; what it accepts, the engine runs.

Inputs are the course's clusters (nodes, pods, PVCs, PDBs, priority classes, controllers) with
random breakages, written as YAML or JSON. The form fields' line syntax (labels, taints,
tolerations, selectors, affinity terms, spread constraints) gets lines built from their own
vocabulary. The import into a cluster either stores every object or, refused, writes nothing.
"""

from __future__ import annotations

import contextlib

import pytest
import yaml
from django.contrib.auth import get_user_model
from fuzzing import (
    COURSE,
    ODD_TEXT,
    budget,
    mutated,
    odd_documents,
    scalars,
    tally,
    to_text,
    values,
)
from hypothesis import given
from hypothesis import strategies as st

from playground.clusters import pod_parsing, services
from playground.inputs import kube, manifests, yaml_limits
from playground.models import Cluster, KubeObject, Node, Pod
from scheduler_core.errors import SchedulerCoreError
from scheduler_core.loop.scheduler import Scheduler
from scheduler_core.workloads import CONTROLLER_KINDS


def _objects(path):
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    return [item for d in docs for item in (d["items"] if d["kind"] == "List" else [d])]


CLUSTERS = {
    path.parent.name: {"apiVersion": "v1", "kind": "List", "items": _objects(path)}
    for path in sorted(COURSE.glob("*/cluster.yaml"))
    if len(_objects(path)) <= 40  # not the 500-node lesson: mutations cost by the object
}
DOCUMENTS = st.sampled_from(sorted(CLUSTERS)).flatmap(lambda name: mutated(CLUSTERS[name]))
TEXTS = st.one_of(st.builds(to_text, DOCUMENTS, st.booleans()), odd_documents())
ENGINE_KINDS = frozenset(manifests.KINDS) - frozenset(CONTROLLER_KINDS)


def _parse(text):
    """parse_documents and check_object, asserting that only ManifestProblems escapes."""
    try:
        parsed = manifests.parse_documents(text)
    except manifests.ManifestProblems as err:
        assert err.problems
        assert all(isinstance(p, manifests.Problem) and str(p) for p in err.problems)
        tally("refused by parse_documents")
        return None
    problems = [p for obj in parsed.objects for p in manifests.check_object(obj)]
    assert all(isinstance(p, manifests.Problem) for p in problems)
    tally("objects with problems" if problems else "accepted")
    return parsed, problems


@budget(80)
@given(TEXTS)
def test_texts_parse_or_are_refused(text):
    _parse(text)


@budget(30)
@given(st.sampled_from(sorted(CLUSTERS)).flatmap(lambda n: mutated(CLUSTERS[n], gentle=True)))
def test_accepted_clusters_schedule(doc):
    """Objects with no problem are read by the engine and scheduled without an exception."""
    result = _parse(to_text(doc, as_json=True))
    if result is None or result[1]:
        return
    cluster = [o.manifest for o in result[0].objects if o.kind in ENGINE_KINDS]
    with contextlib.suppress(SchedulerCoreError):
        Scheduler(None, cluster).run_until_idle(max_cycles=40)


@budget(80)
@given(values())
def test_label_checks_are_total(labels):
    out = kube.check_labels(labels, "metadata.labels")
    assert all(isinstance(path, str) and isinstance(msg, str) for path, msg in out)


WORDS = st.one_of(
    ODD_TEXT,
    st.sampled_from(
        ["=", "==", "!=", ":", ",", ";", "(", ")", " in ", " notin ", "!", "Exists", "Equal"]
    ),
    st.sampled_from(["a", "zone", "example.com/gpu", "-", "_", ".", "1", "-5", "101", "1e9"]),
    st.text(max_size=8),
)
LINES = st.lists(st.lists(WORDS, max_size=6).map("".join), max_size=4).map("\n".join)
FORM_PARSERS = {
    "key_values": kube.parse_key_values,
    "key_values_plain": lambda t: kube.parse_key_values(t, labels=False),
    "taints": kube.parse_taints,
    "tolerations": kube.parse_tolerations,
    "requirements": kube.parse_requirements,
    "node_requirements": lambda t: kube.parse_requirements(t, node=True),
    "affinity_terms": pod_parsing.parse_affinity_terms,
    "spread": pod_parsing.parse_spread,
    "node_terms": pod_parsing.parse_node_terms,
    "preferred_node": pod_parsing.parse_preferred_node,
}
PREFIXES = st.sampled_from(["", "required ", "preferred ", "preferred 5 zone ", "1 zone "])


@pytest.mark.parametrize("name", sorted(FORM_PARSERS))
@budget(40)
@given(PREFIXES, LINES)
def test_form_lines_parse_or_are_refused(name, prefix, text):
    try:
        FORM_PARSERS[name](prefix + text)
    except kube.SyntaxProblem as err:
        assert str(err)


@pytest.mark.django_db
@budget(25)
@given(TEXTS)
def test_import_stores_all_or_nothing(text):
    user, _ = get_user_model().objects.get_or_create(username="fuzz")
    cluster = services.cluster_create(owner=user, name="fuzz")
    before = [m.objects.count() for m in (Cluster, Node, Pod, KubeObject)]
    try:
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    except manifests.ManifestProblems as err:
        assert err.problems
        assert [m.objects.count() for m in (Cluster, Node, Pod, KubeObject)] == before
        tally("import refused")
    else:
        tally("import stored")
    cluster.delete()


@budget(40)
@given(scalars())
def test_non_text_quantity_fields(value):
    """A Pod whose every resource quantity is one odd scalar: refused or accepted, no crash."""
    pod = next(d for d in CLUSTERS["02-resources"]["items"] if d["kind"] == "Pod")
    doc = {
        **pod,
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": value}}}]},
    }
    _parse(to_text(doc, as_json=True))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: Node\nmetadata: {name: " + "9" * 5000 + "}\n", "invalid YAML"),
        ("apiVersion: v1\nkind: [[Node]]\nmetadata: {name: n}\n", "must be a string"),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n"
            "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
            "[{weight: 1, preference: {matchExpressions: [zone]}}]}}\n",
            "must be an object",
        ),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {a: [1]}}\n"
            "spec: {taints: [{key: k, effect: NoSchedule, value: {x: 1}}]}\n",
            "must be a string",
        ),
    ],
    ids=["5000-digit-int", "list-kind", "string-node-selector-requirement", "object-taint-value"],
)
def test_crashes_found_are_problems(text, message):
    """What the fuzzing found raising ValueError and TypeError, or crashing a plugin later."""
    result = _parse(text)
    problems = result[1] if result else None
    if result is None:
        with pytest.raises(manifests.ManifestProblems) as err:
            manifests.parse_documents(text)
        problems = err.value.problems
    assert any(message in str(p) for p in problems), problems


@pytest.mark.django_db
def test_json_escapes_of_astral_characters_import(user):
    """Found by test_import_stores_all_or_nothing: a JSON export with an emoji in an annotation."""
    text = (
        '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", '
        '"annotations": {"note": "\\ud83d\\udca5"}}}'
    )
    cluster = services.cluster_create(owner=user, name="astral")
    services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert (
        Node.objects.get(cluster=cluster).manifest["metadata"]["annotations"]["note"]
        == "\U0001f4a5"
    )


@pytest.mark.django_db
def test_a_lone_surrogate_escape_is_a_problem_not_a_500(user):
    text = (
        '{"apiVersion": "v1", "kind": "Node", '
        '"metadata": {"name": "n1", "annotations": {"a": "\\ud83d"}}}'
    )
    cluster = services.cluster_create(owner=user, name="half")
    with pytest.raises(manifests.ManifestProblems, match="half a character"):
        services.cluster_import_yaml(cluster=cluster, user=user, text=text)
    assert not Node.objects.filter(cluster=cluster).exists()


# --- big inputs: data built straight from the parser's events -------------------------------

_UNREAD_TAGS = ("!!set", "!!omap", "!!pairs")  # collections the event builder refuses by tag


def _outcome(read):
    try:
        return repr(read())  # repr: NaN equals itself
    except (yaml.YAMLError, ValueError, RecursionError) as err:
        return type(err)


@budget(120)
@given(TEXTS | ODD_TEXT)
def test_the_event_builder_reads_what_the_composer_reads(text):
    """``yaml_limits.build`` (big inputs) gives libyaml's composer's data, or refuses what it
    refuses; beyond that it refuses only past its bounds (depth, aliases, items: even the
    command line's budget has them) and the tags of sets and ordered maps."""
    unbounded = yaml_limits.UNBOUNDED
    built = _outcome(lambda: yaml_limits.build(text, unbounded, manifests._FastLoader))
    composed = _outcome(lambda: list(yaml.load_all(text, Loader=manifests._FastLoader)))
    if any(tag in text for tag in _UNREAD_TAGS):
        return
    if isinstance(built, str):
        assert built == composed
    elif built is not yaml_limits.YAMLLimitError:
        assert not isinstance(composed, str), built
    tally("read alike" if built == composed else f"refused: {built}")


@budget(60)
@given(TEXTS, st.integers(min_value=1, max_value=400))
def test_the_event_builder_stops_at_the_values_budget(text, limit):
    """Under a budget of ``limit`` values the builder gives the same data as unbounded, or
    refuses naming the bound, never anything else."""
    try:
        whole = yaml_limits.build(text, yaml_limits.UNBOUNDED, manifests._FastLoader)
    except (yaml.YAMLError, ValueError):
        return
    budget_ = yaml_limits.Budget(documents=10**6, values=limit, object_values=10**6)
    try:
        assert yaml_limits.build(text, budget_, manifests._FastLoader) == whole
        tally("within the budget")
    except yaml_limits.YAMLLimitError as err:
        assert f"more than {limit:,} values" in str(err)
        tally("stopped at the budget")
