"""Custom CEL plugins in the playground: runs, errors, export and import, form, import page."""

from __future__ import annotations

import pytest
import yaml
from builders import make_node, make_pod
from django.urls import reverse

from playground.clusters import services
from playground.custom_plugins import services as plugin_services
from playground.demo import demo_load
from playground.models import Cluster, CustomPlugin, Profile, Run
from playground.profiles import selectors as profile_selectors
from playground.profiles import services as profile_services
from playground.runs import selectors as run_selectors
from playground.runs import services as runs
from playground.runs.panels import charts

pytestmark = pytest.mark.django_db

V1BETA1 = """apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    queueSort: {enabled: [{name: Test}]}
    preFilter: {enabled: [{name: Test}]}
    permit: {enabled: [{name: Test}]}
    reserve: {enabled: [{name: Test}]}
    postBind: {enabled: [{name: Test}]}
    score:
      disabled: [{name: NodeResourcesLeastAllocated}]
      enabled: [{name: NodeResourcesMostAllocated, weight: 2}]
  pluginConfig:
  - name: Test
    args: {favorite_color: "#326CE5", favorite_number: 7}
"""


def _start(capture, **kwargs):
    with capture(execute=True):
        run = runs.run_start(**kwargs)
    run.refresh_from_db()
    return run


def _cycle_for(run: Run, pod: str):
    events = run_selectors.run_events(run=run)  # cycle summaries and the small events
    cycles = [e["cycle"] for e in events if e["type"] == "CycleStart" and e["pod"] == pod]
    return charts.cycle_detail(
        run_selectors.run_cycle_events(run=run, cycle=cycles[-1]), cycles[-1]
    )


def test_shipped_plugins_in_a_run_matrix_scores_and_explanation(
    user, django_capture_on_commit_callbacks
):
    demo_load()
    cluster = Cluster.objects.get(is_demo=True, name="Blinking lights")
    profile = Profile.objects.get(is_demo=True, name="Custom plugins")
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    detail = _cycle_for(run, "default/web-0")
    matrix = str(detail["filter"])
    assert "MaintenanceFilter" in matrix and "node(s) were under maintenance" in matrix
    table = detail["scores"]
    column = table["plugins"].index("BlinkingLight")
    assert table["weights"][column] == 3
    raw = {n: table["values"]["raw"][i][column] for i, n in enumerate(table["nodes"])}
    normalized = {n: table["values"]["normalized"][i][column] for i, n in enumerate(table["nodes"])}
    assert raw == {"calm": 1, "busy": 4, "dark": 0}  # maint was filtered out
    assert normalized == {"calm": 75, "busy": 0, "dark": 100}
    assert "BlinkingLight" in str(detail["winner"])
    assert run.placements["default/web-0"] == "dark"  # no lights: reversed score 100
    assert "held back by PermitGate" in run.summary["messages"]["default/held"]
    binding = str(_cycle_for(run, "default/web-0")["binding"])
    assert "foo reserved web-0 on dark" in binding and "bar reserved web-0 on dark" in binding
    assert "baz reserved" not in binding


def test_cel_runtime_error_fails_the_pod_with_an_error_naming_plugin_and_key(
    user, django_capture_on_commit_callbacks
):
    plugin_services.custom_plugin_save(
        owner=user,
        definition={"name": "Broken", "points": {"filter": 'node.labels["nope"] == "x"'}},
    )
    cluster = services.cluster_create(owner=user, name="c")
    services.cluster_import_yaml(
        cluster=cluster, user=user, text=yaml.safe_dump_all([make_node("n1"), make_pod("p")])
    )
    config = {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"filter": {"enabled": [{"name": "Broken"}]}},
            }
        ]
    }
    profile = profile_services.profile_create(owner=user, name="broken", config=config)
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    message = run.summary["messages"]["default/p"]
    assert "custom plugin Broken filter expression: no such key: nope" in message


def test_custom_plugin_of_another_user_is_unknown_to_my_profiles(user, other_user):
    plugin_services.custom_plugin_save(
        owner=other_user, definition={"name": "Theirs", "points": {"filter": "true"}}
    )
    config = {
        "profiles": [
            {"schedulerName": "s", "plugins": {"filter": {"enabled": [{"name": "Theirs"}]}}}
        ]
    }
    with pytest.raises(profile_services.ProfileInvalid):
        profile_services.profile_create(owner=user, name="x", config=config)
    assert profile_services.profile_create(owner=other_user, name="x", config=config)


def test_profile_with_custom_plugin_round_trips_through_export_and_import(user, other_user):
    plugin_services.custom_plugin_save(
        owner=user,
        definition={
            "name": "Lights",
            "points": {"score": "size(node.labels) * args.factor"},
            "normalize": "reverse",
        },
    )
    config = {
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"enabled": [{"name": "Lights", "weight": 2}]}},
                "pluginConfig": [{"name": "Lights", "args": {"factor": 3}}],
            }
        ]
    }
    profile = profile_services.profile_create(owner=user, name="lights", config=config)
    text = profile_selectors.profile_export_yaml(profile)
    docs = list(yaml.safe_load_all(text))
    assert docs[1]["kind"] == "CustomPlugin" and docs[1]["metadata"]["name"] == "Lights"
    from playground.profiles.importing import profile_import

    imported, preview = profile_import(owner=other_user, name="copy", text=text)
    assert preview.changes == () and preview.placeholders == []
    assert imported.config["profiles"] == profile.config["profiles"]
    copied = CustomPlugin.objects.get(owner=other_user, name="Lights")
    assert copied.as_definition() == CustomPlugin.objects.get(owner=user).as_definition()
    assert profile_selectors.profile_export_yaml(imported) == text


