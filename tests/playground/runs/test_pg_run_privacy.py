"""Private stays private: a run shows its profile's every setting, so it is seen only by who may
see both the run and its profile; a share token opens every read of the shared runs and nothing
else; an anonymous visitor's run is commanded only from the session that started it."""

from __future__ import annotations

import pytest
import yaml
from asgiref.sync import sync_to_async
from builders import make_node, make_pod
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Cluster, Profile, Run
from playground.profiles import services as profile_services
from playground.routing import websocket_urlpatterns
from playground.runs import selectors
from playground.runs import services as runs
from playground.runs.refs import run_ref

SECRET = {
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 7}]}},
            "pluginConfig": [
                {
                    "name": "NodeResourcesFit",
                    "args": {"scoringStrategy": {"type": "MostAllocated"}},
                }
            ],
        }
    ]
}

# Every read endpoint of a run: (url name, extra args, query).
READS = [
    ("playground:run", [], {}),
    ("playground:run_events", [], {}),
    ("playground:run_cycles", [], {}),
    ("playground:run_changes", [], {}),
    ("playground:run_cycle", [1], {}),
    ("playground:run_usage", [], {}),
    ("playground:run_explain", [1], {}),
]


def _start(user, cluster, profile, capture):
    with capture(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message
    return run


@pytest.fixture
def demo_private_run(user, django_capture_on_commit_callbacks):
    """Alice's run of a demo cluster under her private profile."""
    demo_load()
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    profile = profile_services.profile_create(
        owner=user, name="alice-secret-profile", config=SECRET
    )
    return _start(user, demo, profile, django_capture_on_commit_callbacks)


@pytest.fixture
def demo_public_run(other_user, django_capture_on_commit_callbacks):
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    profile = Profile.objects.filter(is_demo=True).order_by("pk").first()
    return _start(other_user, demo, profile, django_capture_on_commit_callbacks)


@pytest.mark.django_db
def test_a_demo_cluster_page_lists_no_other_users_private_run(
    demo_private_run, demo_public_run, other_user
):
    url = reverse("playground:cluster", args=[demo_private_run.cluster_id])
    bob = Client()
    bob.force_login(other_user)
    for viewer in (Client(), bob):
        body = viewer.get(url).content.decode()
        assert "alice-secret-profile" not in body
        assert reverse("playground:run", args=[demo_private_run.pk]) not in body
        assert reverse("playground:run", args=[demo_public_run.pk]) in body  # demo profile: public
    alice = Client()
    alice.force_login(demo_private_run.started_by)
    body = alice.get(url).content.decode()
    assert reverse("playground:run", args=[demo_private_run.pk]) in body


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "extra", "query"), READS)
def test_every_read_of_a_private_run_is_a_404_to_others(
    demo_private_run, other_user, name, extra, query
):
    url = reverse(name, args=[demo_private_run.pk, *extra])
    bob = Client()
    bob.force_login(other_user)
    for viewer in (Client(), bob):
        assert viewer.get(url, query).status_code == 404
    alice = Client()
    alice.force_login(demo_private_run.started_by)
    assert alice.get(url, query).status_code == 200


@pytest.mark.django_db
def test_the_compare_page_of_a_private_run_is_a_404_to_others(
    demo_private_run, demo_public_run, other_user
):
    url = reverse("playground:compare", args=[demo_public_run.pk, demo_private_run.pk])
    bob = Client()
    bob.force_login(other_user)
    for viewer in (Client(), bob):
        response = viewer.get(url)
        assert response.status_code == 404
        assert b"MostAllocated" not in response.content
    alice = Client()
    alice.force_login(demo_private_run.started_by)
    body = alice.get(url).content.decode()
    assert "MostAllocated" in body and "alice-secret-profile" in body


@pytest.mark.django_db
def test_the_lessons_glossary_never_links_a_private_run(demo_private_run):
    assert not selectors.runs_for_cluster(
        user=AnonymousUser(), cluster=demo_private_run.cluster
    ).filter(pk=demo_private_run.pk)
    body = Client().get(reverse("playground:course")).content.decode()
    assert reverse("playground:run", args=[demo_private_run.pk]) not in body


# --- share tokens ------------------------------------------------------------------------------


@pytest.fixture
def shared(user, other_user, django_capture_on_commit_callbacks):
    """Alice's shared cluster with two runs of her private profile; her private cluster with a
    run of the same profile; Bob's run of the shared cluster under his own profile."""
    manifests = yaml.safe_dump_all([make_node("n1"), make_pod("a")], sort_keys=False)
    cluster = services.cluster_create(owner=user, name="shared")
    services.cluster_import_yaml(cluster=cluster, user=user, text=manifests)
    services.cluster_set_sharing(cluster=cluster, user=user, shared=True)
    private = services.cluster_create(owner=user, name="private")
    services.cluster_import_yaml(cluster=private, user=user, text=manifests)
    profile = profile_services.profile_create(owner=user, name="alice-secret-profile", config={})
    capture = django_capture_on_commit_callbacks
    bobs = profile_services.profile_create(owner=other_user, name="bobs-profile", config={})
    return {
        "token": str(Cluster.objects.get(pk=cluster.pk).share_token),
        "a": _start(user, cluster, profile, capture),
        "b": _start(user, cluster, profile, capture),
        "elsewhere": _start(user, private, profile, capture),
        "bobs": _start(other_user, cluster, bobs, capture),
    }


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "extra", "query"), READS)
def test_a_share_token_opens_every_read_of_the_shared_runs(shared, name, extra, query):
    for key, expected in (("a", 200), ("elsewhere", 404), ("bobs", 404)):
        url = reverse(name, args=[shared[key].pk, *extra])
        assert Client().get(url, {**query, "share": shared["token"]}).status_code == expected, key


