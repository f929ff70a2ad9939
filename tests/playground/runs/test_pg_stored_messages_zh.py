"""What the run worker writes (in English, without a visitor's language) is read in the reader's
language: a stopped run's reason, a pending run's waiting reason, the finished frame of the
websocket; the stored English text stays as it was, and an old run's text is shown as stored."""

from __future__ import annotations

import pytest
import yaml
from asgiref.sync import sync_to_async
from builders import make_node, make_pod
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_noop
from test_pg_run_limits import _queued, _running, _waits
from test_pg_run_outcome import _run, _setup

from playground.clusters import services
from playground.models import Run
from playground.profiles import services as profile_services
from playground.routing import websocket_urlpatterns
from playground.runs import services as runs
from playground.runs.execution.outcome import REPEATED_ERROR_CYCLES, ErrorTally
from playground.runs.live.stream import finished_message
from playground.runs.refs import run_ref
from playground.runs.said import Said, envelope_shown, shown

ZH = "zh-CN,zh;q=0.9"
ENGINE = "custom plugin MyFilter filter expression: no such key: nope"  # upstream's English
ENGLISH = (
    f"stopped after {REPEATED_ERROR_CYCLES} cycles: 0 of 3 pods bound, every cycle ended in "
    f"an Error from MyFilter: {ENGINE}"
)
CHINESE = (
    f"运行了 {REPEATED_ERROR_CYCLES} 个周期后停止：3 个 Pod 中有 0 个已绑定，"
    f"每个周期的结果都是来自 MyFilter 的 Error：{ENGINE}"
)


def _page(client, run, language):
    url = reverse("playground:run", args=[run.pk])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def _events(client, run, language):
    url = reverse("playground:run_events", args=[run.pk])
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).json()


@pytest.mark.django_db
def test_a_run_stopped_after_repeated_errors_says_why_in_the_readers_language(
    user, alice_client, django_capture_on_commit_callbacks
):
    cluster, profile = _setup(user, 'node.labels["nope"] == "x"')
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    assert run.status == Run.Status.FAILED
    assert run.error_message == ENGLISH  # stored as before: tests, the CLI and logs read it

    page = _page(alice_client, run, ZH)
    assert f'<p id="run-error" class="errorlist">{CHINESE}</p>' in page
    assert _events(alice_client, run, ZH)["error"] == CHINESE

    page = _page(alice_client, run, "en")
    assert f'<p id="run-error" class="errorlist">{ENGLISH}</p>' in page
    assert _events(alice_client, run, "en")["error"] == ENGLISH
    run.refresh_from_db()
    assert run.error_message == ENGLISH


@pytest.mark.django_db
def test_a_pending_runs_waiting_reason_is_in_the_readers_language(
    user, other_user, alice_client, monkeypatch, settings
):
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 2
    bobs_cluster = services.cluster_create(owner=other_user, name="b")
    bobs_profile = profile_services.profile_create(owner=other_user, name="p", config={})
    for _ in range(2):
        _running(_queued(other_user, bobs_cluster, bobs_profile, monkeypatch))
    cluster = services.cluster_create(owner=user, name="mine")
    profile = profile_services.profile_create(owner=user, name="plain", config={})
    mine = _queued(user, cluster, profile, monkeypatch)
    english = "waiting for a free runner: all 2 runners are busy"
    _waits(mine, english)
    assert mine.summary["waiting"] == english

    page = _page(alice_client, mine, ZH)
    assert "正在等待空闲的执行器：全部 2 个执行器都在忙：其中一个结束后它就会开始。" in page
    assert (
        _events(alice_client, mine, ZH)["waiting"] == "正在等待空闲的执行器：全部 2 个执行器都在忙"
    )
    assert _events(alice_client, mine, "en")["waiting"] == english

    # Once it starts, the reason and its structured form are gone.
    settings.PLAYGROUND_EMBEDDED_RUNNERS = 3
    runs.run_execute(run_id=mine.pk)
    mine.refresh_from_db()
    assert mine.status == Run.Status.SUCCEEDED
    assert "waiting" not in mine.summary and "waiting" not in mine.summary.get("said", {})


