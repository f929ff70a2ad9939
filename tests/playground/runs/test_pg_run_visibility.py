"""Who reaches a run: signed run references, the share token, private profile names, and the
websocket's checks on what clients send."""

from __future__ import annotations

import json

import pytest
import yaml
from asgiref.sync import sync_to_async
from builders import make_node, make_pod
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.models import Profile, RunCommand
from playground.profiles import services as profile_services
from playground.routing import websocket_urlpatterns
from playground.runs import services as runs
from playground.runs.refs import run_id_from_ref, run_ref


@pytest.fixture
def shared_run(user, django_capture_on_commit_callbacks):
    """A finished run of alice's shared cluster under her private profile."""
    cluster = services.cluster_create(owner=user, name="shared")
    services.cluster_import_yaml(
        cluster=cluster,
        user=user,
        text=yaml.safe_dump_all([make_node("n1"), make_pod("a")], sort_keys=False),
    )
    services.cluster_set_sharing(cluster=cluster, user=user, shared=True)
    profile = profile_services.profile_create(owner=user, name="alice-secret-profile", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=cluster, profile=profile)
    run.refresh_from_db()
    return run


JSON_ROUTES = [
    ("playground:run", []),
    ("playground:run_events", []),
    ("playground:run_usage", []),
    ("playground:run_cycle", [1]),
]


def test_run_urls_carry_a_signed_reference():
    ref = run_ref(12)
    assert ref.startswith("12.") and len(ref) == 23
    assert reverse("playground:run", args=[12]) == f"/runs/{ref}/"
    assert run_id_from_ref(ref) == 12
    assert run_id_from_ref("13" + ref[2:]) is None
    assert run_id_from_ref("12") is None


@pytest.mark.django_db
def test_a_guessed_run_id_is_a_404(alice_client, shared_run):
    assert alice_client.get(f"/runs/{shared_run.pk}/").status_code == 404
    forged = f"/runs/{shared_run.pk}.{'0' * 20}/"
    assert alice_client.get(forged).status_code == 404
    assert alice_client.get(reverse("playground:run", args=[shared_run.pk])).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "extra"), JSON_ROUTES)
def test_shared_cluster_run_needs_the_share_token(shared_run, name, extra):
    anonymous = Client()
    url = reverse(name, args=[shared_run.pk, *extra])
    assert anonymous.get(url).status_code == 404
    wrong = "00000000-0000-0000-0000-000000000000"
    assert anonymous.get(url, {"share": wrong}).status_code == 404
    assert anonymous.get(url, {"share": "not-a-uuid"}).status_code == 404
    token = str(shared_run.cluster.share_token)
    assert anonymous.get(url, {"share": token}).status_code == 200


@pytest.mark.django_db
def test_the_share_token_stops_working_when_sharing_stops(shared_run, user):
    token = str(shared_run.cluster.share_token)
    services.cluster_set_sharing(cluster=shared_run.cluster, user=user, shared=False)
    url = reverse("playground:run_events", args=[shared_run.pk])
    assert Client().get(url, {"share": token}).status_code == 404


@pytest.mark.django_db
def test_a_private_profile_is_not_named_to_others(shared_run, alice_client):
    token = str(shared_run.cluster.share_token)
    page = Client().get(reverse("playground:run", args=[shared_run.pk]), {"share": token})
    body = page.content.decode()
    assert "alice-secret-profile" not in body and "a private profile" in body
    assert f'"share": "{token}"' in body  # the page's own requests carry the token
    own = alice_client.get(reverse("playground:run", args=[shared_run.pk])).content.decode()
    assert "alice-secret-profile" in own and f"?share={token}" in own  # the owner's share link


