"""Try a change: a copy of a finished run's profile with one change, run over the same input."""

from __future__ import annotations

import pytest
from builders import cluster_with, make_node, make_pod, stored_events
from django.urls import reverse

from playground.models import Profile, Run
from playground.profiles import services as profile_services
from playground.runs import services as runs
from playground.runs import try_change

pytestmark = pytest.mark.django_db


def _url(run):
    return reverse("playground:run_try_change", args=[run.pk])


@pytest.fixture
def finished(user, django_capture_on_commit_callbacks):
    cluster = cluster_with(
        user, make_node("n1", cpu="4"), make_node("n2", cpu="8"), make_pod("a", cpu="1")
    )
    profile = profile_services.profile_create(owner=user, name="mine", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == "succeeded"
    return run


def _weights(run, plugin):
    return {
        e["weight"] for e in stored_events(run) if e["type"] == "Score" and e["plugin"] == plugin
    }


def test_try_a_weight_copies_the_profile_and_opens_the_comparison(
    alice_client, finished, user, django_capture_on_commit_callbacks
):
    page = alice_client.get(reverse("playground:run", args=[finished.pk])).content.decode()
    assert 'id="try-change-form"' in page and "NodeResourcesFit 1" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            _url(finished),
            {"kind": "weight", "plugin": "NodeResourcesFit", "weight": "7"},
        )
    assert response.status_code == 302
    assert "/compare/" in response["Location"]
    new = Run.objects.exclude(pk=finished.pk).get()
    assert new.compare_with_id == finished.pk
    assert new.snapshot == Run.objects.get(pk=finished.pk).snapshot
    copy = new.profile
    assert copy.owner == user and copy.copied_from_id == finished.profile_id
    assert copy.config["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 7}
    ]
    assert "score" not in str(Profile.objects.get(pk=finished.profile_id).config)  # untouched
    assert new.status == "succeeded"
    assert _weights(new, "NodeResourcesFit") == {7}
    assert _weights(finished, "NodeResourcesFit") == {1}
    page = alice_client.get(response["Location"])
    assert page.status_code == 200


def test_strategy_change_reaches_the_engine(finished, user, django_capture_on_commit_callbacks):
    change = try_change.ProfileChange(
        kind="strategy", plugin="NodeResourcesFit", strategy="MostAllocated"
    )
    with django_capture_on_commit_callbacks(execute=True):
        new = try_change.run_try_change(user=user, run=finished, change=change)
    new.refresh_from_db()
    assert new.config["profiles"][0]["pluginConfig"] == [
        {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}
    ]

    # n1 (4 CPUs) is fuller after the pod than n2 (8): LeastAllocated scores n2 higher,
    # MostAllocated n1.
    def fit(run):
        [ev] = [
            e
            for e in stored_events(run)
            if e.get("plugin") == "NodeResourcesFit" and e["type"] == "Score"
        ]
        return dict(zip(ev["nodes"], ev["raw"], strict=True))

    assert fit(finished)["n2"] > fit(finished)["n1"]
    assert fit(new)["n1"] > fit(new)["n2"]


def test_a_change_the_engine_refuses_stores_nothing(alice_client, finished, user):
    profiles = Profile.objects.count()
    response = alice_client.post(
        _url(finished), {"kind": "disable", "plugin": "PrioritySort"}, follow=True
    )
    text = response.content.decode()
    assert "queueSort" in text or "QueueSort" in text or "queue sort" in text
    assert Profile.objects.count() == profiles
    assert Run.objects.count() == 1


def test_form_errors_name_the_field(alice_client, finished):
    response = alice_client.post(
        _url(finished), {"kind": "weight", "plugin": "NodeResourcesFit"}, follow=True
    )
    assert "weight: give the new weight" in response.content.decode()
    response = alice_client.post(
        _url(finished), {"kind": "weight", "plugin": "NodeName", "weight": "2"}, follow=True
    )
    assert "plugin: NodeName is not a Score plugin of this profile" in response.content.decode()
    assert Run.objects.count() == 1


def test_anonymous_visitors_are_asked_to_sign_up(client, finished):
    finished.cluster.is_demo = True  # a run anonymous visitors may watch: demo cluster and profile
    finished.cluster.save(update_fields=["is_demo"])
    finished.profile.is_demo = True
    finished.profile.save(update_fields=["is_demo"])
    page = client.get(reverse("playground:run", args=[finished.pk])).content.decode()
    assert 'id="try-change-signup"' in page and 'id="try-change-form"' not in page
    with pytest.raises(try_change.ChangeInvalid) as err:
        from django.contrib.auth.models import AnonymousUser

        try_change.run_try_change(
            user=AnonymousUser(),
            run=finished,
            change=try_change.ProfileChange(kind="enable", plugin="ImageLocality"),
        )
    assert err.value.field == "kind" and "sign up" in err.value.message