@pytest.mark.django_db
def test_an_old_run_with_only_the_text_shows_the_text(
    user, alice_client, django_capture_on_commit_callbacks
):
    cluster, profile = _setup(user, 'node.labels["nope"] == "x"')
    run = _run(django_capture_on_commit_callbacks, user, cluster, profile)
    said = run.summary["said"]
    old = {k: v for k, v in run.summary.items() if k != "said"}
    Run.objects.filter(pk=run.pk).update(summary=old)  # a run stored before msgids were kept
    assert f'<p id="run-error" class="errorlist">{ENGLISH}</p>' in _page(alice_client, run, ZH)
    assert _events(alice_client, run, ZH)["error"] == ENGLISH

    # A structured form that does not say what the stored text says is not used either.
    Run.objects.filter(pk=run.pk).update(error_message="edited by hand", summary=run.summary)
    assert _events(alice_client, run, ZH)["error"] == "edited by hand"
    assert said["error"]["params"]["source"]["params"]["message"] == ENGINE


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_finished_frame_is_in_each_readers_language(user):
    cluster = await sync_to_async(services.cluster_create)(owner=user, name="c")
    await sync_to_async(services.cluster_import_yaml)(
        cluster=cluster, user=user, text=yaml.safe_dump_all([make_node("n1"), make_pod("a")])
    )
    profile = await sync_to_async(profile_services.profile_create)(owner=user, name="p", config={})

    def start():
        from unittest import mock

        with mock.patch("playground.runs.services.transaction.on_commit", lambda fn: None):
            return runs.run_start(user=user, cluster=cluster, profile=profile)

    run = await sync_to_async(start)()
    readers = {}
    for language in (ZH, "en"):
        communicator = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns),
            f"/ws/runs/{run_ref(run.pk)}/",
            headers=[(b"accept-language", language.encode())],
        )
        communicator.scope["user"] = user
        assert (await communicator.connect())[0]
        readers[language] = communicator
    # The worker's side: the run is failed and one frame is broadcast to the run's group.
    assert await sync_to_async(runs.run_recover_stale)() == 1
    said = {}
    for language, reader in readers.items():
        while (frame := await reader.receive_json_from(timeout=5))["kind"] != "finished":
            pass
        said[language] = frame["error"]
        assert "said" not in frame
        await reader.disconnect()
    assert said == {
        ZH: "服务器在运行结束前停止了",
        "en": "the server stopped before the run finished",
    }
    stored = await sync_to_async(Run.objects.get)(pk=run.pk)
    assert stored.error_message == "the server stopped before the run finished"

    # A reader who connects after the end gets the stored frame, in their language too.
    late = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns),
        f"/ws/runs/{run_ref(run.pk)}/",
        headers=[(b"accept-language", ZH.encode())],
    )
    late.scope["user"] = user
    assert (await late.connect())[0]
    while (frame := await late.receive_json_from(timeout=5))["kind"] != "finished":
        pass
    assert frame["error"] == "服务器在运行结束前停止了"
    await late.disconnect()


def test_a_note_of_several_sentences_is_joined_in_the_readers_language():
    tally = ErrorTally()
    tally.cycles, tally.errored, tally.message = 9, 3, 'running "F" filter plugin: boom'
    note = Said.joined(
        [Said(gettext_noop("stopped after %(cycles)s cycles"), cycles=9), tally.note()]
    )
    english = (
        "stopped after 9 cycles; 3 of 9 cycles ended in an Error; the last was an Error from F: "
        "boom"
    )
    assert note == english and shown(note, note.data) == english
    chinese = (
        "运行了 9 个周期后停止；9 个周期中有 3 个以 Error 结束；最后一个是来自 F 的 Error：boom"
    )
    with translation.override("zh-hans"):
        assert shown(note, note.data) == chinese
        # A succeeded run's finished frame, as a consumer relays it to a reader of Chinese.
        frame = envelope_shown(
            finished_message(
                1,
                seq=5,
                status="succeeded",
                summary={"total": 1, "note": note},
                said={"note": note.data},
            )
        )
    assert frame == {
        "kind": "finished",
        "run": 1,
        "seq": 5,
        "status": "succeeded",
        "summary": {"total": 1, "note": chinese},
    }
