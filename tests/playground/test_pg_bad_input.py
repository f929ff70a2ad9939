"""Bad input is a 4xx or a form error naming the field, never a 500: manifests of the wrong
shape, numbers out of range in query strings, and websocket paths that name no run."""

from __future__ import annotations

import pytest
from builders import record_run
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from playground.clusters import services
from playground.demo import demo_load
from playground.inputs.params import MAX_ID, bounded_int
from playground.models import Cluster, Pod, Profile
from playground.routing import websocket_urlpatterns

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
    from playground import throttle
    from playground.runs.live.consumers import RunConsumer

    consumer = RunConsumer()
    consumer.run_id = 1
    # What __call__ and connect set up: no server below (a test's call), an anonymous owner.
    consumer.link = throttle.SocketLink(None, None)
    consumer.guard = throttle.FrameGuard("address:127.0.0.1")
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


# --- the profile editor, its live preview and the import page (security issue 39, LOW) ----------

V1_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _one(plugin: str, args: str) -> str:
    return f"profiles: [{{schedulerName: a, pluginConfig: [{{name: {plugin}, args: {args}}}]}}]"


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ("profiles: 5", "profiles"),
        ("profiles: {a: 1}", "profiles"),
        ("profiles: [5]", "profiles[0]"),
        ("profiles: [{schedulerName: a, plugins: {score: 5}}]", "profiles[0].plugins.score"),
        (
            "profiles: [{schedulerName: a, plugins: {score: {enabled: 5}}}]",
            "profiles[0].plugins.score.enabled",
        ),
        (
            "profiles: [{schedulerName: a, plugins: {score: {enabled: [5]}}}]",
            "profiles[0].plugins.score.enabled[0]",
        ),
        (
            "profiles: [{schedulerName: a, plugins: {score: {enabled: [{name: [1]}]}}}]",
            "profiles[0].plugins.score.enabled[0].name",
        ),
        ("profiles: [{schedulerName: a, pluginConfig: 5}]", "profiles[0].pluginConfig"),
        ("profiles: [{schedulerName: a, pluginConfig: [5]}]", "profiles[0].pluginConfig[0]"),
        (_one("NodeResourcesFit", "5"), "profiles[0].pluginConfig[0].args"),
        (
            _one("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, resources: [5]}}"),
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0]",
        ),
        (
            _one("NodeResourcesFit", "{scoringStrategy: {resources: 5}}"),
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources",
        ),
        (
            _one("PodTopologySpread", "{defaultConstraints: 5}"),
            "profiles[0].pluginConfig[0].args.defaultConstraints",
        ),
        (
            _one("PodTopologySpread", "{defaultConstraints: [{labelSelector: 5}]}"),
            "profiles[0].pluginConfig[0].args.defaultConstraints[0].labelSelector",
        ),
        (
            _one("NodeAffinity", "{addedAffinity: 5}"),
            "profiles[0].pluginConfig[0].args.addedAffinity",
        ),
        (
            _one(
                "NodeAffinity",
                "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "{nodeSelectorTerms: [{matchExpressions: [5]}]}}}",
            ),
            "profiles[0].pluginConfig[0].args.addedAffinity."
            "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
            ".matchExpressions[0]",
        ),
    ],
)
def test_a_configuration_of_the_wrong_shape_is_a_problem_on_every_editor_path(
    alice_client, body, path
):
    """Found by tests/fuzz/test_fuzz_profile_editor.py: each of these was a 500 on the live
    preview, the editor's save (YAML pane, or the hidden copy under the form) or both."""
    from test_pg_views import _profile_post

    text = V1_HEAD + body
    preview = alice_client.post(
        reverse("playground:profile_effective"), _profile_post(mode="yaml", config_yaml=text)
    )
    assert preview.status_code == 200
    assert not preview.json()["ok"]
    assert path in [p["path"] for p in preview.json()["problems"]]
    for mode in ("yaml", "form"):
        data = _profile_post(mode=mode, config_yaml=text)
        assert alice_client.post(reverse("playground:profile_effective"), data).status_code == 200
        page = alice_client.post(reverse("playground:profile_new"), data)
        assert page.status_code in (200, 302)
        if mode == "yaml":
            assert page.status_code == 200 and path in page.content.decode()
    imported = alice_client.post(
        reverse("playground:profile_import"), {"name": "x", "source": text, "action": "save"}
    )
    assert imported.status_code == 200
    assert Profile.objects.filter(name="x").count() == 0


def test_an_integer_past_pythons_digit_limit_is_a_yaml_problem_on_the_import_page(alice_client):
    """Found by the fuzzing: ``a: 999...`` (5,000 digits) was a ValueError, a 500."""
    response = alice_client.post(
        reverse("playground:profile_import"),
        {"source": V1_HEAD + "parallelism: " + "9" * 5000, "action": "preview"},
    )
    assert response.status_code == 200
    assert "line 3" in response.content.decode()
    assert "an integer of more than 4,300 digits" in response.content.decode()