def test_custom_plugin_form_reports_compile_errors_at_the_point_and_saves(alice_client, user):
    url = reverse("playground:custom_plugin_new")
    bad = alice_client.post(url, {"name": "Mine", "normalize": "none", "point_score": "1 +"})
    assert bad.status_code == 200
    errors = " ".join(bad.context["form"].errors["point_score"])
    assert "Mine score: at 1:4" in errors
    check = alice_client.post(
        reverse("playground:custom_plugin_check"),
        {
            "name": "Mine",
            "normalize": "none",
            "point_filter": "node.pods.all(p, p.labels.all(k, k in node.labels))",
        },
    ).json()
    assert check["ok"] is False
    assert "Mine filter: at 1:11: cost limit: " in str(check["errors"])  # node.pods.all
    good = alice_client.post(url, {"name": "Mine", "normalize": "reverse", "point_score": "7"})
    assert good.status_code == 302
    assert CustomPlugin.objects.get(owner=user, name="Mine").points == {"score": "7"}


def test_import_page_converts_v1beta1_beside_the_input_and_saves_with_a_placeholder(
    alice_client, user
):
    url = reverse("playground:profile_import")
    page = alice_client.post(url, {"source": V1BETA1, "action": "convert"})
    preview = page.context["preview"]
    assert preview.ok, preview.problems
    assert preview.source == "kubescheduler.config.k8s.io/v1beta1"
    assert preview.placeholders == ["Test"]
    assert any(
        "NodeResourcesMostAllocated (weight 2) became NodeResourcesFit" in c
        for c in preview.changes
    )
    body = page.content.decode()
    assert "kubescheduler.config.k8s.io/v1\n" in body and "import-changes" in body
    saved = alice_client.post(url, {"source": V1BETA1, "action": "save", "name": "old"})
    assert saved.status_code == 302
    profile = Profile.objects.get(owner=user, name="old")
    assert profile.config["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    placeholder = CustomPlugin.objects.get(owner=user, name="Test")
    assert placeholder.is_placeholder
    assert set(placeholder.points) == {"queueSort", "preFilter", "permit", "reserve", "postBind"}


def test_import_page_refuses_unknown_versions_and_stores_nothing(alice_client, user):
    url = reverse("playground:profile_import")
    text = "apiVersion: kubescheduler.config.k8s.io/v9\nkind: KubeSchedulerConfiguration\n"
    page = alice_client.post(url, {"source": text, "action": "save", "name": "x"})
    assert page.status_code == 200
    assert "unknown scheduler configuration version" in str(page.context["preview"].problems)
    assert not Profile.objects.filter(owner=user).exists()


def test_renaming_onto_an_existing_name_is_refused_and_demo_edits_make_a_copy(user):
    demo_load()
    mine = plugin_services.custom_plugin_save(
        owner=user, definition={"name": "A", "points": {"filter": "true"}}
    )
    plugin_services.custom_plugin_save(
        owner=user, definition={"name": "B", "points": {"filter": "true"}}
    )
    with pytest.raises(plugin_services.CustomPluginInvalid, match="already have"):
        plugin_services.custom_plugin_save(
            owner=user, definition={"name": "B", "points": {"score": "1"}}, plugin=mine
        )
    demo = CustomPlugin.objects.get(is_demo=True, name="BlinkingLight")
    copy = plugin_services.custom_plugin_save(
        owner=user,
        definition={"name": "BlinkingLight", "points": {"score": "5"}, "normalize": "none"},
        plugin=demo,
    )
    assert copy.pk != demo.pk and copy.owner == user
    demo.refresh_from_db()
    assert demo.normalize == "reverse"
    mine_spec = {s.name: s for s in plugin_services.specs_for(user)}["BlinkingLight"]
    assert mine_spec.expressions == {"score": "5"}  # the user's copy shadows the demo


def test_an_imported_v1beta1_profile_with_placeholders_runs(
    user, django_capture_on_commit_callbacks
):
    from playground.profiles.importing import profile_import

    profile, _ = profile_import(owner=user, name="old", text=V1BETA1)
    cluster = services.cluster_create(owner=user, name="c")
    objects = [make_node("n1"), make_node("n2"), make_pod("a"), make_pod("b", priority=10)]
    services.cluster_import_yaml(cluster=cluster, user=user, text=yaml.safe_dump_all(objects))
    run = _start(django_capture_on_commit_callbacks, user=user, cluster=cluster, profile=profile)
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    assert all(run.placements.values())
    events = run_selectors.run_events(run=run)
    first = next(e for e in events if e["type"] == "CycleStart")
    assert first["pod"] == "default/b"  # the placeholder sorts the queue by priority
