"""Bad input is a 4xx or a form error naming the field, never a 500: manifests of the wrong
shape, numbers out of range in query strings, and websocket paths that name no run."""

from __future__ import annotations

import pytest
from builders import record_run
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from playground.clusters import services
from playground.models import Cluster, Pod, Profile
from playground.params import MAX_ID, bounded_int
from playground.runs.routing import websocket_urlpatterns
from playground.services import demo_load

HUGE = "99999999999999999999"


@pytest.mark.parametrize(
    ("value", "default", "low", "high", "expected"),
    [
        (None, 7, 0, 10, 7),
        ("", 7, 0, 10, 7),
        ("abc", 7, 0, 10, 7),
        ("1e3", 7, 0, 10, 7),
        ("9" * 5000, 7, 0, 10, 7),  # past Python's digit limit: not an integer
        (" 4 ", 7, 0, 10, 4),
        ("-3", 7, -1, 10, -1),
        (HUGE, 7, 0, 10, 10),
        (HUGE, 7, -1, MAX_ID, MAX_ID),
    ],
)
def test_bounded_int_is_the_default_or_within_its_bounds(value, default, low, high, expected):
    assert bounded_int(value, default, low=low, high=high) == expected


# --- manifests of the wrong shape ---------------------------------------------------------------

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("spec: {containers: 5}", "spec.containers: must be a list"),
        ("spec: {containers: [5]}", "spec.containers[0]: must be a mapping"),
        ("spec: {containers: [{name: c, resources: 5}]}", "spec.containers[0].resources: must"),
        ("spec: {initContainers: x, containers: [{name: c}]}", "spec.initContainers: must be"),
    ],
)
def test_a_pod_of_the_wrong_shape_is_a_form_error(alice_client, user, spec, message):
    cluster = services.cluster_create(owner=user, name="c")
    response = alice_client.post(
        reverse("playground:cluster_import", args=[cluster.pk]), {"manifests": POD + spec}
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Pod.objects.exists()


# --- numbers in query strings -------------------------------------------------------------------


@pytest.fixture
def recorded(db):
    demo_load()
    cluster, profile = Cluster.objects.get(name="Three zones"), Profile.objects.get(name="Default")
    run, _, events = record_run(cluster, profile)
    return run


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "offset", "shown"),
    [
        ({"offset": HUGE}, 10**9, 0),
        ({"offset": "-" + HUGE}, 0, 6),
        ({"offset": "x", "limit": HUGE}, 0, 6),
        ({"offset": "2", "limit": "-" + HUGE}, 2, 1),
    ],
)
def test_cycles_json_clamps_its_numbers(client, recorded, query, offset, shown):
    response = client.get(reverse("playground:run_cycles", args=[recorded.pk]), query)
    assert response.status_code == 200
    body = response.json()
    assert body["offset"] == offset and body["count"] == 6 and len(body["cycles"]) == shown


@pytest.mark.django_db
@pytest.mark.parametrize(("after", "count"), [(HUGE, 0), ("-" + HUGE, None), ("seq", None)])
def test_events_json_clamps_after(client, recorded, after, count):
    response = client.get(reverse("playground:run_events", args=[recorded.pk]), {"after": after})
    assert response.status_code == 200
    everything = client.get(reverse("playground:run_events", args=[recorded.pk])).json()
    expected = everything["messages"] if count is None else []
    assert response.json()["messages"] == expected


@pytest.mark.django_db
def test_cycle_json_clamps_its_page_numbers(client, recorded):
    url = reverse("playground:run_cycle", args=[recorded.pk, 2])
    response = client.get(url, {"fpage": HUGE, "spage": "-" + HUGE, "top": HUGE, "size": "x"})
    assert response.status_code == 200


@pytest.mark.django_db
def test_starting_a_run_with_a_huge_profile_id_is_a_404(alice_client, user):
    cluster = services.cluster_create(owner=user, name="c")
    response = alice_client.post(
        reverse("playground:run_new", args=[cluster.pk]), {"profile": HUGE}
    )
    assert response.status_code == 404


# --- the websocket handshake --------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "path",
    [
        "/ws/runs/abc/",
        "/ws/runs/12/",
        f"/ws/runs/{HUGE}.0123456789abcdef0123/",  # forged: the signature is not the run's
        "/ws/runs/1.0123456789abcdef0123/extra/",
        "/ws/elsewhere/",
        "/",
    ],
)
async def test_a_websocket_path_that_names_no_run_is_refused_cleanly(path):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 4404)
    await communicator.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_forged_reference_through_the_whole_stack_is_refused():
    from config.asgi import application

    communicator = WebsocketCommunicator(
        application,
        "/ws/runs/1.ffffffffffffffffffff/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    assert (await communicator.connect())[0] is False
    await communicator.disconnect()


@pytest.mark.asyncio
@pytest.mark.parametrize("frame", ["[" * 4000, '{"command": ' + "[" * 3000 + "}"])
async def test_a_frame_nested_too_deeply_gets_an_error_reply(frame):
    from playground.runs.consumers import RunConsumer

    consumer = RunConsumer()
    consumer.run_id = 1
    sent = []

    async def send_json(content, close=False):
        sent.append(content)

    consumer.send_json = send_json
    await consumer.receive(text_data=frame)
    assert sent == [{"kind": "error", "run": 1, "message": "frames must be JSON"}]


def test_a_change_step_nested_too_deeply_is_refused():
    from playground.runs import services as run_services

    with pytest.raises(run_services.RunCommandRefused, match="step: not JSON"):
        run_services.run_command(run_id=1, command={"command": "change", "step": "[" * 3000})


@pytest.mark.django_db
@pytest.mark.parametrize(("step", "shown"), [(HUGE, "last"), ("-" + HUGE, 1), ("two", 1)])
def test_a_lesson_step_out_of_range_shows_the_nearest_step(client, step, shown):
    from playground.lessons.loader import course

    lesson = course()[0]
    response = client.get(reverse("playground:lesson", args=[lesson.slug]), {"step": step})
    assert response.status_code == 200
    expected = len(lesson.steps) if shown == "last" else shown
    assert response.context["step"] == expected