@pytest.mark.django_db
def test_a_share_token_opens_the_compare_page_of_two_shared_runs(shared):
    token = {"share": shared["token"]}
    url = reverse("playground:compare", args=[shared["a"].pk, shared["b"].pk])
    assert Client().get(url, token).status_code == 200
    assert Client().get(url).status_code == 404
    other = reverse("playground:compare", args=[shared["a"].pk, shared["elsewhere"].pk])
    assert Client().get(other, token).status_code == 404


@pytest.mark.django_db
def test_a_share_token_allows_no_write(shared, other_user):
    bob = Client()
    bob.force_login(other_user)
    run = shared["a"]
    token = f"?share={shared['token']}"
    for name, data in (
        ("playground:run_cancel", {}),
        ("playground:run_permit", {"pod": "default/a", "decision": "reject"}),
        ("playground:run_apply", {}),
        ("playground:run_change", {"now-action": "delete_pod", "now-name": "a"}),
        ("playground:run_try_change", {"kind": "weight", "plugin": "NodeResourcesFit"}),
    ):
        url = reverse(name, args=[run.pk]) + token
        for viewer in (Client(), bob):
            response = viewer.post(url, data)
            assert response.status_code in (302, 404), (name, response.status_code)
            if response.status_code == 302:  # login_required sends the anonymous to sign in
                assert response["Location"].startswith(reverse("login"))
    assert Run.objects.count() == 4  # no "try a change" run was started
    page = bob.get(reverse("playground:run", args=[run.pk]) + token).content.decode()
    assert reverse("playground:run_try_change", args=[run.pk]) not in page


# --- an anonymous visitor's run ----------------------------------------------------------------


@pytest.fixture
def anonymous_run(django_capture_on_commit_callbacks):
    """A run an anonymous visitor started from a lesson, and the client of their session."""
    demo_load()
    demo = Cluster.objects.get(is_demo=True, name="Three zones")
    profile = Profile.objects.filter(is_demo=True).order_by("pk").first()
    with django_capture_on_commit_callbacks(execute=False):  # stays pending: commandable
        run = runs.run_start(user=None, cluster=demo, profile=profile)
    visitor = Client()
    session = visitor.session
    session[selectors.SESSION_STARTED] = [run.pk]
    session.save()
    return run, visitor


@pytest.mark.django_db
def test_only_the_starting_session_commands_an_anonymous_run(anonymous_run, other_user):
    run, visitor = anonymous_run
    bob = Client()
    bob.force_login(other_user)
    permit = reverse("playground:run_permit", args=[run.pk])
    cancel = reverse("playground:run_cancel", args=[run.pk])
    button = '<button type="button" id="cancel-run" class="danger"'
    page = reverse("playground:run", args=[run.pk])
    assert f"{button}>Cancel run" in visitor.get(page).content.decode()
    for stranger in (Client(), bob):
        assert f"{button} hidden>Cancel run" in stranger.get(page).content.decode()
        assert stranger.post(permit, {"pod": "default/a", "decision": "reject"}).status_code == 404
        assert stranger.post(cancel).status_code == 404
    assert not run.commands.exists()
    assert visitor.post(cancel).status_code == 200
    assert run.commands.filter(kind="cancel").exists() or Run.objects.get(pk=run.pk).is_terminal


@pytest.mark.django_db
def test_the_visitor_keeps_command_of_their_run_after_signing_in(anonymous_run, other_user):
    run, visitor = anonymous_run
    visitor.force_login(other_user)
    assert selectors.run_may_command(user=other_user, run=run, session=visitor.session)
    assert not selectors.run_may_command(user=other_user, run=run, session=SessionStore())


@pytest.mark.django_db
def test_a_lesson_run_is_remembered_as_the_sessions_own(client, django_capture_on_commit_callbacks):
    from playground.lessons.loader import course

    demo_load()
    lesson = course()[10]  # the binding cycle: a visitor answers its Permit waits, not shared
    with django_capture_on_commit_callbacks(execute=False):
        client.post(reverse("playground:lesson_run", args=[lesson.slug]), {"profile": "default"})
    run = Run.objects.latest("id")
    assert run.started_by_id is None
    assert selectors.session_run_ids(client.session) == {run.pk}
    assert Client().post(reverse("playground:run_cancel", args=[run.pk])).status_code == 404
    assert client.post(reverse("playground:run_cancel", args=[run.pk])).status_code == 200


def _communicator(run_id, session):
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/runs/{run_ref(run_id)}/"
    )
    communicator.scope["user"] = AnonymousUser()
    communicator.scope["session"] = session
    return communicator


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_websocket_commands_of_an_anonymous_run_only_from_its_session(anonymous_run):
    run, visitor = anonymous_run
    strangers = _communicator(run.pk, await sync_to_async(SessionStore)())
    assert (await strangers.connect())[0]
    await strangers.send_json_to({"command": "reject", "pod": "default/a"})
    while (reply := await strangers.receive_json_from(timeout=5))["kind"] != "error":
        pass
    assert "only the run's owner" in reply["message"]
    await strangers.disconnect()
    assert not await sync_to_async(run.commands.exists)()
    key = await sync_to_async(lambda: visitor.session.session_key)()
    own = _communicator(run.pk, await sync_to_async(SessionStore)(session_key=key))
    assert (await own.connect())[0]
    await own.send_json_to({"command": "cancel"})
    while (reply := await own.receive_json_from(timeout=5))["kind"] not in ("ack", "error"):
        pass
    assert reply["kind"] == "ack", reply
    await own.disconnect()