@pytest.mark.django_db
def test_demo_cluster_run_of_a_users_private_profile_is_theirs(
    user, django_capture_on_commit_callbacks
):
    demo_load()
    # Named, not the first by name: "Approval gate" sorts first, and its pods wait at Permit for
    # an answer nobody gives here (two minutes of timeouts, nothing more asserted).
    demo = services.Cluster.objects.get(is_demo=True, name="Three zones")
    profile = profile_services.profile_create(owner=user, name="my-private-one", config={})
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=demo, profile=profile)
    assert Client().get(reverse("playground:run", args=[run.pk])).status_code == 404
    demo_profile = Profile.objects.get(is_demo=True, name="Default")
    with django_capture_on_commit_callbacks(execute=True):
        run = runs.run_start(user=user, cluster=demo, profile=demo_profile)
    body = Client().get(reverse("playground:run", args=[run.pk])).content.decode()
    assert demo_profile.name in body


# --- the websocket -----------------------------------------------------------------------------


def _communicator(run_id, user, query=""):
    communicator = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/runs/{run_ref(run_id)}/{query}"
    )
    communicator.scope["user"] = user
    return communicator


async def _drain(communicator):
    while True:
        message = await communicator.receive_json_from(timeout=5)
        if message["kind"] == "finished":
            return


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_websocket_of_a_shared_run_needs_the_token(shared_run):
    anonymous = AnonymousUser()
    refused = _communicator(shared_run.pk, anonymous)
    assert not (await refused.connect())[0]
    token = await sync_to_async(lambda: str(shared_run.cluster.share_token))()
    allowed = _communicator(shared_run.pk, anonymous, f"?share={token}")
    assert (await allowed.connect())[0]
    await _drain(allowed)
    await allowed.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("frame", "message"),
    [
        pytest.param("not json at all", "frames must be JSON", id="not-json"),
        pytest.param("x" * 5000, "at most 4096 characters", id="huge-frame"),
        pytest.param("[1, 2]", "no command", id="not-an-object"),
        pytest.param('{"command": "explode"}', "command must be one of", id="unknown-command"),
        pytest.param(
            json.dumps({"command": "allow", "pod": "default/" + "p" * 600}),
            "pod may be at most 317 characters",
            id="long-pod",
        ),
        pytest.param('{"command": "allow", "pod": 5}', "pod must be a string", id="pod-type"),
        pytest.param('{"command": "cancel", "x": 1}', "unknown field", id="extra-field"),
    ],
)
async def test_bad_frames_get_an_error_reply_and_the_connection_stays(
    shared_run, user, frame, message
):
    communicator = _communicator(shared_run.pk, user)
    assert (await communicator.connect())[0]
    await _drain(communicator)
    await communicator.send_to(text_data=frame)
    reply = await communicator.receive_json_from(timeout=5)
    assert reply["kind"] == "error" and message in reply["message"]
    await communicator.send_to(text_data='{"command": "explode"}')  # still answering
    assert (await communicator.receive_json_from(timeout=5))["kind"] == "error"
    await communicator.disconnect()
    assert await sync_to_async(RunCommand.objects.count)() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_commands_are_rate_limited(shared_run, user, settings):
    settings.WS_FRAMES_BURST, settings.WS_FRAMES_PER_SECOND = 3, 0.001
    communicator = _communicator(shared_run.pk, user)
    assert (await communicator.connect())[0]
    await _drain(communicator)
    replies = []
    for _ in range(5):
        await communicator.send_json_to({"command": "allow", "pod": "default/a"})
        replies.append(await communicator.receive_json_from(timeout=5))
    # The run has finished, so the first three are refused by the run; the rest by the limit.
    assert ["Too many messages" in r["message"] for r in replies] == [False] * 3 + [True] * 2
    await communicator.disconnect()


@pytest.mark.django_db
def test_http_permit_refuses_an_overlong_pod_name(alice_client, shared_run):
    response = alice_client.post(
        reverse("playground:run_permit", args=[shared_run.pk]),
        {"pod": "default/" + "p" * 600, "decision": "allow"},
    )
    assert response.status_code == 409 and "at most 317" in response.json()["error"]
